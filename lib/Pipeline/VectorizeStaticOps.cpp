//===- VectorizeStaticOps.cpp - Vectorize what the strategies tiled -------===//
//
// The last step of the codegen strategy, after the passes that tile
// (TileMatmul, TileConvolution, TileRowChains, TileElementwise): every
// linalg op on tensors whose iteration space is static and at most
// max-elements is vectorized, and the vector transfers are folded with the
// tensor slices around them; then each register tile's accumulators are
// carried across its reduction loop in registers.
//
//===----------------------------------------------------------------------===//
#include "LoweringConfig.h"
#include "Passes.h"
#include "Tiling.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

using namespace mlir;

namespace txc {
#define GEN_PASS_DEF_VECTORIZESTATICOPSPASS
#include "Passes.h.inc"

namespace {

/// Whether `op` reads with tensor.extract where MLIR 19's vectorizer makes
/// a vector.gather that is wrong: from a slice with a step, a gather on a
/// buffer whose innermost stride is not 1, which MLIR 19 cannot lower to
/// LLVM (a gather after a strided slice,
/// test/fuzz/repros/fuzz-seed5019-min.json); in an op without loops (a
/// gather or gather_nd of a rank-0 result), a gather whose indices are a
/// scalar, which the verifier rejects (gather-scalar-O2.json).
bool hasUnvectorizableExtract(linalg::LinalgOp op) {
  bool noLoops = op.getNumLoops() == 0;
  return op->walk([&](tensor::ExtractOp extract) {
             auto slice =
                 extract.getTensor().getDefiningOp<tensor::ExtractSliceOp>();
             return noLoops || (slice && !slice.hasUnitStride())
                        ? WalkResult::interrupt()
                        : WalkResult::advance();
           })
      .wasInterrupted();
}

/// Vectorizes every linalg op under `root` whose iteration space is static
/// and at most `maxElements`, then folds the tensor slices into vector transfers.
void vectorizeStaticOps(Operation *root, RewriterBase &rewriter,
                        int64_t maxElements) {
  SmallVector<linalg::LinalgOp> candidates;
  root->walk([&](linalg::LinalgOp op) {
    if (op.hasPureTensorSemantics() && hasStaticShape(op) &&
        iterationSpaceSize(op) <= maxElements &&
        !touchesBoolMemory(op) && !hasUnvectorizableExtract(op))
      candidates.push_back(op);
  });
  // An op the vectorizer declines stays a linalg op: the loop lowering
  // makes scalar loops of it.
  for (linalg::LinalgOp op : candidates) {
    rewriter.setInsertionPoint(op);
    (void)linalg::vectorize(rewriter, op);
  }
}

void cleanupAfterVectorization(Operation *root) {
  MLIRContext *context = root->getContext();
  RewritePatternSet patterns(context);
  vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
  vector::populateVectorReductionToContractPatterns(patterns);
  vector::TransferReadOp::getCanonicalizationPatterns(patterns, context);
  vector::TransferWriteOp::getCanonicalizationPatterns(patterns, context);
  populateFoldSubsetTransferPatterns(patterns);
  // A row's slice of a whole-tensor temporary becomes a row-sized one.
  tensor::populateFoldTensorEmptyPatterns(patterns);
  scf::ForOp::getCanonicalizationPatterns(patterns, context);
  affine::AffineMinOp::getCanonicalizationPatterns(patterns, context);
  tensor::ExtractSliceOp::getCanonicalizationPatterns(patterns, context);
  tensor::InsertSliceOp::getCanonicalizationPatterns(patterns, context);
  (void)applyPatternsAndFoldGreedily(root, std::move(patterns));
}

/// The reduction loops of register tiles: loops with a vector.contract
/// directly in their body (the K loop of a matmul or convolution tile).
SmallVector<scf::ForOp> reductionLoops(Operation *root) {
  SmallVector<scf::ForOp> loops;
  root->walk([&](scf::ForOp loop) {
    if (!loop.getBody()->getOps<vector::ContractionOp>().empty())
      loops.push_back(loop);
  });
  return loops;
}

/// Makes each register tile's accumulators loop-carried vectors of its
/// reduction loop: the tile's transfer_read and transfer_write of the
/// loop's tensor at indices the loop does not change move out of it. On
/// tensors nothing can alias the tile. After bufferization, MLIR's
/// hoisting of the same transfers gives up when the tile is a view
/// (collapse_shape, subview) of memory the loop also reads, as a 1x1
/// convolution's per-image [F, H*W] view of its output or a workspace
/// temporary is, and every K step then loaded and stored the whole tile
/// (test/lit/codegen/register-tile-accumulators.test).
///
/// Only the K loop itself: MLIR 19's hoistLoopInvariantSubsets applied to
/// the loops around it (a convolution's kh and kw loops) moved an op out
/// of a loop that defined one of its operands in resnet18 ("operand does
/// not dominate this use"), so a convolution's tile goes through memory
/// once per (kh, kw) step, not once per input channel.
void hoistAccumulators(Operation *root, RewriterBase &rewriter) {
  for (scf::ForOp loop : reductionLoops(root))
    hoistLoopInvariantSubsets(rewriter, loop);
}

class VectorizeStaticOpsPass
    : public impl::VectorizeStaticOpsPassBase<VectorizeStaticOpsPass> {
public:
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp function = getOperation();
    IRRewriter rewriter(&getContext());
    // A config that no strategy pass applied (one whose tiling failed)
    // must not keep CSE from merging its op with an equal one.
    clearLoweringConfigs(function);
    canonicalize(function);
    vectorizeStaticOps(function, rewriter, maxElements);
    cleanupAfterVectorization(function);
    hoistAccumulators(function, rewriter);
  }
};

} // namespace
} // namespace txc
