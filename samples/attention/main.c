/* Calls the compiled `attention` program: one pre-norm transformer encoder
 * block (model dim 32, 2 heads, GELU MLP) on a sequence of S tokens,
 * S in [1, 512].
 *
 *   txc compile attention.json -o attention.o --header attention.h
 *   cc -std=c99 -I. -I../common -I../../runtime main.c attention.o \
 *      -o attention -lm -pthread
 *   ./attention 6
 *
 * Usage: attention [S] [--dump DIR] [--threads N]. Fills the token
 * embeddings X[S,32] deterministically, runs the block and prints the first
 * 8 features of each output token; then calls it with an empty sequence
 * (S = 0), which the artifact rejects. With --dump, writes X to DIR/X.npy
 * and Y to DIR/Y.npy (DIR must exist). With --threads N, the block runs on
 * a txc_pthreads.h pool of N threads (attention_run_with_options); the
 * results are the same bits as with one.
 */
#include "attention.h"
#include "txc_pthreads.h"
#include "txc_sample.h"

#include <stdlib.h>

#define DIM 32

int main(int argc, char **argv) {
  int64_t seq = 6;
  const char *dump;
  int threads = 1;
  /* --threads N is this sample's own; the rest are txc_sample_args'. */
  for (int i = 1; i + 1 < argc; ++i)
    if (strcmp(argv[i], "--threads") == 0) {
      threads = atoi(argv[i + 1]);
      for (int j = i; j + 2 < argc; ++j)
        argv[j] = argv[j + 2];
      argc -= 2;
      break;
    }
  if (threads < 1 ||
      txc_sample_args(argc, argv, "S", ATTENTION_SYMBOL_S_MIN,
                      ATTENTION_SYMBOL_S_MAX, &seq, &dump) != 0)
    return 2;
  /* The pool lives as long as the program calls the block. */
  txc_pthreads_pool *pool = txc_pthreads_create(threads);
  if (!pool)
    return 1;
  txc_run_options options;
  memset(&options, 0, sizeof options);
  options.struct_size = sizeof options;
  txc_pthreads_set_options(pool, &options);

  /* The block maps [S,32] to [S,32]; ATTENTION_OUTPUT_Y_MAX_BYTES would fit
     any S, but the exact size is known here. */
  float *x = malloc((size_t)seq * DIM * sizeof(float));
  float *y = malloc((size_t)seq * DIM * sizeof(float));
  if (!x || !y)
    return 1;
  for (int64_t i = 0; i < seq * DIM; ++i)
    x[i] = (float)((i * 29) % 61) / 30.0f - 1.0f; /* in [-1, 1] */

  int64_t dims[2] = {seq, DIM};
  txc_tensor inputs[ATTENTION_NUM_INPUTS];
  inputs[ATTENTION_INPUT_X] = txc_sample_tensor(x, TXC_DTYPE_F32, 2, dims);
  txc_tensor outputs[ATTENTION_NUM_OUTPUTS];
  outputs[ATTENTION_OUTPUT_Y] = txc_sample_tensor(y, TXC_DTYPE_F32, 2, dims);

  txc_status status;
  char message[512];
  int32_t rc = attention_run_with_options(inputs, ATTENTION_NUM_INPUTS,
                                          outputs, ATTENTION_NUM_OUTPUTS,
                                          &status, &options);
  if (rc != TXC_OK) {
    attention_error_message(&status, message, sizeof message);
    fprintf(stderr, "attention_run_with_options failed (%d): %s\n", (int)rc,
            message);
    return 1;
  }
  printf("Y = block(X) with S = %lld, Y has shape [%lld, %lld]; "
         "features 0..7 of each token:\n",
         (long long)seq, (long long)outputs[0].dims[0],
         (long long)outputs[0].dims[1]);
  for (int64_t t = 0; t < seq && t < 4; ++t) {
    printf("  token %lld: [", (long long)t);
    for (int j = 0; j < 8; ++j)
      printf("%s%8.4f", j ? " " : "", y[t * DIM + j]);
    printf(" ...]\n");
  }
  if (seq > 4)
    printf("  ... (%lld more tokens)\n", (long long)(seq - 4));

  if (dump &&
      (txc_sample_write_npy(dump, "X", &inputs[ATTENTION_INPUT_X]) != 0 ||
       txc_sample_write_npy(dump, "Y", &outputs[ATTENTION_OUTPUT_Y]) != 0)) {
    fprintf(stderr, "cannot write the .npy files to %s\n", dump);
    return 1;
  }

  /* Break the contract: an empty sequence, below the symbol's minimum. */
  inputs[ATTENTION_INPUT_X].dims[0] = 0;
  rc = attention_run(inputs, ATTENTION_NUM_INPUTS, outputs,
                     ATTENTION_NUM_OUTPUTS, &status);
  attention_error_message(&status, message, sizeof message);
  printf("\n");
  txc_sample_report("Calling with S = 0", rc, message);

  txc_pthreads_destroy(pool);
  free(x);
  free(y);
  return rc == TXC_E_SYMBOL_RANGE ? 0 : 1;
}
