/* End-to-end test of txc's `cast` between every pair of dtypes.
 *
 *   cast_harness gen           prints the program: one [B,256] input per
 *                              dtype, one cast per (source, target) pair
 *   cast_harness run B...      (built with -DWITH_KERNEL and k.h) runs it
 *                              and compares every element with the
 *                              reference below, bit for bit
 *
 * The reference converts exact values (long double holds every value of
 * every dtype): float targets round once to nearest even, integer targets
 * truncate toward zero and saturate (NaN gives 0), integers wrap between
 * widths, bool is x != 0. Inputs include every f16, bf16, i16, i8 and u8
 * value at B = 256, values around every integer limit, and values at and
 * next to the rounding midpoints of f16, bf16 and f32, including f64 and
 * i32/i64 values whose rounding through f32 would be wrong (double
 * rounding).
 */
#define _GNU_SOURCE
#include "common.h"

#ifdef WITH_KERNEL
#include "k.h"
#endif

static void generate(void) {
  printf(
      "{\n  \"format\": \"txc.program\", \"version\": 1, \"name\": \"casts\",\n"
      "  \"symbols\": [{\"name\": \"B\", \"min\": 1, \"max\": 256}],\n"
      "  \"inputs\": [\n");
  for (int s = 0; s < NUM_DTYPES; ++s)
    printf("    {\"name\": \"x_%s\", \"dtype\": \"%s\", \"shape\": [\"B\", "
           "256]}%s\n",
           dtype_names[s], dtype_names[s], s + 1 < NUM_DTYPES ? "," : "");
  printf("  ],\n  \"nodes\": [\n");
  for (int s = 0; s < NUM_DTYPES; ++s)
    for (int t = 0; t < NUM_DTYPES; ++t)
      printf("    {\"name\": \"%s_to_%s\", \"op\": \"cast\", \"operands\": "
             "[\"x_%s\"], \"attributes\": {\"dtype\": \"%s\"}}%s\n",
             dtype_names[s], dtype_names[t], dtype_names[s], dtype_names[t],
             s + 1 < NUM_DTYPES || t + 1 < NUM_DTYPES ? "," : "");
  printf("  ],\n  \"outputs\": [\n");
  for (int s = 0; s < NUM_DTYPES; ++s)
    for (int t = 0; t < NUM_DTYPES; ++t)
      printf("    \"%s_to_%s\"%s\n", dtype_names[s], dtype_names[t],
             s + 1 < NUM_DTYPES || t + 1 < NUM_DTYPES ? "," : "");
  printf("  ]\n}\n");
}

#ifdef WITH_KERNEL

/*===--- inputs
 * ------------------------------------------------------------===*/

#define NUM_SPECIALS 64

/* Values that sit on or next to an integer limit or a special case. */
static long double special_float(int i) {
  static const long double fixed[] = {0.0L,
                                      -0.0L,
                                      1,
                                      -1,
                                      0.5L,
                                      -0.5L,
                                      0.99999994L,
                                      -0.99999994L,
                                      1.5L,
                                      -1.5L,
                                      2.5L,
                                      127,
                                      127.5L,
                                      128,
                                      -128,
                                      -128.5L,
                                      -129,
                                      255,
                                      255.5L,
                                      256,
                                      -255,
                                      32767,
                                      32767.5L,
                                      32768,
                                      -32768,
                                      -32768.5L,
                                      -32769,
                                      65504,
                                      65519,
                                      65520,
                                      65536,
                                      -65520,
                                      2147483647.0L,
                                      2147483648.0L,
                                      -2147483648.0L,
                                      -2147483904.0L,
                                      9223372036854775807.0L,
                                      -9223372036854775808.0L,
                                      18446744073709551616.0L,
                                      1e30L,
                                      -1e30L,
                                      3.4028234663852886e38L,
                                      3.4028235e38L,
                                      1e300L,
                                      -1e300L,
                                      1e-40L,
                                      -1e-45L,
                                      1e-310L,
                                      6e-8L,
                                      3e-8L,
                                      INFINITY,
                                      -INFINITY,
                                      NAN,
                                      -NAN,
                                      16777217,
                                      0.1L,
                                      -7.75L,
                                      1e-5L};
  int n = (int)(sizeof fixed / sizeof fixed[0]);
  return i < n ? fixed[i] : ldexpl(1, i - 100);
}

