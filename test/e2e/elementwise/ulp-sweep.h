/* Shared by the drivers of exp-ulp.test and erf-ulp.test: float bit
   helpers, one call of a compiled unary f32 program on n elements, and the
   sweep that compares it with the C library. */
#ifndef TXC_TEST_ULP_SWEEP_H
#define TXC_TEST_ULP_SWEEP_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

static float from(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}

/* Distance in ulps between two floats of the same sign. */
static int64_t ulps(float a, float b) {
  return llabs((int64_t)bits(a) - (int64_t)bits(b));
}

typedef int32_t (*unary_entry)(const txc_tensor *, int64_t, txc_tensor *,
                               int64_t, txc_status *);

/* y = f(x) elementwise through the program's entry point; exits on error. */
static void run_unary(unary_entry entry, float *x, float *y, int64_t n) {
  txc_tensor in = {x, n * 4, TXC_DTYPE_F32, 1, {n}};
  txc_tensor out = {y, n * 4, TXC_DTYPE_F32, 1, {n}};
  txc_status status;
  if (entry(&in, 1, &out, 1, &status) != 0) {
    printf("call failed: status %d\n", (int)status.code);
    exit(1);
  }
}

/* Calls `entry` on every 256th float of [0, hi] and of [lo, -0] (both signs
   walk their bits) and prints how many results are more than `bound` ulps
   from `reference` (an infinite reference must be matched exactly) and the
   largest distance. */
static void sweep(unary_entry entry, float (*reference)(float),
                  const char *name, float lo, float hi, int64_t bound) {
  enum { kChunk = 1 << 20 };
  float *xs = malloc(kChunk * 4), *ys = malloc(kChunk * 4);
  int64_t above = 0, maxUlp = 0, n = 0;
  uint32_t ranges[2][2] = {{bits(0.0f), bits(hi)}, {bits(-0.0f), bits(lo)}};
  for (int r = 0; r < 2; ++r)
    for (uint32_t u = ranges[r][0]; u < ranges[r][1];) {
      int64_t m = 0;
      for (; m < kChunk && u < ranges[r][1]; ++m, u += 256)
        xs[m] = from(u);
      run_unary(entry, xs, ys, m);
      for (int64_t i = 0; i < m; ++i) {
        float want = reference(xs[i]);
        int64_t d = isinf(want) ? (isinf(ys[i]) ? 0 : 99) : ulps(ys[i], want);
        if (d > maxUlp)
          maxUlp = d;
        if (d > bound && above++ < 5)
          printf("%s(%a) = %a, the C library gives %a\n", name, xs[i], ys[i],
                 want);
      }
      n += m;
    }
  printf("arguments: %lld\nabove %lld ulp: %lld\nmax ulp: %lld\n",
         (long long)n, (long long)bound, (long long)above, (long long)maxUlp);
  free(xs);
  free(ys);
}

#endif
