// RUN: txc-opt %s --split-input-file --txc-select-lowering-strategy=vector-bits=256 | FileCheck %s --check-prefixes=CHECK,AVX2
// RUN: txc-opt %s --split-input-file --txc-select-lowering-strategy=vector-bits=128 | FileCheck %s --check-prefixes=CHECK,SSE
// RUN: txc-opt %s --split-input-file "--txc-select-lowering-strategy=vector-bits=512 vector-registers=32" | FileCheck %s --check-prefix=AVX512
// RUN: not txc-opt %s --split-input-file --txc-select-lowering-strategy=vector-bits=100 2>&1 | FileCheck %s --check-prefix=BAD

// The selection writes each root op's strategy and sizes as
// txc.lowering_config, from the target's row of the tuning table: the
// register tile is 6 rows (8 with 32 registers) by two vectors, so 16
// columns of f32 with AVX2, 8 with SSE/NEON, 32 with AVX-512.

// BAD: error: txc-select-lowering-strategy: vector-bits is 100; 128, 256 or 512 are supported

// A matmul whose only reader is a relu: the relu is its fused epilogue (N a
// multiple of the register tile's width, K within one cache panel).
// CHECK-LABEL: func.func @matmul_relu
// AVX2:          linalg.matmul {{.*}}txc.lowering_config = {cache_tile = array<i64: 0, 0>, form = "fused_epilogue", pack_min_rows = 16 : i64, register_tile = array<i64: 6, 16>, strategy = "matmul"}
// SSE:           linalg.matmul {{.*}}txc.lowering_config = {cache_tile = array<i64: 0, 0>, form = "fused_epilogue", pack_min_rows = 16 : i64, register_tile = array<i64: 6, 8>, strategy = "matmul"}
// AVX512:        linalg.matmul {{.*}}register_tile = array<i64: 8, 32>
// CHECK:         linalg.generic {{.*}}txc.lowering_config = {strategy = "matmul_epilogue"}
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @matmul_relu(%a: tensor<64x96xf32>, %b: tensor<96x64xf32>,
                       %acc: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %m = linalg.matmul ins(%a, %b : tensor<64x96xf32>, tensor<96x64xf32>)
                     outs(%acc : tensor<64x64xf32>) -> tensor<64x64xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m : tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.maximumf %x, %zero : f32
    linalg.yield %y : f32
  } -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

// -----

