//===- Elementwise.cpp - Lowering of elementwise ops ----------------------===//
//
// Every elementwise op is one linalg.generic over the result's iteration
// space; operands are broadcast by their indexing maps (numpy rules), so no
// broadcast is ever materialized. The body computes one element with arith
// and math ops; the semantics are in docs/ops.md, "Elementwise ops".
//
// Conventions shared by every body:
//  - f16 and bf16 elements are extended to f32, computed on, and truncated
//    once at the end (round to nearest even), so each op rounds once.
//  - Transcendental functions stay math.* ops (math.exp, math.erf, ...): the
//    pipeline turns them into libm calls, and faster approximations can later
//    replace them without touching this file.
//  - Nothing is left undefined for any input: integer division and modulo by
//    zero, INT_MIN / -1 and out-of-range float-to-integer casts all have a
//    defined result, so the object never traps and LLVM never sees poison.
//
//===----------------------------------------------------------------------===//
#include "../MLIRGen.h"

#include "txc/Program/Attributes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include "llvm/ADT/APFloat.h"

#include <cmath>

using namespace mlir;

// Inside namespace txc, txc::TensorType hides mlir::TensorType.
namespace txc {

namespace {

bool isHalf(DType type) { return type == DType::F16 || type == DType::BF16; }

Type floatTypeOf(OpBuilder &b, DType dtype) {
  switch (dtype) {
  case DType::F16:
    return b.getF16Type();
  case DType::BF16:
    return b.getBF16Type();
  case DType::F64:
    return b.getF64Type();
  default:
    return b.getF32Type();
  }
}

//===----------------------------------------------------------------------===//
// Scalar: builds the body of one element
//===----------------------------------------------------------------------===//

/// The builder of one element's computation: where to insert, the dtype of
/// the data operands (which says how to interpret i8: signed or u8) and the
/// node (for attributes).
struct Scalar {
  OpBuilder &b;
  Location at;
  DType dtype;
  const Node &node;

  bool isFloating() const { return isFloat(dtype); }
  bool isSignedInt() const { return isSigned(dtype); }

