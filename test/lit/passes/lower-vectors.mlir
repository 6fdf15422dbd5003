// RUN: txc-opt %s --txc-lower-vectors --canonicalize | FileCheck %s

// A 6x16 register tile of a matmul after bufferization: the rank-1
// vector.contract of each k step becomes one broadcast row of B times a
// scalar of A per row, six vector.fma on 16-lane vectors; the transfers
// become plain loads and stores; nothing of vector.contract or
// vector.transfer_* is left.
// CHECK-LABEL: func.func @tile
// CHECK-COUNT-6: vector.load %{{.*}} : memref<6x16xf32>, vector<16xf32>
// CHECK:         scf.for
// CHECK-COUNT-6:   memref.load %{{.*}} : memref<6x64xf32>
// CHECK:           %[[B:.*]] = vector.load %{{.*}} : memref<64x16xf32>, vector<16xf32>
// CHECK-COUNT-6:   vector.fma %{{.*}}, %[[B]], %{{.*}} : vector<16xf32>
// CHECK:           scf.yield
// CHECK-COUNT-6: vector.store %{{.*}} : memref<6x16xf32>, vector<16xf32>
// CHECK-NOT:     vector.contract
// CHECK-NOT:     vector.transfer
#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>
func.func @tile(%A: memref<6x64xf32>, %B: memref<64x16xf32>, %C: memref<6x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %pad = arith.constant 0.0 : f32
  %init = vector.transfer_read %C[%c0, %c0], %pad {in_bounds = [true, true]} : memref<6x16xf32>, vector<6x16xf32>
  %acc = scf.for %k = %c0 to %c64 step %c1 iter_args(%t = %init) -> vector<6x16xf32> {
    %a = vector.transfer_read %A[%c0, %k], %pad {in_bounds = [true, true]} : memref<6x64xf32>, vector<6x1xf32>
    %b = vector.transfer_read %B[%k, %c0], %pad {in_bounds = [true, true]} : memref<64x16xf32>, vector<1x16xf32>
    %r = vector.contract {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %t : vector<6x1xf32>, vector<1x16xf32> into vector<6x16xf32>
    scf.yield %r : vector<6x16xf32>
  }
  vector.transfer_write %acc, %C[%c0, %c0] {in_bounds = [true, true]} : vector<6x16xf32>, memref<6x16xf32>
  return
}