static int64_t special_int(enum dtype t, int i) {
  static const int64_t fixed[] = {0,
                                  1,
                                  -1,
                                  2,
                                  -2,
                                  127,
                                  128,
                                  -128,
                                  -129,
                                  255,
                                  256,
                                  32767,
                                  32768,
                                  -32768,
                                  -32769,
                                  65504,
                                  65519,
                                  65520,
                                  65535,
                                  65536,
                                  16777216,
                                  16777217,
                                  16777219,
                                  -16777217,
                                  2147483647,
                                  -2147483647 - 1,
                                  33554431,
                                  2139095041,
                                  (INT64_C(1) << 53) + 1,
                                  -(INT64_C(1) << 53) - 1,
                                  INT64_MAX,
                                  INT64_MIN,
                                  INT64_MIN + 1,
                                  INT64_MAX - 1,
                                  (INT64_C(1) << 62) + 1};
  int n = (int)(sizeof fixed / sizeof fixed[0]);
  return wrap_int(t, (uint64_t)(i < n ? fixed[i] : i * 1000003));
}

/* A float at or next to the midpoint between two neighbors of a format with
 * `mantissa` explicit bits (7: bf16, 10: f16, 23: f32), around 2^exponent;
 * `nudge` < 0 just below, 0 on, > 0 just above, by a relative `distance`. */
static long double near_midpoint(int mantissa, int exponent, int nudge,
                                 int distance) {
  uint64_t m = (next_random() >> 1) | (UINT64_C(1) << 63);
  long double value = ldexpl((long double)(m >> (63 - mantissa)), -mantissa);
  value += ldexpl(1, -mantissa - 1); /* the midpoint */
  value *= 1 + ldexpl(nudge, -distance);
  value = ldexpl(value, exponent);
  return next_random() & 1 ? -value : value;
}

static void float_input(enum dtype s, int64_t k, void *out) {
  if (k < NUM_SPECIALS) {
    store_float(s, out, special_float((int)k));
    return;
  }
  uint64_t bits = next_random();
  int nudge = (int)(next_random() % 3) - 1;
  /* Distances below f32's precision make rounding through f32 wrong. */
  int distance = 10 + (int)(next_random() % 40);
  switch (k % 5) {
  case 0:
    memcpy(out, &bits, (size_t)dtype_sizes[s]);
    return;
  case 1: /* bf16 midpoints over bf16's range */
    store_float(s, out,
                near_midpoint(7, (int)(bits % 250) - 125, nudge, distance));
    return;
  case 2: /* f16 midpoints, normal and subnormal */
    store_float(s, out,
                near_midpoint(10, (int)(bits % 36) - 26, nudge, distance));
    return;
  case 3: /* f32 midpoints */
    store_float(s, out,
                near_midpoint(23, (int)(bits % 260) - 130, nudge, distance));
    return;
  default: /* around the integer limits, with a fraction */
    store_float(s, out,
                ldexpl(random_unit(), (int)(bits % 66)) +
                    (bits & 1 ? 0.5L : 0));
    return;
  }
}

static void int_input(enum dtype s, int64_t k, void *out) {
  if (s == BOOL) {
    store_int(s, out, (uint64_t)k & 1);
    return;
  }
  if (int_width(s) <= 16 && k >= NUM_SPECIALS) { /* every value */
    store_int(s, out, (uint64_t)k);
    return;
  }
  if (k < NUM_SPECIALS) {
    store_int(s, out, (uint64_t)special_int(s, (int)k));
    return;
  }
  uint64_t bits = next_random();
  if (k % 3 == 1) {
    /* Near a bf16 (8 bits) or f32 (24 bits) midpoint: m, then a half, then
     * a few low bits that rounding through f32 would lose. */
    int keep = bits & 1 ? 8 : 24;
    int shift = 1 + (int)((bits >> 8) % (uint64_t)(int_width(s) - keep - 1));
    uint64_t m = (next_random() | (UINT64_C(1) << (keep - 1))) &
                 ((UINT64_C(1) << keep) - 1);
    uint64_t low = next_random() % 3 == 0 ? 0 : next_random() % 4;
    bits = (m << shift) | (UINT64_C(1) << (shift - 1)) | low;
    if (next_random() & 1)
      bits = 0 - bits;
  }
  store_int(s, out, bits);
}

static void input_value(enum dtype s, int64_t k, void *out) {
  rng_state = (uint64_t)k * 16 + (uint64_t)s + 1;
  next_random();
  if (is_float(s) && dtype_sizes[s] == 2 && k >= NUM_SPECIALS) {
    uint16_t bits = (uint16_t)k; /* every bit pattern at B = 256 */
    memcpy(out, &bits, 2);
  } else if (is_float(s)) {
    float_input(s, k, out);
  } else {
    int_input(s, k, out);
  }
}

/*===--- reference
 * ---------------------------------------------------------===*/

