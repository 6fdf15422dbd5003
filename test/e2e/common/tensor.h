/* The e2e harnesses' tensor descriptor of rank 0 to 2: one place that knows
 * which txc_tensor fields a descriptor sets. Include after the generated
 * header (txc_tensor). C99, libc. */
#ifndef TXC_TEST_E2E_COMMON_TENSOR_H
#define TXC_TEST_E2E_COMMON_TENSOR_H

#include <stdint.h>
#include <string.h>

/* A descriptor of `bytes` bytes at `data`; dims past `rank` stay 0. */
static inline txc_tensor tensor_of(void *data, int64_t bytes, int32_t dtype,
                                   int32_t rank, int64_t d0, int64_t d1) {
  txc_tensor t;
  memset(&t, 0, sizeof t);
  t.data = data;
  t.size_bytes = bytes;
  t.dtype = dtype;
  t.rank = rank;
  t.dims[0] = d0;
  t.dims[1] = d1;
  return t;
}

#endif
