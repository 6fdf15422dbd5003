//===- Float16.h - f16 and bf16 conversions, written out --------*- C++ -*-===//
//
// The reference interpreter converts 16-bit floats itself instead of relying
// on the compiler's _Float16/__bf16 or the CPU's instructions: it must not
// share an implementation with the code it checks. All narrowing conversions
// round to nearest, ties to even; overflow gives infinity, underflow gives a
// (signed) subnormal or zero, NaN stays NaN (quiet, sign kept, top payload
// bits kept).
//
//===----------------------------------------------------------------------===//
#ifndef TXC_INTERP_FLOAT16_H
#define TXC_INTERP_FLOAT16_H

#include <cstdint>

namespace txc {

/// IEEE 754 binary16 bits to float (exact: every f16 is a float).
float halfToFloat(uint16_t bits);
/// bfloat16 bits (the upper half of a float) to float (exact).
float bf16ToFloat(uint16_t bits);

/// float to IEEE binary16, rounding once.
uint16_t floatToHalf(float value);
/// float to bfloat16, rounding once.
uint16_t floatToBF16(float value);

/// double to binary16 / bfloat16 with a single rounding (not through float,
/// which could round twice).
uint16_t doubleToHalf(double value);
uint16_t doubleToBF16(double value);

} // namespace txc

#endif
