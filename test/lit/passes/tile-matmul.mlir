// RUN: txc-opt %s --split-input-file --txc-tile-matmul --canonicalize --cse | FileCheck %s

// txc-tile-matmul applies the config on the op, whatever the target would
// choose: here 4 x 8 register tiles (the selection picks 6 x 16 with AVX2,
// 6 x 8 with SSE). B is packed into 8-column strips, the 64 rows run as 16
// tiles of 4 rows, each K step one 4x1 by 1x8 matmul. The config is gone.
// CHECK-LABEL: func.func @tiled
// CHECK-NOT:     txc.lowering_config
// CHECK:         scf.for {{.*}} -> (tensor<8x64x8xf32>)
// CHECK:         scf.for {{.*}} to %c64 step %c4
// CHECK:           linalg.matmul ins({{.*}} : tensor<4x1xf32>, tensor<1x8xf32>) outs({{.*}} : tensor<4x8xf32>)
// CHECK-NOT:     txc.lowering_config
func.func @tiled(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>,
                 %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %m = linalg.matmul {txc.lowering_config = {strategy = "matmul", form = "tiled", register_tile = array<i64: 4, 8>, cache_tile = array<i64: 0, 0>, pack_min_rows = 16 : i64}}
      ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>)
      outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %m : tensor<64x64xf32>
}

// -----

// Cache panels of 32 columns (cache_tile), each packed and register-tiled.
// CHECK-LABEL: func.func @panels
// CHECK:         scf.for {{.*}} to %c64 step %c32
// CHECK:           scf.for {{.*}} -> (tensor<4x64x8xf32>)
// CHECK:           linalg.matmul ins({{.*}} : tensor<4x1xf32>, tensor<1x8xf32>) outs({{.*}} : tensor<4x8xf32>)
func.func @panels(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>,
                  %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %m = linalg.matmul {txc.lowering_config = {strategy = "matmul", form = "tiled", register_tile = array<i64: 4, 8>, cache_tile = array<i64: 32, 0>, pack_min_rows = 16 : i64}}
      ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>)
      outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %m : tensor<64x64xf32>
}

// -----

// The epilogue marked "matmul_epilogue" is the root of the 2 x 8 register
// tiles: the relu runs on each tile of the matmul's result.
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @fused_epilogue
// CHECK:         scf.for {{.*}} to %c32 step %c8
// CHECK:           scf.for {{.*}} to %c16 step %c2
// CHECK:             linalg.matmul ins({{.*}} : tensor<2x1xf32>, tensor<1x8xf32>) outs({{.*}} : tensor<2x8xf32>)
// CHECK:             linalg.generic {{.*}} ins(%{{.*}} : tensor<2x8xf32>)
// CHECK:               arith.maximumf
// CHECK-NOT:     txc.lowering_config
func.func @fused_epilogue(%a: tensor<16x8xf32>, %b: tensor<8x32xf32>,
                          %c: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %m = linalg.matmul {txc.lowering_config = {strategy = "matmul", form = "fused_epilogue", register_tile = array<i64: 2, 8>, cache_tile = array<i64: 0, 0>, pack_min_rows = 16 : i64}}
      ins(%a, %b : tensor<16x8xf32>, tensor<8x32xf32>)
      outs(%c : tensor<16x32xf32>) -> tensor<16x32xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x32xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m : tensor<16x32xf32>) outs(%e : tensor<16x32xf32>)
      attrs = {txc.lowering_config = {strategy = "matmul_epilogue"}} {
  ^bb0(%x: f32, %o: f32):
    %y = arith.maximumf %x, %zero : f32
    linalg.yield %y : f32
  } -> tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}

// -----

// Form "small": one row per iteration (row_tile), the whole row one matmul.
// CHECK-LABEL: func.func @small
// CHECK:         scf.for {{.*}} -> (tensor<?x3xf32>)
// CHECK:           linalg.matmul ins({{.*}} : tensor<1x4xf32>, tensor<4x3xf32>) outs({{.*}} : tensor<1x3xf32>)
func.func @small(%a: tensor<?x4xf32>, %b: tensor<4x3xf32>,
                 %c: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %m = linalg.matmul {txc.lowering_config = {strategy = "matmul", form = "small", register_tile = array<i64: 6, 16>, row_tile = array<i64: 1, 0, 0>, pack_min_rows = 16 : i64}}
      ins(%a, %b : tensor<?x4xf32>, tensor<4x3xf32>)
      outs(%c : tensor<?x3xf32>) -> tensor<?x3xf32>
  return %m : tensor<?x3xf32>
}

