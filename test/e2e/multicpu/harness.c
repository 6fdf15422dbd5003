/* End-to-end test of an object compiled for several CPUs (`linear`,
 * Y = X*W + b, B in [1, 4096], --cpu with a list): prints which listed CPU
 * a call takes on this machine (<p>_cpu_level), then, for each batch size
 * on the command line and each cpu_level a caller may ask for (0: the most
 * capable, 1..n, and values outside 1..n, which mean 0), calls
 * <p>_run_with_options and checks the result against an independent
 * reference; <p>_run (no options) must take the most capable CPU too.
 *
 * Prints "machine runs cpu <k>" and "requested <r> runs cpu <k>" for
 * FileCheck; exits non-zero on any mismatch.
 */
#include "linear.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/expect.h"
#include "../common/f32.h"

/* Runs one batch with `requested` (-1: <p>_run, no options). */
static void check_batch(int64_t batch, int32_t requested) {
  linear_inputs l;
  linear_inputs_init(&l, batch);
  const float *x = l.x, *w = l.w, *b = l.b;
  txc_tensor *in = l.in;
  float *y = malloc((size_t)batch * 3 * sizeof(float));
  txc_tensor out[1] = {tensor(y, batch * 12, 2, batch, 3)};
  txc_status status;
  int32_t rc;
  if (requested < 0) {
    rc = linear_run(in, 3, out, 1, &status);
  } else {
    txc_run_options options;
    memset(&options, 0, sizeof options);
    options.struct_size = sizeof options;
    options.cpu_level = requested;
    rc = linear_run_with_options(in, 3, out, 1, &status, &options);
  }
  EXPECT(rc == TXC_OK, "B=%lld requested %d: rc %d", (long long)batch,
         requested, rc);
  for (int64_t i = 0; i < batch; ++i)
    for (int j = 0; j < 3; ++j) {
      double ref = b[j];
      for (int k = 0; k < 4; ++k)
        ref += (double)x[i * 4 + k] * w[k * 3 + j];
      EXPECT(fabs(y[i * 3 + j] - ref) <= 1e-5 * (1 + fabs(ref)),
             "B=%lld requested %d: Y[%lld][%d] = %g, expected %g",
             (long long)batch, requested, (long long)i, j, y[i * 3 + j], ref);
    }
  linear_inputs_free(&l);
  free(y);
}

int main(int argc, char **argv) {
  int32_t best = linear_cpu_level(0);
  printf("machine runs cpu %d of %d\n", best, LINEAR_NUM_CPUS);
  EXPECT(best >= 1 && best <= LINEAR_NUM_CPUS, "cpu_level(0) = %d", best);
  for (int32_t requested = -1; requested <= LINEAR_NUM_CPUS + 1; ++requested) {
    int32_t runs = linear_cpu_level(requested);
    printf("requested %d runs cpu %d\n", requested, runs);
    /* At most the requested CPU, the most capable this machine has. */
    int32_t limit =
        requested >= 1 && requested <= LINEAR_NUM_CPUS ? requested : best;
    EXPECT(runs == (limit < best ? limit : best),
           "requested %d runs cpu %d (best %d)", requested, runs, best);
    for (int i = 1; i < argc; ++i)
      check_batch(atoll(argv[i]), requested);
  }
  printf(failures ? "%d checks failed\n" : "all checks passed\n", failures);
  return failures != 0;
}
