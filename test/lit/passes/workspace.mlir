// RUN: txc-opt %s --split-input-file --txc-workspace | FileCheck %s

// Two static temporaries whose lifetimes do not overlap share the bytes of
// one workspace, the kernel's new last argument; the allocation of dynamic
// shape keeps malloc. The module records the workspace size for the entry
// points and the manifest.
// CHECK:       module attributes {txc.workspace_bytes = 16384 : i64}
// CHECK-LABEL: func.func @disjoint
// CHECK-SAME:    %[[WS:[^ ]*]]: memref<16384xi8>)
// CHECK:         %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    memref.view %[[WS]][%[[C0]]][] : memref<16384xi8> to memref<64x64xf32>
// CHECK:         %[[C0B:.*]] = arith.constant 0 : index
// CHECK-NEXT:    memref.view %[[WS]][%[[C0B]]][] : memref<16384xi8> to memref<32x64xf32>
// CHECK:         memref.alloc(%{{.*}}) : memref<?xf32>
func.func @disjoint(%in: memref<64x64xf32>, %out: memref<64x64xf32>, %n: index) {
  %a = memref.alloc() {alignment = 64 : i64} : memref<64x64xf32>
  memref.copy %in, %a : memref<64x64xf32> to memref<64x64xf32>
  memref.copy %a, %out : memref<64x64xf32> to memref<64x64xf32>
  %b = memref.alloc() {alignment = 64 : i64} : memref<32x64xf32>
  %v = memref.subview %out[0, 0] [32, 64] [1, 1] : memref<64x64xf32> to memref<32x64xf32, strided<[64, 1]>>
  memref.copy %v, %b : memref<32x64xf32, strided<[64, 1]>> to memref<32x64xf32>
  %d = memref.alloc(%n) : memref<?xf32>
  return
}

// -----

// Overlapping lifetimes: the second buffer is placed after the first.
// CHECK:       module attributes {txc.workspace_bytes = 24576 : i64}
// CHECK-LABEL: func.func @overlapping
// CHECK:         %[[OFF:.*]] = arith.constant 16384 : index
// CHECK-NEXT:    memref.view %{{.*}}[%[[OFF]]][] : memref<24576xi8> to memref<32x64xf32>
func.func @overlapping(%in: memref<64x64xf32>, %out: memref<64x64xf32>) {
  %a = memref.alloc() {alignment = 64 : i64} : memref<64x64xf32>
  memref.copy %in, %a : memref<64x64xf32> to memref<64x64xf32>
  %b = memref.alloc() {alignment = 64 : i64} : memref<32x64xf32>
  %v = memref.subview %a[0, 0] [32, 64] [1, 1] : memref<64x64xf32> to memref<32x64xf32, strided<[64, 1]>>
  memref.copy %v, %b : memref<32x64xf32, strided<[64, 1]>> to memref<32x64xf32>
  memref.copy %a, %out : memref<64x64xf32> to memref<64x64xf32>
  return
}
