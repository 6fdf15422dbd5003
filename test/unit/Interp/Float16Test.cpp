//===- Float16Test.cpp - f16/bf16 conversions against llvm::APFloat -------===//
//
// APFloat is an independent, well-tested software float implementation; the
// tests compare every one of the 65536 bit patterns of each format, the
// rounding at every halfway point, and random floats.
//
//===----------------------------------------------------------------------===//
#include "txc/Interp/Float16.h"

#include "llvm/ADT/APFloat.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

using namespace txc;
using llvm::APFloat;

namespace {

uint32_t floatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  return bits;
}
float bitsFloat(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, 4);
  return value;
}

const llvm::fltSemantics &semantics(bool bf16) {
  return bf16 ? APFloat::BFloat() : APFloat::IEEEhalf();
}

/// APFloat's widening of a 16-bit pattern.
float referenceWiden(uint16_t bits, bool bf16) {
  APFloat value(semantics(bf16), llvm::APInt(16, bits));
  bool losesInfo = false;
  value.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven,
                &losesInfo);
  return value.convertToFloat();
}

/// APFloat's rounding of a double to 16 bits.
uint16_t referenceNarrow(double input, bool bf16) {
  APFloat value(input);
  bool losesInfo = false;
  value.convert(semantics(bf16), APFloat::rmNearestTiesToEven, &losesInfo);
  return uint16_t(value.bitcastToAPInt().getZExtValue());
}

float widen(uint16_t bits, bool bf16) {
  return bf16 ? bf16ToFloat(bits) : halfToFloat(bits);
}
uint16_t narrow(float value, bool bf16) {
  return bf16 ? floatToBF16(value) : floatToHalf(value);
}
uint16_t narrowDouble(double value, bool bf16) {
  return bf16 ? doubleToBF16(value) : doubleToHalf(value);
}

bool isNaN16(uint16_t bits, bool bf16) {
  uint16_t exponentMask = bf16 ? 0x7F80 : 0x7C00;
  return (bits & exponentMask) == exponentMask &&
         (bits & ~exponentMask & 0x7FFF);
}

/// Two narrowing results agree: equal bits, or both NaN with the same sign.
::testing::AssertionResult sameResult(uint16_t got, uint16_t want, bool bf16,
                                      double input) {
  if (got == want)
    return ::testing::AssertionSuccess();
  if (isNaN16(got, bf16) && isNaN16(want, bf16) &&
      (got & 0x8000) == (want & 0x8000))
    return ::testing::AssertionSuccess();
  char text[160];
  std::snprintf(text, sizeof text, "%a -> 0x%04x, expected 0x%04x (%s)", input,
                got, want, bf16 ? "bf16" : "f16");
  return ::testing::AssertionFailure() << text;
}

class Float16Formats : public ::testing::TestWithParam<bool> {};

TEST_P(Float16Formats, WideningMatchesAPFloatForAllPatterns) {
  bool bf16 = GetParam();
  for (uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    float got = widen(uint16_t(bits), bf16);
    float want = referenceWiden(uint16_t(bits), bf16);
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(got)) << std::hex << bits;
      ASSERT_EQ(std::signbit(got), std::signbit(want)) << std::hex << bits;
    } else {
      ASSERT_EQ(floatBits(got), floatBits(want)) << std::hex << bits;
    }
  }
}

TEST_P(Float16Formats, EveryPatternRoundTrips) {
  bool bf16 = GetParam();
  for (uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    float value = widen(uint16_t(bits), bf16);
    uint16_t back = narrow(value, bf16);
    if (isNaN16(uint16_t(bits), bf16)) {
      // NaN stays NaN with its sign, and comes back quiet.
      ASSERT_TRUE(isNaN16(back, bf16)) << std::hex << bits;
      ASSERT_EQ(back & 0x8000, bits & 0x8000) << std::hex << bits;
      uint16_t quietBit = bf16 ? 0x0040 : 0x0200;
      ASSERT_TRUE(back & quietBit) << std::hex << bits;
    } else {
      ASSERT_EQ(back, bits) << std::hex << bits;
      ASSERT_EQ(narrowDouble(double(value), bf16), bits) << std::hex << bits;
    }
  }
}

