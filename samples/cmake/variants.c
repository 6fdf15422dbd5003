/* samples/linear with specializations (txc_add_library's SPECIALIZE, see
 * CMakeLists.txt): calls the object at B = 1, 5 and 3 and prints which
 * code ran, status.variant (docs/specialization.md). */
#include "linear_variants.h"

#include <stdio.h>

static int run(int64_t batch) {
  float x[8 * 4] = {0}, w[4 * 3] = {0}, b[3] = {1, 2, 3}, y[8 * 3];
  txc_tensor in[3] = {{x, batch * 16, TXC_DTYPE_F32, 2, {batch, 4}},
                      {w, sizeof w, TXC_DTYPE_F32, 2, {4, 3}},
                      {b, sizeof b, TXC_DTYPE_F32, 1, {3}}};
  txc_tensor out = {y, batch * 12, TXC_DTYPE_F32, 2, {batch, 3}};
  txc_status status;
  int32_t rc = linear_v_run(in, 3, &out, 1, &status);
  printf("B=%d: rc %d, variant %d, Y[0] = [%g %g %g]\n", (int)batch, rc,
         status.variant, y[0], y[1], y[2]);
  return rc != TXC_OK;
}

int main(void) {
  /* LINEAR_V_VARIANT_B1 is 1, B in {5,8} are 2 and 3; B=3 is generic. */
  return run(1) | run(5) | run(3);
}
