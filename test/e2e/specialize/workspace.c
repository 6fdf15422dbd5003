/* Workspaces of specialized variants (docs/specialization.md): `mm`
 * (Y = X*W, X [M,256], W [256,256], M in [1,512]) with variants. For each
 * M on the command line, <p>_workspace_size gives the size of the code the
 * call takes; <p>_run_with_workspace runs with a workspace of exactly that
 * size (AddressSanitizer catches a kernel that needs more), fails with
 * TXC_E_WORKSPACE one byte short (when the size is not 0), and the results
 * match an independent reference. Prints "M=<m> variant <id> bytes <n>".
 */
#define _POSIX_C_SOURCE 200112L
#include "mm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/expect.h"

enum { K = 256, N = 256 };

static txc_tensor matrix(float *data, int64_t rows, int64_t cols) {
  txc_tensor t;
  memset(&t, 0, sizeof t);
  t.data = data;
  t.size_bytes = rows * cols * (int64_t)sizeof(float);
  t.dtype = TXC_DTYPE_F32;
  t.rank = 2;
  t.dims[0] = rows;
  t.dims[1] = cols;
  return t;
}

static void check(int64_t m) {
  float *x = malloc((size_t)(m * K) * sizeof(float));
  float *w = malloc((size_t)(K * N) * sizeof(float));
  float *y = malloc((size_t)(m * N) * sizeof(float));
  for (int64_t i = 0; i < m * K; ++i)
    x[i] = (float)((i * 7) % 13) / 13.0f - 0.5f;
  for (int64_t i = 0; i < K * N; ++i)
    w[i] = (float)((i * 5) % 11) / 11.0f - 0.5f;
  txc_tensor in[2] = {matrix(x, m, K), matrix(w, K, N)};
  txc_tensor out[1] = {matrix(y, m, N)};
  txc_status status;
  size_t bytes = 0;
  EXPECT(mm_workspace_size(in, 2, &bytes, &status) == TXC_OK,
         "M=%lld: workspace_size failed", (long long)m);
  int32_t predicted = status.variant;
  EXPECT(bytes <= MM_WORKSPACE_BYTES || MM_WORKSPACE_DYNAMIC,
         "M=%lld: %zu bytes, more than MM_WORKSPACE_BYTES", (long long)m,
         bytes);
  void *workspace = NULL;
  if (posix_memalign(&workspace, MM_WORKSPACE_ALIGN, bytes ? bytes : 1))
    abort();
  if (bytes > 0) {
    int32_t rc = mm_run_with_workspace(in, 2, out, 1, &status, workspace,
                                       bytes - 1);
    EXPECT(rc == TXC_E_WORKSPACE && status.variant == -1,
           "M=%lld: one byte short: rc %d variant %d", (long long)m, rc,
           status.variant);
  }
  /* Exactly the bytes asked for: a larger need would be caught by ASan. */
  free(workspace);
  workspace = NULL;
  if (posix_memalign(&workspace, MM_WORKSPACE_ALIGN, bytes ? bytes : 1))
    abort();
  int32_t rc =
      mm_run_with_workspace(in, 2, out, 1, &status, workspace, bytes);
  EXPECT(rc == TXC_OK, "M=%lld: rc %d", (long long)m, rc);
  EXPECT(status.variant == predicted, "M=%lld: ran %d, predicted %d",
         (long long)m, status.variant, predicted);
  double max_error = 0;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double ref = 0;
      for (int64_t k = 0; k < K; ++k)
        ref += (double)x[i * K + k] * w[k * N + j];
      double err = fabs(ref - y[i * N + j]);
      if (!(err <= max_error))
        max_error = err;
    }
  EXPECT(max_error < 1e-3, "M=%lld: max error %g", (long long)m, max_error);
  /* <p>_run allocates the same workspace itself. */
  memset(y, 0, (size_t)(m * N) * sizeof(float));
  EXPECT(mm_run(in, 2, out, 1, &status) == TXC_OK &&
             status.variant == predicted,
         "M=%lld: run", (long long)m);
  printf("M=%lld variant %d bytes %zu\n", (long long)m, predicted, bytes);
  free(workspace);
  free(x);
  free(w);
  free(y);
}

int main(int argc, char **argv) {
  for (int i = 1; i < argc; ++i)
    check(atoll(argv[i]));
  if (failures)
    fprintf(stderr, "%d failures\n", failures);
  else
    printf("all checks passed\n");
  return failures != 0;
}
