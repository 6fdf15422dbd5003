/* The linear harnesses' f32 tensors of rank 1 or 2 and their deterministic
 * inputs. Include after the generated header (txc_tensor). C99, libc. */
#ifndef TXC_TEST_E2E_COMMON_F32_H
#define TXC_TEST_E2E_COMMON_F32_H

#include <stdint.h>

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

#endif
