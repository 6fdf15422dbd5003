// RUN: txc-opt %s --split-input-file --txc-tile-elementwise --canonicalize --cse | FileCheck %s

// txc-tile-elementwise takes the vector width from the config: 2 vectors
// of 4 lanes per step here (the selection gives 4 vectors of 8 f32 lanes
// with AVX2), so rows of 37 run 4 steps of 8 and a peeled remainder of 5.
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @short_body
// CHECK:         scf.for {{.*}} to %{{.*}} step %c1
// CHECK:           scf.for {{.*}} to %c32 step %c8
// CHECK:             linalg.generic {{.*}} ins(%{{.*}} : tensor<1x8xf32>)
// CHECK:           linalg.generic {{.*}} ins(%{{.*}} : tensor<1x5xf32>)
// CHECK-NOT:     txc.lowering_config
func.func @short_body(%x: tensor<?x37xf32>, %out: tensor<?x37xf32>) -> tensor<?x37xf32> {
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x37xf32>) outs(%out : tensor<?x37xf32>)
      attrs = {txc.lowering_config = {strategy = "elementwise", vector_lanes = 4 : i64, vectors_per_step = 2 : i64}} {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  } -> tensor<?x37xf32>
  return %r : tensor<?x37xf32>
}

// -----

// A body with a math function runs one vector (4 lanes) per step.
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @long_body
// CHECK:           scf.for {{.*}} to %c36 step %c4
// CHECK:             linalg.generic {{.*}} ins(%{{.*}} : tensor<1x4xf32>)
// CHECK:           linalg.generic {{.*}} ins(%{{.*}} : tensor<1x1xf32>)
func.func @long_body(%x: tensor<?x37xf32>, %out: tensor<?x37xf32>) -> tensor<?x37xf32> {
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x37xf32>) outs(%out : tensor<?x37xf32>)
      attrs = {txc.lowering_config = {strategy = "elementwise", vector_lanes = 4 : i64, vectors_per_step = 2 : i64}} {
  ^bb0(%a: f32, %o: f32):
    %n = math.exp %a : f32
    linalg.yield %n : f32
  } -> tensor<?x37xf32>
  return %r : tensor<?x37xf32>
}

// -----

// No config, no tiling; an op no larger than one step stays whole.
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @untouched
// CHECK-NOT:     scf.for
// CHECK:         linalg.generic {{.*}} ins(%{{.*}} : tensor<?x37xf32>)
// CHECK:         linalg.generic {{.*}} ins(%{{.*}} : tensor<1x8xf32>)
// CHECK-NOT:     txc.lowering_config
func.func @untouched(%x: tensor<?x37xf32>, %out: tensor<?x37xf32>,
                     %s: tensor<1x8xf32>, %so: tensor<1x8xf32>)
    -> (tensor<?x37xf32>, tensor<1x8xf32>) {
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x37xf32>) outs(%out : tensor<?x37xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  } -> tensor<?x37xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<1x8xf32>) outs(%so : tensor<1x8xf32>)
      attrs = {txc.lowering_config = {strategy = "elementwise", vector_lanes = 4 : i64, vectors_per_step = 2 : i64}} {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  } -> tensor<1x8xf32>
  return %r, %t : tensor<?x37xf32>, tensor<1x8xf32>
}

// -----

// A "transpose" config: blocks of 4x4 of the output's innermost dimension
// (S, symbolic) and of the one that reads the input's innermost (10), 1
// along the other; both block loops peeled, so that the main tiles are
// static 4x1x4 blocks (and those of the last 2 of the 10 columns 4x1x2).
// CHECK-LABEL: func.func @keys
// CHECK:         scf.for {{.*}} to %c3 step %c1
// CHECK:           scf.for {{.*}} to %c8 step %c4
// CHECK:             scf.for {{.*}} step %c4
// CHECK:               linalg.transpose ins(%{{.*}} : tensor<4x1x4xf32>) outs(%{{.*}} : tensor<1x4x4xf32>) permutation = [1, 2, 0]
// CHECK:             scf.for {{.*}} step %c4
// CHECK:               linalg.transpose ins(%{{.*}} : tensor<?x1x4xf32>)
// CHECK:           scf.for {{.*}} step %c4
// CHECK:             linalg.transpose ins(%{{.*}} : tensor<4x1x2xf32>)
// CHECK:           scf.for {{.*}} step %c4
// CHECK:             linalg.transpose ins(%{{.*}} : tensor<?x1x2xf32>)
// CHECK-NOT:     txc.lowering_config
func.func @keys(%k: tensor<?x3x10xf32>, %out: tensor<3x10x?xf32>) -> tensor<3x10x?xf32> {
  %t = linalg.transpose ins(%k : tensor<?x3x10xf32>) outs(%out : tensor<3x10x?xf32>) permutation = [1, 2, 0]
      {txc.lowering_config = {block = 4 : i64, strategy = "transpose"}}
  return %t : tensor<3x10x?xf32>
}
