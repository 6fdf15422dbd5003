//===- LoweringConfig.h - The codegen strategy as data ----------*- C++ -*-===//
//
// Internal to TxcPipeline. txc-select-lowering-strategy decides, for each
// root linalg op on tensors, how it is tiled and vectorized, and writes the
// decision on the op as the discardable attribute `txc.lowering_config` (a
// dictionary); one pass per strategy applies it (TileMatmul.cpp,
// TileConvolution.cpp, TileRowChains.cpp, TileElementwise.cpp) and removes
// it. The sizes come from one table of tuning constants per vector target
// (TargetTuning). The model is IREE's CPU backend: KernelDispatch.cpp
// decides, a `lowering_config` per op carries the decision, separate passes
// apply it.
//
// The configs, by `strategy`:
//
//   "matmul"           form = "tiled" | "small" | "fused_epilogue";
//                      register_tile = [MR, NR], cache_tile = [N, K] (0: that
//                      dimension is not cut into cache panels),
//                      pack_min_rows; row_tile (form "small": the tile sizes
//                      of the row loop, over the root's loops); batch_tile
//                      = [1] on a batch_matmul (not "small"): one batch at a
//                      time, an outer parallel loop, each batch a plain
//                      matmul under the rest of the config ("fused_epilogue"
//                      then also for a symbolic or ragged N);
//                      unpacked_form = "dot_product" with unpacked_below,
//                      dot_columns, dot_lanes (form "tiled", symbolic rows,
//                      a static B stored [N][K]): when the rows are fewer
//                      than unpacked_below, a branch chosen once per call
//                      computes dot_columns outputs at a time as
//                      dot_lanes-wide FMA accumulations along K, without
//                      packing B.
//   "matmul_epilogue"  on the elementwise op that a "fused_epilogue" or
//                      "small" matmul takes into its tiles.
//   "convolution"      form = "one_matmul" (per_image, matmul = the config
//                      of the im2col matmul, padded_columns = OH*OW rounded
//                      up to a multiple of NR when it is not one and less
//                      than a cache panel),
//                      "row_matmuls" (filter_tile,
//                      column_tiles, unit_column_stride; flatten_rows: the
//                      output plane as one flat row with the input's row
//                      pitch, in blocks of channel_tile input channels,
//                      0: all), "row_tiles"
//                      (tile_sizes), "depthwise_taps" (sum = the config of
//                      the elementwise op that replaces it), "loops".
//   "row_chain"        row_tile, vector_lanes, vectors_per_step: the root of
//                      a softmax-like chain, tiled one row at a time with its
//                      producers fused.
//   "elementwise"      vector_lanes, vectors_per_step: rows in steps of a few
//                      vectors (one for a long body).
//   "transpose"        block: a linalg.transpose that moves the innermost
//                      dimension, in block x block tiles of the output's
//                      innermost dimension and the one that reads the
//                      input's (the remainders peeled), each a vector
//                      transpose.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_LIB_PIPELINE_LOWERINGCONFIG_H
#define TXC_LIB_PIPELINE_LOWERINGCONFIG_H

#include "txc/Pipeline/Pipeline.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Operation.h"

#include <optional>

namespace txc {

/// The name of the attribute that carries an op's lowering config.
constexpr llvm::StringLiteral kLoweringConfig = "txc.lowering_config";

/// The tuning constants of one vector target. Every size that the strategy
/// selection writes into a config comes from here.
struct TargetTuning {
  llvm::StringLiteral name;
  unsigned vectorBits;
  /// The row applies to targets with at least this many vector registers.
  unsigned minRegisters;
  /// Matmul register tile: MR rows by NR = matmulColumnVectors vectors of
  /// columns, MR as many rows as leave registers for the B vectors and the
  /// A broadcast (6 x 2 of 16 registers, 8 x 2 of 32).
  int64_t matmulRows;
  int64_t matmulColumnVectors;
  /// Matmul cache panels of B: cacheColumns (NC) by cacheDepth (KC). KC =
  /// 1024 measured best at sgemm 1024 on Zen 3 (KC 256: 71, 512: 84, 1024:
  /// 90 GFLOPS).
  int64_t cacheColumns;
  int64_t cacheDepth;
  /// A matmul whose static weight has at most this many elements runs one
  /// row at a time as one vector contraction.
  int64_t smallWeight;
  /// B panels are packed only for at least this many rows of A.
  int64_t packMinRows;
  /// Output columns per step of the unpacked "dot_product" form (a
  /// matmul_transpose_b with fewer rows than packMinRows): one accumulator
  /// vector each, all reading the same vector of A.
  int64_t dotColumns;
  /// Vectors per step of an elementwise loop with a short body.
  int64_t elementwiseVectors;
  /// Largest static iteration space vectorized as a whole.
  int64_t maxVectorElements;
  /// Convolutions as matmuls: output channels per register tile, and
  /// columns per tile in vectors of f32.
  int64_t convolutionFilterTile;
  int64_t convolutionColumnVectors;
  /// Other convolutions: tiles of at most this many output channels by
  /// this many columns (or half as many), of at most this many elements.
  int64_t convolutionRowChannels;
  int64_t convolutionRowColumns;
  int64_t convolutionRowMaxElements;
  /// Flat convolutions (flatten_rows): narrow convolutions with at most
  /// this many output channels (with more, the im2col matmul was faster:
  /// docs/performance.md), in blocks of at most convolutionChannelBlock
  /// input channels, so that a block's filter strip and input rows stay in
  /// L1.
  int64_t convolutionFlatMaxFilters;
  int64_t convolutionChannelBlock;
  /// Depthwise convolutions with at most this many taps become one sum.
  int64_t depthwiseMaxTaps;

  int64_t lanes(unsigned elementBits) const {
    return vectorBits / elementBits;
  }
};

/// The tuning of `target`, or nullptr for a vector width without a row.
const TargetTuning *lookupTuning(VectorTarget target);

/// The config of `op`, if it has one.
mlir::DictionaryAttr getLoweringConfig(mlir::Operation *op);

/// The config of `op` if its strategy is `strategy`; the attribute is
/// removed from `op` (before tiling clones it into every tile).
mlir::DictionaryAttr takeLoweringConfig(mlir::Operation *op,
                                        llvm::StringRef strategy);

/// Whether `op` carries a config of `strategy`.
bool hasStrategy(mlir::Operation *op, llvm::StringRef strategy);

/// Removes the configs of every op under `root` (ops that tiling cloned
/// with their attributes).
void clearLoweringConfigs(mlir::Operation *root);

/// The fields of a config.
llvm::StringRef getString(mlir::DictionaryAttr config, llvm::StringRef name);
llvm::SmallVector<int64_t> getSizes(mlir::DictionaryAttr config,
                                    llvm::StringRef name);
int64_t getInt(mlir::DictionaryAttr config, llvm::StringRef name);
bool getBool(mlir::DictionaryAttr config, llvm::StringRef name);
mlir::DictionaryAttr getDictionary(mlir::DictionaryAttr config,
                                   llvm::StringRef name);

} // namespace txc

#endif
