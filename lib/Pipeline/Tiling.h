//===- Tiling.h - Helpers shared by the tiling passes -----------*- C++ -*-===//
//
// Internal to TxcPipeline: what the strategy selection and the passes that
// apply it (TileMatmul, TileConvolution, TileRowChains, TileElementwise,
// VectorizeStaticOps) share: the predicates that classify linalg ops and
// the tiling, fusion, peeling and splitting steps they are built of.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_LIB_PIPELINE_TILING_H
#define TXC_LIB_PIPELINE_TILING_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/IR/PatternMatch.h"

namespace txc {

//===- What an op is -----------------------------------------------------===//

bool hasStaticShape(mlir::linalg::LinalgOp op);
/// An op with a static 0 among its loop ranges computes nothing; tiling it
/// would divide by its extent.
bool hasEmptyLoopRange(mlir::linalg::LinalgOp op);
int64_t iterationSpaceSize(mlir::linalg::LinalgOp op);
bool isMatmulLike(mlir::linalg::LinalgOp op);
bool isParallelElementwise(mlir::linalg::LinalgOp op);
/// Whether `op` reads or writes a bool (i1) tensor. Such ops stay scalar:
/// a bool buffer holds one byte per element, but LLVM loads and stores
/// vectors of i1 as packed bits, so vector transfers of them would read and
/// write the wrong bytes.
bool touchesBoolMemory(mlir::linalg::LinalgOp op);
/// Whether `op`'s body computes a math function (an inline polynomial or a
/// C library call per lane) or a division.
bool hasCostlyOps(mlir::linalg::LinalgOp op);
/// Whether `op`'s body is long enough that one vector per step has enough
/// independent work (see Tiling.cpp).
bool hasLongBody(mlir::linalg::LinalgOp op);
/// True if `op` reduces along the innermost dimension of its iteration
/// space only (a row reduction: max, sum, mean along the last axis).
bool isRowReduction(mlir::linalg::LinalgOp op);
/// The bit width of the element type of `op`'s first result.
unsigned resultElementBits(mlir::Operation *op);

//===- Tiling steps ------------------------------------------------------===//

/// Tiles `op` and replaces it; returns the loops (outermost first) and the
/// tiled op.
mlir::FailureOr<mlir::scf::SCFTilingResult>
tile(mlir::RewriterBase &rewriter, mlir::Operation *op,
     llvm::ArrayRef<int64_t> sizes, llvm::ArrayRef<int64_t> interchange = {});

/// Tiles `root` by `sizes`, fuses the producers that `fuse` accepts (all
/// by default) into the innermost loop, and replaces `root`'s results.
/// Fails if nothing was tiled.
mlir::FailureOr<mlir::scf::SCFTileAndFuseResult>
tileAndFuse(mlir::RewriterBase &rewriter, mlir::Operation *root,
            llvm::ArrayRef<int64_t> sizes,
            llvm::function_ref<bool(mlir::Operation *)> fuse = nullptr);

/// Peels `loop` so that its main part runs only full tiles; the remainder
/// iteration (if any) is returned.
mlir::scf::ForOp peel(mlir::RewriterBase &rewriter,
                      mlir::LoopLikeOpInterface loopLike);

/// Runs CSE and the canonicalization patterns of every registered op on
/// `root`, so that tile sizes computed by affine.min fold to constants.
void canonicalize(mlir::Operation *root);

/// Splits `op` along `dim` at the largest multiple of `multiple` that fits,
/// so that the first part tiles evenly. Returns {whole, none} when the
/// split is not needed, {none, whole} when no full tile fits.
std::pair<mlir::Operation *, mlir::Operation *>
splitForTiles(mlir::RewriterBase &rewriter, mlir::Operation *op, unsigned dim,
              int64_t multiple);

/// Splits `op` along rows `m` into parts that each tile evenly, paired
/// with their tile height: full MR tiles first, then the remainder.
llvm::SmallVector<std::pair<mlir::Operation *, int64_t>>
splitRows(mlir::RewriterBase &rewriter, mlir::Operation *op, unsigned m,
          int64_t mr);

/// Tiles a contraction `op` into `rows` x `cols` register tiles over its
/// dimensions `m` and `n` with a K loop of step 1, innermost.
void tileRegisters(mlir::RewriterBase &rewriter, mlir::Operation *op,
                   unsigned m, unsigned n, int64_t rows, int64_t cols);

//===- Strategies that other strategies use ------------------------------===//

/// Applies the "matmul" config `config` to the contraction `op`
/// (TileMatmul.cpp); the convolution strategy uses it for its im2col
/// matmuls.
void applyMatmulConfig(mlir::RewriterBase &rewriter, mlir::linalg::LinalgOp op,
                       mlir::DictionaryAttr config);

} // namespace txc

#endif
