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

// A returned buffer may be another output's: bufferization computed
// result 1 in output 0's buffer and result 0 elsewhere. Output 0 is read
// (copied into output 1) before it is overwritten, whatever the result
// order.
// CHECK-LABEL: func.func @other_output
// CHECK-SAME:    (%[[IN:.*]]: memref<8xf32>, %[[OUT0:.*]]: memref<8xf32>, %[[OUT1:.*]]: memref<8xf32>) {
// CHECK-NEXT:    memref.copy %[[OUT0]], %[[OUT1]] : memref<8xf32> to memref<8xf32>
// CHECK-NEXT:    memref.copy %[[IN]], %[[OUT0]] : memref<8xf32> to memref<8xf32>
// CHECK-NEXT:    return{{$}}
func.func @other_output(%in: memref<8xf32>, %out0: memref<8xf32>, %out1: memref<8xf32>)
    -> (memref<8xf32>, memref<8xf32>) {
  return %in, %out0 : memref<8xf32>, memref<8xf32>
}

// The same through a view.
// CHECK-LABEL: func.func @through_a_view
// CHECK-SAME:    (%[[IN:.*]]: memref<?xf32>, %[[OUT0:.*]]: memref<?xf32>, %[[OUT1:.*]]: memref<4x?xf32>) {
// CHECK:         %[[VIEW:.*]] = memref.expand_shape %[[OUT0]]
// CHECK-NEXT:    memref.copy %[[VIEW]], %[[OUT1]] : memref<4x?xf32> to memref<4x?xf32>
// CHECK-NEXT:    memref.copy %[[IN]], %[[OUT0]] : memref<?xf32> to memref<?xf32>
// CHECK-NEXT:    return{{$}}
func.func @through_a_view(%in: memref<?xf32>, %out0: memref<?xf32>, %out1: memref<4x?xf32>)
    -> (memref<?xf32>, memref<4x?xf32>) {
  %c1 = arith.constant 1 : index
  %n = memref.dim %out1, %c1 : memref<4x?xf32>
  %view = memref.expand_shape %out0 [[0, 1]] output_shape [4, %n] : memref<?xf32> into memref<4x?xf32>
  return %in, %view : memref<?xf32>, memref<4x?xf32>
}

// Each output's value in the other's buffer: a cycle, broken by a
// temporary copy of the first.
// CHECK-LABEL: func.func @swapped
// CHECK-SAME:    (%[[OUT0:.*]]: memref<?xf32>, %[[OUT1:.*]]: memref<?xf32>) {
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[N:.*]] = memref.dim %[[OUT1]], %[[C0]] : memref<?xf32>
// CHECK-NEXT:    %[[TEMP:.*]] = memref.alloc(%[[N]]) : memref<?xf32>
// CHECK-NEXT:    memref.copy %[[OUT1]], %[[TEMP]] : memref<?xf32> to memref<?xf32>
// CHECK-NEXT:    memref.copy %[[OUT0]], %[[OUT1]] : memref<?xf32> to memref<?xf32>
// CHECK-NEXT:    memref.copy %[[TEMP]], %[[OUT0]] : memref<?xf32> to memref<?xf32>
// CHECK-NEXT:    return{{$}}
func.func @swapped(%out0: memref<?xf32>, %out1: memref<?xf32>)
    -> (memref<?xf32>, memref<?xf32>) {
  return %out1, %out0 : memref<?xf32>, memref<?xf32>
}
