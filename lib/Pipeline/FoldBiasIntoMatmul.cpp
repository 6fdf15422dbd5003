//===- FoldBiasIntoMatmul.cpp - Bias add into the matmul accumulator ------===//
//
//   %c = linalg.fill 0 -> %empty
//   %m = linalg.matmul ins(%a, %b) outs(%c)
//   %y = linalg.generic (addf %m[i,j], %bias[j])      (bias broadcast)
// becomes
//   %c = linalg.generic (copy %bias[j]) -> %empty     (broadcast bias)
//   %y = linalg.matmul ins(%a, %b) outs(%c)
//
// so the bias costs nothing: it is the accumulators' initial value. The sum
// is then bias + a0*b0 + ... instead of (a0*b0 + ...) + bias, a different
// rounding order that the manifest's numerics section allows.
//
//===----------------------------------------------------------------------===//
#include "Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace txc {
#define GEN_PASS_DEF_FOLDBIASINTOMATMULPASS
#include "Passes.h.inc"

namespace {

/// The contraction producing `value` if it accumulates into a zero fill and
/// has no other user.
linalg::LinalgOp zeroInitContraction(Value value) {
  auto op = value.getDefiningOp<linalg::LinalgOp>();
  if (!op || !isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op) ||
      !value.hasOneUse())
    return {};
  auto fill = op.getDpsInitOperand(0)->get().getDefiningOp<linalg::FillOp>();
  if (!fill || !matchPattern(fill.getInputs()[0], m_AnyZeroFloat()))
    return {};
  return op;
}

/// True if the generic's body is `yield addf(in0, in1)`.
bool isFloatAdd(linalg::GenericOp generic) {
  Block &body = generic.getRegion().front();
  if (body.getOperations().size() != 2)
    return false;
  auto add = dyn_cast<arith::AddFOp>(body.front());
  auto yield = dyn_cast<linalg::YieldOp>(body.getTerminator());
  if (!add || !yield || yield.getValues().front() != add.getResult())
    return false;
  Value lhs = add.getLhs(), rhs = add.getRhs();
  Value in0 = body.getArgument(0), in1 = body.getArgument(1);
  return (lhs == in0 && rhs == in1) || (lhs == in1 && rhs == in0);
}

struct FoldBiasAdd : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp add,
                                PatternRewriter &rewriter) const override {
    if (add.getNumDpsInputs() != 2 || add.getNumDpsInits() != 1 ||
        add.getNumLoops() != add.getNumParallelLoops() || !isFloatAdd(add) ||
        !add.hasPureTensorSemantics())
      return failure();
    AffineMap identity =
        rewriter.getMultiDimIdentityMap(add.getNumLoops());
    for (unsigned which = 0; which < 2; ++which) {
      OpOperand *product = add.getDpsInputOperand(which);
      OpOperand *bias = add.getDpsInputOperand(1 - which);
      linalg::LinalgOp matmul = zeroInitContraction(product->get());
      if (!matmul || add.getMatchingIndexingMap(product) != identity ||
          product->get().getType() != add.getResult(0).getType())
        continue;
      // The bias, broadcast the way the add reads it, becomes the init.
      auto fill =
          matmul.getDpsInitOperand(0)->get().getDefiningOp<linalg::FillOp>();
      Value empty = fill.getOutputs()[0];
      rewriter.setInsertionPoint(matmul);
      AffineMap biasMap = add.getMatchingIndexingMap(bias);
      auto init = rewriter.create<linalg::GenericOp>(
          add.getLoc(), TypeRange{empty.getType()}, ValueRange{bias->get()},
          ValueRange{empty}, ArrayRef<AffineMap>{biasMap, identity},
          add.getIteratorTypesArray(),
          [](OpBuilder &b, Location loc, ValueRange args) {
            b.create<linalg::YieldOp>(loc, args[0]);
          });
      rewriter.modifyOpInPlace(matmul, [&] {
        matmul.getDpsInitOperand(0)->set(init.getResult(0));
      });
      rewriter.replaceOp(add, matmul->getResult(0));
      return success();
    }
    return failure();
  }
};

class FoldBiasIntoMatmulPass
    : public impl::FoldBiasIntoMatmulPassBase<FoldBiasIntoMatmulPass> {
public:
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldBiasAdd>(&getContext());
    if (failed(applyPatternsAndFoldGreedily(getOperation(),
                                            std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

} // namespace txc
