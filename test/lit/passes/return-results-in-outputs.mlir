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
