//===- VectorErf.cpp - f32 erf without libm calls -------------------------===//
//
// gelu computes erf per element; as a C library call per lane it was the
// largest cost of the attention sample's feed-forward block. At -O2 f32 erf
// is MLIR's rational approximation instead, evaluated on |x| with the sign
// of x copied back (erf is odd; the approximation alone returns +0 for
// erf(-0)). Measured against glibc's erff: at most 5 ulp
// (test/e2e/elementwise/erf-ulp.test).
//
//===----------------------------------------------------------------------===//
#include "Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

namespace txc {
namespace {

/// Marks an erf whose argument is already non-negative.
constexpr StringLiteral kAbsoluteArgument = "txc.erf_of_abs";

/// erf(x) -> copysign(erf(|x|), x).
struct OddErf : OpRewritePattern<math::ErfOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::ErfOp erf,
                                PatternRewriter &rewriter) const override {
    if (erf->hasAttr(kAbsoluteArgument) ||
        !getElementTypeOrSelf(erf.getType()).isF32())
      return failure();
    Location loc = erf.getLoc();
    Value x = erf.getOperand();
    Value magnitude = rewriter.create<math::AbsFOp>(loc, x);
    auto positive = rewriter.create<math::ErfOp>(loc, magnitude);
    positive->setAttr(kAbsoluteArgument, rewriter.getUnitAttr());
    // erf(|x|) >= 0 (or NaN), so its sign bit is clear: or-ing in x's sign
    // bit is copysign. (math.copysign is not legal for every lowering here.)
    Type bitsType = rewriter.getI32Type();
    TypedAttr signBit = rewriter.getI32IntegerAttr(int32_t(0x80000000u));
    if (auto vector = dyn_cast<VectorType>(erf.getType())) {
      bitsType = vector.clone(bitsType);
      signBit = DenseElementsAttr::get(cast<ShapedType>(bitsType), signBit);
    }
    Value signMask = rewriter.create<arith::ConstantOp>(loc, signBit);
    Value sign = rewriter.create<arith::AndIOp>(
        loc, rewriter.create<arith::BitcastOp>(loc, bitsType, x), signMask);
    Value result = rewriter.create<arith::OrIOp>(
        loc, rewriter.create<arith::BitcastOp>(loc, bitsType, positive), sign);
    rewriter.replaceOpWithNewOp<arith::BitcastOp>(erf, erf.getType(), result);
    return success();
  }
};

} // namespace

void populateErfApproximationPatterns(RewritePatternSet &patterns) {
  patterns.add<OddErf>(patterns.getContext(), /*benefit=*/2);
  populatePolynomialApproximateErfPattern(patterns);
}

} // namespace txc
