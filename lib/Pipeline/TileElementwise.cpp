//===- TileElementwise.cpp - The elementwise strategy ----------------------===//
//
// Applies the "elementwise" configs that txc-select-lowering-strategy chose
// (LoweringConfig.h): one row at a time, vectors_per_step vectors of
// vector_lanes along the innermost dimension (one vector for a long body,
// see hasLongBody), the last partial step peeled so that the main loop's
// tiles are static and vectorize. An op no larger than one step stays
// whole: it is vectorized as it is. And the "transpose" configs: square
// blocks of the two dimensions that trade places with the innermost one.
//
//===----------------------------------------------------------------------===//
#include "LoweringConfig.h"
#include "Passes.h"
#include "Tiling.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace txc {
#define GEN_PASS_DEF_TILEELEMENTWISEPASS
#include "Passes.h.inc"

namespace {

void tileElementwise(RewriterBase &rewriter, linalg::LinalgOp op,
                     DictionaryAttr config) {
  if (hasEmptyLoopRange(op))
    return;
  int64_t vectors = hasLongBody(op) ? 1 : getInt(config, "vectors_per_step");
  int64_t step = vectors * getInt(config, "vector_lanes");
  SmallVector<int64_t> sizes = op.getStaticLoopRanges();
  int64_t inner = sizes.back();
  if (!ShapedType::isDynamic(inner) && inner <= step)
    step = inner;
  if (hasStaticShape(op) && iterationSpaceSize(op) <= step)
    return; // already small enough to vectorize as a whole
  SmallVector<int64_t> tileSizes(sizes.size(), 1);
  tileSizes.back() = step;
  auto tiled = tile(rewriter, op, tileSizes);
  if (failed(tiled) || tiled->loops.empty())
    return;
  peel(rewriter, tiled->loops.back());
}

/// Tiles `op` in blocks of `block` x `block` along its innermost dimension
/// and the output dimension that reads the input's innermost one, 1 along
/// the others; both block loops are peeled, so that the full blocks are
/// static and VectorizeStaticOps makes each a read of `block` input rows, a
/// vector transpose and a write of `block` output rows.
void tileTranspose(RewriterBase &rewriter, linalg::TransposeOp op,
                   DictionaryAttr config) {
  int64_t block = getInt(config, "block");
  ArrayRef<int64_t> permutation = op.getPermutation();
  int64_t innermost = int64_t(permutation.size()) - 1;
  SmallVector<int64_t> tileSizes(permutation.size(), 1);
  tileSizes.back() = block;
  int64_t readsInnermost =
      llvm::find(permutation, innermost) - permutation.begin();
  tileSizes[readsInnermost] = block;
  auto tiled = tile(rewriter, op, tileSizes);
  if (failed(tiled) || tiled->loops.size() != permutation.size())
    return;
  // The innermost first: peeling the outer loop copies the inner one into
  // its remainder, which stays a loop of partial blocks.
  peel(rewriter, tiled->loops.back());
  peel(rewriter, tiled->loops[readsInnermost]);
}

class TileElementwisePass
    : public impl::TileElementwisePassBase<TileElementwisePass> {
public:
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<std::pair<linalg::LinalgOp, DictionaryAttr>> ops;
    // A config inside a loop is a copy that fusion made with the op (the
    // producers in a small matmul's row loop): that op is already tiled.
    getOperation().walk([&](linalg::LinalgOp op) {
      DictionaryAttr config = takeLoweringConfig(op, "elementwise");
      if (!config)
        config = takeLoweringConfig(op, "transpose");
      if (config && !op->getParentOfType<scf::ForOp>())
        ops.push_back({op, config});
    });
    for (auto [op, config] : ops) {
      if (auto transpose = dyn_cast<linalg::TransposeOp>(op.getOperation()))
        tileTranspose(rewriter, transpose, config);
      else
        tileElementwise(rewriter, op, config);
    }
  }
};

} // namespace
} // namespace txc
