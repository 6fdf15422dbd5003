// RUN: txc-opt %s --split-input-file --txc-tile-convolution --canonicalize --cse | FileCheck %s

// txc-tile-convolution applies each form of the config. "one_matmul": the
// image is one [8, 36] x [36, 64] matmul on its im2col copy, tiled by the
// nested matmul config: 2 x 8 register tiles here.
// CHECK-LABEL: func.func @one_matmul
// CHECK:         linalg.generic {{.*}} outs(%{{.*}} : tensor<4x3x3x8x8xf32>)
// CHECK:         scf.for {{.*}} to %c8 step %c2
// CHECK:           linalg.matmul ins({{.*}} : tensor<2x1xf32>, tensor<1x8xf32>) outs({{.*}} : tensor<2x8xf32>)
// CHECK-NOT:     linalg.conv_2d_nchw_fchw
// CHECK-NOT:     txc.lowering_config
func.func @one_matmul(%x: tensor<1x4x10x10xf32>, %w: tensor<8x4x3x3xf32>,
                      %o: tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> {
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>,
      txc.lowering_config = {strategy = "convolution", form = "one_matmul", per_image = false,
        matmul = {strategy = "matmul", form = "tiled", register_tile = array<i64: 2, 8>, cache_tile = array<i64: 0, 0>, pack_min_rows = 16 : i64}}}
      ins(%x, %w : tensor<1x4x10x10xf32>, tensor<8x4x3x3xf32>)
      outs(%o : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %c : tensor<1x8x8x8xf32>
}

// -----

// "row_matmuls": the filter packed by the filter tile (4 channels), rows of
// 36 columns in parts of the column tiles, 32 in tiles of 8 then one of 4:
// 4 x 8 and 4 x 4 register tiles of matmul_transpose_a steps over the
// kernel taps and the channels.
// CHECK-LABEL: func.func @row_matmuls
// CHECK:         scf.for {{.*}} -> (tensor<2x3x3x4x4xf32>)
// CHECK:         scf.for {{.*}} to %c32 step %c8
// CHECK:           linalg.matmul_transpose_a ins({{.*}} : tensor<1x4xf32>, tensor<1x8xf32>) outs({{.*}} : tensor<4x8xf32>)
// CHECK:         linalg.matmul_transpose_a ins({{.*}} : tensor<1x4xf32>, tensor<1x4xf32>) outs({{.*}} : tensor<4x4xf32>)
// CHECK-NOT:     linalg.conv_2d_nchw_fchw
func.func @row_matmuls(%x: tensor<1x4x6x38xf32>, %w: tensor<8x4x3x3xf32>,
                       %o: tensor<1x8x4x36xf32>) -> tensor<1x8x4x36xf32> {
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>,
      txc.lowering_config = {strategy = "convolution", form = "row_matmuls", filter_tile = 4 : i64,
        column_tiles = array<i64: 8, 4>, unit_column_stride = false}}
      ins(%x, %w : tensor<1x4x6x38xf32>, tensor<8x4x3x3xf32>)
      outs(%o : tensor<1x8x4x36xf32>) -> tensor<1x8x4x36xf32>
  return %c : tensor<1x8x4x36xf32>
}

// -----

