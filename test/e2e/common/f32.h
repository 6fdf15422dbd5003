/* The linear harnesses' f32 tensors of rank 1 or 2, their deterministic
 * inputs, and the inputs of the `linear` sample (Y = X*W + b, X [B,4],
 * W [4,3], b [3]). Include after the generated header (txc_tensor). C99,
 * libc. */
#ifndef TXC_TEST_E2E_COMMON_F32_H
#define TXC_TEST_E2E_COMMON_F32_H

#include <stdint.h>
#include <stdlib.h>

#include "tensor.h"

static inline txc_tensor tensor(void *data, int64_t bytes, int32_t rank,
                                int64_t d0, int64_t d1) {
  return tensor_of(data, bytes, TXC_DTYPE_F32, rank, d0, d1);
}

/* xorshift: deterministic inputs in [-1, 1). */
static uint32_t rng = 12345u;
static inline float next_float(void) {
  rng ^= rng << 13;
  rng ^= rng >> 17;
  rng ^= rng << 5;
  return (float)(rng >> 8) / 8388608.0f - 1.0f;
}

/* The descriptors of linear's inputs at batch B: x holds max(B, 1) rows, so
 * that a call with B <= 0 has storage to be refused with; w holds 12
 * floats, b 3. */
static inline void linear_descriptors(txc_tensor in[3], float *x, float *w,
                                      float *b, int64_t batch) {
  int64_t rows = batch > 0 ? batch : 1;
  in[0] = tensor(x, rows * 4 * (int64_t)sizeof(float), 2, batch, 4);
  in[1] = tensor(w, 12 * (int64_t)sizeof(float), 2, 4, 3);
  in[2] = tensor(b, 3 * (int64_t)sizeof(float), 1, 3, 0);
}

/* linear's inputs at batch B with next_float's values (X, then W, then b)
 * and their descriptors. The descriptors point into the struct: do not
 * copy it. Free x with linear_inputs_free. */
typedef struct linear_inputs {
  float *x;
  float w[12], b[3];
  txc_tensor in[3];
} linear_inputs;

static inline void linear_inputs_init(linear_inputs *l, int64_t batch) {
  int64_t rows = batch > 0 ? batch : 1;
  l->x = malloc((size_t)rows * 4 * sizeof(float));
  for (int64_t i = 0; i < rows * 4; ++i)
    l->x[i] = next_float();
  for (int i = 0; i < 12; ++i)
    l->w[i] = next_float();
  for (int i = 0; i < 3; ++i)
    l->b[i] = next_float();
  linear_descriptors(l->in, l->x, l->w, l->b, batch);
}

static inline void linear_inputs_free(linear_inputs *l) { free(l->x); }

#endif
