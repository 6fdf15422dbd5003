/* Prints X * W for one row X = [1, 1, 1, 1]: the weights of w.npy. */
#include "scale.h"

#include <stdio.h>

int main(void) {
  float x[4] = {1, 1, 1, 1}, y[4];
  txc_tensor in = {x, sizeof x, TXC_DTYPE_F32, 2, {1, 4}};
  txc_tensor out = {y, sizeof y, 0, 0, {0}};
  txc_status status;
  if (scale_run(&in, 1, &out, 1, &status) != TXC_OK)
    return 1;
  printf("W = %g %g %g %g\n", y[0], y[1], y[2], y[3]);
  return 0;
}
