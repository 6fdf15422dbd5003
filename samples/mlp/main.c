/* Calls the compiled `mlp` program: a 3-layer perceptron 16 -> 32 -> 32 -> 8
 * with GELU, on a batch of B rows (B in [1, 1024]).
 *
 *   txc compile mlp.json -o mlp.o --header mlp.h
 *   cc -std=c99 -I. -I../common main.c mlp.o -o mlp -lm && ./mlp 4
 *
 * Usage: mlp [B] [--dump DIR]. Fills X deterministically, sizes the output
 * with mlp_output_shapes, runs the model and prints Y; then calls it with
 * B = 1025, which the artifact rejects (symbol out of range). With --dump,
 * writes X to DIR/X.npy and Y to DIR/Y.npy (DIR must exist).
 */
#include "mlp.h"
#include "txc_sample.h"

#include <stdlib.h>

int main(int argc, char **argv) {
  int64_t batch = 4;
  const char *dump;
  if (txc_sample_args(argc, argv, "B", MLP_SYMBOL_B_MIN, MLP_SYMBOL_B_MAX,
                      &batch, &dump) != 0)
    return 2;

  float *x = malloc((size_t)batch * 16 * sizeof(float));
  if (!x)
    return 1;
  for (int64_t i = 0; i < batch * 16; ++i)
    x[i] = (float)((i * 37) % 101) / 25.0f - 2.0f; /* in [-2, 2] */

  int64_t x_dims[2] = {batch, 16};
  txc_tensor inputs[MLP_NUM_INPUTS];
  inputs[MLP_INPUT_X] = txc_sample_tensor(x, TXC_DTYPE_F32, 2, x_dims);
  txc_tensor outputs[MLP_NUM_OUTPUTS];
  memset(outputs, 0, sizeof outputs);
  txc_status status;
  char message[512];

  /* The output's shape follows from the input shapes: ask for it, then
     allocate exactly that much. */
  int32_t rc = mlp_output_shapes(inputs, MLP_NUM_INPUTS, outputs,
                                 MLP_NUM_OUTPUTS, &status);
  if (rc != TXC_OK) {
    mlp_error_message(&status, message, sizeof message);
    fprintf(stderr, "mlp_output_shapes failed (%d): %s\n", (int)rc, message);
    return 1;
  }
  txc_tensor *y_desc = &outputs[MLP_OUTPUT_Y];
  y_desc->size_bytes = txc_sample_num_elements(y_desc) *
                       txc_sample_dtype_size(y_desc->dtype);
  float *y = malloc((size_t)y_desc->size_bytes);
  if (!y)
    return 1;
  y_desc->data = y;

  rc = mlp_run(inputs, MLP_NUM_INPUTS, outputs, MLP_NUM_OUTPUTS, &status);
  if (rc != TXC_OK) {
    mlp_error_message(&status, message, sizeof message);
    fprintf(stderr, "mlp_run failed (%d): %s\n", (int)rc, message);
    return 1;
  }
  printf("Y = mlp(X) with B = %lld, Y has shape [%lld, %lld]:\n",
         (long long)batch, (long long)y_desc->dims[0],
         (long long)y_desc->dims[1]);
  txc_sample_print_rows(y, y_desc->dims[0], y_desc->dims[1], 4);

  if (dump && (txc_sample_write_npy(dump, "X", &inputs[MLP_INPUT_X]) != 0 ||
               txc_sample_write_npy(dump, "Y", y_desc) != 0)) {
    fprintf(stderr, "cannot write the .npy files to %s\n", dump);
    return 1;
  }

  /* Break the contract: one row more than the largest batch. The guards
     run before any tensor memory is read, so the small buffers are safe. */
  inputs[MLP_INPUT_X].dims[0] = MLP_SYMBOL_B_MAX + 1;
  rc = mlp_run(inputs, MLP_NUM_INPUTS, outputs, MLP_NUM_OUTPUTS, &status);
  mlp_error_message(&status, message, sizeof message);
  printf("\n");
  txc_sample_report("Calling with B = 1025", rc, message);

  free(x);
  free(y);
  return rc == TXC_E_SYMBOL_RANGE ? 0 : 1;
}