// Between each pair of adjacent finite values (and past the largest one
// towards infinity): the exact midpoint ties to even, a hair either side of
// it rounds to the nearer value. All of these are floats (a midpoint needs
// one more bit than the format has).
TEST_P(Float16Formats, HalfwayPointsRoundToNearestEven) {
  bool bf16 = GetParam();
  uint16_t infinity = bf16 ? 0x7F80 : 0x7C00;
  for (uint32_t sign : {0u, 0x8000u}) {
    for (uint32_t bits = 0; bits < infinity; ++bits) {
      double low = widen(uint16_t(bits | sign), bf16);
      // The next value up in magnitude; past the largest finite value it is
      // one more ulp, 2^(emax+1), which rounds to infinity.
      double high =
          bits + 1 < infinity
              ? double(widen(uint16_t((bits + 1) | sign), bf16))
              : low + (low - widen(uint16_t((bits - 1) | sign), bf16));
      double mid = (low + high) / 2;
      float midFloat = float(mid);
      ASSERT_EQ(double(midFloat), mid) << "midpoint not a float";
      uint16_t even =
          (bits & 1) ? uint16_t((bits + 1) | sign) : uint16_t(bits | sign);
      if (bits + 1 == infinity)
        even = uint16_t(infinity | sign);
      ASSERT_TRUE(sameResult(narrow(midFloat, bf16), even, bf16, mid));
      ASSERT_TRUE(sameResult(narrow(midFloat, bf16), referenceNarrow(mid, bf16),
                             bf16, mid));
      float below = std::nextafter(midFloat, float(low));
      float above = std::nextafter(midFloat, float(high));
      ASSERT_TRUE(sameResult(narrow(below, bf16), referenceNarrow(below, bf16),
                             bf16, below));
      ASSERT_TRUE(sameResult(narrow(above, bf16), referenceNarrow(above, bf16),
                             bf16, above));
      ASSERT_EQ(narrow(below, bf16), uint16_t(bits | sign));
    }
  }
}

TEST_P(Float16Formats, RandomFloatsMatchAPFloat) {
  bool bf16 = GetParam();
  std::mt19937 rng(20240601);
  for (int i = 0; i < 2000000; ++i) {
    float value = bitsFloat(rng());
    ASSERT_TRUE(sameResult(narrow(value, bf16), referenceNarrow(value, bf16),
                           bf16, value));
  }
}

TEST_P(Float16Formats, DoublesRoundOnce) {
  bool bf16 = GetParam();
  std::mt19937_64 rng(7);
  for (int i = 0; i < 1000000; ++i) {
    uint64_t bits = rng();
    double value;
    std::memcpy(&value, &bits, 8);
    // Keep the exponent near the 16-bit range so rounding matters.
    int unused;
    value = std::ldexp(std::frexp(value, &unused),
                       int(rng() % 80) - (bf16 ? 40 : 30));
    ASSERT_TRUE(sameResult(narrowDouble(value, bf16),
                           referenceNarrow(value, bf16), bf16, value));
  }
}

INSTANTIATE_TEST_SUITE_P(Formats, Float16Formats,
                         ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool> &info) {
                           return info.param ? "BF16" : "F16";
                         });

TEST(Float16, KnownValues) {
  EXPECT_EQ(floatToHalf(1.0f), 0x3C00);
  EXPECT_EQ(floatToHalf(-2.0f), 0xC000);
  EXPECT_EQ(floatToHalf(65504.0f), 0x7BFF);  // largest f16
  EXPECT_EQ(floatToHalf(65519.99f), 0x7BFF); // below the midpoint
  EXPECT_EQ(floatToHalf(65520.0f), 0x7C00);  // midpoint ties to "even" inf
  EXPECT_EQ(floatToHalf(1e10f), 0x7C00);
  EXPECT_EQ(floatToHalf(-INFINITY), 0xFC00);
  EXPECT_EQ(floatToHalf(0x1p-24f), 0x0001);     // smallest subnormal
  EXPECT_EQ(floatToHalf(0x1p-25f), 0x0000);     // tie with 0: even is 0
  EXPECT_EQ(floatToHalf(0x1.8p-25f), 0x0001);   // above the tie
  EXPECT_EQ(floatToHalf(-0x1p-26f), 0x8000);    // signed zero
  EXPECT_EQ(floatToHalf(0x1.ffcp-15f), 0x0400); // subnormal rounds to normal
  EXPECT_EQ(halfToFloat(0x0001), 0x1p-24f);
  EXPECT_EQ(halfToFloat(0x03FF), 0x1.ff8p-15f);
  EXPECT_TRUE(std::isnan(halfToFloat(0x7E00)));
  EXPECT_EQ(floatToBF16(1.0f), 0x3F80);
  EXPECT_EQ(floatToBF16(bitsFloat(0x3F808000)), 0x3F80); // tie to even
  EXPECT_EQ(floatToBF16(bitsFloat(0x3F818000)), 0x3F82); // tie to even
  EXPECT_EQ(floatToBF16(bitsFloat(0x3F808001)), 0x3F81);
  EXPECT_EQ(floatToBF16(bitsFloat(0x7F7FFFFF)), 0x7F80); // FLT_MAX to inf
  // A NaN whose payload is only in the low 16 bits must not become inf.
  EXPECT_EQ(floatToBF16(bitsFloat(0x7F800001)) & 0x7FC0, 0x7FC0);
  EXPECT_EQ(floatToBF16(bitsFloat(0xFF800001)) & 0xFFC0, 0xFFC0);
  // Double rounding: this double lies just above an f16 midpoint, but
  // rounds to the midpoint as a float, which would then tie to even.
  double justAbove = 1.0 + 0x1p-11 + 0x1p-40;
  EXPECT_EQ(floatToHalf(float(justAbove)), 0x3C00);
  EXPECT_EQ(doubleToHalf(justAbove), 0x3C01);
}

} // namespace