static void reference_cast(enum dtype s, enum dtype t, const void *in,
                           void *out) {
  if (!is_float(s)) {
    if (is_float(t))
      store_float(t, out, int_value(s, in));
    else
      store_int(t, out, load_uint(s, in));
    return;
  }
  long double v = load_float(s, in);
  if (is_float(t)) {
    store_float(t, out, v);
  } else if (t == BOOL) {
    store_int(t, out, v != 0);
  } else if (isnan(v)) {
    store_int(t, out, 0);
  } else {
    long double r = truncl(v);
    uint64_t i = r >= ldexpl(1, int_width(t) - is_signed_int(t))
                     ? (uint64_t)int_max(t)
                 : r < (long double)int_min(t) ? (uint64_t)int_min(t)
                 : is_unsigned_int(t)          ? (uint64_t)r
                                               : (uint64_t)(int64_t)r;
    store_int(t, out, i);
  }
}

/*===--- running
 * -----------------------------------------------------------===*/

/* The program has one input per dtype and one output per pair, in order. */
typedef char check_counts[K_NUM_INPUTS == NUM_DTYPES &&
                                  K_NUM_OUTPUTS == NUM_DTYPES * NUM_DTYPES
                              ? 1
                              : -1];

static txc_tensor describe(void *data, enum dtype t, int64_t batch) {
  txc_tensor tensor;
  memset(&tensor, 0, sizeof tensor);
  tensor.data = data;
  tensor.size_bytes = batch * 256 * dtype_sizes[t];
  tensor.dtype = dtype_codes[t];
  tensor.rank = 2;
  tensor.dims[0] = batch;
  tensor.dims[1] = 256;
  return tensor;
}

static void check_pair(enum dtype s, enum dtype t, const char *in,
                       const char *out, int64_t count) {
  int reported = 0;
  for (int64_t k = 0; k < count; ++k) {
    const char *x = in + k * dtype_sizes[s];
    const char *got = out + k * dtype_sizes[t];
    char expected[8];
    reference_cast(s, t, x, expected);
    if (same_element(t, expected, got) || reported >= 5)
      continue;
    char sx[64], se[64], sg[64];
    format_element(s, x, sx, sizeof sx);
    format_element(t, expected, se, sizeof se);
    format_element(t, got, sg, sizeof sg);
    fprintf(stderr,
            "FAILED cast %s to %s, element %lld: x=%s: expected %s, got %s\n",
            dtype_names[s], dtype_names[t], (long long)k, sx, se, sg);
    ++reported;
    ++failures;
  }
}

static void run(int64_t batch) {
  int64_t count = batch * 256;
  char *inputs[NUM_DTYPES];
  txc_tensor in[K_NUM_INPUTS];
  for (int s = 0; s < NUM_DTYPES; ++s) {
    inputs[s] = malloc((size_t)(count * dtype_sizes[s]));
    for (int64_t k = 0; k < count; ++k)
      input_value((enum dtype)s, k, inputs[s] + k * dtype_sizes[s]);
    in[s] = describe(inputs[s], (enum dtype)s, batch);
  }
  char *outputs[K_NUM_OUTPUTS];
  txc_tensor out[K_NUM_OUTPUTS];
  for (int i = 0; i < K_NUM_OUTPUTS; ++i) {
    enum dtype t = (enum dtype)(i % NUM_DTYPES);
    outputs[i] = malloc((size_t)(count * dtype_sizes[t]));
    memset(outputs[i], 0xA5, (size_t)(count * dtype_sizes[t]));
    out[i] = describe(outputs[i], t, batch);
  }
  txc_status status;
  if (k_run(in, K_NUM_INPUTS, out, K_NUM_OUTPUTS, &status) != TXC_OK) {
    fprintf(stderr, "B=%lld: k_run failed with %d\n", (long long)batch,
            status.code);
    exit(1);
  }
  int before = failures;
  for (int i = 0; i < K_NUM_OUTPUTS; ++i)
    check_pair((enum dtype)(i / NUM_DTYPES), (enum dtype)(i % NUM_DTYPES),
               inputs[i / NUM_DTYPES], outputs[i], count);
  if (failures == before)
    printf("B=%lld ok: %d casts, %lld elements each\n", (long long)batch,
           K_NUM_OUTPUTS, (long long)count);
  for (int s = 0; s < NUM_DTYPES; ++s)
    free(inputs[s]);
  for (int i = 0; i < K_NUM_OUTPUTS; ++i)
    free(outputs[i]);
}

#endif /* WITH_KERNEL */

int main(int argc, char **argv) {
  if (argc >= 2 && strcmp(argv[1], "gen") == 0) {
    generate();
    return 0;
  }
#ifdef WITH_KERNEL
  if (argc >= 3 && strcmp(argv[1], "run") == 0) {
    for (int i = 2; i < argc; ++i)
      run(atoll(argv[i]));
    fail_report();
    if (!failures)
      printf("all checks passed\n");
    return failures != 0;
  }
#endif
  fprintf(stderr, "usage: %s gen | run B...\n", argv[0]);
  return 2;
}
