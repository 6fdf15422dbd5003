// RUN: txc-opt %s --split-input-file --txc-outline-loops | FileCheck %s

// A kernel with more than 16 top-level loop nests: each nest becomes a
// private, internal function LLVM must not inline back, called in order
// (from the scf.execute_region that the canonicalizer removes next).
// CHECK-LABEL: func.func private @many_nest0(
// CHECK-SAME:    attributes {llvm.linkage = #llvm.linkage<internal>, passthrough = ["noinline"]}
// CHECK-NEXT:    arith.constant
// CHECK-NEXT:    arith.constant
// CHECK-NEXT:    scf.for
// CHECK-NEXT:      memref.store
// CHECK:       func.func private @many_nest16(
// CHECK-LABEL: func.func @many(
// CHECK-NOT:     scf.for
// CHECK:         call @many_nest0(
// CHECK-COUNT-15: call @many_nest{{[0-9]+}}(
// CHECK:         call @many_nest16(
// CHECK:         return
func.func @many(%m: memref<?xf32>, %n: index, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i0 = %c0 to %n step %c1 { memref.store %v, %m[%i0] : memref<?xf32> }
  scf.for %i1 = %c0 to %n step %c1 { memref.store %v, %m[%i1] : memref<?xf32> }
  scf.for %i2 = %c0 to %n step %c1 { memref.store %v, %m[%i2] : memref<?xf32> }
  scf.for %i3 = %c0 to %n step %c1 { memref.store %v, %m[%i3] : memref<?xf32> }
  scf.for %i4 = %c0 to %n step %c1 { memref.store %v, %m[%i4] : memref<?xf32> }
  scf.for %i5 = %c0 to %n step %c1 { memref.store %v, %m[%i5] : memref<?xf32> }
  scf.for %i6 = %c0 to %n step %c1 { memref.store %v, %m[%i6] : memref<?xf32> }
  scf.for %i7 = %c0 to %n step %c1 { memref.store %v, %m[%i7] : memref<?xf32> }
  scf.for %i8 = %c0 to %n step %c1 { memref.store %v, %m[%i8] : memref<?xf32> }
  scf.for %i9 = %c0 to %n step %c1 { memref.store %v, %m[%i9] : memref<?xf32> }
  scf.for %i10 = %c0 to %n step %c1 { memref.store %v, %m[%i10] : memref<?xf32> }
  scf.for %i11 = %c0 to %n step %c1 { memref.store %v, %m[%i11] : memref<?xf32> }
  scf.for %i12 = %c0 to %n step %c1 { memref.store %v, %m[%i12] : memref<?xf32> }
  scf.for %i13 = %c0 to %n step %c1 { memref.store %v, %m[%i13] : memref<?xf32> }
  scf.for %i14 = %c0 to %n step %c1 { memref.store %v, %m[%i14] : memref<?xf32> }
  scf.for %i15 = %c0 to %n step %c1 { memref.store %v, %m[%i15] : memref<?xf32> }
  scf.for %i16 = %c0 to %n step %c1 { memref.store %v, %m[%i16] : memref<?xf32> }
  return
}

// -----

