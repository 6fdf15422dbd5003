//===- Elementwise.cpp - Evaluators of elementwise ops --------------------===//
//
// Each op is a small struct with a generic `apply` on the compute type
// (ElementTypes.h): floats use the C++ operators (IEEE, round to nearest;
// the library is built with -ffp-contract=off so nothing is fused) and the C
// library's functions, integers use the wrapping helpers. f16/bf16 values
// arrive widened to float and the result is rounded back by the store, once
// per op. Every formula is evaluated step by step in the order of
// docs/ops.md ("Elementwise ops") and of lib/Conversion/Lowering/
// Elementwise.cpp, so that results match the compiled code bit for bit
// wherever both call the same libm.
//
//===----------------------------------------------------------------------===//
#include "txc/Interp/Broadcast.h"
#include "txc/Interp/ElementTypes.h"
#include "txc/Interp/OpEvaluator.h"
#include "txc/Program/Attributes.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <type_traits>

using namespace txc;

namespace {

template <class C> constexpr bool kIsFloat = std::is_floating_point_v<C>;
template <class C> constexpr bool kIsBool = std::is_same_v<C, bool>;
template <class C>
constexpr bool kIsSignedInt = std::is_signed_v<C> && !kIsFloat<C>;

/// Attributes of the unary ops that have some, read once per node.
struct Attrs {
  double alpha = 0.01;
  double beta = 0.5; ///< hard_sigmoid's
  bool tanhGelu = false;
  std::optional<double> min, max;