// Attention's batched matmuls run one batch (head) at a time (batch_tile),
// each batch a plain matmul. Q K^T, [2, S, 16] x [2, 16, S]: its scale is
// the fused epilogue although N = S is symbolic (the last strip is split
// off), in cache panels of 128 columns. P V, [2, S, S] x [2, S, 16]: K = S
// is symbolic, so no epilogue could run on final accumulators; tiled with
// K panels. A mask add that broadcasts a [S, S] mask over the heads is an
// epilogue too.
// CHECK-LABEL: func.func @attention_core
// AVX2:          linalg.batch_matmul {{.*}}txc.lowering_config = {batch_tile = array<i64: 1>, cache_tile = array<i64: 128, 0>, form = "fused_epilogue", pack_min_rows = 16 : i64, register_tile = array<i64: 6, 16>, strategy = "matmul"}
// SSE:           linalg.batch_matmul {{.*}}txc.lowering_config = {batch_tile = array<i64: 1>, cache_tile = array<i64: 128, 0>, form = "fused_epilogue", pack_min_rows = 16 : i64, register_tile = array<i64: 6, 8>, strategy = "matmul"}
// AVX512:        linalg.batch_matmul {{.*}}register_tile = array<i64: 8, 32>
// CHECK:         linalg.generic {{.*}}txc.lowering_config = {strategy = "matmul_epilogue"}
// CHECK:           arith.mulf
// AVX2:          linalg.batch_matmul {{.*}}txc.lowering_config = {batch_tile = array<i64: 1>, cache_tile = array<i64: 0, 1024>, form = "tiled", pack_min_rows = 16 : i64, register_tile = array<i64: 6, 16>, strategy = "matmul"}
// SSE:           linalg.batch_matmul {{.*}}txc.lowering_config = {batch_tile = array<i64: 1>, cache_tile = array<i64: 0, 1024>, form = "tiled", pack_min_rows = 16 : i64, register_tile = array<i64: 6, 8>, strategy = "matmul"}
// CHECK:         linalg.batch_matmul {{.*}}form = "fused_epilogue"
// CHECK:         linalg.generic {{.*}}txc.lowering_config = {strategy = "matmul_epilogue"}
// CHECK:           arith.addf
// Without an epilogue (a mask folded into the initial value), N = S
// symbolic is still cut into panels of 128 columns, packed when full.
// AVX2:          linalg.batch_matmul {{.*}}txc.lowering_config = {batch_tile = array<i64: 1>, cache_tile = array<i64: 128, 0>, form = "tiled", pack_min_rows = 16 : i64, register_tile = array<i64: 6, 16>, strategy = "matmul"}
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#mask = affine_map<(d0, d1, d2) -> (d1, d2)>
func.func @attention_core(%q: tensor<2x?x16xf32>, %kt: tensor<2x16x?xf32>,
                          %v: tensor<2x?x16xf32>, %mask: tensor<?x?xf32>,
                          %scores: tensor<2x?x?xf32>, %ctx: tensor<2x?x16xf32>,
                          %masked: tensor<2x?x?xf32>)
    -> (tensor<2x?x?xf32>, tensor<2x?x16xf32>, tensor<2x?x?xf32>,
        tensor<2x?x?xf32>) {
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 0.25 : f32
  %c1 = arith.constant 1 : index
  %s = tensor.dim %q, %c1 : tensor<2x?x16xf32>
  %e = tensor.empty(%s, %s) : tensor<2x?x?xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x?x?xf32>) -> tensor<2x?x?xf32>
  %qk = linalg.batch_matmul ins(%q, %kt : tensor<2x?x16xf32>, tensor<2x16x?xf32>)
                            outs(%init : tensor<2x?x?xf32>) -> tensor<2x?x?xf32>
  %scaled = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%qk : tensor<2x?x?xf32>) outs(%scores : tensor<2x?x?xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.mulf %x, %scale : f32
    linalg.yield %y : f32
  } -> tensor<2x?x?xf32>
  %ctx0 = linalg.fill ins(%zero : f32) outs(%ctx : tensor<2x?x16xf32>) -> tensor<2x?x16xf32>
  %pv = linalg.batch_matmul ins(%scaled, %v : tensor<2x?x?xf32>, tensor<2x?x16xf32>)
                            outs(%ctx0 : tensor<2x?x16xf32>) -> tensor<2x?x16xf32>
  %init2 = linalg.fill ins(%zero : f32) outs(%e : tensor<2x?x?xf32>) -> tensor<2x?x?xf32>
  %qk2 = linalg.batch_matmul ins(%q, %kt : tensor<2x?x16xf32>, tensor<2x16x?xf32>)
                             outs(%init2 : tensor<2x?x?xf32>) -> tensor<2x?x?xf32>
  %add = linalg.generic {indexing_maps = [#id3, #mask, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%qk2, %mask : tensor<2x?x?xf32>, tensor<?x?xf32>) outs(%masked : tensor<2x?x?xf32>) {
  ^bb0(%x: f32, %m: f32, %o: f32):
    %y = arith.addf %x, %m : f32
    linalg.yield %y : f32
  } -> tensor<2x?x?xf32>
  %qk3 = linalg.batch_matmul ins(%q, %kt : tensor<2x?x16xf32>, tensor<2x16x?xf32>)
                             outs(%masked : tensor<2x?x?xf32>) -> tensor<2x?x?xf32>
  return %scaled, %pv, %add, %qk3 : tensor<2x?x?xf32>, tensor<2x?x16xf32>, tensor<2x?x?xf32>, tensor<2x?x?xf32>
}

// -----