// -----

// batch_tile: a batched matmul runs one batch at a time, the outer loop,
// each batch a plain matmul under the rest of the config. Here attention's
// scores, Q [2, M, 16] x K^T [2, 16, N] with N symbolic, scaled in the
// epilogue: in each batch, panels of 32 columns packed into 8-column strips
// (4 x 16 x 8), 4 x 8 register tiles initialized to zero in registers and
// scaled before they are stored; the last panel (N mod 32 columns) runs
// full 8-column strips, then its last columns one at a time.
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @batched_epilogue
// CHECK-NOT:     linalg.batch_matmul
// CHECK:         scf.for {{.*}} = %c0 to %c2 step %c1
// CHECK:           scf.for {{.*}} step %c32
// CHECK:             scf.for {{.*}} -> (tensor<4x16x8xf32>)
// CHECK:             scf.for {{.*}} step %c8
// CHECK:               scf.for {{.*}} step %c4
// CHECK:                 linalg.fill {{.*}} -> tensor<4x8xf32>
// CHECK:                 linalg.matmul ins({{.*}} : tensor<4x1xf32>, tensor<1x8xf32>) outs({{.*}} : tensor<4x8xf32>)
// CHECK:                 linalg.generic {{.*}} ins(%{{.*}} : tensor<4x8xf32>)
// CHECK-NEXT:              ^bb0
// CHECK-NEXT:              arith.mulf
// CHECK:           scf.for {{.*}} step %c32
// CHECK:             linalg.matmul ins({{.*}} : tensor<4x1xf32>, tensor<1x8xf32>) outs({{.*}} : tensor<4x8xf32>)
// CHECK:             linalg.matmul ins({{.*}} : tensor<4x1xf32>, tensor<1x1xf32>) outs({{.*}} : tensor<4x1xf32>)
// CHECK-NOT:     linalg.batch_matmul
// CHECK-NOT:     txc.lowering_config
// CHECK-NOT:     txc.epilogue
func.func @batched_epilogue(%q: tensor<2x?x16xf32>, %kt: tensor<2x16x?xf32>,
                            %out: tensor<2x?x?xf32>) -> tensor<2x?x?xf32> {
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 0.25 : f32
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %m = tensor.dim %q, %c1 : tensor<2x?x16xf32>
  %n = tensor.dim %kt, %c2 : tensor<2x16x?xf32>
  %e = tensor.empty(%m, %n) : tensor<2x?x?xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x?x?xf32>) -> tensor<2x?x?xf32>
  %qk = linalg.batch_matmul {txc.lowering_config = {strategy = "matmul", form = "fused_epilogue", batch_tile = array<i64: 1>, register_tile = array<i64: 4, 8>, cache_tile = array<i64: 32, 0>, pack_min_rows = 16 : i64}}
      ins(%q, %kt : tensor<2x?x16xf32>, tensor<2x16x?xf32>)
      outs(%init : tensor<2x?x?xf32>) -> tensor<2x?x?xf32>
  %r = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%qk : tensor<2x?x?xf32>) outs(%out : tensor<2x?x?xf32>)
      attrs = {txc.lowering_config = {strategy = "matmul_epilogue"}} {
  ^bb0(%x: f32, %o: f32):
    %y = arith.mulf %x, %scale : f32
    linalg.yield %y : f32
  } -> tensor<2x?x?xf32>
  return %r : tensor<2x?x?xf32>
}

// -----

// batch_tile without an epilogue: attention's P [2, M, K] x V [2, K, 16],
// K symbolic. In each batch the zero fill of that batch's accumulator,
// then panels of 64 of depth, each with B packed into 8-column strips, and
// 4 x 8 register tiles.
// CHECK-LABEL: func.func @batched_tiled
// CHECK-NOT:     linalg.batch_matmul
// CHECK:         scf.for {{.*}} = %c0 to %c2 step %c1
// CHECK:           linalg.fill {{.*}} -> tensor<?x16xf32>
// CHECK:           scf.for {{.*}} step %c64
// CHECK:             scf.for {{.*}} -> (tensor<2x?x8xf32>)
// CHECK:             linalg.matmul ins({{.*}} : tensor<4x1xf32>, tensor<1x8xf32>) outs({{.*}} : tensor<4x8xf32>)
// CHECK-NOT:     linalg.batch_matmul
// CHECK-NOT:     txc.lowering_config
func.func @batched_tiled(%p: tensor<2x?x?xf32>, %v: tensor<2x?x16xf32>,
                         %out: tensor<2x?x16xf32>) -> tensor<2x?x16xf32> {
  %zero = arith.constant 0.0 : f32
  %init = linalg.fill ins(%zero : f32) outs(%out : tensor<2x?x16xf32>) -> tensor<2x?x16xf32>
  %pv = linalg.batch_matmul {txc.lowering_config = {strategy = "matmul", form = "tiled", batch_tile = array<i64: 1>, register_tile = array<i64: 4, 8>, cache_tile = array<i64: 0, 64>, pack_min_rows = 16 : i64}}
      ins(%p, %v : tensor<2x?x?xf32>, tensor<2x?x16xf32>)
      outs(%init : tensor<2x?x16xf32>) -> tensor<2x?x16xf32>
  return %pv : tensor<2x?x16xf32>
}

