// RUN: txc-opt %s --txc-vectorize-static-ops | FileCheck %s
// RUN: txc-opt %s "--txc-vectorize-static-ops=max-elements=16" | FileCheck %s --check-prefix=SMALL

// txc-vectorize-static-ops vectorizes every static linalg op on tensors of
// at most max-elements (4096 by default): the 4x8 op becomes vector code,
// the dynamic one stays. With max-elements=16 the 4x8 op stays too. A
// config that no strategy pass applied is dropped.
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @ops
// CHECK:         vector.transfer_read {{.*}} : tensor<4x8xf32>, vector<4x8xf32>
// CHECK:         arith.negf {{.*}} : vector<4x8xf32>
// CHECK:         linalg.generic {{.*}} ins(%{{.*}} : tensor<?x8xf32>)
// CHECK-NOT:     txc.lowering_config
// SMALL-LABEL: func.func @ops
// SMALL:         linalg.generic {{.*}} ins(%{{.*}} : tensor<4x8xf32>)
// SMALL:         linalg.generic {{.*}} ins(%{{.*}} : tensor<?x8xf32>)
func.func @ops(%s: tensor<4x8xf32>, %so: tensor<4x8xf32>,
               %d: tensor<?x8xf32>, %do: tensor<?x8xf32>)
    -> (tensor<4x8xf32>, tensor<?x8xf32>) {
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<4x8xf32>) outs(%so : tensor<4x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %n = arith.negf %x : f32
    linalg.yield %n : f32
  } -> tensor<4x8xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%d : tensor<?x8xf32>) outs(%do : tensor<?x8xf32>)
      attrs = {txc.lowering_config = {strategy = "elementwise", vector_lanes = 8 : i64, vectors_per_step = 4 : i64}} {
  ^bb0(%x: f32, %o: f32):
    %n = arith.negf %x : f32
    linalg.yield %n : f32
  } -> tensor<?x8xf32>
  return %a, %b : tensor<4x8xf32>, tensor<?x8xf32>
}

// A register tile's reduction loop: the 6x16 tile of %acc it reads and
// writes back at the same, K-invariant place becomes a loop-carried vector,
// read before the loop and written after it (hoistAccumulators; the
// canonicalizer then drops the tensor the loop passes through unchanged);
// the panel and the matrix are still read in the loop.
// CHECK-LABEL: func.func @tile_k_loop
// CHECK:         %[[TILE:.*]] = vector.transfer_read %{{.*}} : tensor<12x32xf32>, vector<6x16xf32>
// CHECK:         %[[SUM:.*]]:2 = scf.for {{.*}} iter_args(%[[T:.*]] = %{{.*}}, %[[ACC:.*]] = %[[TILE]]) -> (tensor<12x32xf32>, vector<6x16xf32>)
// CHECK:           vector.transfer_read %{{.*}} : tensor<12x64xf32>, vector<6x1xf32>
// CHECK:           vector.transfer_read %{{.*}} : tensor<64x32xf32>, vector<1x16xf32>
// CHECK:           vector.contract {{.*}} %[[ACC]]
// CHECK-NOT:       vector.transfer_write
// CHECK:           scf.yield %[[T]], %{{.*}} : tensor<12x32xf32>, vector<6x16xf32>
// CHECK:         vector.transfer_write %[[SUM]]#1, %[[SUM]]#0{{.*}} : vector<6x16xf32>, tensor<12x32xf32>
#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs = affine_map<(m, n, k) -> (k, n)>
#out = affine_map<(m, n, k) -> (m, n)>
func.func @tile_k_loop(%a: tensor<12x64xf32>, %b: tensor<64x32xf32>,
                       %acc: tensor<12x32xf32>, %i: index, %j: index)
    -> tensor<12x32xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %r = scf.for %k = %c0 to %c64 step %c1 iter_args(%t = %acc) -> (tensor<12x32xf32>) {
    %x = vector.transfer_read %a[%i, %k], %zero {in_bounds = [true, true]} : tensor<12x64xf32>, vector<6x1xf32>
    %y = vector.transfer_read %b[%k, %j], %zero {in_bounds = [true, true]} : tensor<64x32xf32>, vector<1x16xf32>
    %z = vector.transfer_read %t[%i, %j], %zero {in_bounds = [true, true]} : tensor<12x32xf32>, vector<6x16xf32>
    %s = vector.contract {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %z : vector<6x1xf32>, vector<1x16xf32> into vector<6x16xf32>
    %w = vector.transfer_write %s, %t[%i, %j] {in_bounds = [true, true]} : vector<6x16xf32>, tensor<12x32xf32>
    scf.yield %w : tensor<12x32xf32>
  }
  return %r : tensor<12x32xf32>
}