  template <class OpTy, class... Args> Value op(Args &&...args) {
    return b.create<OpTy>(at, std::forward<Args>(args)...).getResult();
  }
  Value floatConst(Type type, double value) {
    return op<arith::ConstantOp>(b.getFloatAttr(type, value));
  }
  Value intConst(Type type, int64_t value) {
    return op<arith::ConstantOp>(b.getIntegerAttr(type, value));
  }
  Value intConst(Type type, const llvm::APInt &value) {
    return op<arith::ConstantOp>(b.getIntegerAttr(type, value));
  }
  /// A constant of `value` in the type of `like`.
  Value like(Value like, double value) {
    Type type = like.getType();
    return isa<FloatType>(type) ? floatConst(type, value)
                                : intConst(type, int64_t(value));
  }
  Value cmpf(arith::CmpFPredicate p, Value x, Value y) {
    return op<arith::CmpFOp>(p, x, y);
  }
  Value cmpi(arith::CmpIPredicate p, Value x, Value y) {
    return op<arith::CmpIOp>(p, x, y);
  }
  Value select(Value condition, Value x, Value y) {
    return op<arith::SelectOp>(condition, x, y);
  }
  Value isNaN(Value x) { return cmpf(arith::CmpFPredicate::UNO, x, x); }
};

/// Computes one element of the op from its operand elements.
using ScalarFn = Value (*)(Scalar &s, ValueRange args);

/// Runs `fn` in the compute type: f16 and bf16 operands are extended to f32
/// (exactly) and a float result is truncated back once.
Value inComputeType(Scalar &s, ValueRange args, ScalarFn fn) {
  if (!isHalf(s.dtype))
    return fn(s, args);
  Type f32 = s.b.getF32Type();
  Type narrow;
  SmallVector<Value> wide;
  for (Value arg : args) {
    if (isa<FloatType>(arg.getType())) {
      narrow = arg.getType();
      arg = s.op<arith::ExtFOp>(f32, arg);
    }
    wide.push_back(arg);
  }
  Value result = fn(s, wide);
  if (narrow && result.getType() == f32)
    result = s.op<arith::TruncFOp>(narrow, result);
  return result;
}

/// IEEE 754-2019 maximum (or minimum) of two floats: NaN if either is NaN,
/// and +0 above -0, like PyTorch's maximum/minimum. Not arith.maximumf: the
/// pipeline's arith expansion turns it into a compare-and-select that
/// ignores the sign of zero, and LLVM 19 lowers the f16 intrinsic it
/// becomes after instcombine wrongly for (0, NaN) on x86.
Value ieeeMaxMin(Scalar &s, Value x, Value y, bool isMax) {
  // Unordered, although NaNs are handled below: LLVM's instruction selection
  // turns `select(x < c, x, c)` with an ordered compare and a constant `c`
  // into fminnum, which x86 legalizes with a call to fminf for f16 and bf16
  // (computed in float), a function objects may not import. An unordered
  // compare returns x when it is NaN, which no libm function implements.
  Value larger = s.cmpf(
      isMax ? arith::CmpFPredicate::UGT : arith::CmpFPredicate::ULT, x, y);
  Value result = s.select(larger, x, y);
  // Equal values differ only for zeros: and-ing the bits gives +0 if either
  // is +0, or-ing gives -0 if either is -0.
  Type bitsType = s.b.getIntegerType(x.getType().getIntOrFloatBitWidth());
  Value xBits = s.op<arith::BitcastOp>(bitsType, x);
  Value yBits = s.op<arith::BitcastOp>(bitsType, y);
  Value merged = isMax ? s.op<arith::AndIOp>(xBits, yBits)
                       : s.op<arith::OrIOp>(xBits, yBits);
  Value equal = s.cmpf(arith::CmpFPredicate::OEQ, x, y);
  result = s.select(equal, s.op<arith::BitcastOp>(x.getType(), merged), result);
  Value xNaN = s.isNaN(x);
  Value anyNaN = s.cmpf(arith::CmpFPredicate::UNO, x, y);
  return s.select(anyNaN, s.select(xNaN, x, y), result);
}

//===----------------------------------------------------------------------===//
// Unary ops
//===----------------------------------------------------------------------===//

Value emitNeg(Scalar &s, ValueRange a) {
  if (s.isFloating())
    return s.op<arith::NegFOp>(a[0]);
  // 0 - x wraps: neg(INT_MIN) == INT_MIN, and unsigned dtypes negate
  // modulo 2^width (u8: 256), as ONNX's Neg does on them (numpy's negative).
  return s.op<arith::SubIOp>(s.like(a[0], 0), a[0]);
}

Value emitAbs(Scalar &s, ValueRange a) {
  Value x = a[0];
  if (s.isFloating())
    return s.op<math::AbsFOp>(x);
  if (!s.isSignedInt())
    return x;
  // Not math.absi, which the libm lowering does not handle; wraps for INT_MIN.
  Value negative = s.cmpi(arith::CmpIPredicate::slt, x, s.like(x, 0));
  return s.select(negative, s.op<arith::SubIOp>(s.like(x, 0), x), x);
}

Value emitSign(Scalar &s, ValueRange a) {
  Value x = a[0], zero = s.like(x, 0), one = s.like(x, 1);
  if (!s.isFloating() && !s.isSignedInt())
    return s.select(s.cmpi(arith::CmpIPredicate::ne, x, zero), one, zero);
  Value minusOne = s.like(x, -1);
  Value positive, negative, rest = zero;
  if (s.isFloating()) {
    positive = s.cmpf(arith::CmpFPredicate::OGT, x, zero);
    negative = s.cmpf(arith::CmpFPredicate::OLT, x, zero);
    // NaN stays NaN; both zeros give +0.
    rest = s.select(s.isNaN(x), x, zero);
  } else {
    positive = s.cmpi(arith::CmpIPredicate::sgt, x, zero);
    negative = s.cmpi(arith::CmpIPredicate::slt, x, zero);
  }
  return s.select(positive, one, s.select(negative, minusOne, rest));
}

Value emitNot(Scalar &s, ValueRange a) {
  // xor with all ones: logical not on i1, bitwise not on integers.
  Type type = a[0].getType();
  Value ones =
      s.intConst(type, llvm::APInt::getAllOnes(type.getIntOrFloatBitWidth()));
  return s.op<arith::XOrIOp>(a[0], ones);
}

/// floor, ceil and round are the identity on integers.
template <class MathOp> Value emitRounding(Scalar &s, ValueRange a) {
  return s.isFloating() ? s.op<MathOp>(a[0]) : a[0];
}

template <class MathOp> Value emitMath(Scalar &s, ValueRange a) {
  return s.op<MathOp>(a[0]);
}

Value emitRsqrt(Scalar &s, ValueRange a) {
  // 1 / sqrt(x), as PyTorch computes it on CPU (two roundings). Not
  // math.rsqrt, which the libm lowering does not handle.
  Value root = s.op<math::SqrtOp>(a[0]);
  return s.op<arith::DivFOp>(s.like(root, 1), root);
}

Value emitReciprocal(Scalar &s, ValueRange a) {
  return s.op<arith::DivFOp>(s.like(a[0], 1), a[0]);
}

/// 1 + exp(-x), the denominator of sigmoid and silu.
Value onePlusExpNeg(Scalar &s, Value x) {
  Value e = s.op<math::ExpOp>(s.op<arith::NegFOp>(x));
  return s.op<arith::AddFOp>(s.like(x, 1), e);
}

Value emitSigmoid(Scalar &s, ValueRange a) {
  return s.op<arith::DivFOp>(s.like(a[0], 1), onePlusExpNeg(s, a[0]));
}

Value emitSilu(Scalar &s, ValueRange a) {
  return s.op<arith::DivFOp>(a[0], onePlusExpNeg(s, a[0]));
}

Value emitRelu(Scalar &s, ValueRange a) {
  Value x = a[0], zero = s.like(x, 0);
  if (s.isFloating()) // NaN stays NaN and -0 becomes +0, as in PyTorch.
    return ieeeMaxMin(s, x, zero, /*isMax=*/true);
  return s.isSignedInt() ? s.op<arith::MaxSIOp>(x, zero) : x;
}

Value emitGelu(Scalar &s, ValueRange a) {
  Value x = a[0];
  Value half = s.like(x, 0.5), one = s.like(x, 1);
  if (getStringAttr(s.node, "approximate", "none") == "tanh") {
    // 0.5*x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x*x*x)))
    Value cube = s.op<arith::MulFOp>(s.op<arith::MulFOp>(x, x), x);
    Value inner =
        s.op<arith::AddFOp>(x, s.op<arith::MulFOp>(s.like(x, 0.044715), cube));
    Value beta = s.like(x, M_SQRT2 * M_2_SQRTPI * 0.5);
    Value t = s.op<math::TanhOp>(s.op<arith::MulFOp>(beta, inner));
    return s.op<arith::MulFOp>(s.op<arith::MulFOp>(half, x),
                               s.op<arith::AddFOp>(one, t));
  }
  // x*0.5 * (1 + erf(x * sqrt(1/2)))
  Value e = s.op<math::ErfOp>(s.op<arith::MulFOp>(x, s.like(x, M_SQRT1_2)));
  return s.op<arith::MulFOp>(s.op<arith::MulFOp>(x, half),
                             s.op<arith::AddFOp>(one, e));
}

Value emitLeakyRelu(Scalar &s, ValueRange a) {
  Value x = a[0];
  Value alpha = s.like(x, getFloatAttr(s.node, "alpha", 0.01));
  Value positive = s.cmpf(arith::CmpFPredicate::OGT, x, s.like(x, 0));
  return s.select(positive, x, s.op<arith::MulFOp>(x, alpha));
}

/// max(0, min(1, x * alpha + beta)), ONNX's HardSigmoid: a multiply and an
/// add rounded each (no FMA), then IEEE maximum and minimum (NaN stays).
Value hardSigmoidOf(Scalar &s, Value x, double alpha, double beta) {
  Value t = s.op<arith::AddFOp>(s.op<arith::MulFOp>(x, s.like(x, alpha)),
                                s.like(x, beta));
  t = ieeeMaxMin(s, t, s.like(x, 0), /*isMax=*/true);
  return ieeeMaxMin(s, t, s.like(x, 1), /*isMax=*/false);
}

Value emitHardSigmoid(Scalar &s, ValueRange a) {
  return hardSigmoidOf(s, a[0], getFloatAttr(s.node, "alpha", 0.2),
                       getFloatAttr(s.node, "beta", 0.5));
}

/// x * hard_sigmoid(x) with alpha 1/6 and beta 0.5 (ONNX's HardSwish).
Value emitHardSwish(Scalar &s, ValueRange a) {
  return s.op<arith::MulFOp>(a[0], hardSigmoidOf(s, a[0], 1.0 / 6, 0.5));
}

/// A clamp bound for a float dtype: rounded to the dtype (nearest even)
/// first, so that the bound is a value of the tensor's dtype.
double roundToFloatType(double value, FloatType type) {
  llvm::APFloat f(value);
  bool lost = false;
  f.convert(type.getFloatSemantics(), llvm::APFloat::rmNearestTiesToEven,
            &lost);
  f.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
            &lost);
  return f.convertToDouble();
}

/// A clamp bound for an integer dtype (an integral value, checked by the
/// verifier), saturated to the dtype's range.
llvm::APInt saturateToInt(double value, unsigned width, bool isSigned) {
  llvm::APInt min = isSigned ? llvm::APInt::getSignedMinValue(width)
                             : llvm::APInt::getMinValue(width);
  llvm::APInt max = isSigned ? llvm::APInt::getSignedMaxValue(width)
                             : llvm::APInt::getMaxValue(width);
  double limit = std::ldexp(1.0, isSigned ? width - 1 : width);
  if (value >= limit)
    return max;
  if (value < (isSigned ? -limit : 0.0))
    return min;
  // Unsigned bounds may pass INT64_MAX (u64): no trip through int64_t.
  return llvm::APInt(
      width, isSigned ? uint64_t(int64_t(value)) : uint64_t(value), isSigned);
}

Value emitClamp(Scalar &s, ValueRange a) {
  Value x = a[0];
  Type type = x.getType();
  auto bound = [&](llvm::StringRef name) -> Value {
    double value = getFloatAttr(s.node, name, 0);
    if (!s.isFloating())
      return s.intConst(type, saturateToInt(value, type.getIntOrFloatBitWidth(),
                                            s.isSignedInt()));
    auto dtypeType = cast<FloatType>(floatTypeOf(s.b, s.dtype));
    return s.floatConst(type, roundToFloatType(value, dtypeType));
  };
  // max(x, min) then min(., max), as PyTorch: min > max gives max, NaN stays.
  if (hasAttr(s.node, "min")) {
    Value lo = bound("min");
    x = s.isFloating()    ? ieeeMaxMin(s, x, lo, /*isMax=*/true)
        : s.isSignedInt() ? s.op<arith::MaxSIOp>(x, lo)
                          : s.op<arith::MaxUIOp>(x, lo);
  }
  if (hasAttr(s.node, "max")) {
    Value hi = bound("max");
    x = s.isFloating()    ? ieeeMaxMin(s, x, hi, /*isMax=*/false)
        : s.isSignedInt() ? s.op<arith::MinSIOp>(x, hi)
                          : s.op<arith::MinUIOp>(x, hi);
  }
  return x;
}

//===----------------------------------------------------------------------===//
// Binary arithmetic
//===----------------------------------------------------------------------===//

/// Integer division that is defined for every input: truncates toward zero,
/// x / 0 == 0 and INT_MIN / -1 == INT_MIN (docs/ops.md), so the object never
/// traps on data.
Value safeIntDiv(Scalar &s, Value lhs, Value rhs) {
  Type type = lhs.getType();
  unsigned width = type.getIntOrFloatBitWidth();
  Value zero = s.intConst(type, 0), one = s.intConst(type, 1);
  Value isZero = s.cmpi(arith::CmpIPredicate::eq, rhs, zero);
  Value bad = isZero;
  if (s.isSignedInt()) {
    Value minValue = s.intConst(type, llvm::APInt::getSignedMinValue(width));
    Value overflow = s.op<arith::AndIOp>(
        s.cmpi(arith::CmpIPredicate::eq, lhs, minValue),
        s.cmpi(arith::CmpIPredicate::eq, rhs, s.intConst(type, -1)));
    bad = s.op<arith::OrIOp>(isZero, overflow);
  }
  // INT_MIN / 1 is INT_MIN, the required result of INT_MIN / -1.
  Value safeRhs = s.select(bad, one, rhs);
  Value quotient = s.isSignedInt() ? s.op<arith::DivSIOp>(lhs, safeRhs)
                                   : s.op<arith::DivUIOp>(lhs, safeRhs);
  return s.select(isZero, zero, quotient);
}

template <class FloatOp, class IntOp> Value emitArith(Scalar &s, ValueRange a) {
  return s.isFloating() ? s.op<FloatOp>(a[0], a[1]) : s.op<IntOp>(a[0], a[1]);
}

Value emitDiv(Scalar &s, ValueRange a) {
  return s.isFloating() ? s.op<arith::DivFOp>(a[0], a[1])
                        : safeIntDiv(s, a[0], a[1]);
}

/// Python/PyTorch `remainder`: the result has the sign of the divisor.
/// Floats: fmod, then add the divisor when the signs differ. Integers: x mod
/// 0 == 0 and the remainder never overflows.
Value emitMod(Scalar &s, ValueRange a) {
  Value x = a[0], y = a[1], zero = s.like(x, 0);
  Value r, rNonZero, rNegative, yNegative;
  if (s.isFloating()) {
    r = s.op<arith::RemFOp>(x, y);
    rNonZero = s.cmpf(arith::CmpFPredicate::ONE, r, zero);
    rNegative = s.cmpf(arith::CmpFPredicate::OLT, r, zero);
    yNegative = s.cmpf(arith::CmpFPredicate::OLT, y, zero);
  } else if (!s.isSignedInt()) {
    Value safeY =
        s.select(s.cmpi(arith::CmpIPredicate::eq, y, zero), s.like(y, 1), y);
    return s.op<arith::RemUIOp>(x, safeY);
  } else {
    // x mod 1 == x mod -1 == 0; x mod 0 is defined as 0.
    Value trivial =
        s.op<arith::OrIOp>(s.cmpi(arith::CmpIPredicate::eq, y, zero),
                           s.cmpi(arith::CmpIPredicate::eq, y, s.like(y, -1)));
    r = s.op<arith::RemSIOp>(x, s.select(trivial, s.like(y, 1), y));
    rNonZero = s.cmpi(arith::CmpIPredicate::ne, r, zero);
    rNegative = s.cmpi(arith::CmpIPredicate::slt, r, zero);
    yNegative = s.cmpi(arith::CmpIPredicate::slt, y, zero);
  }
  Value signsDiffer = s.op<arith::XOrIOp>(rNegative, yNegative);
  Value adjust = s.op<arith::AndIOp>(rNonZero, signsDiffer);
  Value adjusted =
      s.isFloating() ? s.op<arith::AddFOp>(r, y) : s.op<arith::AddIOp>(r, y);
  return s.select(adjust, adjusted, r);
}

/// C's `fmod` (PyTorch `fmod`, ONNX `Mod` with fmod=1): the remainder has
/// the sign of the dividend. Floats: remf, which is exact. Integers: the
/// truncated remainder, with x fmod 0 == x fmod -1 == 0 (never trapping:
/// both divide by 1 instead).
Value emitFmod(Scalar &s, ValueRange a) {
  Value x = a[0], y = a[1];
  if (s.isFloating())
    return s.op<arith::RemFOp>(x, y);
  Value one = s.like(y, 1);
  Value trivial = s.cmpi(arith::CmpIPredicate::eq, y, s.like(y, 0));
  if (!s.isSignedInt())
    return s.op<arith::RemUIOp>(x, s.select(trivial, one, y));
  trivial = s.op<arith::OrIOp>(
      trivial, s.cmpi(arith::CmpIPredicate::eq, y, s.like(y, -1)));
  return s.op<arith::RemSIOp>(x, s.select(trivial, one, y));
}

/// base^exponent for exponent >= 0 by square and multiply, wrapping like the
/// integer multiplication it is made of. `exponent` is treated as unsigned.
Value intPowNonNegative(Scalar &s, Value base, Value exponent) {
  Type type = base.getType();
  Value one = s.intConst(type, 1), zero = s.intConst(type, 0);
  auto loop = s.b.create<scf::WhileOp>(
      s.at, TypeRange{type, type, type}, ValueRange{one, base, exponent},
      [&](OpBuilder &b, Location at, ValueRange args) {
        Value more = b.create<arith::CmpIOp>(at, arith::CmpIPredicate::ne,
                                             args[2], zero);
        b.create<scf::ConditionOp>(at, more, args);
      },
      [&](OpBuilder &b, Location at, ValueRange args) {
        Value result = args[0], power = args[1], bits = args[2];
        Value odd = b.create<arith::TruncIOp>(at, b.getI1Type(), bits);
        Value times = b.create<arith::MulIOp>(at, result, power);
        result = b.create<arith::SelectOp>(at, odd, times, result);
        power = b.create<arith::MulIOp>(at, power, power);
        bits = b.create<arith::ShRUIOp>(at, bits, one);
        b.create<scf::YieldOp>(at, ValueRange{result, power, bits});
      });
  return loop.getResult(0);
}

/// Integer pow as in PyTorch: for a negative exponent the result is
/// 1 / x^-y truncated toward zero, that is 1 for x == 1, +-1 for x == -1 and
/// 0 otherwise (0 for x == 0, instead of a division by zero).
Value emitIntPow(Scalar &s, ValueRange a) {
  Value x = a[0], y = a[1];
  if (!s.isSignedInt())
    return intPowNonNegative(s, x, y);
  Value zero = s.like(y, 0), one = s.like(x, 1), minusOne = s.like(x, -1);
  Value negative = s.cmpi(arith::CmpIPredicate::slt, y, zero);
  Value power = intPowNonNegative(s, x, s.select(negative, zero, y));
  Value oddExponent = s.op<arith::TruncIOp>(s.b.getI1Type(), y);
  Value ofMinusOne = s.select(oddExponent, minusOne, one);
  Value inverse =
      s.select(s.cmpi(arith::CmpIPredicate::eq, x, one), one,
               s.select(s.cmpi(arith::CmpIPredicate::eq, x, minusOne),
                        ofMinusOne, s.like(x, 0)));
  return s.select(negative, inverse, power);
}

Value emitPow(Scalar &s, ValueRange a) {
  return s.isFloating() ? s.op<math::PowFOp>(a[0], a[1]) : emitIntPow(s, a);
}

/// max/min: floats propagate NaN and order -0 below +0 (PyTorch maximum and
/// minimum); bool and the unsigned dtypes compare unsigned.
template <bool IsMax> Value emitMaxMin(Scalar &s, ValueRange a) {
  Value x = a[0], y = a[1];
  if (s.isFloating())
    return ieeeMaxMin(s, x, y, IsMax);
  if (s.isSignedInt())
    return IsMax ? s.op<arith::MaxSIOp>(x, y) : s.op<arith::MinSIOp>(x, y);
  return IsMax ? s.op<arith::MaxUIOp>(x, y) : s.op<arith::MinUIOp>(x, y);
}

//===----------------------------------------------------------------------===//
// Comparisons and logic
//===----------------------------------------------------------------------===//

/// Float comparisons are ordered (false when either side is NaN) except
/// `ne`, which is true for NaN, as in IEEE and PyTorch.
template <arith::CmpFPredicate F, arith::CmpIPredicate S,
          arith::CmpIPredicate U>
Value emitCompare(Scalar &s, ValueRange a) {
  if (s.isFloating())
    return s.cmpf(F, a[0], a[1]);
  return s.cmpi(s.isSignedInt() ? S : U, a[0], a[1]);
}

/// and/or/xor: i1 ops are the logical ones, wider ones bitwise.
template <class OpTy> Value emitLogic(Scalar &s, ValueRange a) {
  return s.op<OpTy>(a[0], a[1]);
}

/// ONNX BitShift on an unsigned dtype: shli or shrui, and 0 for a shift by
/// the width or more (where shli/shrui give poison, which the select does
/// not propagate from its unselected side).
template <bool Left> Value emitShift(Scalar &s, ValueRange a) {
  Value x = a[0], y = a[1];
  Type type = x.getType();
  Value inRange = s.cmpi(arith::CmpIPredicate::ult, y,
                         s.intConst(type, type.getIntOrFloatBitWidth()));
  Value shifted = Left ? s.op<arith::ShLIOp>(x, y) : s.op<arith::ShRUIOp>(x, y);
  return s.select(inRange, shifted, s.intConst(type, 0));
}

//===----------------------------------------------------------------------===//
// Casts
//===----------------------------------------------------------------------===//

/// Rounds a positive or negative f32 one ulp toward `target` when `f` is an
/// inexact rounding of it with an even last bit: the result is the
/// round-to-odd value of `target`, from which a second rounding to a format
/// with at most 22 significant bits (f16, bf16) is correct (no double
/// rounding error).
Value toRoundToOdd(Scalar &s, Value f, Value inexact, Value awayFromZero) {
  Type i32 = s.b.getI32Type();
  Value bits = s.op<arith::BitcastOp>(i32, f);
  Value one = s.intConst(i32, 1);
  Value even = s.cmpi(arith::CmpIPredicate::eq, s.op<arith::AndIOp>(bits, one),
                      s.intConst(i32, 0));
  // f and its neighbors are sign-magnitude: +-1 on the bits steps the
  // magnitude by one ulp (and from inf to the largest finite value).
  Value step = s.select(awayFromZero, s.intConst(i32, -1), one);
  Value stepped = s.op<arith::AddIOp>(bits, step);
  Value fix = s.op<arith::AndIOp>(inexact, even);
  return s.op<arith::BitcastOp>(s.b.getF32Type(), s.select(fix, stepped, bits));
}

/// f64 to f32 rounding to odd (see toRoundToOdd).
Value f64ToF32RoundToOdd(Scalar &s, Value x) {
  Value f = s.op<arith::TruncFOp>(s.b.getF32Type(), x);
  Value back = s.op<arith::ExtFOp>(s.b.getF64Type(), f);
  Value inexact = s.cmpf(arith::CmpFPredicate::ONE, back, x);
  Value zero = s.floatConst(s.b.getF64Type(), 0);
  // |back| > |x| when back > x for positive x, or back < x for negative x.
  Value away = s.cmpi(arith::CmpIPredicate::eq,
                      s.cmpf(arith::CmpFPredicate::OGT, back, x),
                      s.cmpf(arith::CmpFPredicate::OGT, x, zero));
  return toRoundToOdd(s, f, inexact, away);
}

/// i32/i64 to f32 rounding to odd: the magnitude is converted (rounding to
/// nearest), converted back to compare with the exact value, and fixed up.
Value wideIntToF32RoundToOdd(Scalar &s, Value x) {
  Type type = x.getType(), f32 = s.b.getF32Type();
  Value zero = s.intConst(type, 0);
  Value negative = s.cmpi(arith::CmpIPredicate::slt, x, zero);
  // |INT_MIN| wraps to INT_MIN, which is the right magnitude as unsigned.
  Value magnitude = s.select(negative, s.op<arith::SubIOp>(zero, x), x);
  Value f = s.op<arith::UIToFPOp>(f32, magnitude);
  // f <= 2^(width-1), so it converts back without overflow.
  Value back = s.op<arith::FPToUIOp>(type, f);
  Value inexact = s.cmpi(arith::CmpIPredicate::ne, back, magnitude);
  Value away = s.cmpi(arith::CmpIPredicate::ugt, back, magnitude);
  f = toRoundToOdd(s, f, inexact, away);
  return s.select(negative, s.op<arith::NegFOp>(f), f);
}

/// u32/u64 to f32 rounding to odd, through the signed version on a value
/// that is non-negative as a signed integer: u32 zero-extended to i64; u64
/// at or above 2^63 halved with its lost bit kept as a sticky bit, which
/// leaves the significant bits and the inexactness, and so the rounding to
/// odd, the same; the result is doubled back exactly.
Value wideUnsignedToF32RoundToOdd(Scalar &s, Value x) {
  Type type = x.getType();
  if (type.getIntOrFloatBitWidth() < 64)
    return wideIntToF32RoundToOdd(s, s.op<arith::ExtUIOp>(s.b.getI64Type(), x));
  Value one = s.intConst(type, 1);
  Value high = s.cmpi(arith::CmpIPredicate::slt, x, s.intConst(type, 0));
  Value halved = s.op<arith::OrIOp>(s.op<arith::ShRUIOp>(x, one),
                                    s.op<arith::AndIOp>(x, one));
  Value f = wideIntToF32RoundToOdd(s, s.select(high, halved, x));
  Type f32 = s.b.getF32Type();
  return s.select(high, s.op<arith::MulFOp>(f, s.floatConst(f32, 2)), f);
}

/// Between float dtypes: exact when widening, one rounding to nearest even
/// when narrowing (f64 to f16/bf16 through f32 rounded to odd).
Value castFloatToFloat(Scalar &s, Value x, DType from, DType to) {
  if (isHalf(from))
    x = s.op<arith::ExtFOp>(s.b.getF32Type(), x);
  bool wide = x.getType().isF64();
  if (to == DType::F64)
    return wide ? x : s.op<arith::ExtFOp>(s.b.getF64Type(), x);
  if (to == DType::F32)
    return wide ? s.op<arith::TruncFOp>(s.b.getF32Type(), x) : x;
  if (wide)
    x = f64ToF32RoundToOdd(s, x);
  return s.op<arith::TruncFOp>(floatTypeOf(s.b, to), x);
}

/// Integer (or bool, as unsigned) to float: one rounding to nearest even.
Value castIntToFloat(Scalar &s, Value x, bool isSignedInt, DType to) {
  Type target = floatTypeOf(s.b, to);
  if (to == DType::F32 || to == DType::F64)
    return isSignedInt ? s.op<arith::SIToFPOp>(target, x)
                       : s.op<arith::UIToFPOp>(target, x);
  // f16/bf16 through f32. Up to 16 bits convert exactly; any integer over
  // f16's range rounds to inf either way; wider integers going to bf16 are
  // rounded to odd first so that the second rounding is correct.
  Type f32 = s.b.getF32Type();
  Value f;
  if (to == DType::BF16 && x.getType().getIntOrFloatBitWidth() > 16)
    f = isSignedInt ? wideIntToF32RoundToOdd(s, x)
                    : wideUnsignedToF32RoundToOdd(s, x);
  else
    f = isSignedInt ? s.op<arith::SIToFPOp>(f32, x)
                    : s.op<arith::UIToFPOp>(f32, x);
  return s.op<arith::TruncFOp>(target, f);
}

/// Float to integer: truncation toward zero, saturating at the dtype's
/// limits, NaN to 0. fptosi/fptoui only ever see in-range values (they give
/// poison otherwise).
Value castFloatToInt(Scalar &s, Value x, DType from, DType to) {
  if (isHalf(from))
    x = s.op<arith::ExtFOp>(s.b.getF32Type(), x);
  Type floatType = x.getType();
  Type intType = s.b.getIntegerType(dtypeSize(to) * 8);
  unsigned width = intType.getIntOrFloatBitWidth();
  bool isSignedInt = isSigned(to);
  // Values at or above `limit` saturate high; below `floor` saturate low.
  double limit = std::ldexp(1.0, isSignedInt ? width - 1 : width);
  Value high =
      s.cmpf(arith::CmpFPredicate::OGE, x, s.floatConst(floatType, limit));
  // For unsigned dtypes, (-1, 0) truncates to 0 anyway; NaN counts as low
  // (to 0).
  Value low = isSignedInt ? s.cmpf(arith::CmpFPredicate::OLT, x,
                                   s.floatConst(floatType, -limit))
                          : s.cmpf(arith::CmpFPredicate::ULT, x,
                                   s.floatConst(floatType, 0));
  Value nan = s.isNaN(x);
  Value outside = s.op<arith::OrIOp>(s.op<arith::OrIOp>(high, low), nan);
  Value safe = s.select(outside, s.floatConst(floatType, 0), x);
  Value r = isSignedInt ? s.op<arith::FPToSIOp>(intType, safe)
                        : s.op<arith::FPToUIOp>(intType, safe);
  llvm::APInt max = isSignedInt ? llvm::APInt::getSignedMaxValue(width)
                                : llvm::APInt::getMaxValue(width);
  llvm::APInt min = isSignedInt ? llvm::APInt::getSignedMinValue(width)
                                : llvm::APInt::getMinValue(width);
  r = s.select(low, s.intConst(intType, min), r);
  r = s.select(nan, s.intConst(intType, 0), r);
  return s.select(high, s.intConst(intType, max), r);
}

/// Between integer dtypes: two's complement wrapping (sign-extend signed
/// sources, zero-extend unsigned ones and bool, truncate when narrowing).
Value castIntToInt(Scalar &s, Value x, bool isSignedInt, DType to) {
  Type target = s.b.getIntegerType(dtypeSize(to) * 8);
  unsigned from = x.getType().getIntOrFloatBitWidth();
  unsigned width = target.getIntOrFloatBitWidth();
  if (from == width)
    return x;
  if (from > width)
    return s.op<arith::TruncIOp>(target, x);
  return isSignedInt ? s.op<arith::ExtSIOp>(target, x)
                     : s.op<arith::ExtUIOp>(target, x);
}

/// To bool: x != 0, so NaN is true and -0.0 is false.
Value castToBool(Scalar &s, Value x, DType from) {
  if (!isFloat(from))
    return s.cmpi(arith::CmpIPredicate::ne, x, s.like(x, 0));
  if (isHalf(from))
    x = s.op<arith::ExtFOp>(s.b.getF32Type(), x);
  return s.cmpf(arith::CmpFPredicate::UNE, x, s.like(x, 0));
}

Value emitCast(Scalar &s, Value x, DType from, DType to) {
  if (from == to)
    return x;
  if (to == DType::Bool)
    return castToBool(s, x, from);
  bool fromFloat = isFloat(from), toFloat = isFloat(to);
  if (fromFloat && toFloat)
    return castFloatToFloat(s, x, from, to);
  if (fromFloat)
    return castFloatToInt(s, x, from, to);
  // Bool is 0 or 1: unsigned.
  if (toFloat)
    return castIntToFloat(s, x, isSigned(from), to);
  return castIntToInt(s, x, isSigned(from), to);
}

//===----------------------------------------------------------------------===//
// Lowerings
//===----------------------------------------------------------------------===//

// The names Ops.def gives the emitters that are instances of templates.
using F = arith::CmpFPredicate;
using I = arith::CmpIPredicate;
constexpr ScalarFn emitAdd = emitArith<arith::AddFOp, arith::AddIOp>;
constexpr ScalarFn emitSub = emitArith<arith::SubFOp, arith::SubIOp>;
constexpr ScalarFn emitMul = emitArith<arith::MulFOp, arith::MulIOp>;
constexpr ScalarFn emitEq = emitCompare<F::OEQ, I::eq, I::eq>;
constexpr ScalarFn emitNe = emitCompare<F::UNE, I::ne, I::ne>;
constexpr ScalarFn emitLt = emitCompare<F::OLT, I::slt, I::ult>;
constexpr ScalarFn emitLe = emitCompare<F::OLE, I::sle, I::ule>;
constexpr ScalarFn emitGt = emitCompare<F::OGT, I::sgt, I::ugt>;
constexpr ScalarFn emitGe = emitCompare<F::OGE, I::sge, I::uge>;

/// The scalar body of each TXC_UNARY and TXC_BINARY op of Ops.def: it
/// computes in the compute type of operand 0's dtype.
ScalarFn scalarFn(OpKind kind) {
  switch (kind) {
#define TXC_UNARY(Enum, Name, Dtypes, Numerics, Domain, Check, Emitter,        \
                  Kernel)                                                      \
  case OpKind::Enum:                                                           \
    return Emitter;
#define TXC_BINARY(Enum, Name, Dtypes, Numerics, Domain, Emitter, Kernel)      \
  case OpKind::Enum:                                                           \
    return Emitter;
#include "txc/Program/Ops.def"
  default:
    return nullptr;
  }
}

