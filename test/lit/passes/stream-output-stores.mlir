// RUN: txc-opt %s --split-input-file --txc-stream-output-stores="vector-bits=256 min-bytes=1024" | FileCheck %s
// RUN: txc-opt %s --split-input-file --txc-stream-output-stores="vector-bits=256 min-bytes=1024" --txc-loop-lowering --txc-llvm-lowering="vector-bits=256 streaming-stores=true" | FileCheck %s --check-prefix=LLVM

// A kernel's vector loop into its output: versioned on the output's
// alignment and size, the copy's stores non-temporal, then a fence.
// CHECK-LABEL: func.func @stream(
// CHECK-SAME:    %[[IN:.*]]: memref<?xf32>, %[[OUT:.*]]: memref<?xf32>
// CHECK:         %[[PTR:.*]] = memref.extract_aligned_pointer_as_index %[[OUT]]
// CHECK:         %[[LOW:.*]] = arith.andi %[[PTR]], %c31
// CHECK:         %[[ALIGNED:.*]] = arith.cmpi eq, %[[LOW]], %c0
// CHECK:         %[[DIM:.*]] = memref.dim %[[OUT]], %c0
// CHECK:         %[[LARGE:.*]] = arith.cmpi uge, %[[DIM]], %c256
// CHECK:         %[[COND:.*]] = arith.andi %[[LARGE]], %[[ALIGNED]]
// CHECK:         scf.if %[[COND]] {
// CHECK:           scf.for
// CHECK:             vector.store %{{.*}}, %[[OUT]][%{{.*}}] {nontemporal = true}
// CHECK:           }
// CHECK-NEXT:      llvm.fence seq_cst
// CHECK-NEXT:    } else {
// CHECK:           scf.for
// CHECK:             vector.store %{{.*}}, %[[OUT]][%{{.*}}] :
// CHECK-NOT:         nontemporal
// CHECK:         }
// The scalar remainder is left alone.
// CHECK:         scf.for
// CHECK-NOT:       nontemporal
// CHECK:         return
// LLVM-LABEL: llvm.func @stream(
// LLVM:         llvm.store %{{.*}}, %{{.*}} {alignment = 32 : i64, nontemporal} : vector<8xf32>, !llvm.ptr
// LLVM:         llvm.fence seq_cst
// LLVM:         llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<8xf32>, !llvm.ptr
func.func @stream(%n: index, %in: memref<?xf32>, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %dim = memref.dim %out, %c0 : memref<?xf32>
  %main = arith.muli %n, %c8 : index
  scf.for %i = %c0 to %main step %c8 {
    %v = vector.load %in[%i] : memref<?xf32>, vector<8xf32>
    vector.store %v, %out[%i] : memref<?xf32>, vector<8xf32>
  }
  scf.for %i = %main to %dim step %c1 {
    %s = memref.load %in[%i] : memref<?xf32>
    memref.store %s, %out[%i] : memref<?xf32>
  }
  return
}

// -----

// Rows of a static multiple of the lanes: a store at a multiple of the
// lanes in a row is aligned; static outputs fold the size check away.
// CHECK-LABEL: func.func @rows(
// CHECK-NOT:     arith.cmpi uge
// CHECK:         memref.extract_aligned_pointer_as_index
// CHECK:         scf.if
// CHECK:           vector.store {{.*}} {nontemporal = true}
func.func @rows(%in: memref<64x32xf32>, %out: memref<64x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  scf.for %r = %c0 to %c64 step %c1 {
    scf.for %j = %c0 to %c32 step %c8 {
      %v = vector.load %in[%r, %j] : memref<64x32xf32>, vector<8xf32>
      vector.store %v, %out[%r, %j] : memref<64x32xf32>, vector<8xf32>
    }
  }
  return
}

// -----

// Several registers per store (an elementwise loop's unrolled step): each
// register is aligned when the output is; the store gets a register's
// alignment, not the vector's.
// CHECK-LABEL: func.func @wide(
// CHECK:         vector.store {{.*}} {nontemporal = true} : memref<?xf32>, vector<32xf32>
// LLVM-LABEL: llvm.func @wide(
// LLVM:         llvm.store %{{.*}}, %{{.*}} {alignment = 32 : i64, nontemporal} : vector<32xf32>, !llvm.ptr
func.func @wide(%n: index, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %v = arith.constant dense<1.0> : vector<32xf32>
  scf.for %i = %c0 to %n step %c32 {
    vector.store %v, %out[%i] : memref<?xf32>, vector<32xf32>
  }
  return
}

// -----

