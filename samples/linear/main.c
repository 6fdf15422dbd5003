/* Calls the compiled `linear` region: Y = X*W + b with a dynamic batch B.
 *
 *   txc compile linear.json -o linear.o --header linear.h
 *   cc -std=c99 -I. main.c linear.o -o linear && ./linear 5
 *
 * Prints Y for a batch of B rows, then shows what happens when the call
 * breaks the artifact's contract (X of shape [5,7] instead of [B,4]).
 */
#include "linear.h"

#include <stdio.h>
#include <stdlib.h>

static txc_tensor tensor2(float *data, int64_t rows, int64_t cols) {
  txc_tensor t = {0};
  t.data = data;
  t.size_bytes = rows * cols * (int64_t)sizeof(float);
  t.dtype = TXC_DTYPE_F32;
  t.rank = 2;
  t.dims[0] = rows;
  t.dims[1] = cols;
  return t;
}

int main(int argc, char **argv) {
  int64_t batch = argc > 1 ? atoll(argv[1]) : 5;
  if (batch < LINEAR_SYMBOL_B_MIN || batch > LINEAR_SYMBOL_B_MAX) {
    fprintf(stderr, "B must be in [%lld, %lld]\n",
            (long long)LINEAR_SYMBOL_B_MIN, (long long)LINEAR_SYMBOL_B_MAX);
    return 2;
  }

  float *x = malloc((size_t)batch * 7 * sizeof(float)); /* room for [B,7] */
  float *y = malloc((size_t)batch * 3 * sizeof(float));
  float w[4 * 3], b[3] = {0.5f, -1.0f, 2.0f};
  if (!x || !y)
    return 1;
  for (int64_t i = 0; i < batch * 4; ++i)
    x[i] = (float)(i % 7) - 3.0f;
  for (int i = 0; i < 12; ++i)
    w[i] = 0.25f * (float)(i + 1);

  txc_tensor inputs[LINEAR_NUM_INPUTS];
  inputs[LINEAR_INPUT_X] = tensor2(x, batch, 4);
  inputs[LINEAR_INPUT_W] = tensor2(w, 4, 3);
  inputs[LINEAR_INPUT_b] = tensor2(b, 1, 3);
  inputs[LINEAR_INPUT_b].rank = 1;
  inputs[LINEAR_INPUT_b].dims[0] = 3;
  txc_tensor outputs[LINEAR_NUM_OUTPUTS] = {{0}};
  outputs[LINEAR_OUTPUT_Y].data = y;
  outputs[LINEAR_OUTPUT_Y].size_bytes = batch * 3 * (int64_t)sizeof(float);

  txc_status status;
  char message[512];
  int32_t rc = linear_run(inputs, LINEAR_NUM_INPUTS, outputs,
                          LINEAR_NUM_OUTPUTS, &status);
  if (rc != TXC_OK) {
    linear_error_message(&status, message, sizeof message);
    fprintf(stderr, "linear_run failed (%d): %s\n", rc, message);
    return 1;
  }
  printf("Y = X*W + b with B = %lld, Y has shape [%lld, %lld]:\n",
         (long long)batch, (long long)outputs[0].dims[0],
         (long long)outputs[0].dims[1]);
  for (int64_t i = 0; i < batch; ++i)
    printf("  [%8.3f %8.3f %8.3f]\n", y[i * 3], y[i * 3 + 1], y[i * 3 + 2]);

  /* Break the contract: X with 7 columns. The call is rejected before any
     tensor memory is touched, and the status names the failed guard. */
  inputs[LINEAR_INPUT_X] = tensor2(x, batch, 7);
  rc = linear_run(inputs, LINEAR_NUM_INPUTS, outputs, LINEAR_NUM_OUTPUTS,
                  &status);
  linear_error_message(&status, message, sizeof message);
  printf("\nCalling with X of shape [%lld, 7]:\n  rc = %d (TXC_E_DIM = %d)\n"
         "  %s\n",
         (long long)batch, rc, TXC_E_DIM, message);

  free(x);
  free(y);
  return rc == TXC_E_DIM ? 0 : 1;
}