// Output rows narrower than a register tile (12 < 16 columns with AVX2), at
// unit strides, run the output plane as one flat row of 16-column matmul
// tiles (flatten_rows; 16 input channels are one channel block); with SSE (8 columns) they are row tiles of matmuls. A
// column stride is rewritten as unit stride first. 6 output channels are
// no multiple of the 4-channel filter tile: with AVX2 one im2col matmul,
// [6, 144] x [144, 144], with its own matmul config; with SSE 1-D row
// tiles. Dynamic image sizes: loops.
// CHECK-LABEL: func.func @convolutions
// AVX2:          linalg.conv_2d_nchw_fchw {{.*}}txc.lowering_config = {channel_tile = 0 : i64, column_tiles = array<i64: 16>, filter_tile = 4 : i64, flatten_rows = true, form = "row_matmuls", strategy = "convolution", unit_column_stride = false}
// SSE:           linalg.conv_2d_nchw_fchw {{.*}}txc.lowering_config = {column_tiles = array<i64: 8, 4, 2, 1>, filter_tile = 4 : i64, form = "row_matmuls", strategy = "convolution", unit_column_stride = false}
// AVX2:          linalg.conv_2d_nchw_fchw {{.*}}txc.lowering_config = {column_tiles = array<i64: 16, 8, 4, 2, 1>, filter_tile = 4 : i64, form = "row_matmuls", strategy = "convolution", unit_column_stride = true}
// SSE:           linalg.conv_2d_nchw_fchw {{.*}}txc.lowering_config = {column_tiles = array<i64: 8, 4, 2, 1>, filter_tile = 4 : i64, form = "row_matmuls", strategy = "convolution", unit_column_stride = true}
// AVX2:          linalg.conv_2d_nchw_fchw {{.*}}txc.lowering_config = {form = "one_matmul", matmul = {cache_tile = array<i64: 128, 0>, form = "tiled", pack_min_rows = 16 : i64, register_tile = array<i64: 6, 16>, strategy = "matmul"}, per_image = false, strategy = "convolution"}
// SSE:           linalg.conv_2d_nchw_fchw {{.*}}txc.lowering_config = {form = "row_tiles", strategy = "convolution", tile_sizes = array<i64: 1, 6, 1, 12, 0, 1, 0>}
// CHECK:         linalg.conv_2d_nchw_fchw {{.*}}txc.lowering_config = {form = "loops", strategy = "convolution"}
func.func @convolutions(%x: tensor<1x16x14x14xf32>, %w: tensor<32x16x3x3xf32>,
                        %o: tensor<1x32x12x12xf32>, %xs: tensor<1x8x33x33xf32>,
                        %ws: tensor<8x8x3x3xf32>, %os: tensor<1x8x16x16xf32>,
                        %w6: tensor<6x16x3x3xf32>, %o6: tensor<1x6x12x12xf32>,
                        %xd: tensor<1x16x?x?xf32>, %od: tensor<1x8x?x?xf32>)
    -> (tensor<1x32x12x12xf32>, tensor<1x8x16x16xf32>, tensor<1x6x12x12xf32>,
        tensor<1x8x?x?xf32>) {
  %narrow = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x16x14x14xf32>, tensor<32x16x3x3xf32>)
      outs(%o : tensor<1x32x12x12xf32>) -> tensor<1x32x12x12xf32>
  %strided = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%xs, %ws : tensor<1x8x33x33xf32>, tensor<8x8x3x3xf32>)
      outs(%os : tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
  %six = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w6 : tensor<1x16x14x14xf32>, tensor<6x16x3x3xf32>)
      outs(%o6 : tensor<1x6x12x12xf32>) -> tensor<1x6x12x12xf32>
  %dynamic = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%xd, %ws : tensor<1x16x?x?xf32>, tensor<8x8x3x3xf32>)
      outs(%od : tensor<1x8x?x?xf32>) -> tensor<1x8x?x?xf32>
  return %narrow, %strided, %six, %dynamic : tensor<1x32x12x12xf32>, tensor<1x8x16x16xf32>, tensor<1x6x12x12xf32>, tensor<1x8x?x?xf32>
}

// -----

