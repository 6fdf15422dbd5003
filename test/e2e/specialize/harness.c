/* End-to-end test of an object with specialized variants of `linear`
 * (Y = X*W + b, B in [1, 4096]): for each batch size on the command line,
 * calls <p>_run, <p>_run_with_workspace and <p>_run_with_options, checks
 * the results against an independent reference and prints which code ran
 * (status.variant) and which <p>_output_shapes and <p>_workspace_size say
 * the call takes. A call outside the contract reports variant -1.
 *
 * Prints "B=<b> variant <id>" per batch for FileCheck; exits non-zero on
 * any mismatch.
 */
#define _POSIX_C_SOURCE 200112L
#include "linear.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/expect.h"
#include "../common/f32.h"

enum { WORKSPACE_BYTES = 1 << 16 };
enum Entry { RUN, RUN_WITH_WORKSPACE, RUN_WITH_OPTIONS };
static const char *entry_names[] = {"run", "run_with_workspace",
                                    "run_with_options"};

static int32_t call(enum Entry entry, txc_tensor *in, txc_tensor *out,
                    txc_status *status) {
  static void *workspace;
  if (!workspace && posix_memalign(&workspace, 64, WORKSPACE_BYTES) != 0)
    return -1;
  switch (entry) {
  case RUN:
    return linear_run(in, 3, out, 1, status);
  case RUN_WITH_WORKSPACE:
    return linear_run_with_workspace(in, 3, out, 1, status, workspace,
                                     WORKSPACE_BYTES);
  case RUN_WITH_OPTIONS: {
    txc_run_options options;
    memset(&options, 0, sizeof options);
    options.struct_size = sizeof options;
    return linear_run_with_options(in, 3, out, 1, status, &options);
  }
  }
  return -1;
}

/* Runs one batch through every entry point; returns the variant that ran. */
static int32_t check_batch(int64_t batch) {
  int64_t rows = batch > 0 ? batch : 1;
  linear_inputs l;
  linear_inputs_init(&l, batch);
  const float *x = l.x, *w = l.w, *b = l.b;
  txc_tensor *in = l.in;
  float *y = malloc((size_t)rows * 3 * sizeof(float));
  int32_t ran = -2;
  for (int entry = RUN; entry <= RUN_WITH_OPTIONS; ++entry) {
    for (int64_t i = 0; i < rows * 3; ++i)
      y[i] = NAN;
    txc_tensor out[1] = {tensor(y, rows * 12, 0, 0, 0)};
    txc_status status;
    memset(&status, 0x5a, sizeof status);
    int32_t rc = call((enum Entry)entry, in, out, &status);
    EXPECT(rc == status.code, "B=%lld %s: rc %d, status.code %d",
           (long long)batch, entry_names[entry], rc, status.code);
    if (entry == RUN)
      ran = status.variant;
    EXPECT(status.variant == ran, "B=%lld %s: variant %d, run took %d",
           (long long)batch, entry_names[entry], status.variant, ran);
    if (rc != TXC_OK) {
      EXPECT(status.variant == -1, "B=%lld: a failed call ran variant %d",
             (long long)batch, status.variant);
      continue;
    }
    double max_error = 0;
    for (int64_t i = 0; i < batch; ++i)
      for (int j = 0; j < 3; ++j) {
        double ref = b[j];
        for (int k = 0; k < 4; ++k)
          ref += (double)x[i * 4 + k] * w[k * 3 + j];
        double err = fabs(ref - y[i * 3 + j]);
        if (!(err <= max_error))
          max_error = err; /* NaN too */
      }
    EXPECT(max_error < 1e-5, "B=%lld %s: max error %g", (long long)batch,
           entry_names[entry], max_error);
  }
  /* The descriptor-only entry points say which code a run would take. */
  txc_tensor shapes[1] = {tensor(NULL, 0, 0, 0, 0)};
  txc_status status;
  memset(&status, 0x5a, sizeof status);
  linear_output_shapes(in, 3, shapes, 1, &status);
  EXPECT(status.variant == ran, "B=%lld output_shapes: variant %d, ran %d",
         (long long)batch, status.variant, ran);
  size_t bytes = 0;
  memset(&status, 0x5a, sizeof status);
  linear_workspace_size(in, 3, &bytes, &status);
  EXPECT(status.variant == ran, "B=%lld workspace_size: variant %d, ran %d",
         (long long)batch, status.variant, ran);
  linear_inputs_free(&l);
  free(y);
  return ran;
}

int main(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    long long batch = atoll(argv[i]);
    printf("B=%lld variant %d\n", batch, check_batch(batch));
  }
  if (failures)
    fprintf(stderr, "%d failures\n", failures);
  else
    printf("all checks passed\n");
  return failures != 0;
}
