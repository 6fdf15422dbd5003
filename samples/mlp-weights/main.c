/* Calls the MLP of mlp.json on a batch of 3 rows and prints Y.

   Embedded weights (the default):
     txc compile mlp.json -o mlp.o --header mlp.h
     cc -std=c99 main.c mlp.o -o mlp
   External weights (the blob mlp.weights is read at run time):
     txc compile mlp.json --weights external -o mlp.o --header mlp.h
     cc -std=c11 main.c mlp.o -o mlp        (aligned_alloc is C11) */
#include "mlp.h"

#include <stdio.h>
#include <stdlib.h>

#ifdef MLP_WEIGHTS_BYTES
/* The blob must be MLP_WEIGHTS_ALIGNMENT-aligned and exactly
   MLP_WEIGHTS_BYTES long; a production loader would mmap it. */
static void *load_weights(const char *path) {
  FILE *f = fopen(path, "rb");
  void *blob = aligned_alloc(MLP_WEIGHTS_ALIGNMENT,
                             (MLP_WEIGHTS_BYTES + MLP_WEIGHTS_ALIGNMENT - 1) /
                                 MLP_WEIGHTS_ALIGNMENT * MLP_WEIGHTS_ALIGNMENT);
  if (!f || !blob || fread(blob, 1, MLP_WEIGHTS_BYTES, f) != MLP_WEIGHTS_BYTES) {
    fprintf(stderr, "cannot read %s\n", path);
    exit(1);
  }
  fclose(f);
  return blob;
}
#endif

int main(int argc, char **argv) {
  float x[3 * 8], y[3 * 4];
  txc_tensor inputs[MLP_NUM_INPUTS] = {{x, sizeof x, TXC_DTYPE_F32, 2, {3, 8}}};
  txc_tensor outputs[MLP_NUM_OUTPUTS] = {{y, sizeof y, 0, 0, {0}}};
  txc_status status;
  char message[256];
  int32_t rc;
  int i, j;
  for (i = 0; i < 3 * 8; ++i)
    x[i] = (float)(i - 12) / 8; /* as make_weights.py --expected */
#ifdef MLP_WEIGHTS_BYTES
  {
    void *weights = load_weights(argc > 1 ? argv[1] : "mlp.weights");
    rc = mlp_run_with_weights(weights, MLP_WEIGHTS_BYTES, inputs,
                              MLP_NUM_INPUTS, outputs, MLP_NUM_OUTPUTS,
                              &status);
    free(weights);
  }
#else
  rc = mlp_run(inputs, MLP_NUM_INPUTS, outputs, MLP_NUM_OUTPUTS, &status);
#endif
  if (rc != TXC_OK) {
    mlp_error_message(&status, message, sizeof message);
    fprintf(stderr, "mlp failed: %s\n", message);
    return 1;
  }
  for (i = 0; i < 3; ++i)
    for (j = 0; j < 4; ++j)
      printf("%.6f%c", y[i * 4 + j], j == 3 ? '\n' : ' ');
  (void)argc;
  (void)argv;
  return 0;
}
