// RUN: txc-opt %s --split-input-file --txc-workspace | FileCheck %s

// Two static temporaries whose lifetimes do not overlap share the bytes of
// one workspace, the kernel's new last argument. The allocation whose size
// is an index argument (a symbol) comes after the static part, at an offset
// computed at the entry; the workspace's size then depends on the symbols
// (memref<?xi8>), and a size function computes it: the static part plus
// the dynamic buffer rounded up to 64. The module records the static part
// and the size function for the entry points and the manifest.
// CHECK:       module attributes {txc.workspace_bytes = 16384 : i64, txc.workspace_size_function = @disjoint.workspace_size}
// CHECK-LABEL: func.func private @disjoint.workspace_size(%arg0: index) -> index
// CHECK-DAG:     %[[STATIC:.*]] = arith.constant 16384 : index
// CHECK-DAG:     %[[C63:.*]] = arith.constant 63 : index
// CHECK-DAG:     %[[MASK:.*]] = arith.constant -64 : index
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK:         %[[BYTES:.*]] = arith.muli %[[C4]], %arg0 : index
// CHECK-NEXT:    %[[UP:.*]] = arith.addi %[[BYTES]], %[[C63]] : index
// CHECK-NEXT:    %[[ALIGNED:.*]] = arith.andi %[[UP]], %[[MASK]] : index
// CHECK-NEXT:    %[[END:.*]] = arith.addi %[[STATIC]], %[[ALIGNED]] : index
// CHECK-NEXT:    %[[TOTAL:.*]] = arith.maxui %[[STATIC]], %[[END]] : index
// CHECK-NEXT:    return %[[TOTAL]] : index
// CHECK-LABEL: func.func @disjoint
// CHECK-SAME:    %[[N:[^ ]*]]: index, %[[WS:[^ ]*]]: memref<?xi8>)
// CHECK:         %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    memref.view %[[WS]][%[[C0]]][] : memref<?xi8> to memref<64x64xf32>
// CHECK:         %[[C0B:.*]] = arith.constant 0 : index
// CHECK-NEXT:    memref.view %[[WS]][%[[C0B]]][] : memref<?xi8> to memref<32x64xf32>
// CHECK:         memref.view %[[WS]][%{{.*}}][%[[N]]] : memref<?xi8> to memref<?xf32>
// CHECK-NOT:     memref.alloc
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

// Overlapping lifetimes: the second buffer is placed after the first. A
// static workspace has a static type and no size function.
// CHECK:       module attributes {txc.workspace_bytes = 24576 : i64}
// CHECK-NOT:   workspace_size
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

// -----

// Dynamic buffers in program order: %b overlaps %a and goes after it; %c
// overlaps only %b and goes after %b's end; the total is the largest end.
// CHECK-LABEL: func.func private @chain.workspace_size(%arg0: index, %arg1: index) -> index
// CHECK-LABEL: func.func @chain
// CHECK-SAME:    %[[M:[^ ]*]]: index, %[[N:[^ ]*]]: index, %{{[^ ]*}}: memref<f32>, %[[WS:[^ ]*]]: memref<?xi8>)
// CHECK:         %[[ZERO:.*]] = arith.constant 0 : index
// CHECK:         %[[BEND:.*]] = arith.addi %[[BOFF:[0-9]+]], %{{[0-9]+}} : index
// CHECK:         %[[COFF:.*]] = arith.maxui %[[ZERO]], %[[BEND]] : index
// CHECK:         memref.view %[[WS]][%[[ZERO]]][%[[M]]] : memref<?xi8> to memref<?x16xf32>
// CHECK:         memref.view %[[WS]][%[[BOFF]]][%[[N]], %[[M]]] : memref<?xi8> to memref<?x?xf32>
// CHECK:         memref.view %[[WS]][%[[COFF]]][%{{.*}}] : memref<?xi8> to memref<?xf64>
func.func @chain(%m: index, %n: index, %out: memref<f32>) {
  %c0 = arith.constant 0 : index
  %a = memref.alloc(%m) {alignment = 64 : i64} : memref<?x16xf32>
  %b = memref.alloc(%n, %m) {alignment = 64 : i64} : memref<?x?xf32>
  %x = memref.load %a[%c0, %c0] : memref<?x16xf32>
  memref.store %x, %b[%c0, %c0] : memref<?x?xf32>
  %mn = arith.muli %m, %n : index
  %c = memref.alloc(%mn) {alignment = 64 : i64} : memref<?xf64>
  %y = memref.load %b[%c0, %c0] : memref<?x?xf32>
  memref.store %y, %out[] : memref<f32>
  memref.store %y, %out[] : memref<f32>
  %z = memref.load %c[%c0] : memref<?xf64>
  return
}

// -----

