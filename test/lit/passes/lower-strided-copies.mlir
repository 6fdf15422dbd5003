// RUN: txc-opt %s --txc-lower-strided-copies | FileCheck %s

// A copy between strided views becomes linalg.copy (loops, no call of MLIR's
// runtime memrefCopy); a contiguous copy stays memref.copy (memcpy).
// CHECK-LABEL: func.func @copies
// CHECK:         linalg.copy ins(%{{.*}} : memref<4x4xf32, strided<[8, 1]>>) outs(%{{.*}} : memref<4x4xf32>)
// CHECK:         memref.copy %{{.*}}, %{{.*}} : memref<4x4xf32> to memref<4x4xf32>
// CHECK-NOT:     memref.copy
func.func @copies(%big: memref<8x8xf32>, %small: memref<4x4xf32>, %other: memref<4x4xf32>) {
  %view = memref.subview %big[0, 0] [4, 4] [1, 1] : memref<8x8xf32> to memref<4x4xf32, strided<[8, 1]>>
  memref.copy %view, %small : memref<4x4xf32, strided<[8, 1]>> to memref<4x4xf32>
  memref.copy %small, %other : memref<4x4xf32> to memref<4x4xf32>
  return
}