// Flat convolutions in blocks of at most 64 input channels that divide C:
// 64 of 192, 48 of 96. More than 64 output channels: one im2col matmul.
// CHECK-LABEL: func.func @flat_channel_blocks
// AVX2:          linalg.conv_2d_nchw_fchw {{.*}}channel_tile = 64 : i64, column_tiles = array<i64: 16>{{.*}}flatten_rows = true
// AVX2:          linalg.conv_2d_nchw_fchw {{.*}}channel_tile = 48 : i64, column_tiles = array<i64: 16>{{.*}}flatten_rows = true
// AVX2:          linalg.conv_2d_nchw_fchw {{.*}}form = "one_matmul"
func.func @flat_channel_blocks(%x: tensor<1x192x9x9xf32>, %w: tensor<8x192x3x3xf32>,
                               %x2: tensor<1x96x9x9xf32>, %w2: tensor<8x96x3x3xf32>,
                               %o: tensor<1x8x7x7xf32>, %w3: tensor<68x96x3x3xf32>,
                               %o3: tensor<1x68x7x7xf32>)
    -> (tensor<1x8x7x7xf32>, tensor<1x8x7x7xf32>, tensor<1x68x7x7xf32>) {
  %a = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x192x9x9xf32>, tensor<8x192x3x3xf32>)
      outs(%o : tensor<1x8x7x7xf32>) -> tensor<1x8x7x7xf32>
  %b = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x2, %w2 : tensor<1x96x9x9xf32>, tensor<8x96x3x3xf32>)
      outs(%o : tensor<1x8x7x7xf32>) -> tensor<1x8x7x7xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x2, %w3 : tensor<1x96x9x9xf32>, tensor<68x96x3x3xf32>)
      outs(%o3 : tensor<1x68x7x7xf32>) -> tensor<1x68x7x7xf32>
  return %a, %b, %c : tensor<1x8x7x7xf32>, tensor<1x8x7x7xf32>, tensor<1x68x7x7xf32>
}

// -----

// A depthwise convolution becomes a sum over its 9 taps, an elementwise op.
// CHECK-LABEL: func.func @depthwise
// AVX2:          linalg.depthwise_conv_2d_nchw_chw {{.*}}txc.lowering_config = {form = "depthwise_taps", strategy = "convolution", sum = {strategy = "elementwise", vector_lanes = 8 : i64, vectors_per_step = 4 : i64}}
// SSE:           linalg.depthwise_conv_2d_nchw_chw {{.*}}txc.lowering_config = {form = "depthwise_taps", strategy = "convolution", sum = {strategy = "elementwise", vector_lanes = 4 : i64, vectors_per_step = 4 : i64}}
func.func @depthwise(%x: tensor<2x8x18x18xf32>, %w: tensor<8x3x3xf32>,
                     %o: tensor<2x8x16x16xf32>) -> tensor<2x8x16x16xf32> {
  %d = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<2x8x18x18xf32>, tensor<8x3x3xf32>)
      outs(%o : tensor<2x8x16x16xf32>) -> tensor<2x8x16x16xf32>
  return %d : tensor<2x8x16x16xf32>
}

// -----

