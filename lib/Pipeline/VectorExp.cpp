//===- VectorExp.cpp - Branch-free f32 exp on vectors ---------------------===//
//
// `math.exp` on f32 vectors would otherwise be unrolled into one expf call
// per lane. MLIR's own approximation (populateMathPolynomialApproximation-
// Patterns) flushes results below 2^-126 to zero and rewrites log, sin, cos,
// tanh and erf too, with errors above 4 ulp; txc promises IEEE results with
// denormals preserved, so it approximates exp alone, in the Cephes way:
//
//   k = round(x / ln 2),  r = x - k ln 2   (Cody-Waite: ln 2 in two parts)
//   exp(x) = 2^k * (1 + r + r^2 P(r))       (degree-5 P)
//
// At most 1 ulp from glibc expf on 8.7 million arguments, with and without
// FMA (test/e2e/elementwise/exp-ulp.test).
//
// The scale 2^k is applied as two exact powers of two, 2^(k>>1) and
// 2^(k - (k>>1)), so that results in the subnormal range round once and
// correctly instead of flushing to zero.
//
//===----------------------------------------------------------------------===//
#include "Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/PatternMatch.h"

#include <limits>

using namespace mlir;

namespace txc {
namespace {

class VectorExpF32 : public OpRewritePattern<math::ExpOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::ExpOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<VectorType>(op.getType());
    if (!type || !type.getElementType().isF32() || type.isScalable())
      return failure();
    Location loc = op.getLoc();
    auto intType = VectorType::get(type.getShape(), rewriter.getI32Type());
    auto f = [&](float value) -> Value {
      return rewriter.create<arith::ConstantOp>(
          loc, DenseElementsAttr::get(type, rewriter.getF32FloatAttr(value)));
    };
    auto i = [&](int32_t value) -> Value {
      return rewriter.create<arith::ConstantOp>(
          loc, DenseElementsAttr::get(intType, rewriter.getI32IntegerAttr(value)));
    };
    // The reduction and the polynomial may contract a * b + c into an FMA
    // where the target has one (half the instructions, one rounding less);
    // the rounding trick below must not, and uses `exact` ops.
    auto contract = arith::FastMathFlagsAttr::get(
        rewriter.getContext(), arith::FastMathFlags::contract);
    auto mul = [&](Value a, Value b) -> Value {
      return rewriter.create<arith::MulFOp>(loc, a, b, contract);
    };
    auto add = [&](Value a, Value b) -> Value {
      return rewriter.create<arith::AddFOp>(loc, a, b, contract);
    };
    auto sub = [&](Value a, Value b) -> Value {
      return rewriter.create<arith::SubFOp>(loc, a, b, contract);
    };
    auto exactAdd = [&](Value a, Value b) -> Value {
      return rewriter.create<arith::AddFOp>(loc, a, b);
    };
    auto exactSub = [&](Value a, Value b) -> Value {
      return rewriter.create<arith::SubFOp>(loc, a, b);
    };
    auto cmp = [&](arith::CmpFPredicate predicate, Value a, Value b) -> Value {
      return rewriter.create<arith::CmpFOp>(loc, predicate, a, b);
    };
    auto select = [&](Value c, Value a, Value b) -> Value {
      return rewriter.create<arith::SelectOp>(loc, c, a, b);
    };

    Value x = op.getOperand();
    // exp(x) rounds to +inf above 88.7228..., to 0 below -103.972...; NaN
    // stays NaN. The argument is clamped to [-104, 88.75] with compares
    // that keep a NaN (x86: one minps/maxps each); below -103.97 the scaling
    // at the end then rounds to 0 by itself, and a NaN flows through the
    // arithmetic. Only overflow needs a select: near FLT_MAX the polynomial's
    // last bit could otherwise make a finite result out of an infinite one.
    Value overflows = cmp(arith::CmpFPredicate::OGT, x, f(88.72283935546875f));
    Value clamped =
        select(cmp(arith::CmpFPredicate::OGT, x, f(88.75f)), f(88.75f), x);
    clamped = select(cmp(arith::CmpFPredicate::OLT, clamped, f(-104.0f)),
                     f(-104.0f), clamped);

    // k = round(x log2(e)); ln 2 = 0.693359375 - 2.12194440e-4, the first
    // part with few enough bits that k * part is exact. Rounding adds and
    // subtracts 1.5 * 2^23, which rounds to an integer (to even) for any
    // |t| < 2^22: not math.roundeven, which becomes a roundevenf call per
    // lane on targets without a vector round instruction in LLVM's eyes.
    Value t = rewriter.create<arith::MulFOp>(loc, clamped,
                                             f(1.44269504088896341f));
    Value kFloat = exactSub(exactAdd(t, f(12582912.0f)), f(12582912.0f));
    Value r = sub(clamped, mul(kFloat, f(0.693359375f)));
    r = sub(r, mul(kFloat, f(-2.12194440e-4f)));

    Value p = f(1.9875691500e-4f);
    for (float c : {1.3981999507e-3f, 8.3334519073e-3f, 4.1665795894e-2f,
                    1.6666665459e-1f, 5.0000001201e-1f})
      p = add(mul(p, r), f(c));
    Value y = add(add(mul(mul(p, r), r), r), f(1.0f));

    // y * 2^k1 * 2^k2 with k1 = k >> 1, k2 = k - k1, each in [-75, 64].
    Value k = rewriter.create<arith::FPToSIOp>(loc, intType, kFloat);
    Value k1 = rewriter.create<arith::ShRSIOp>(loc, k, i(1));
    Value k2 = rewriter.create<arith::SubIOp>(loc, k, k1);
    auto powerOfTwo = [&](Value exponent) -> Value {
      Value biased = rewriter.create<arith::AddIOp>(loc, exponent, i(127));
      Value bits = rewriter.create<arith::ShLIOp>(loc, biased, i(23));
      return rewriter.create<arith::BitcastOp>(loc, type, bits);
    };
    Value result = mul(mul(y, powerOfTwo(k1)), powerOfTwo(k2));

    result = select(overflows, f(std::numeric_limits<float>::infinity()), result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void populateVectorExpPatterns(RewritePatternSet &patterns) {
  patterns.add<VectorExpF32>(patterns.getContext());
}

} // namespace txc
