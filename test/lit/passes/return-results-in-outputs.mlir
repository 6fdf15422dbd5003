// RUN: txc-opt %s --txc-return-results-in-outputs | FileCheck %s

// After bufferization: the kernel returns nothing; a returned buffer that
// is not its output argument (the outputs are the last arguments, in result
// order) is copied into it, one that is stays as it is.
// CHECK-LABEL: func.func @kernel
// CHECK-SAME:    (%[[IN:.*]]: memref<8xf32>, %[[OUT0:.*]]: memref<8xf32>, %[[OUT1:.*]]: memref<8xf32>) {
// CHECK-NEXT:    memref.copy %[[IN]], %[[OUT0]] : memref<8xf32> to memref<8xf32>
// CHECK-NEXT:    return{{$}}
func.func @kernel(%in: memref<8xf32>, %out0: memref<8xf32>, %out1: memref<8xf32>)
    -> (memref<8xf32>, memref<8xf32>) {
  return %in, %out1 : memref<8xf32>, memref<8xf32>
}

// A region's function is treated the same; its calls then read their
// results from the output operands the callee wrote.
// CHECK-LABEL: func.func private @region0
// CHECK-SAME:    (%[[X:.*]]: memref<4xf32>, %[[DEST:.*]]: memref<4xf32>) {
// CHECK-NEXT:    memref.copy %[[X]], %[[DEST]]
// CHECK-NEXT:    return{{$}}
// CHECK-LABEL: func.func @kernel2
// CHECK-SAME:    (%[[IN:.*]]: memref<4xf32>, %[[OUT:.*]]: memref<4xf32>) {
// CHECK-NEXT:    %[[TMP:.*]] = memref.alloc
// CHECK-NEXT:    call @region0(%[[IN]], %[[TMP]]) : (memref<4xf32>, memref<4xf32>) -> (){{$}}
// CHECK-NEXT:    memref.copy %[[TMP]], %[[OUT]]
// CHECK-NEXT:    return{{$}}
func.func private @region0(%x: memref<4xf32>, %dest: memref<4xf32>) -> memref<4xf32> {
  return %x : memref<4xf32>
}

func.func @kernel2(%in: memref<4xf32>, %out: memref<4xf32>) -> memref<4xf32> {
  %tmp = memref.alloc() : memref<4xf32>
  %r = call @region0(%in, %tmp) : (memref<4xf32>, memref<4xf32>) -> memref<4xf32>
  return %r : memref<4xf32>
}
