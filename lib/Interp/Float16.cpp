//===- Float16.cpp - f16 and bf16 conversions -----------------------------===//
//
// One generic rounding routine narrows a double (which holds every float
// exactly) to a binary format with E exponent and M mantissa bits, so f16 and
// bf16 share the code and the float and double sources round only once.
//
//===----------------------------------------------------------------------===//
#include "txc/Interp/Float16.h"

#include <cmath>
#include <cstring>

using namespace txc;

namespace {

template <class To, class From> To bitCast(From from) {
  static_assert(sizeof(To) == sizeof(From), "size mismatch");
  To to;
  std::memcpy(&to, &from, sizeof to);
  return to;
}

/// A binary interchange format narrower than double.
struct Format {
  int exponentBits;
  int mantissaBits;
  int bias() const { return (1 << (exponentBits - 1)) - 1; }
  uint32_t maxExponentField() const { return (1u << exponentBits) - 1; }
};

constexpr Format kHalf{5, 10};
constexpr Format kBF16{8, 7};

uint16_t narrow(double value, Format f) {
  const int m = f.mantissaBits;
  uint64_t bits = bitCast<uint64_t>(value);
  uint32_t sign = uint32_t(bits >> 63) << (f.exponentBits + m);
  int exponentField = int((bits >> 52) & 0x7FF);
  uint64_t mantissa = bits & ((uint64_t(1) << 52) - 1);
  uint32_t infinity = f.maxExponentField() << m;

  if (exponentField == 0x7FF) {
    if (mantissa == 0)
      return uint16_t(sign | infinity);
    // Quiet NaN with the payload's top bits.
    uint32_t payload = uint32_t(mantissa >> (52 - m));
    return uint16_t(sign | infinity | (1u << (m - 1)) | payload);
  }
  if (exponentField == 0 && mantissa == 0)
    return uint16_t(sign);

  // value = significand * 2^(exponent - 52), significand < 2^53.
  uint64_t significand =
      exponentField ? mantissa | (uint64_t(1) << 52) : mantissa;
  int exponent = exponentField ? exponentField - 1023 : -1022;
  // Subnormal doubles normalize their exponent down; account for that.
  if (exponent > f.bias())
    return uint16_t(sign | infinity);
  const int minNormal = 1 - f.bias();
  bool subnormal = exponent < minNormal;
  int shift = 52 - m + (subnormal ? minNormal - exponent : 0);
  if (shift > 63)
    return uint16_t(sign); // below half the smallest subnormal
  uint64_t quotient = significand >> shift;
  uint64_t remainder = significand & ((uint64_t(1) << shift) - 1);
  uint64_t halfway = uint64_t(1) << (shift - 1);
  if (remainder > halfway || (remainder == halfway && (quotient & 1)))
    ++quotient;
  // For a normal result the quotient includes the implicit bit; adding it to
  // (exponent field - 1) << m carries into the exponent when rounding
  // overflows the mantissa. A subnormal result that rounds up to 2^m becomes
  // the smallest normal number the same way.
  uint64_t magnitude =
      subnormal ? quotient
                : (uint64_t(exponent + f.bias() - 1) << m) + quotient;
  if (magnitude >= infinity)
    return uint16_t(sign | infinity);
  return uint16_t(sign | magnitude);
}

float widen(uint16_t bits, Format f) {
  const int m = f.mantissaBits;
  uint32_t sign = uint32_t(bits >> (f.exponentBits + m)) << 31;
  uint32_t exponentField = (bits >> m) & f.maxExponentField();
  uint32_t mantissa = bits & ((1u << m) - 1);
  if (exponentField == f.maxExponentField())
    return bitCast<float>(sign | 0x7F800000u | (mantissa << (23 - m)));
  // mantissa * 2^(exponent - m) is exact in double and then in float (bf16
  // subnormals are float subnormals, f16 subnormals are normal floats).
  int exponent = exponentField ? int(exponentField) - f.bias() : 1 - f.bias();
  double significand =
      exponentField ? double(mantissa | (1u << m)) : double(mantissa);
  float magnitude = float(std::ldexp(significand, exponent - m));
  return bitCast<float>(sign | bitCast<uint32_t>(magnitude));
}

} // namespace

float txc::halfToFloat(uint16_t bits) { return widen(bits, kHalf); }
float txc::bf16ToFloat(uint16_t bits) { return widen(bits, kBF16); }
uint16_t txc::floatToHalf(float value) { return narrow(value, kHalf); }
uint16_t txc::floatToBF16(float value) { return narrow(value, kBF16); }
uint16_t txc::doubleToHalf(double value) { return narrow(value, kHalf); }
uint16_t txc::doubleToBF16(double value) { return narrow(value, kBF16); }
