//===- ElementTypes.h - C++ types and arithmetic of each dtype --*- C++ -*-===//
//
// ElementTraits<D> names the storage type of dtype D in a Tensor and the
// type the interpreter computes in. f16 and bf16 compute in float: every op
// widens its operands, computes in float and rounds its result once to the
// result type. Kernels are written once as generic lambdas and instantiated
// for each dtype with dispatchDType.
//
// Integer arithmetic wraps (two's complement); the helpers below compute in
// uint64_t so that no C++ signed overflow (undefined behaviour) can happen.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_INTERP_ELEMENTTYPES_H
#define TXC_INTERP_ELEMENTTYPES_H

#include "txc/Interp/Float16.h"
#include "txc/Program/DType.h"

#include "llvm/Support/ErrorHandling.h"

#include <cstdint>
#include <limits>
#include <type_traits>

namespace txc {

template <DType D> struct ElementTraits;

/// Element types whose storage is also their arithmetic type.
template <DType D, class T> struct PlainTraits {
  static constexpr DType dtype = D;
  using Storage = T;
  using Compute = T;
  static Compute load(Storage value) { return value; }
  static Storage store(Compute value) { return value; }
};

template <>
struct ElementTraits<DType::F32> : PlainTraits<DType::F32, float> {};
template <>
struct ElementTraits<DType::F64> : PlainTraits<DType::F64, double> {};
template <> struct ElementTraits<DType::I8> : PlainTraits<DType::I8, int8_t> {};
template <>
struct ElementTraits<DType::I16> : PlainTraits<DType::I16, int16_t> {};
template <>
struct ElementTraits<DType::I32> : PlainTraits<DType::I32, int32_t> {};
template <>
struct ElementTraits<DType::I64> : PlainTraits<DType::I64, int64_t> {};
template <>
struct ElementTraits<DType::U8> : PlainTraits<DType::U8, uint8_t> {};
template <>
struct ElementTraits<DType::U16> : PlainTraits<DType::U16, uint16_t> {};
template <>
struct ElementTraits<DType::U32> : PlainTraits<DType::U32, uint32_t> {};
template <>
struct ElementTraits<DType::U64> : PlainTraits<DType::U64, uint64_t> {};

template <> struct ElementTraits<DType::F16> {
  static constexpr DType dtype = DType::F16;
  using Storage = uint16_t;
  using Compute = float;
  static Compute load(Storage bits) { return halfToFloat(bits); }
  static Storage store(Compute value) { return floatToHalf(value); }
};

template <> struct ElementTraits<DType::BF16> {
  static constexpr DType dtype = DType::BF16;
  using Storage = uint16_t;
  using Compute = float;
  static Compute load(Storage bits) { return bf16ToFloat(bits); }
  static Storage store(Compute value) { return floatToBF16(value); }
};

template <> struct ElementTraits<DType::Bool> {
  static constexpr DType dtype = DType::Bool;
  using Storage = uint8_t;
  using Compute = bool;
  static Compute load(Storage byte) { return byte != 0; }
  static Storage store(Compute value) { return value ? 1 : 0; }
};

/// Calls `fn(ElementTraits<dtype>{})`; every instantiation must return the
/// same type.
template <class Fn> decltype(auto) dispatchDType(DType dtype, Fn &&fn) {
  switch (dtype) {
  case DType::F32:
    return fn(ElementTraits<DType::F32>{});
  case DType::F64:
    return fn(ElementTraits<DType::F64>{});
  case DType::F16:
    return fn(ElementTraits<DType::F16>{});
  case DType::BF16:
    return fn(ElementTraits<DType::BF16>{});
  case DType::I8:
    return fn(ElementTraits<DType::I8>{});
  case DType::I16:
    return fn(ElementTraits<DType::I16>{});
  case DType::I32:
    return fn(ElementTraits<DType::I32>{});
  case DType::I64:
    return fn(ElementTraits<DType::I64>{});
  case DType::U8:
    return fn(ElementTraits<DType::U8>{});
  case DType::U16:
    return fn(ElementTraits<DType::U16>{});
  case DType::U32:
    return fn(ElementTraits<DType::U32>{});
  case DType::U64:
    return fn(ElementTraits<DType::U64>{});
  case DType::Bool:
    return fn(ElementTraits<DType::Bool>{});
  }
  llvm_unreachable("unknown dtype");
}

/// Stores the exact value `value` (a double holding a float element, or an
/// integer) in T's dtype, rounding once (an attribute's value as an
/// element: clamp's bounds, range's start and delta).
template <class T> typename T::Storage roundFloat(double value) {
  using S = typename T::Storage;
  if constexpr (T::dtype == DType::F16)
    return doubleToHalf(value);
  else if constexpr (T::dtype == DType::BF16)
    return doubleToBF16(value);
  else
    return S(value); // float or double: one rounding to nearest even
}

/// Two's complement wrapping arithmetic for the integer compute types.
template <class T> T wrapAdd(T a, T b) { return T(uint64_t(a) + uint64_t(b)); }
template <class T> T wrapSub(T a, T b) { return T(uint64_t(a) - uint64_t(b)); }
template <class T> T wrapMul(T a, T b) { return T(uint64_t(a) * uint64_t(b)); }
/// Truncating division that is defined everywhere: x / 0 == 0 and, for
/// signed types, MIN / -1 == MIN (docs/ops.md).
template <class T> T safeDiv(T a, T b) {
  if (b == 0)
    return 0;
  if constexpr (std::is_signed_v<T>)
    if (a == std::numeric_limits<T>::min() && b == T(-1))
      return a;
  return T(a / b);
}

/// x + y and x * y in a compute type: one IEEE rounding for floats,
/// wrapping for integers. Contractions and reductions build their sums and
/// products from these.
template <class C> C computeAdd(C x, C y) {
  if constexpr (std::is_floating_point_v<C>)
    return x + y;
  else
    return wrapAdd(x, y);
}
template <class C> C computeMul(C x, C y) {
  if constexpr (std::is_floating_point_v<C>)
    return x * y;
  else
    return wrapMul(x, y);
}

/// dispatchDType for ops defined on every dtype but bool (the verifier
/// rejects bool for them), so that their kernels need not compile for bool.
template <class Fn> void dispatchNumeric(DType dtype, Fn &&fn) {
  dispatchDType(dtype, [&](auto traits) {
    if constexpr (!std::is_same_v<typename decltype(traits)::Compute, bool>)
      fn(traits);
  });
}

/// dispatchDType for ops defined on the floating-point dtypes only; their
/// kernels compute in float or double (f16/bf16 in float).
template <class Fn> void dispatchFloat(DType dtype, Fn &&fn) {
  dispatchDType(dtype, [&](auto traits) {
    if constexpr (std::is_floating_point_v<typename decltype(traits)::Compute>)
      fn(traits);
  });
}

} // namespace txc

#endif
