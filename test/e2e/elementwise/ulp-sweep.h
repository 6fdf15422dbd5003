/* Shared by the drivers of exp-ulp.test and erf-ulp.test: float bit
   helpers and one call of a compiled unary f32 program on n elements. */
#ifndef TXC_TEST_ULP_SWEEP_H
#define TXC_TEST_ULP_SWEEP_H

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

#endif