// A buffer inside a loop whose size has a constant upper bound (a tile's
// remainder, at most 6 rows of 8 f32) becomes a view of one buffer of the
// bound's size (192 bytes) before the loop, which the workspace holds. One
// whose size is not bounded, one kept past its iteration (yielded) and one
// sized by a tensor's descriptor stay allocations; the loop's initial state,
// of a constant size, is a dynamic buffer after the static part.
// CHECK:       module attributes {txc.workspace_bytes = 192 : i64, txc.workspace_size_function = @loops.workspace_size}
// CHECK-LABEL: func.func @loops
// CHECK-SAME:    %[[WS:[^ ]*]]: memref<?xi8>)
// CHECK:         %[[HOISTED:.*]] = memref.view %[[WS]][%{{.*}}][] : memref<?xi8> to memref<192xi8>
// CHECK:         scf.for
// CHECK:           %[[ROWS:.*]] = affine.min
// CHECK:           memref.view %[[HOISTED]][%{{.*}}][%[[ROWS]]] : memref<192xi8> to memref<?x8xf32>
// CHECK:           memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK:         %[[INIT:.*]] = memref.view %[[WS]][%{{.*}}][%{{.*}}] : memref<?xi8> to memref<?xf32>
// CHECK:         scf.for {{.*}} iter_args(%{{.*}} = %[[INIT]])
// CHECK:           memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK:         memref.dim
// CHECK-NEXT:    memref.alloc(%{{.*}}) : memref<?xf32>
#rows = affine_map<(d0)[s0] -> (6, s0 - d0)>
func.func @loops(%n: index, %t: memref<?xf32>, %out: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %f = arith.constant 0.0 : f32
  scf.for %i = %c0 to %n step %c6 {
    %rows = affine.min #rows(%i)[%n]
    %tile = memref.alloc(%rows) {alignment = 64 : i64} : memref<?x8xf32>
    memref.store %f, %tile[%c0, %c0] : memref<?x8xf32>
    %x = memref.load %tile[%c0, %c0] : memref<?x8xf32>
    memref.store %x, %out[] : memref<f32>
    %unbounded = memref.alloc(%i) : memref<?xf32>
    memref.store %f, %unbounded[%c0] : memref<?xf32>
  }
  %init = memref.alloc(%c1) : memref<?xf32>
  %last = scf.for %i = %c0 to %n step %c1 iter_args(%state = %init) -> memref<?xf32> {
    %next = memref.alloc(%c1) : memref<?xf32>
    scf.yield %next : memref<?xf32>
  }
  %dim = memref.dim %t, %c0 : memref<?xf32>
  %padded = memref.alloc(%dim) : memref<?xf32>
  memref.store %f, %padded[%c0] : memref<?xf32>
  return
}

// -----

// A buffer sized by the dims of an argument whose dims MLIRGen recorded as
// expressions of the symbols (txc.dims; the guards checked the caller's
// tensor against them): the padded copy of an input [B, 2*S+1] is a dynamic
// buffer of the workspace. The size function computes the dims from the
// symbols; the kernel computes the offsets from them at its entry and keeps
// the descriptor's dims for the view. The second dim of an argument
// without txc.dims stays malloc.
// CHECK-LABEL: func.func private @padded.workspace_size(%arg0: index, %arg1: index) -> index
// CHECK-NOT:     memref.dim
// CHECK:         arith.addi %arg0, %{{.*}} : index
// CHECK-NOT:     memref.dim
// CHECK:         %[[TWICE:.*]] = arith.muli %arg1, %{{.*}} : index
// CHECK-NOT:     memref.dim
// CHECK:         arith.addi %[[TWICE]], %{{.*}} : index
// CHECK-NOT:     memref.dim
// CHECK:         return
// CHECK-LABEL: func.func @padded
// CHECK-SAME:    %[[X:[^ ]*]]: memref<?x?xf32> {txc.dims = {{.*}}}, %[[Y:[^ ]*]]: memref<?xf32>, %[[WS:[^ ]*]]: memref<?xi8>)
// CHECK:         %[[D0:.*]] = memref.dim %[[X]], %{{.*}} : memref<?x?xf32>
// CHECK:         %[[D1:.*]] = memref.dim %[[X]], %{{.*}} : memref<?x?xf32>
// CHECK:         %[[ROWS:.*]] = arith.addi %[[D0]], %{{.*}} : index
// CHECK:         %[[COLS:.*]] = arith.addi %[[D1]], %{{.*}} : index
// CHECK:         memref.view %[[WS]][%{{.*}}][%[[ROWS]], %[[COLS]]] : memref<?xi8> to memref<?x?xf32>
// CHECK:         %[[N:.*]] = memref.dim %[[Y]]
// CHECK-NEXT:    memref.alloc(%[[N]]) : memref<?xf32>
func.func @padded(%b: index, %s: index,
                  %x: memref<?x?xf32> {txc.dims = affine_map<()[s0, s1] -> (s0, s1 * 2 + 1)>},
                  %y: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %f = arith.constant 0.0 : f32
  %d0 = memref.dim %x, %c0 : memref<?x?xf32>
  %d1 = memref.dim %x, %c1 : memref<?x?xf32>
  %rows = arith.addi %d0, %c2 : index
  %cols = arith.addi %d1, %c2 : index
  %a = memref.alloc(%rows, %cols) {alignment = 64 : i64} : memref<?x?xf32>
  memref.store %f, %a[%c0, %c0] : memref<?x?xf32>
  %n = memref.dim %y, %c0 : memref<?xf32>
  %other = memref.alloc(%n) : memref<?xf32>
  memref.store %f, %other[%c0] : memref<?xf32>
  return
}
