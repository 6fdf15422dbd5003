/* End-to-end test of samples/linear/linear_const.json: W and b are
 * constants inside the object; the only input is X. Checks results against
 * an independent reference at boundary batch sizes and a few guards. */
#include "linear_const.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const float W[4][3] = {{0.25f, 0.5f, 0.75f},
                              {1.0f, 1.25f, 1.5f},
                              {1.75f, 2.0f, 2.25f},
                              {2.5f, 2.75f, 3.0f}};
static const float Bias[3] = {0.5f, -1.0f, 2.0f};

static int run(int64_t batch) {
  float *x = malloc((size_t)batch * 4 * sizeof(float));
  float *y = malloc((size_t)batch * 3 * sizeof(float));
  for (int64_t i = 0; i < batch * 4; ++i)
    x[i] = (float)((i * 7919) % 23) / 8.0f - 1.5f;
  txc_tensor in = {x, batch * 16, TXC_DTYPE_F32, 2, {batch, 4}};
  txc_tensor out = {y, batch * 12, 0, 0, {0}};
  txc_status status;
  int32_t rc = linear_const_run(&in, 1, &out, 1, &status);
  int bad = rc != TXC_OK;
  for (int64_t i = 0; i < batch && !bad; ++i)
    for (int j = 0; j < 3; ++j) {
      double expected = Bias[j];
      for (int k = 0; k < 4; ++k)
        expected += (double)x[i * 4 + k] * W[k][j];
      if (fabs(y[i * 3 + j] - expected) > 1e-5)
        bad = 1;
    }
  printf("B=%lld %s\n", (long long)batch, bad ? "WRONG" : "ok");
  /* Break the contract once: X with three columns. */
  in.dims[1] = 3;
  char message[256];
  rc = linear_const_run(&in, 1, &out, 1, &status);
  linear_const_error_message(&status, message, sizeof message);
  if (batch == 1)
    printf("rc=%d %s\n", rc, message);
  free(x);
  free(y);
  return bad || rc != TXC_E_DIM;
}

int main(void) {
  int failed = 0;
  int64_t batches[] = {1, 2, 7, 4096};
  for (int i = 0; i < 4; ++i)
    failed |= run(batches[i]);
  printf("%s\n", failed ? "FAILED" : "all checks passed");
  return failed;
}
