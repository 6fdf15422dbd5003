//===- TileRowChains.cpp - The row-chain strategy --------------------------===//
//
// Applies the "row_chain" configs that txc-select-lowering-strategy chose
// (LoweringConfig.h): the root of a softmax-like chain (an elementwise op
// consuming reductions along its innermost dimension) is tiled one row at a
// time (row_tile) with its producers fused into the row loop, so that the
// row stays in cache between the passes over it; inside the loop, the ops
// run in vector-sized chunks (vector_lanes, vectors_per_step).
//
//===----------------------------------------------------------------------===//
#include "LoweringConfig.h"
#include "Passes.h"
#include "Tiling.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/TilingInterface.h"

using namespace mlir;

namespace txc {
#define GEN_PASS_DEF_TILEROWCHAINSPASS
#include "Passes.h.inc"

namespace {

/// The producers that fusing into `root`'s row loop may clone: linalg ops
/// other than contractions whose every use is `root` or another such
/// producer. A producer that something outside the chain also reads (the
/// input of a residual block, a matmul's operand) is computed once, not
/// again inside each chain that reads it: fusing everything would
/// recompute whole earlier layers per row (40 ops: 39 s of compile).
llvm::DenseSet<Operation *> rowChainProducers(Operation *root) {
  llvm::DenseSet<Operation *> cone;
  SmallVector<Operation *> worklist = {root};
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    for (Value operand : op->getOperands()) {
      auto producer = operand.getDefiningOp<linalg::LinalgOp>();
      if (producer && producer.hasPureTensorSemantics() &&
          !linalg::isaContractionOpInterface(producer) &&
          cone.insert(producer).second)
        worklist.push_back(producer);
    }
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (Operation *op : llvm::to_vector(cone)) {
      bool usedOutside = llvm::any_of(op->getUsers(), [&](Operation *user) {
        return user != root && !cone.contains(user);
      });
      if (usedOutside) {
        cone.erase(op);
        changed = true;
      }
    }
  }
  return cone;
}

/// Inside a row loop: elementwise ops and reductions along the row in
/// chunks of `vectors` vectors of `lanes` (one vector for a long body). A
/// reduction keeps a vector of partial results across the chunks and
/// combines it once at the end of the row.
void tileRowOps(RewriterBase &rewriter, scf::ForOp rowLoop, int64_t lanes,
                int64_t vectors) {
  SmallVector<linalg::LinalgOp> ops;
  rowLoop.walk([&](linalg::LinalgOp op) {
    if (op.hasPureTensorSemantics() && op.getNumLoops() > 0)
      ops.push_back(op);
  });
  for (linalg::LinalgOp op : ops) {
    int64_t chunk = (hasLongBody(op) ? 1 : vectors) * lanes;
    SmallVector<int64_t> sizes = op.getStaticLoopRanges();
    int64_t length = sizes.back();
    // Short or ragged static rows vectorize (or stay scalar) whole. Rows of
    // a dynamic length (attention over a symbolic sequence) run full
    // chunks, then a peeled remainder. (Peeling a static remainder of a
    // partial reduction computes wrong sums in MLIR 19: [5,37] softmax.)
    if (!ShapedType::isDynamic(length) && (length % chunk || length <= chunk))
      continue;
    SmallVector<int64_t> tileSizes(sizes.size(), 0);
    tileSizes.back() = chunk;
    rewriter.setInsertionPoint(op);
    SmallVector<LoopLikeOpInterface> loops;
    if (isRowReduction(op)) {
      auto partial = dyn_cast<PartialReductionOpInterface>(op.getOperation());
      if (!partial)
        continue;
      // Replaces `op` itself on success.
      FailureOr<scf::SCFReductionTilingResult> tiled =
          scf::tileReductionUsingScf(
              rewriter, partial,
              getAsIndexOpFoldResult(op->getContext(), tileSizes));
      if (succeeded(tiled))
        loops = tiled->loops;
    } else if (isParallelElementwise(op)) {
      FailureOr<scf::SCFTilingResult> tiled = tile(rewriter, op, tileSizes);
      if (succeeded(tiled))
        loops = tiled->loops;
    }
    if (!loops.empty() && ShapedType::isDynamic(length))
      peel(rewriter, loops.back());
  }
}

/// Tiles the chain of `root` one row per iteration, with the whole chain of
/// producers (the reductions and the elementwise ops between them) fused
/// into the row loop, then the ops of the row in chunks.
void tileRowChain(RewriterBase &rewriter, linalg::LinalgOp root,
                  DictionaryAttr config) {
  llvm::DenseSet<Operation *> fusable = rowChainProducers(root);
  FailureOr<scf::SCFTileAndFuseResult> fused = tileAndFuse(
      rewriter, root, getSizes(config, "row_tile"),
      [&](Operation *producer) { return fusable.contains(producer); });
  if (failed(fused))
    return;
  // The producers were cloned into the loop with their configs, which
  // this chain consumed.
  Operation *innermost = fused->loops.back().getOperation();
  clearLoweringConfigs(innermost);
  // Fusion recomputes a producer shared by two consumers (exp feeds both
  // the sum and the division in softmax); CSE merges the copies. The
  // canonicalizer may rebuild the loop, so it is found again by a mark.
  constexpr StringLiteral kRowLoop = "txc.row_loop";
  innermost->setAttr(kRowLoop, rewriter.getUnitAttr());
  auto function = innermost->getParentOfType<func::FuncOp>();
  canonicalize(function);
  scf::ForOp rowLoop;
  function.walk([&](scf::ForOp loop) {
    if (loop->hasAttr(kRowLoop))
      rowLoop = loop;
  });
  if (!rowLoop)
    return;
  rowLoop->removeAttr(kRowLoop);
  tileRowOps(rewriter, rowLoop, getInt(config, "vector_lanes"),
             getInt(config, "vectors_per_step"));
}

class TileRowChainsPass
    : public impl::TileRowChainsPassBase<TileRowChainsPass> {
public:
  void runOnOperation() override {
    func::FuncOp function = getOperation();
    IRRewriter rewriter(&getContext());
    // Last root first: a root absorbs its producers (possibly other roots,
    // whose originals canonicalization then erases), so the IR is walked
    // again after each one. A config inside a loop is a copy that fusion
    // made (a small matmul's row loop takes all its producers): only ops
    // outside loops are roots.
    while (true) {
      linalg::LinalgOp root;
      function.walk([&](linalg::LinalgOp op) {
        if (!hasStrategy(op, "row_chain"))
          return;
        if (op->getParentOfType<scf::ForOp>())
          op->removeAttr(kLoweringConfig);
        else
          root = op;
      });
      if (!root)
        break;
      DictionaryAttr config = takeLoweringConfig(root, "row_chain");
      tileRowChain(rewriter, root, config);
    }
  }
};

} // namespace
} // namespace txc
