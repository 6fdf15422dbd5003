/* Calls chain_run (y = 2x + 1, exact on small integers) into aligned and
   misaligned outputs at sizes around the 4 MiB streaming threshold, and
   checks every element and a canary after the output. */
#define _POSIX_C_SOURCE 200112L
#include "chain.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static float *allocate(int64_t n) {
  void *p = NULL;
  return posix_memalign(&p, 64, (size_t)n * sizeof(float)) == 0 ? p : NULL;
}

static int check(int64_t n, int misaligned) {
  float *x = allocate(n + 16);
  float *buffer = allocate(n + 16);
  if (!x || !buffer)
    return 0;
  float *y = buffer + misaligned;
  for (int64_t i = 0; i < n; ++i)
    x[i] = (float)(i % 1001 - 500);
  for (int64_t i = 0; i < n + 16 - misaligned; ++i)
    y[i] = -7.0f;
  txc_tensor in = {.data = x, .size_bytes = n * 4, .dtype = TXC_DTYPE_F32,
                   .rank = 1, .dims = {n}};
  txc_tensor out = {.data = y, .size_bytes = n * 4};
  txc_status status;
  int ok = chain_run(&in, 1, &out, 1, &status) == TXC_OK;
  for (int64_t i = 0; ok && i < n; ++i)
    ok = y[i] == 2.0f * x[i] + 1.0f;
  for (int64_t i = n; ok && i < n + 16 - misaligned; ++i)
    ok = y[i] == -7.0f;
  printf("n=%lld %s: %s\n", (long long)n, misaligned ? "misaligned" : "aligned",
         ok ? "ok" : "WRONG");
  free(x);
  free(buffer);
  return ok;
}

int main(void) {
  int ok = 1;
  const int64_t sizes[] = {1 << 20, (1 << 20) + 3, (1 << 20) - 1};
  for (int s = 0; s < 3; ++s) {
    ok &= check(sizes[s], 0);
    ok &= check(sizes[s], 1);
  }
  ok &= check(4099, 0);
  ok &= check(1, 0);
  puts(ok ? "all checks passed" : "FAILED");
  return !ok;
}