// -----

// Without a config the pass leaves a matmul alone.
// CHECK-LABEL: func.func @no_config
// CHECK-NOT:     scf.for
// CHECK:         linalg.matmul ins({{.*}} : tensor<64x64xf32>, tensor<64x64xf32>)
func.func @no_config(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>,
                     %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %m = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>)
                     outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %m : tensor<64x64xf32>
}

// -----

// unpacked_form "dot_product": one branch per call on the rows. Below 16
// rows, 4 output columns at a time (the 37th alone, peeled), rows inside,
// each output 8 partial sums accumulated along K in steps of 8 (elementwise,
// no unit reduction left), reduced once into the broadcast bias (fused into
// the tile), then the K % 8 = 4 last terms. From 16 rows the packed form,
// the bias broadcast in its own branch.
// CHECK-LABEL: func.func @dot_product
// CHECK:         %[[FEW:.*]] = arith.cmpi ult, %{{.*}}, %c16
// CHECK:         scf.if %[[FEW]]
// CHECK:           scf.for {{.*}} to %c36 step %c4
// CHECK:             scf.for
// CHECK:               linalg.fill {{.*}} -> tensor<1x4x8xf32>
// CHECK:               scf.for {{.*}} to %c2 step %c1
// CHECK:                 linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel"]{{.*}}ins({{.*}} : tensor<1x8xf32>, tensor<4x8xf32>) outs({{.*}} : tensor<1x4x8xf32>)
// CHECK:               linalg.broadcast {{.*}} outs({{.*}} : tensor<1x4xf32>)
// CHECK:               linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}}ins({{.*}} : tensor<1x4x8xf32>) outs({{.*}} : tensor<1x4xf32>)
// CHECK:               linalg.matmul_transpose_b ins({{.*}} : tensor<1x4xf32>, tensor<4x4xf32>) outs({{.*}} : tensor<1x4xf32>)
// CHECK:           scf.for
// CHECK:             linalg.generic {{.*}}ins({{.*}} : tensor<1x8xf32>, tensor<1x8xf32>) outs({{.*}} : tensor<1x1x8xf32>)
// CHECK:             linalg.matmul_transpose_b ins({{.*}} : tensor<1x4xf32>, tensor<1x4xf32>) outs({{.*}} : tensor<1x1xf32>)
// CHECK:         } else {
// CHECK:           linalg.broadcast
// CHECK:           linalg.matmul_transpose_b ins({{.*}} : tensor<4x1xf32>, tensor<8x1xf32>) outs({{.*}} : tensor<4x8xf32>)
// CHECK-NOT:     txc.dot
// CHECK-NOT:     txc.lowering_config
func.func @dot_product(%x: tensor<?x20xf32>, %w: tensor<37x20xf32>,
                       %bias: tensor<37xf32>) -> tensor<?x37xf32> {
  %c0 = arith.constant 0 : index
  %rows = tensor.dim %x, %c0 : tensor<?x20xf32>
  %e = tensor.empty(%rows) : tensor<?x37xf32>
  %init = linalg.broadcast ins(%bias : tensor<37xf32>) outs(%e : tensor<?x37xf32>) dimensions = [0]
  %m = linalg.matmul_transpose_b {txc.lowering_config = {strategy = "matmul", form = "tiled", register_tile = array<i64: 4, 8>, cache_tile = array<i64: 0, 0>, pack_min_rows = 16 : i64, unpacked_form = "dot_product", unpacked_below = 16 : i64, dot_columns = 4 : i64, dot_lanes = 8 : i64}}
      ins(%x, %w : tensor<?x20xf32>, tensor<37x20xf32>)
      outs(%init : tensor<?x37xf32>) -> tensor<?x37xf32>
  return %m : tensor<?x37xf32>
}