// "row_matmuls" with flatten_rows: the 4x4 output plane as one flat row with
// the input's row pitch (6): 3 * 6 + 4 = 22 columns, rounded up to 24 (3
// tiles of 8), whose tap (kh, kw) reads the flat input 6 * kh + kw columns
// on. The flat input is padded to 48 columns (the 38 that the tiles read,
// in an odd number of 16-float lines); the flat accumulator is a copy of
// the init padded to 6 columns a row, and its columns go back to the
// output's 4 a row at the end. Blocks of 2 input channels (channel_tile)
// are the outermost loop, and the packed filter slice starts at the block.
// CHECK:       #[[SHIFT_MAP:.*]] = affine_map<(d0, d1) -> (d0 * 6 + d1)>
// CHECK-LABEL: func.func @flat_rows
// CHECK:         tensor.pad %{{.*}} low[0, 0, 0] high[0, 0, 12]
// CHECK:         } : tensor<1x4x36xf32> to tensor<1x4x48xf32>
// CHECK:         tensor.pad %{{.*}} low[0, 0, 0, 0] high[0, 0, 0, 2]
// CHECK:         linalg.generic {{.*}} ins(%{{.*}} : tensor<1x8x4x6xf32>) outs(%{{.*}} : tensor<1x8x24xf32>)
// CHECK:         scf.for %[[C:.*]] = %c0 to %c4 step %c2
// CHECK:           scf.for {{.*}} to %c8 step %c4
// CHECK:             scf.for {{.*}} to %c24 step %c8
// CHECK:               tensor.extract_slice %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %[[C]], 0] [1, 1, 1, 2, 4] {{.*}} to tensor<2x4xf32>
// CHECK:               %[[SHIFT:.*]] = affine.apply #[[SHIFT_MAP]](%{{.*}}, %{{.*}})
// CHECK:               tensor.extract_slice %{{.*}}[0, 0, %[[SHIFT]]] [1, 2, 8] [1, 1, 1] : tensor<1x2x22xf32> to tensor<2x8xf32>
// CHECK:               linalg.matmul_transpose_a ins({{.*}} : tensor<1x4xf32>, tensor<1x8xf32>) outs({{.*}} : tensor<4x8xf32>)
// CHECK:         linalg.generic {{.*}} ins(%{{.*}} : tensor<1x8x24xf32>) outs(%{{.*}} : tensor<1x8x4x4xf32>)
// CHECK-NOT:     linalg.conv_2d_nchw_fchw
func.func @flat_rows(%x: tensor<1x4x6x6xf32>, %w: tensor<8x4x3x3xf32>,
                     %o: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>,
      txc.lowering_config = {strategy = "convolution", form = "row_matmuls", filter_tile = 4 : i64,
        column_tiles = array<i64: 8>, channel_tile = 2 : i64, unit_column_stride = false, flatten_rows = true}}
      ins(%x, %w : tensor<1x4x6x6xf32>, tensor<8x4x3x3xf32>)
      outs(%o : tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  return %c : tensor<1x8x4x4xf32>
}

// -----

// "row_tiles": tiles of one output row, 2 channels, 4 columns and one kernel
// row, which become 1-D convolutions.
// CHECK-LABEL: func.func @row_tiles
// CHECK:         scf.for {{.*}} to %c6 step %c2
// CHECK:           linalg.conv_1d_ncw_fcw {{.*}} outs({{.*}} : tensor<1x2x4xf64>)
func.func @row_tiles(%x: tensor<1x4x6x10xf64>, %w: tensor<6x4x3x3xf64>,
                     %o: tensor<1x6x4x8xf64>) -> tensor<1x6x4x8xf64> {
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>,
      txc.lowering_config = {strategy = "convolution", form = "row_tiles",
        tile_sizes = array<i64: 1, 2, 1, 4, 0, 1, 0>}}
      ins(%x, %w : tensor<1x4x6x10xf64>, tensor<6x4x3x3xf64>)
      outs(%o : tensor<1x6x4x8xf64>) -> tensor<1x6x4x8xf64>
  return %c : tensor<1x6x4x8xf64>
}

// -----

// "depthwise_taps": one elementwise sum over the 4 taps of a 2x2 kernel,
// which carries the config `sum` for the next pass.
// CHECK-LABEL: func.func @depthwise
// CHECK:         linalg.generic {{.*}} ins({{.*}} : tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
// CHECK-SAME:      txc.lowering_config = {strategy = "elementwise", vector_lanes = 2 : i64, vectors_per_step = 1 : i64}
// CHECK-NOT:     linalg.depthwise_conv_2d_nchw_chw
func.func @depthwise(%x: tensor<1x3x5x5xf32>, %w: tensor<3x2x2xf32>,
                     %o: tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32> {
  %d = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>,
      txc.lowering_config = {strategy = "convolution", form = "depthwise_taps",
        sum = {strategy = "elementwise", vector_lanes = 2 : i64, vectors_per_step = 1 : i64}}}
      ins(%x, %w : tensor<1x3x5x5xf32>, tensor<3x2x2xf32>)
      outs(%o : tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  return %d : tensor<1x3x4x4xf32>
}

// -----

// "loops" (and no config at all) leave the convolution whole.
// CHECK-LABEL: func.func @loops
// CHECK-NOT:     scf.for
// CHECK:         linalg.conv_2d_nchw_fchw
// CHECK-NOT:     txc.lowering_config
func.func @loops(%x: tensor<1x4x?x?xf32>, %w: tensor<8x4x3x3xf32>,
                 %o: tensor<1x8x?x?xf32>) -> tensor<1x8x?x?xf32> {
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>,
      txc.lowering_config = {strategy = "convolution", form = "loops"}}
      ins(%x, %w : tensor<1x4x?x?xf32>, tensor<8x4x3x3xf32>)
      outs(%o : tensor<1x8x?x?xf32>) -> tensor<1x8x?x?xf32>
  return %c : tensor<1x8x?x?xf32>
}