// Softmax: both elementwise ops that read a row reduction are row-chain
// roots (the last one, the division, absorbs the other when it is tiled);
// the reductions get no config.
// CHECK-LABEL: func.func @softmax
// CHECK:         iterator_types = ["parallel", "reduction"]} ins(%{{.*}} : tensor<?x100xf32>) outs(%{{[a-z0-9]+}} : tensor<?xf32>) {
// AVX2:          iterator_types = ["parallel", "parallel"]} {{.*}} attrs =  {txc.lowering_config = {row_tile = array<i64: 1, 0>, strategy = "row_chain", vector_lanes = 8 : i64, vectors_per_step = 4 : i64}}
// SSE:           iterator_types = ["parallel", "parallel"]} {{.*}} attrs =  {txc.lowering_config = {row_tile = array<i64: 1, 0>, strategy = "row_chain", vector_lanes = 4 : i64, vectors_per_step = 4 : i64}}
// CHECK:         iterator_types = ["parallel", "reduction"]} ins(%{{.*}} : tensor<?x100xf32>) outs(%{{[a-z0-9]+}} : tensor<?xf32>) {
// CHECK:         iterator_types = ["parallel", "parallel"]} {{.*}} attrs =  {txc.lowering_config = {row_tile = array<i64: 1, 0>, strategy = "row_chain"
#row = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d0)>
func.func @softmax(%x: tensor<?x100xf32>, %init: tensor<?xf32>,
                   %out: tensor<?x100xf32>) -> tensor<?x100xf32> {
  %max = linalg.generic {indexing_maps = [#row, #col], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x100xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%a: f32, %m: f32):
    %r = arith.maximumf %a, %m : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %exp = linalg.generic {indexing_maps = [#row, #col, #row], iterator_types = ["parallel", "parallel"]}
      ins(%x, %max : tensor<?x100xf32>, tensor<?xf32>) outs(%out : tensor<?x100xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  } -> tensor<?x100xf32>
  %sum = linalg.generic {indexing_maps = [#row, #col], iterator_types = ["parallel", "reduction"]}
      ins(%exp : tensor<?x100xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%a: f32, %s: f32):
    %r = arith.addf %a, %s : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %div = linalg.generic {indexing_maps = [#row, #col, #row], iterator_types = ["parallel", "parallel"]}
      ins(%exp, %sum : tensor<?x100xf32>, tensor<?xf32>) outs(%out : tensor<?x100xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %r = arith.divf %a, %s : f32
    linalg.yield %r : f32
  } -> tensor<?x100xf32>
  return %div : tensor<?x100xf32>
}

// -----

// Elementwise ops: rows of 4 vectors; the lanes are those of the result's
// element type (i8: 32 with AVX2, 16 with SSE).
// CHECK-LABEL: func.func @elementwise
// AVX2:          linalg.generic {{.*}}txc.lowering_config = {strategy = "elementwise", vector_lanes = 8 : i64, vectors_per_step = 4 : i64}
// SSE:           linalg.generic {{.*}}txc.lowering_config = {strategy = "elementwise", vector_lanes = 4 : i64, vectors_per_step = 4 : i64}
// AVX2:          linalg.generic {{.*}}txc.lowering_config = {strategy = "elementwise", vector_lanes = 32 : i64, vectors_per_step = 4 : i64}
// SSE:           linalg.generic {{.*}}txc.lowering_config = {strategy = "elementwise", vector_lanes = 16 : i64, vectors_per_step = 4 : i64}
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @elementwise(%x: tensor<?x3x37xf32>, %out: tensor<?x3x37xf32>,
                       %s: tensor<1x5xi8>, %so: tensor<1x5xi8>)
    -> (tensor<?x3x37xf32>, tensor<1x5xi8>) {
  %r = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : tensor<?x3x37xf32>) outs(%out : tensor<?x3x37xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  } -> tensor<?x3x37xf32>
  %small = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<1x5xi8>) outs(%so : tensor<1x5xi8>) {
  ^bb0(%a: i8, %o: i8):
    %n = arith.addi %a, %a : i8
    linalg.yield %n : i8
  } -> tensor<1x5xi8>
  return %r, %small : tensor<?x3x37xf32>, tensor<1x5xi8>
}

// -----

// A linear layer (matmul_transpose_b) with symbolic rows and a static
// weight [N][K]: besides the packed form, the config records the form
// without packing that runs below pack_min_rows rows, 4 columns at a time
// as FMA accumulations of one vector of lanes (8 with AVX2, 4 with SSE, 16
// with AVX-512). Not for a plain matmul (B [K][N]), static rows or a
// symbolic K.
// CHECK-LABEL: func.func @linear_rows
// AVX2:          linalg.matmul_transpose_b {{.*}}txc.lowering_config = {cache_tile = array<i64: 128, 1024>, dot_columns = 4 : i64, dot_lanes = 8 : i64, form = "tiled", pack_min_rows = 16 : i64, register_tile = array<i64: 6, 16>, strategy = "matmul", unpacked_below = 16 : i64, unpacked_form = "dot_product"}
// SSE:           linalg.matmul_transpose_b {{.*}}dot_columns = 4 : i64, dot_lanes = 4 : i64, {{.*}}unpacked_below = 16 : i64, unpacked_form = "dot_product"}
// AVX512:        linalg.matmul_transpose_b {{.*}}dot_lanes = 16 : i64, {{.*}}unpacked_form = "dot_product"}
// CHECK:         linalg.matmul_transpose_b
// CHECK-NOT:       unpacked_form
// CHECK-SAME:      strategy = "matmul"
// CHECK:         linalg.matmul
// CHECK-NOT:       unpacked_form
// CHECK-SAME:      strategy = "matmul"
// CHECK:         linalg.matmul_transpose_b
// CHECK-NOT:       unpacked_form
// CHECK-SAME:      strategy = "matmul"
func.func @linear_rows(%x: tensor<?x1280xf32>, %w: tensor<1000x1280xf32>,
                       %acc: tensor<?x1000xf32>, %x8: tensor<8x1280xf32>,
                       %acc8: tensor<8x1000xf32>, %wt: tensor<1280x1000xf32>,
                       %xk: tensor<?x?xf32>, %wk: tensor<1000x?xf32>)
    -> (tensor<?x1000xf32>, tensor<8x1000xf32>, tensor<?x1000xf32>,
        tensor<?x1000xf32>) {
  %y = linalg.matmul_transpose_b ins(%x, %w : tensor<?x1280xf32>, tensor<1000x1280xf32>)
      outs(%acc : tensor<?x1000xf32>) -> tensor<?x1000xf32>
  %y8 = linalg.matmul_transpose_b ins(%x8, %w : tensor<8x1280xf32>, tensor<1000x1280xf32>)
      outs(%acc8 : tensor<8x1000xf32>) -> tensor<8x1000xf32>
  %yt = linalg.matmul ins(%x, %wt : tensor<?x1280xf32>, tensor<1280x1000xf32>)
      outs(%acc : tensor<?x1000xf32>) -> tensor<?x1000xf32>
  %yk = linalg.matmul_transpose_b ins(%xk, %wk : tensor<?x?xf32>, tensor<1000x?xf32>)
      outs(%acc : tensor<?x1000xf32>) -> tensor<?x1000xf32>
  return %y, %y8, %yt, %yk : tensor<?x1000xf32>, tensor<8x1000xf32>, tensor<?x1000xf32>, tensor<?x1000xf32>
}

// -----

// A transpose that moves the innermost dimension (attention's keys, [S,
// heads, d] to [heads, d, S]) runs in square blocks of one vector's lanes;
// one that keeps it (its rows are contiguous copies), and one of elements
// narrower than 32 bits, get no config.
// CHECK-LABEL: func.func @transposes
// AVX2:          linalg.transpose {{.*}}permutation = [1, 2, 0] {txc.lowering_config = {block = 8 : i64, strategy = "transpose"}}
// SSE:           linalg.transpose {{.*}}permutation = [1, 2, 0] {txc.lowering_config = {block = 4 : i64, strategy = "transpose"}}
// AVX512:        linalg.transpose {{.*}}permutation = [1, 2, 0] {txc.lowering_config = {block = 16 : i64, strategy = "transpose"}}
// AVX2:          linalg.transpose {{.*}}permutation = [1, 0] {txc.lowering_config = {block = 4 : i64, strategy = "transpose"}}
// CHECK:         linalg.transpose {{.*}}permutation = [1, 0, 2]{{ *$}}
// CHECK:         linalg.transpose {{.*}}permutation = [1, 0]{{ *$}}
func.func @transposes(%k: tensor<?x4x64xf32>, %ko: tensor<4x64x?xf32>,
                      %i: tensor<?x?xi64>, %io: tensor<?x?xi64>,
                      %vo: tensor<4x?x64xf32>,
                      %h: tensor<?x?xf16>, %ho: tensor<?x?xf16>)
    -> (tensor<4x64x?xf32>, tensor<?x?xi64>, tensor<4x?x64xf32>, tensor<?x?xf16>) {
  %kt = linalg.transpose ins(%k : tensor<?x4x64xf32>) outs(%ko : tensor<4x64x?xf32>) permutation = [1, 2, 0]
  %it = linalg.transpose ins(%i : tensor<?x?xi64>) outs(%io : tensor<?x?xi64>) permutation = [1, 0]
  %vt = linalg.transpose ins(%k : tensor<?x4x64xf32>) outs(%vo : tensor<4x?x64xf32>) permutation = [1, 0, 2]
  %ht = linalg.transpose ins(%h : tensor<?x?xf16>) outs(%ho : tensor<?x?xf16>) permutation = [1, 0]
  return %kt, %it, %vt, %ht : tensor<4x64x?xf32>, tensor<?x?xi64>, tensor<4x?x64xf32>, tensor<?x?xf16>
}
