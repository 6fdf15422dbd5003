/* Helpers shared by the elementwise harnesses: dtypes, element access,
 * f16/bf16 conversions, deterministic inputs and result comparison.
 *
 * The conversions are written independently of txc's lowering: narrowing
 * rounds an exact long double value with nearbyintl (round to nearest even),
 * so it checks the compiler's round-to-odd tricks instead of repeating them.
 */
#ifndef TXC_TEST_ELEMENTWISE_COMMON_H
#define TXC_TEST_ELEMENTWISE_COMMON_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* In the order of their ABI codes. */
enum dtype {
  F32, F64, F16, BF16, I8, I16, I32, I64, U8, BOOL, U16, U32, U64, NUM_DTYPES
};

static const char *const dtype_names[NUM_DTYPES] = {
    "f32", "f64", "f16", "bf16", "i8",  "i16", "i32",
    "i64", "u8",  "bool", "u16", "u32", "u64"};
/* The ABI codes (TXC_DTYPE_*). */
static const int dtype_codes[NUM_DTYPES] = {1, 2,  3,  4,  5,  6, 7,
                                            8, 9, 10, 11, 12, 13};
static const int dtype_sizes[NUM_DTYPES] = {4, 8, 2, 2, 1, 2, 4,
                                            8, 1, 1, 2, 4, 8};

static inline int is_float(enum dtype t) { return t <= BF16; }
static inline int is_signed_int(enum dtype t) { return t >= I8 && t <= I64; }
static inline int is_unsigned_int(enum dtype t) {
  return t == U8 || t == U16 || t == U32 || t == U64;
}
static inline int int_width(enum dtype t) {
  return t == BOOL ? 1 : dtype_sizes[t] * 8;
}

static inline enum dtype parse_dtype(const char *name) {
  for (int t = 0; t < NUM_DTYPES; ++t)
    if (strcmp(name, dtype_names[t]) == 0)
      return (enum dtype)t;
  fprintf(stderr, "unknown dtype %s\n", name);
  exit(2);
}

static int failures;
static inline void fail_report(void) {
  if (failures)
    fprintf(stderr, "%d failures\n", failures);
}

/*===--- f16 and bf16 ----------------------------------------------------===*/

struct format {
  int exponent_bits, mantissa_bits;
};
static const struct format half_format = {5, 10}, bf16_format = {8, 7};

/* Exact value of a 16-bit float. */
static inline long double widen16(uint16_t bits, struct format f) {
  int m = f.mantissa_bits, bias = (1 << (f.exponent_bits - 1)) - 1;
  int sign = bits >> 15, field = (bits >> m) & ((1 << f.exponent_bits) - 1);
  long double mantissa = bits & ((1 << m) - 1), value;
  if (field == (1 << f.exponent_bits) - 1)
    value = mantissa ? NAN : INFINITY;
  else if (field == 0)
    value = ldexpl(mantissa, 1 - bias - m);
  else
    value = ldexpl(mantissa + (1 << m), field - bias - m);
  return sign ? -value : value;
}

/* Rounds an exact value to a 16-bit float, to nearest even. */
static inline uint16_t narrow16(long double v, struct format f) {
  int m = f.mantissa_bits, bias = (1 << (f.exponent_bits - 1)) - 1;
  uint16_t sign = signbit(v) ? 0x8000 : 0;
  uint16_t inf = (uint16_t)(((1 << f.exponent_bits) - 1) << m);
  if (isnan(v))
    return (uint16_t)(inf | (1 << (m - 1)));
  long double a = fabsl(v);
  /* Halfway between the largest finite value and 2^(bias+1) rounds up. */
  if (a >= ldexpl(2.0L - ldexpl(1, -(m + 1)), bias))
    return sign | inf;
  if (a == 0)
    return sign;
  int e;
  frexpl(a, &e);
  int exponent = e - 1 < 1 - bias ? 1 - bias : e - 1;
  long double quantum = ldexpl(1, exponent - m);
  long double r = nearbyintl(a / quantum) * quantum;
  if (r == 0)
    return sign;
  frexpl(r, &e);
  if (e - 1 < 1 - bias) /* subnormal */
    return sign | (uint16_t)(r / ldexpl(1, 1 - bias - m));
  uint16_t mantissa = (uint16_t)(r / ldexpl(1, e - 1 - m) - (1 << m));
  return sign | (uint16_t)((e - 1 + bias) << m) | mantissa;
}

/*===--- elements
 * ----------------------------------------------------------===*/

/* The exact value of a float element. */
static inline long double load_float(enum dtype t, const void *p) {
  uint16_t h;
  switch (t) {
  case F32: {
    float f;
    memcpy(&f, p, 4);
    return f;
  }
  case F64: {
    double d;
    memcpy(&d, p, 8);
    return d;
  }
  case F16:
    memcpy(&h, p, 2);
    return widen16(h, half_format);
  default:
    memcpy(&h, p, 2);
    return widen16(h, bf16_format);
  }
}