// A stack buffer only the loop uses (a row that buffer hoisting moved out
// of it) gets a copy per version, so that each stays private to its loop.
// CHECK-LABEL: func.func @row_buffer(
// CHECK:         %[[ROW:.*]] = memref.alloca() : memref<8xf32>
// CHECK:         scf.if
// CHECK-NEXT:      %[[ROW2:.*]] = memref.alloca() : memref<8xf32>
// CHECK-NEXT:      scf.for
// CHECK:             vector.store %{{.*}}, %[[ROW2]]
// CHECK:             vector.store {{.*}} {nontemporal = true}
// CHECK:         } else {
// CHECK-NEXT:      scf.for
// CHECK:             vector.store %{{.*}}, %[[ROW]]
func.func @row_buffer(%n: index, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %row = memref.alloca() : memref<8xf32>
  %v = arith.constant dense<1.0> : vector<8xf32>
  scf.for %i = %c0 to %n step %c8 {
    vector.store %v, %row[%c0] : memref<8xf32>, vector<8xf32>
    %r = vector.load %row[%c0] : memref<8xf32>, vector<8xf32>
    vector.store %r, %out[%i] : memref<?xf32>, vector<8xf32>
  }
  return
}

// -----

// Not streamed: rows of 12 floats (a row's start is not aligned), half
// vectors, offsets not known to be multiples of 8, an output the loop
// reads back, a workspace view, and an output too small to be worth it.
// CHECK-LABEL: func.func @not_streamed(
// CHECK-NOT:     nontemporal
// CHECK-NOT:     scf.if
// CHECK:         return
func.func @not_streamed(%k: index, %in: memref<?x12xf32>, %out: memref<?x12xf32>,
                        %half: memref<?xf32>, %odd: memref<?xf32>,
                        %acc: memref<?xf32>, %ws: memref<?xi8>,
                        %small: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %v = arith.constant dense<1.0> : vector<8xf32>
  %h = arith.constant dense<1.0> : vector<4xf32>
  scf.for %i = %c0 to %k step %c8 {
    vector.store %v, %out[%i, %c0] : memref<?x12xf32>, vector<8xf32>
    vector.store %h, %half[%i] : memref<?xf32>, vector<4xf32>
    %j = arith.addi %i, %c4 : index
    vector.store %v, %odd[%j] : memref<?xf32>, vector<8xf32>
    %a = vector.load %acc[%i] : memref<?xf32>, vector<8xf32>
    %b = arith.addf %a, %v : vector<8xf32>
    vector.store %b, %acc[%i] : memref<?xf32>, vector<8xf32>
    %view = memref.view %ws[%c0][%k] : memref<?xi8> to memref<?xf32>
    vector.store %v, %view[%i] : memref<?xf32>, vector<8xf32>
  }
  scf.for %i = %c0 to %c64 step %c8 {
    vector.store %v, %small[%i] : memref<64xf32>, vector<8xf32>
  }
  return
}

// -----

// A private function (a region) streams into an argument only when every
// call passes it one of the kernel's outputs.
// CHECK-LABEL: func.func private @region(
// CHECK:         vector.store {{.*}} {nontemporal = true}
// CHECK-LABEL: func.func private @region_of_temporary(
// CHECK-NOT:     nontemporal
// CHECK-LABEL: func.func @kernel(
func.func private @region(%out: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %v = arith.constant dense<1.0> : vector<8xf32>
  scf.for %i = %c0 to %n step %c8 {
    vector.store %v, %out[%i] : memref<?xf32>, vector<8xf32>
  }
  return
}
func.func private @region_of_temporary(%out: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %v = arith.constant dense<1.0> : vector<8xf32>
  scf.for %i = %c0 to %n step %c8 {
    vector.store %v, %out[%i] : memref<?xf32>, vector<8xf32>
  }
  return
}
func.func @kernel(%n: index, %out: memref<?xf32>, %ws: memref<?xi8>) {
  %c0 = arith.constant 0 : index
  %view = memref.view %ws[%c0][%n] : memref<?xi8> to memref<?xf32>
  call @region(%out, %n) : (memref<?xf32>, index) -> ()
  call @region_of_temporary(%out, %n) : (memref<?xf32>, index) -> ()
  call @region_of_temporary(%view, %n) : (memref<?xf32>, index) -> ()
  return
}

// -----

// A bias broadcast into the output that a matmul then accumulates into
// (a linear layer's packed path): the matmul reads the output back, through
// a view too, so the broadcast's stores stay cached, not non-temporal.
// CHECK-LABEL: func.func @read_after(
// CHECK-NOT:     nontemporal
// CHECK-NOT:     llvm.fence
// CHECK:         return
func.func @read_after(%n: index, %bias: memref<1024xf32>,
                      %out: memref<?x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c1024 = arith.constant 1024 : index
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %c1024 step %c8 {
      %v = vector.load %bias[%j] : memref<1024xf32>, vector<8xf32>
      vector.store %v, %out[%i, %j] : memref<?x1024xf32>, vector<8xf32>
    }
  }
  %view = memref.subview %out[0, 0] [%n, 16] [1, 1]
      : memref<?x1024xf32> to memref<?x16xf32, strided<[1024, 1]>>
  scf.for %i = %c0 to %n step %c1 {
    %acc = vector.load %view[%i, %c0] : memref<?x16xf32, strided<[1024, 1]>>, vector<8xf32>
    %sum = arith.addf %acc, %acc : vector<8xf32>
    vector.store %sum, %view[%i, %c0] : memref<?x16xf32, strided<[1024, 1]>>, vector<8xf32>
  }
  return
}
