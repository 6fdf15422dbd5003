/* Calls the compiled `cnn` program: a small classifier of NCHW 3x16x16
 * images (conv, relu, max pool, conv, relu, global average pool, linear to
 * 10 classes) on a batch of B images, B in [1, 64].
 *
 *   txc compile cnn.json -o cnn.o --header cnn.h
 *   cc -std=c99 -I. -I../common main.c cnn.o -o cnn -lm && ./cnn 3
 *
 * Usage: cnn [B] [--dump DIR]. Draws B synthetic images, runs the model and
 * prints each image's logits and predicted class; then calls it with images
 * of 16x15 pixels, which the artifact rejects. With --dump, writes X to
 * DIR/X.npy and the logits to DIR/logits.npy (DIR must exist).
 */
#include "cnn.h"
#include "txc_sample.h"

#include <stdlib.h>

#define CHANNELS 3
#define SIZE 16
#define CLASSES 10

int main(int argc, char **argv) {
  int64_t batch = 3;
  const char *dump;
  if (txc_sample_args(argc, argv, "B", CNN_SYMBOL_B_MIN, CNN_SYMBOL_B_MAX,
                      &batch, &dump) != 0)
    return 2;

  /* Image n has a diagonal stripe pattern whose period and phase depend on
     n and the channel, plus a bright square whose place depends on n. */
  int64_t pixels = CHANNELS * SIZE * SIZE;
  float *x = malloc((size_t)(batch * pixels) * sizeof(float));
  float *logits = malloc((size_t)batch * CLASSES * sizeof(float));
  if (!x || !logits)
    return 1;
  for (int64_t n = 0; n < batch; ++n)
    for (int c = 0; c < CHANNELS; ++c)
      for (int h = 0; h < SIZE; ++h)
        for (int w = 0; w < SIZE; ++w) {
          int64_t period = 3 + (n + c) % 5;
          float v = (float)((h + 2 * w + n * 7 + c) % period) / (float)period;
          int64_t corner = (n * 5) % 12;
          if (h >= corner && h < corner + 4 && w >= corner && w < corner + 4)
            v += 1.0f;
          x[((n * CHANNELS + c) * SIZE + h) * SIZE + w] = v - 0.5f;
        }

  int64_t x_dims[4] = {batch, CHANNELS, SIZE, SIZE};
  int64_t y_dims[2] = {batch, CLASSES};
  txc_tensor inputs[CNN_NUM_INPUTS];
  inputs[CNN_INPUT_X] = txc_sample_tensor(x, TXC_DTYPE_F32, 4, x_dims);
  txc_tensor outputs[CNN_NUM_OUTPUTS];
  outputs[CNN_OUTPUT_logits] =
      txc_sample_tensor(logits, TXC_DTYPE_F32, 2, y_dims);

  txc_status status;
  char message[512];
  int32_t rc = cnn_run(inputs, CNN_NUM_INPUTS, outputs, CNN_NUM_OUTPUTS,
                       &status);
  if (rc != TXC_OK) {
    cnn_error_message(&status, message, sizeof message);
    fprintf(stderr, "cnn_run failed (%d): %s\n", (int)rc, message);
    return 1;
  }
  printf("logits = cnn(X) with B = %lld, logits has shape [%lld, %lld]:\n",
         (long long)batch, (long long)outputs[0].dims[0],
         (long long)outputs[0].dims[1]);
  txc_sample_print_rows(logits, batch, CLASSES, 4);
  printf("predicted classes:");
  for (int64_t n = 0; n < batch; ++n) {
    int best = 0;
    for (int k = 1; k < CLASSES; ++k)
      if (logits[n * CLASSES + k] > logits[n * CLASSES + best])
        best = k;
    printf(" %d", best);
  }
  printf("\n");

  if (dump &&
      (txc_sample_write_npy(dump, "X", &inputs[CNN_INPUT_X]) != 0 ||
       txc_sample_write_npy(dump, "logits", &outputs[CNN_OUTPUT_logits]) !=
           0)) {
    fprintf(stderr, "cannot write the .npy files to %s\n", dump);
    return 1;
  }

  /* Break the contract: images one pixel narrower than the static 16. */
  inputs[CNN_INPUT_X].dims[3] = SIZE - 1;
  rc = cnn_run(inputs, CNN_NUM_INPUTS, outputs, CNN_NUM_OUTPUTS, &status);
  cnn_error_message(&status, message, sizeof message);
  printf("\n");
  txc_sample_report("Calling with X of shape [B, 3, 16, 15]", rc, message);

  free(x);
  free(logits);
  return rc == TXC_E_DIM ? 0 : 1;
}