/* Stores an exact value rounded once to the float dtype. */
static inline void store_float(enum dtype t, void *p, long double v) {
  uint16_t h;
  switch (t) {
  case F32: {
    float f = (float)v;
    memcpy(p, &f, 4);
    return;
  }
  case F64: {
    double d = (double)v;
    memcpy(p, &d, 8);
    return;
  }
  case F16:
    h = narrow16(v, half_format);
    memcpy(p, &h, 2);
    return;
  default:
    h = narrow16(v, bf16_format);
    memcpy(p, &h, 2);
    return;
  }
}

/* An integer or bool element, sign- or zero-extended (a u64 element is its
 * bits: load_uint reads it as unsigned). */
static inline int64_t load_int(enum dtype t, const void *p) {
  int8_t i8;
  int16_t i16;
  int32_t i32;
  int64_t i64;
  uint8_t u8;
  uint16_t u16;
  uint32_t u32;
  switch (t) {
  case U16:
    memcpy(&u16, p, 2);
    return u16;
  case U32:
    memcpy(&u32, p, 4);
    return u32;
  case U64:
    memcpy(&i64, p, 8);
    return i64;
  case I8:
    memcpy(&i8, p, 1);
    return i8;
  case I16:
    memcpy(&i16, p, 2);
    return i16;
  case I32:
    memcpy(&i32, p, 4);
    return i32;
  case I64:
    memcpy(&i64, p, 8);
    return i64;
  default:
    memcpy(&u8, p, 1);
    return u8;
  }
}

/* An unsigned, integer or bool element zero-extended (signed ones
 * sign-extended and then taken modulo 2^64). */
static inline uint64_t load_uint(enum dtype t, const void *p) {
  return (uint64_t)load_int(t, p);
}

/* The exact value of an integer or bool element. */
static inline long double int_value(enum dtype t, const void *p) {
  return is_unsigned_int(t) ? (long double)load_uint(t, p)
                            : (long double)load_int(t, p);
}

/* Stores the low bits of v (two's complement wrapping). */
static inline void store_int(enum dtype t, void *p, uint64_t v) {
  if (t == BOOL)
    v = v != 0;
  memcpy(p, &v, (size_t)dtype_sizes[t]); /* little endian */
}

/* Wraps v to the dtype's width and extends it back to 64 bits. */
static inline int64_t wrap_int(enum dtype t, uint64_t v) {
  int width = int_width(t);
  if (width == 64)
    return (int64_t)v;
  uint64_t mask = (UINT64_C(1) << width) - 1;
  v &= mask;
  if (is_signed_int(t) && (v >> (width - 1)))
    v |= ~mask;
  return (int64_t)v;
}

static inline int64_t int_min(enum dtype t) {
  return is_signed_int(t) ? (int64_t)(UINT64_C(1) << 63) >> (64 - int_width(t))
                          : 0;
}
/* The largest value (for u64: its bits, all ones, as an int64_t). */
static inline int64_t int_max(enum dtype t) {
  if (t == I64)
    return INT64_MAX;
  if (t == U64)
    return -1;
  return is_signed_int(t) ? (INT64_C(1) << (int_width(t) - 1)) - 1
                          : (INT64_C(1) << int_width(t)) - 1;
}

/* Bitwise equality, except that every NaN equals every NaN. */
static inline int same_element(enum dtype t, const void *a, const void *b) {
  if (is_float(t) && isnan(load_float(t, a)) && isnan(load_float(t, b)))
    return 1;
  return memcmp(a, b, (size_t)dtype_sizes[t]) == 0;
}

static inline void format_element(enum dtype t, const void *p, char *out,
                                  size_t n) {
  if (is_float(t)) {
    uint64_t bits = 0;
    memcpy(&bits, p, (size_t)dtype_sizes[t]);
    snprintf(out, n, "%.21Lg (0x%llx)", load_float(t, p),
             (unsigned long long)bits);
  } else if (is_unsigned_int(t)) {
    snprintf(out, n, "%llu", (unsigned long long)load_uint(t, p));
  } else {
    snprintf(out, n, "%lld", (long long)load_int(t, p));
  }
}

/*===--- deterministic inputs
 * ----------------------------------------------===*/

static uint64_t rng_state;
static inline uint64_t next_random(void) { /* splitmix64 */
  uint64_t z = (rng_state += UINT64_C(0x9E3779B97F4A7C15));
  z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
  return z ^ (z >> 31);
}
/* Uniform in [-1, 1). */
static inline double random_unit(void) {
  return (double)(next_random() >> 11) / 4503599627370496.0 - 1.0;
}

#endif