  static Attrs read(const Node &node) {
    Attrs attrs;
    attrs.alpha = getFloatAttr(
        node, "alpha", node.kind == OpKind::HardSigmoid ? 0.2 : 0.01);
    attrs.beta = getFloatAttr(node, "beta", 0.5);
    attrs.tanhGelu = getStringAttr(node, "approximate", "none") == "tanh";
    if (hasAttr(node, "min"))
      attrs.min = getFloatAttr(node, "min", 0);
    if (hasAttr(node, "max"))
      attrs.max = getFloatAttr(node, "max", 0);
    return attrs;
  }
};

/// IEEE 754-2019 maximum/minimum: NaN if either is NaN, +0 above -0.
template <class C> C ieeeMax(C x, C y) {
  if (std::isnan(x) || std::isnan(y))
    return std::isnan(x) ? x : y;
  if (x == y)
    return std::signbit(x) ? y : x;
  return x > y ? x : y;
}
template <class C> C ieeeMin(C x, C y) {
  if (std::isnan(x) || std::isnan(y))
    return std::isnan(x) ? x : y;
  if (x == y)
    return std::signbit(x) ? x : y;
  return x < y ? x : y;
}

//===----------------------------------------------------------------------===//
// Unary ops: apply<T>(x, attrs) on T's compute type
//===----------------------------------------------------------------------===//

struct NegOp {
  template <class T, class C> static C apply(C x, const Attrs &) {
    if constexpr (kIsFloat<C>)
      return -x;
    else
      return wrapSub(C(0), x); // neg(INT_MIN) == INT_MIN, u8 modulo 256
  }
};

struct AbsOp {
  template <class T, class C> static C apply(C x, const Attrs &) {
    if constexpr (kIsFloat<C>)
      return std::fabs(x);
    else if constexpr (kIsSignedInt<C>)
      return x < 0 ? wrapSub(C(0), x) : x; // abs(INT_MIN) == INT_MIN
    else
      return x;
  }
};

struct SignOp {
  template <class T, class C> static C apply(C x, const Attrs &) {
    if constexpr (kIsFloat<C>)
      return x > 0 ? C(1) : x < 0 ? C(-1) : std::isnan(x) ? x : C(0);
    else if constexpr (kIsSignedInt<C>)
      return x > 0 ? C(1) : x < 0 ? C(-1) : C(0);
    else
      return x != 0 ? C(1) : C(0);
  }
};

struct NotOp {
  template <class T, class C> static C apply(C x, const Attrs &) {
    if constexpr (kIsBool<C>)
      return !x;
    else if constexpr (kIsFloat<C>)
      return x; // rejected by the verifier
    else
      return C(~x);
  }
};

/// floor, ceil and round are the identity on integers.
struct FloorOp {
  template <class T, class C> static C apply(C x, const Attrs &) {
    if constexpr (kIsFloat<C>)
      return std::floor(x);
    else
      return x;
  }
};
struct CeilOp {
  template <class T, class C> static C apply(C x, const Attrs &) {
    if constexpr (kIsFloat<C>)
      return std::ceil(x);
    else
      return x;
  }
};
struct RoundOp {
  template <class T, class C> static C apply(C x, const Attrs &) {
    if constexpr (kIsFloat<C>)
      return std::nearbyint(x); // ties to even in the default rounding mode
    else
      return x;
  }
};

/// Float-only ops: `F::f(x)` on float and double (the verifier rejects the
/// other dtypes, for which they are never called).
template <class F> struct FloatOp {
  template <class T, class C> static C apply(C x, const Attrs &attrs) {
    if constexpr (kIsFloat<C>)
      return F::f(x, attrs);
    else
      return x;
  }
};

struct ExpFn {
  template <class C> static C f(C x, const Attrs &) { return std::exp(x); }
};
struct LogFn {
  template <class C> static C f(C x, const Attrs &) { return std::log(x); }
};
struct Log1pFn {
  template <class C> static C f(C x, const Attrs &) { return std::log1p(x); }
};
struct SqrtFn {
  template <class C> static C f(C x, const Attrs &) { return std::sqrt(x); }
};
struct RsqrtFn { // two roundings, as PyTorch on CPU
  template <class C> static C f(C x, const Attrs &) {
    return C(1) / std::sqrt(x);
  }
};
struct ReciprocalFn {
  template <class C> static C f(C x, const Attrs &) { return C(1) / x; }
};
struct TanhFn {
  template <class C> static C f(C x, const Attrs &) { return std::tanh(x); }
};
struct ErfFn {
  template <class C> static C f(C x, const Attrs &) { return std::erf(x); }
};
struct SinFn {
  template <class C> static C f(C x, const Attrs &) { return std::sin(x); }
};
struct CosFn {
  template <class C> static C f(C x, const Attrs &) { return std::cos(x); }
};
struct TanFn {
  template <class C> static C f(C x, const Attrs &) { return std::tan(x); }
};
struct AsinFn {
  template <class C> static C f(C x, const Attrs &) { return std::asin(x); }
};
struct AcosFn {
  template <class C> static C f(C x, const Attrs &) { return std::acos(x); }
};
struct AtanFn {
  template <class C> static C f(C x, const Attrs &) { return std::atan(x); }
};
struct SinhFn {
  template <class C> static C f(C x, const Attrs &) { return std::sinh(x); }
};
struct CoshFn {
  template <class C> static C f(C x, const Attrs &) { return std::cosh(x); }
};
struct AsinhFn {
  template <class C> static C f(C x, const Attrs &) { return std::asinh(x); }
};
struct AcoshFn {
  template <class C> static C f(C x, const Attrs &) { return std::acosh(x); }
};
struct AtanhFn {
  template <class C> static C f(C x, const Attrs &) { return std::atanh(x); }
};
struct SigmoidFn {
  template <class C> static C f(C x, const Attrs &) {
    return C(1) / (C(1) + std::exp(-x));
  }
};
struct SiluFn {
  template <class C> static C f(C x, const Attrs &) {
    return x / (C(1) + std::exp(-x));
  }
};
struct GeluFn {
  template <class C> static C f(C x, const Attrs &attrs) {
    const C half = C(0.5), one = C(1);
    if (attrs.tanhGelu) {
      C cube = x * x * x;
      C inner = C(M_SQRT2 * M_2_SQRTPI * 0.5) * (x + C(0.044715) * cube);
      return (half * x) * (one + std::tanh(inner));
    }
    return (x * half) * (one + std::erf(x * C(M_SQRT1_2)));
  }
};
/// max(0, min(1, x * alpha + beta)) with IEEE maximum/minimum (NaN stays).
template <class C> C hardSigmoid(C x, C alpha, C beta) {
  C t = x * alpha;
  t = t + beta;
  return ieeeMin(ieeeMax(t, C(0)), C(1));
}
struct HardSigmoidFn {
  template <class C> static C f(C x, const Attrs &attrs) {
    return hardSigmoid(x, C(attrs.alpha), C(attrs.beta));
  }
};
struct HardSwishFn {
  template <class C> static C f(C x, const Attrs &) {
    return x * hardSigmoid(x, C(1.0 / 6), C(0.5));
  }
};
struct LeakyReluFn {
  template <class C> static C f(C x, const Attrs &attrs) {
    return x > 0 ? x : x * C(attrs.alpha);
  }
};

struct ReluOp {
  template <class T, class C> static C apply(C x, const Attrs &) {
    if constexpr (kIsFloat<C>)
      return ieeeMax(x, C(0)); // NaN stays NaN, -0 becomes +0
    else if constexpr (kIsSignedInt<C>)
      return x > 0 ? x : C(0);
    else
      return x; // u8: already non-negative
  }
};

/// A clamp bound as a value of T's dtype: floats rounded once to nearest
/// even, integers (integral, checked by the verifier) saturated.
template <class T, class C> C clampBound(double bound) {
  if constexpr (kIsFloat<C>) {
    return T::load(roundFloat<T>(bound));
  } else {
    constexpr double lo = double(std::numeric_limits<C>::min());
    // max + 1 is a power of two, exact in double.
    constexpr double hiPlusOne = double(std::numeric_limits<C>::max()) + 1;
    if (bound < lo)
      return std::numeric_limits<C>::min();
    if (bound >= hiPlusOne)
      return std::numeric_limits<C>::max();
    return C(bound);
  }
}

struct ClampOp {
  template <class T, class C> static C apply(C x, const Attrs &attrs) {
    if constexpr (kIsBool<C>) {
      return x;
    } else {
      // maximum with min, then minimum with max: min > max gives max.
      if (attrs.min) {
        C lo = clampBound<T, C>(*attrs.min);
        if constexpr (kIsFloat<C>)
          x = ieeeMax(x, lo);
        else
          x = x < lo ? lo : x;
      }
      if (attrs.max) {
        C hi = clampBound<T, C>(*attrs.max);
        if constexpr (kIsFloat<C>)
          x = ieeeMin(x, hi);
        else
          x = x > hi ? hi : x;
      }
      return x;
    }
  }
};

//===----------------------------------------------------------------------===//
// Binary ops: apply(x, y) on the compute type
//===----------------------------------------------------------------------===//

struct AddOp {
  template <class C> static C apply(C x, C y) {
    if constexpr (kIsFloat<C>)
      return x + y;
    else
      return wrapAdd(x, y);
  }
};

struct SubOp {
  template <class C> static C apply(C x, C y) {
    if constexpr (kIsFloat<C>)
      return x - y;
    else
      return wrapSub(x, y);
  }
};

struct MulOp {
  template <class C> static C apply(C x, C y) {
    if constexpr (kIsFloat<C>)
      return x * y;
    else
      return wrapMul(x, y);
  }
};

struct DivOp {
  template <class C> static C apply(C x, C y) {
    if constexpr (kIsFloat<C>)
      return x / y; // IEEE: x/0 is +-inf, 0/0 is NaN
    else
      return safeDiv(x, y);
  }
};

/// Remainder with the sign of the divisor; x mod 0 == 0 for integers.
struct ModOp {
  template <class C> static C apply(C x, C y) {
    if constexpr (kIsFloat<C>) {
      C r = std::fmod(x, y);
      if (r != 0 && ((r < 0) != (y < 0)))
        r = r + y;
      return r;
    } else if constexpr (kIsSignedInt<C>) {
      if (y == 0 || y == C(-1))
        return 0;
      C r = C(x % y);
      // r and y have opposite signs: r + y cannot overflow.
      return r != 0 && ((r < 0) != (y < 0)) ? C(r + y) : r;
    } else {
      return y == 0 ? C(0) : C(x % y);
    }
  }
};

/// C's fmod: the remainder has the sign of the dividend; for integers the
/// truncated remainder, with x fmod 0 == x fmod -1 == 0.
struct FmodOp {
  template <class C> static C apply(C x, C y) {
    if constexpr (kIsFloat<C>)
      return std::fmod(x, y);
    else if constexpr (kIsSignedInt<C>)
      return y == 0 || y == C(-1) ? C(0) : C(x % y);
    else
      return y == 0 ? C(0) : C(x % y);
  }
};

/// x^e for e >= 0 (as unsigned), wrapping.
template <class C> C powNonNegative(C x, uint64_t e) {
  C result = 1;
  for (; e; e >>= 1, x = wrapMul(x, x))
    if (e & 1)
      result = wrapMul(result, x);
  return result;
}

/// Floats: the C library's pow. Integers: wrapping x^y; a negative exponent
/// gives 1 / x^-y truncated toward zero (1, +-1 for x == -1, else 0).
struct PowOp {
  template <class C> static C apply(C x, C y) {
    if constexpr (kIsFloat<C>) {
      return std::pow(x, y);
    } else if constexpr (kIsSignedInt<C>) {
      if (y >= 0)
        return powNonNegative(x, uint64_t(y));
      if (x == 1)
        return 1;
      if (x == -1)
        return (y & 1) ? C(-1) : C(1);
      return 0;
    } else {
      return powNonNegative(x, uint64_t(y));
    }
  }
};

struct MaximumOp {
  template <class C> static C apply(C x, C y) {
    if constexpr (kIsFloat<C>)
      return ieeeMax(x, y);
    else
      return x > y ? x : y; // bool: or
  }
};

struct MinimumOp {
  template <class C> static C apply(C x, C y) {
    if constexpr (kIsFloat<C>)
      return ieeeMin(x, y);
    else
      return x < y ? x : y; // bool: and
  }
};

/// Logical on bool, bitwise on integers (floats are rejected).
struct AndOp {
  template <class C> static C apply(C x, C y) {
    if constexpr (kIsFloat<C>)
      return x;
    else
      return C(x & y);
  }
};
struct OrOp {
  template <class C> static C apply(C x, C y) {
    if constexpr (kIsFloat<C>)
      return x;
    else
      return C(x | y);
  }
};
struct XorOp {
  template <class C> static C apply(C x, C y) {
    if constexpr (kIsFloat<C>)
      return x;
    else
      return C(x ^ y);
  }
};

/// Comparisons on the compute type: IEEE for floats (ne is true for NaN),
/// u8 and bool unsigned.
/// ONNX BitShift on the unsigned dtypes: 0 for a shift by the width or
/// more (undefined in C++, poison in LLVM).
template <bool Left> struct ShiftOp {
  template <class C> static C apply(C x, C y) {
    if constexpr (kIsFloat<C> || kIsBool<C> || kIsSignedInt<C>) {
      return x; // rejected by the verifier
    } else {
      if (uint64_t(y) >= 8 * sizeof(C))
        return 0;
      return Left ? C(uint64_t(x) << y) : C(x >> y);
    }
  }
};

struct EqOp {
  template <class C> static bool apply(C x, C y) { return x == y; }
};
struct NeOp {
  template <class C> static bool apply(C x, C y) { return x != y; }
};
struct LtOp {
  template <class C> static bool apply(C x, C y) { return x < y; }
};
struct LeOp {
  template <class C> static bool apply(C x, C y) { return x <= y; }
};
struct GtOp {
  template <class C> static bool apply(C x, C y) { return x > y; }
};
struct GeOp {
  template <class C> static bool apply(C x, C y) { return x >= y; }
};

//===----------------------------------------------------------------------===//
// Evaluators
//===----------------------------------------------------------------------===//

/// The dtypes an op is declared for (Ops.def, which the verifier checks);
/// anything else is an internal error.
llvm::Error checkDType(const OpEvalContext &ctx, DType dtype) {
  if (acceptsDType(getOpInfo(ctx.getNode().kind).dtypes, dtype))
    return llvm::Error::success();
  return ctx.internalError("'" + getOpInfo(ctx.getNode().kind).name +
                           "' is not defined for " + dtypeName(dtype));
}

template <class Op>
llvm::Expected<std::vector<Tensor>> evalUnary(const OpEvalContext &ctx) {
  const Tensor &input = ctx.operand(0);
  auto result = ctx.makeResult();
  if (!result)
    return result.takeError();
  if (input.dtype() != result->dtype() || input.shape() != result->shape())
    return ctx.internalError("operand " + input.typeString() +
                             " differs from the result " +
                             result->typeString());
  if (llvm::Error err = checkDType(ctx, result->dtype()))
    return err;
  Attrs attrs = Attrs::read(ctx.getNode());
  dispatchDType(result->dtype(), [&](auto traits) {
    using T = decltype(traits);
    using S = typename T::Storage;
    for (int64_t i = 0; i < result->numElements(); ++i)
      result->store<S>(i, T::store(Op::template apply<T>(
                              T::load(input.load<S>(i)), attrs)));
  });
  return singleResult(std::move(*result));
}

/// Binary ops and comparisons: the operands have one dtype; the result has
/// it too, or is bool (`Compare`: the comparisons).
template <class Op, bool Compare>
llvm::Expected<std::vector<Tensor>> evalBinary(const OpEvalContext &ctx) {
  const Tensor &lhs = ctx.operand(0), &rhs = ctx.operand(1);
  auto result = ctx.makeResult();
  if (!result)
    return result.takeError();
  DType expected = Compare ? DType::Bool : lhs.dtype();
  if (lhs.dtype() != rhs.dtype() || result->dtype() != expected)
    return ctx.internalError("operand dtypes " + lhs.typeString() + " and " +
                             rhs.typeString() + " do not fit the result " +
                             result->typeString());
  if (llvm::Error err = checkDType(ctx, lhs.dtype()))
    return err;
  auto walker =
      BroadcastWalker::create(result->shape(), {lhs.shape(), rhs.shape()});
  if (!walker)
    return ctx.internalError(llvm::toString(walker.takeError()));
  dispatchDType(lhs.dtype(), [&](auto traits) {
    using T = decltype(traits);
    using S = typename T::Storage;
    for (; !walker->done(); walker->next()) {
      auto x = T::load(lhs.load<S>(walker->operandIndex(0)));
      auto y = T::load(rhs.load<S>(walker->operandIndex(1)));
      if constexpr (Compare)
        result->store<uint8_t>(walker->resultIndex(), Op::apply(x, y));
      else
        result->store<S>(walker->resultIndex(), T::store(Op::apply(x, y)));
    }
  });
  return singleResult(std::move(*result));
}

/// select(condition, a, b): copies a's or b's element; no arithmetic.
llvm::Expected<std::vector<Tensor>> evalSelect(const OpEvalContext &ctx) {
  const Tensor &cond = ctx.operand(0), &a = ctx.operand(1),
               &b = ctx.operand(2);
  auto result = ctx.makeResult();
  if (!result)
    return result.takeError();
  if (cond.dtype() != DType::Bool || a.dtype() != result->dtype() ||
      b.dtype() != result->dtype())
    return ctx.internalError("operands " + cond.typeString() + ", " +
                             a.typeString() + ", " + b.typeString() +
                             " do not fit the result " +
                             result->typeString());
  auto walker = BroadcastWalker::create(
      result->shape(), {cond.shape(), a.shape(), b.shape()});
  if (!walker)
    return ctx.internalError(llvm::toString(walker.takeError()));
  size_t size = dtypeSize(result->dtype());
  for (; !walker->done(); walker->next()) {
    bool pick = cond.load<uint8_t>(walker->operandIndex(0)) != 0;
    const Tensor &from = pick ? a : b;
    std::memcpy(result->data() + walker->resultIndex() * size,
                from.data() + walker->operandIndex(pick ? 1 : 2) * size, size);
  }
  return singleResult(std::move(*result));
}

//===----------------------------------------------------------------------===//
// cast
//===----------------------------------------------------------------------===//

/// An integer as a double rounded to odd (exact below 2^53): a second
/// rounding to f16/bf16 is then correct, as from the exact value.
template <class I> double toDoubleRoundToOdd(I value) {
  bool negative = false;
  if constexpr (std::is_signed_v<I>)
    negative = value < 0;
  uint64_t magnitude = negative ? 0 - uint64_t(value) : uint64_t(value);
  int shift = 0;
  while ((magnitude >> shift) >= (uint64_t(1) << 53))
    ++shift;
  uint64_t kept = magnitude >> shift;
  if (shift && (magnitude & ((uint64_t(1) << shift) - 1)))
    kept |= 1; // sticky: inexact, make the last bit odd
  double result = std::ldexp(double(kept), shift);
  return negative ? -result : result;
}

/// Float (given exactly as a double) to integer: truncation toward zero,
/// saturated, NaN to 0.
template <class C> C floatToInt(double value) {
  if (std::isnan(value))
    return 0;
  constexpr double lo = double(std::numeric_limits<C>::min());
  constexpr double hiPlusOne = double(std::numeric_limits<C>::max()) + 1;
  if (value >= hiPlusOne)
    return std::numeric_limits<C>::max();
  if (value < lo)
    return std::numeric_limits<C>::min();
  return C(std::trunc(value));
}

/// One element from source traits F to target traits T.
template <class F, class T>
typename T::Storage castElement(typename F::Storage stored) {
  using FC = typename F::Compute;
  using TC = typename T::Compute;
  using TS = typename T::Storage;
  FC x = F::load(stored);
  if constexpr (T::dtype == DType::Bool) {
    return T::store(x != 0); // NaN is true, -0.0 false
  } else if constexpr (kIsFloat<FC> && kIsFloat<TC>) {
    return roundFloat<T>(double(x)); // exact in double, one rounding
  } else if constexpr (kIsFloat<FC>) {
    return T::store(floatToInt<TC>(double(x)));
  } else if constexpr (kIsFloat<TC>) {
    // 64-bit integers do not fit a double: one rounding, not two.
    if constexpr (std::is_same_v<FC, int64_t> || std::is_same_v<FC, uint64_t>) {
      if constexpr (T::dtype == DType::F32 || T::dtype == DType::F64)
        return TS(x); // the C++ conversion rounds once
      else
        return roundFloat<T>(toDoubleRoundToOdd(x));
    } else {
      return roundFloat<T>(double(x)); // exact in double
    }
  } else {
    // Two's complement wrapping; bool and the unsigned dtypes are unsigned
    // sources.
    return TS(TC(uint64_t(int64_t(x))));
  }
}

llvm::Expected<std::vector<Tensor>> evalCast(const OpEvalContext &ctx) {
  const Tensor &input = ctx.operand(0);
  auto result = ctx.makeResult();
  if (!result)
    return result.takeError();
  if (input.shape() != result->shape())
    return ctx.internalError("operand " + input.typeString() +
                             " differs in shape from the result " +
                             result->typeString());
  dispatchDType(input.dtype(), [&](auto from) {
    using F = decltype(from);
    dispatchDType(result->dtype(), [&](auto to) {
      using T = decltype(to);
      for (int64_t i = 0; i < result->numElements(); ++i)
        result->store(i, castElement<F, T>(
                             input.load<typename F::Storage>(i)));
    });
  });
  return singleResult(std::move(*result));
}

} // namespace

void txc::registerElementwiseOps(OpEvaluatorTable &table) {
#define TXC_UNARY(Enum, Name, Dtypes, Numerics, Domain, Check, Emitter,        \
                  Kernel)                                                      \
  table.add(OpKind::Enum, evalUnary<Kernel>);
#define TXC_BINARY(Enum, Name, Dtypes, Numerics, Domain, Emitter, Kernel)      \
  table.add(OpKind::Enum,                                                      \
            evalBinary<Kernel, ElementwiseDomain::Domain ==                    \
                                   ElementwiseDomain::Comparison>);
#include "txc/Program/Ops.def"
  table.add(OpKind::Cast, evalCast);
  table.add(OpKind::Select, evalSelect);
}