/// Ops whose body computes on operand 0's dtype (in its compute type).
FailureOr<SmallVector<Value>> lowerComputed(MLIRGen &gen,
                                            const NodeLowering &lowering) {
  ScalarFn fn = scalarFn(lowering.node.kind);
  DType dtype = lowering.operandTypes[0].dtype;
  Value result = gen.buildElementwise(
      lowering.loc, lowering.resultType(), lowering.operands,
      lowering.operandTypes,
      [&](OpBuilder &b, Location at, ValueRange args) -> Value {
        Scalar s{b, at, dtype, lowering.node};
        return inComputeType(s, args, fn);
      });
  return SmallVector<Value>{result};
}

/// select(condition, a, b): no arithmetic, so no compute type.
FailureOr<SmallVector<Value>> lowerSelect(MLIRGen &gen,
                                          const NodeLowering &lowering) {
  Value result = gen.buildElementwise(
      lowering.loc, lowering.resultType(), lowering.operands,
      lowering.operandTypes,
      [&](OpBuilder &b, Location at, ValueRange args) -> Value {
        return b.create<arith::SelectOp>(at, args[0], args[1], args[2]);
      });
  return SmallVector<Value>{result};
}

FailureOr<SmallVector<Value>> lowerCast(MLIRGen &gen,
                                        const NodeLowering &lowering) {
  DType from = lowering.operandTypes[0].dtype;
  DType to = lowering.resultType().dtype;
  Value result = gen.buildElementwise(
      lowering.loc, lowering.resultType(), lowering.operands,
      lowering.operandTypes,
      [&](OpBuilder &b, Location at, ValueRange args) -> Value {
        Scalar s{b, at, from, lowering.node};
        return emitCast(s, args[0], from, to);
      });
  return SmallVector<Value>{result};
}

} // namespace

void registerElementwiseLowerings(LoweringTable &table) {
  for (const OpInfo &info : allOps())
    if (scalarFn(info.kind))
      table.add(info.kind, lowerComputed);
  table.add(OpKind::Select, lowerSelect);
  table.add(OpKind::Cast, lowerCast);
}

} // namespace txc
