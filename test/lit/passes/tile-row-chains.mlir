// RUN: txc-opt %s --txc-tile-row-chains --canonicalize --cse | FileCheck %s

// txc-tile-row-chains tiles the chain of the root that carries the
// row_chain config (here the division; the subtraction carries one too and
// is absorbed into the division's row loop) one row per iteration, and the
// ops of the row in chunks of the config's width: 2 vectors of 4 lanes for
// the reductions, one vector for the exp and the division (long bodies). The
// rows have a symbolic length: full chunks, then a peeled remainder.
#row = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @softmax
// CHECK:         scf.for %[[ROW:.*]] = %c0 to %{{.*}} step %c1
// CHECK:           scf.for {{.*}} step %c8 {{.*}} -> (tensor<1x8xf32>)
// CHECK:             arith.maximumf
// CHECK:           scf.for {{.*}} step %c4
// CHECK:             math.exp
// CHECK:           scf.for {{.*}} step %c8 {{.*}} -> (tensor<1x8xf32>)
// CHECK:             arith.addf
// CHECK:           scf.for {{.*}} step %c4
// CHECK:             arith.divf
// CHECK-NOT:     txc.lowering_config
func.func @softmax(%x: tensor<?x?xf32>, %init: tensor<?xf32>,
                   %out: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %max = linalg.generic {indexing_maps = [#row, #col], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%a: f32, %m: f32):
    %r = arith.maximumf %a, %m : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %exp = linalg.generic {indexing_maps = [#row, #col, #row], iterator_types = ["parallel", "parallel"]}
      ins(%x, %max : tensor<?x?xf32>, tensor<?xf32>) outs(%out : tensor<?x?xf32>)
      attrs = {txc.lowering_config = {strategy = "row_chain", row_tile = array<i64: 1, 0>, vector_lanes = 4 : i64, vectors_per_step = 2 : i64}} {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  } -> tensor<?x?xf32>
  %sum = linalg.generic {indexing_maps = [#row, #col], iterator_types = ["parallel", "reduction"]}
      ins(%exp : tensor<?x?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%a: f32, %s: f32):
    %r = arith.addf %a, %s : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %div = linalg.generic {indexing_maps = [#row, #col, #row], iterator_types = ["parallel", "parallel"]}
      ins(%exp, %sum : tensor<?x?xf32>, tensor<?xf32>) outs(%out : tensor<?x?xf32>)
      attrs = {txc.lowering_config = {strategy = "row_chain", row_tile = array<i64: 1, 0>, vector_lanes = 4 : i64, vectors_per_step = 2 : i64}} {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %r = arith.divf %a, %s : f32
    linalg.yield %r : f32
  } -> tensor<?x?xf32>
  return %div : tensor<?x?xf32>
}