// The two versions of a loop (txc-stream-output-stores) are one nest: the
// scf.if is outlined whole, with its fence.
// CHECK-LABEL: func.func private @versions_nest16(
// CHECK:         scf.if
// CHECK:           scf.for
// CHECK:           llvm.fence seq_cst
// CHECK:         } else {
// CHECK:           scf.for
// CHECK-LABEL: func.func @versions(
// CHECK-NOT:     scf.if
// CHECK:         call @versions_nest16(
func.func @versions(%m: memref<?xf32>, %n: index, %v: f32, %streamed: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i0 = %c0 to %n step %c1 { memref.store %v, %m[%i0] : memref<?xf32> }
  scf.for %i1 = %c0 to %n step %c1 { memref.store %v, %m[%i1] : memref<?xf32> }
  scf.for %i2 = %c0 to %n step %c1 { memref.store %v, %m[%i2] : memref<?xf32> }
  scf.for %i3 = %c0 to %n step %c1 { memref.store %v, %m[%i3] : memref<?xf32> }
  scf.for %i4 = %c0 to %n step %c1 { memref.store %v, %m[%i4] : memref<?xf32> }
  scf.for %i5 = %c0 to %n step %c1 { memref.store %v, %m[%i5] : memref<?xf32> }
  scf.for %i6 = %c0 to %n step %c1 { memref.store %v, %m[%i6] : memref<?xf32> }
  scf.for %i7 = %c0 to %n step %c1 { memref.store %v, %m[%i7] : memref<?xf32> }
  scf.for %i8 = %c0 to %n step %c1 { memref.store %v, %m[%i8] : memref<?xf32> }
  scf.for %i9 = %c0 to %n step %c1 { memref.store %v, %m[%i9] : memref<?xf32> }
  scf.for %i10 = %c0 to %n step %c1 { memref.store %v, %m[%i10] : memref<?xf32> }
  scf.for %i11 = %c0 to %n step %c1 { memref.store %v, %m[%i11] : memref<?xf32> }
  scf.for %i12 = %c0 to %n step %c1 { memref.store %v, %m[%i12] : memref<?xf32> }
  scf.for %i13 = %c0 to %n step %c1 { memref.store %v, %m[%i13] : memref<?xf32> }
  scf.for %i14 = %c0 to %n step %c1 { memref.store %v, %m[%i14] : memref<?xf32> }
  scf.for %i15 = %c0 to %n step %c1 { memref.store %v, %m[%i15] : memref<?xf32> }
  scf.if %streamed {
    scf.for %j = %c0 to %n step %c1 { memref.store %v, %m[%j] : memref<?xf32> }
    llvm.fence seq_cst
  } else {
    scf.for %j = %c0 to %n step %c1 { memref.store %v, %m[%j] : memref<?xf32> }
  }
  return
}

// -----

// 16 nests stay in the kernel: a call per nest would cost more than the
// compile time it saves.
// CHECK-LABEL: func.func @few(
// CHECK-NOT:     call
// CHECK-COUNT-16: scf.for
// CHECK-NOT:     func.func
func.func @few(%m: memref<?xf32>, %n: index, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i0 = %c0 to %n step %c1 { memref.store %v, %m[%i0] : memref<?xf32> }
  scf.for %i1 = %c0 to %n step %c1 { memref.store %v, %m[%i1] : memref<?xf32> }
  scf.for %i2 = %c0 to %n step %c1 { memref.store %v, %m[%i2] : memref<?xf32> }
  scf.for %i3 = %c0 to %n step %c1 { memref.store %v, %m[%i3] : memref<?xf32> }
  scf.for %i4 = %c0 to %n step %c1 { memref.store %v, %m[%i4] : memref<?xf32> }
  scf.for %i5 = %c0 to %n step %c1 { memref.store %v, %m[%i5] : memref<?xf32> }
  scf.for %i6 = %c0 to %n step %c1 { memref.store %v, %m[%i6] : memref<?xf32> }
  scf.for %i7 = %c0 to %n step %c1 { memref.store %v, %m[%i7] : memref<?xf32> }
  scf.for %i8 = %c0 to %n step %c1 { memref.store %v, %m[%i8] : memref<?xf32> }
  scf.for %i9 = %c0 to %n step %c1 { memref.store %v, %m[%i9] : memref<?xf32> }
  scf.for %i10 = %c0 to %n step %c1 { memref.store %v, %m[%i10] : memref<?xf32> }
  scf.for %i11 = %c0 to %n step %c1 { memref.store %v, %m[%i11] : memref<?xf32> }
  scf.for %i12 = %c0 to %n step %c1 { memref.store %v, %m[%i12] : memref<?xf32> }
  scf.for %i13 = %c0 to %n step %c1 { memref.store %v, %m[%i13] : memref<?xf32> }
  scf.for %i14 = %c0 to %n step %c1 { memref.store %v, %m[%i14] : memref<?xf32> }
  scf.for %i15 = %c0 to %n step %c1 { memref.store %v, %m[%i15] : memref<?xf32> }
  return
}

