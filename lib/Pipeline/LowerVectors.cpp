//===- LowerVectors.cpp - Vector lowering after bufferization -------------===//
//
// Order matters (each step measured on the codegen probe):
//  1. fold subviews into the transfers, so that
//  2. the accumulator reads/writes of a matmul tile become loop invariant and
//     are hoisted out of the K loop (35 -> 111 GFLOPS on the probe);
//  3. contractions become outer products and then FMAs; transfers become
//     plain (unit-stride) loads and stores; f32 exp on vectors becomes an
//     inline polynomial instead of one expf call per lane (VectorExp.cpp);
//     f32 erf (gelu's) MLIR's rational approximation, at most 5 ulp
//     (VectorErf.cpp). Other math functions on vectors stay libm calls per
//     lane: MLIR's approximations of them are off by more or flush
//     subnormals.
//
//===----------------------------------------------------------------------===//
#include "Passes.h"

#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Transforms/Hoisting.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace txc {
#define GEN_PASS_DEF_LOWERVECTORSPASS
#include "Passes.h.inc"

namespace {

/// Canonicalization (with `extra` patterns) then CSE: hoisting needs the
/// read and the write of an accumulator to use the very same index values.
void applyCanonicalization(Operation *root, RewritePatternSet &&extra) {
  MLIRContext *context = root->getContext();
  RewritePatternSet patterns(std::move(extra));
  for (Dialect *dialect : context->getLoadedDialects())
    dialect->getCanonicalizationPatterns(patterns);
  for (RegisteredOperationName op : context->getRegisteredOperations())
    op.getCanonicalizationPatterns(patterns, context);
  (void)applyPatternsAndFoldGreedily(root, std::move(patterns));
  IRRewriter rewriter(context);
  DominanceInfo dominance;
  eliminateCommonSubExpressions(rewriter, dominance, root);
}

/// A row's partial results (vector<1xN>, N a power of two, the 4 vectors a
/// row reduction keeps) reduced to one value by halving: log2(N) vector
/// ops. MLIR's lowering would instead extract the N lanes and combine them
/// one after another: 32 dependent adds, or for a NaN-propagating max 32
/// compare-and-branch steps, per row of a softmax.
class TreeReduceRow : public OpRewritePattern<vector::MultiDimReductionOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(vector::MultiDimReductionOp op,
                                PatternRewriter &rewriter) const override {
    VectorType source = op.getSourceVectorType();
    ArrayRef<int64_t> shape = source.getShape();
    int64_t width = shape.back();
    SmallVector<bool> reduced = op.getReductionMask();
    bool onlyInnermost = llvm::all_of(llvm::drop_end(shape),
                                      [](int64_t d) { return d == 1; }) &&
                         reduced.back() &&
                         llvm::count(reduced, true) == 1;
    vector::CombiningKind kind = op.getKind();
    bool supported = kind == vector::CombiningKind::ADD ||
                     kind == vector::CombiningKind::MAXIMUMF ||
                     kind == vector::CombiningKind::MINIMUMF ||
                     kind == vector::CombiningKind::MAXNUMF ||
                     kind == vector::CombiningKind::MINNUMF;
    if (!onlyInnermost || !supported || source.isScalable() || width < 4 ||
        !llvm::isPowerOf2_64(width) || !source.getElementType().isF32())
      return failure();
    Location loc = op.getLoc();
    Type element = source.getElementType();
    Value row = rewriter.create<vector::ShapeCastOp>(
        loc, VectorType::get({width}, element), op.getSource());
    for (int64_t half = width / 2; half >= 1; half /= 2) {
      auto type = VectorType::get({half}, element);
      Value low = rewriter.create<vector::ExtractStridedSliceOp>(
          loc, type, row, rewriter.getI64ArrayAttr({0}),
          rewriter.getI64ArrayAttr({half}), rewriter.getI64ArrayAttr({1}));
      Value high = rewriter.create<vector::ExtractStridedSliceOp>(
          loc, type, row, rewriter.getI64ArrayAttr({half}),
          rewriter.getI64ArrayAttr({half}), rewriter.getI64ArrayAttr({1}));
      row = vector::makeArithReduction(rewriter, loc, kind, low, high);
    }
    Value lane = rewriter.create<vector::ExtractOp>(loc, row, 0);
    // The accumulator has the result's shape (all ones, or a scalar).
    Value acc = op.getAcc();
    if (auto accType = dyn_cast<VectorType>(acc.getType())) {
      acc = rewriter.create<vector::ShapeCastOp>(
          loc, VectorType::get({1}, element), acc);
      acc = rewriter.create<vector::ExtractOp>(loc, acc, 0);
    }
    Value result = vector::makeArithReduction(rewriter, loc, kind, lane, acc);
    if (auto resultType = dyn_cast<VectorType>(op.getType()))
      result = rewriter.create<vector::BroadcastOp>(loc, resultType, result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

class LowerVectorsPass
    : public impl::LowerVectorsPassBase<LowerVectorsPass> {
public:
  void runOnOperation() override {
    func::FuncOp function = getOperation();
    MLIRContext *context = &getContext();

    // 1. Subviews into transfers.
    {
      RewritePatternSet patterns(context);
      memref::populateFoldMemRefAliasOpPatterns(patterns);
      applyCanonicalization(function, std::move(patterns));
    }
    // 2. Loop-invariant accumulators out of the K loops.
    linalg::hoistRedundantVectorTransfers(function);

    // 3. Contractions, transfers and shapes to 1-D vector ops; row
    // reductions first, as trees.
    {
      RewritePatternSet patterns(context);
      patterns.add<TreeReduceRow>(context);
      (void)applyPatternsAndFoldGreedily(function, std::move(patterns));
    }
    {
      RewritePatternSet patterns(context);
      vector::VectorTransformsOptions options;
      options.setVectorTransformsOptions(
          vector::VectorContractLowering::OuterProduct);
      options.setVectorMultiReductionLowering(
          vector::VectorMultiReductionLowering::InnerParallel);
      options.setVectorTransposeLowering(
          vector::VectorTransposeLowering::Shuffle1D);
      options.setVectorTransferSplit(vector::VectorTransferSplit::LinalgCopy);
      vector::populateVectorContractLoweringPatterns(patterns, options);
      vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
      vector::populateVectorMultiReductionLoweringPatterns(
          patterns, vector::VectorMultiReductionLowering::InnerParallel);
      vector::populateVectorTransferFullPartialPatterns(patterns, options);
      populateVectorToSCFConversionPatterns(
          patterns,
          VectorTransferToSCFOptions().enableFullUnroll().setTargetRank(1));
      vector::populateVectorTransferLoweringPatterns(patterns,
                                                     /*maxTransferRank=*/1);
      vector::populateVectorShapeCastLoweringPatterns(patterns);
      vector::populateVectorTransposeLoweringPatterns(patterns, options);
      (void)applyPatternsAndFoldGreedily(function, std::move(patterns));
    }
    // Outer products and broadcasts are lowered separately: together with
    // canonicalization they loop forever in MLIR 19.
    {
      RewritePatternSet patterns(context);
      vector::populateVectorOuterProductLoweringPatterns(patterns);
      vector::populateVectorBroadcastLoweringPatterns(patterns);
      (void)applyPatternsAndFoldGreedily(function, std::move(patterns));
    }
    // 4. f32 exp (on vectors) and erf without libm calls.
    {
      RewritePatternSet patterns(context);
      populateVectorExpPatterns(patterns);
      populateErfApproximationPatterns(patterns);
      (void)applyPatternsAndFoldGreedily(function, std::move(patterns));
    }
    applyCanonicalization(function, RewritePatternSet(context));
  }
};

} // namespace

} // namespace txc
