/* Calls a 256x256 matmul that needs a workspace (sgemm.h) through both run
   entry points, and a program that needs none (small.h) with a NULL
   workspace. The inputs are small integers, so every result is exact and
   all ways of calling must agree bit for bit with a plain C matmul. */
#include "sgemm.h"
#include "small.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 256

static float a[N * N], b[N * N], expected[N * N], c[N * N];

static txc_tensor inputs[SGEMM_NUM_INPUTS];
static txc_tensor outputs[SGEMM_NUM_OUTPUTS];

static void setUp(void) {
  int i, j, k;
  for (i = 0; i < N; ++i)
    for (k = 0; k < N; ++k) {
      a[i * N + k] = (float)((i * 3 + k * 5) % 7 - 3);
      b[i * N + k] = (float)((i * 2 + k * 7) % 5 - 2);
    }
  for (i = 0; i < N; ++i)
    for (j = 0; j < N; ++j) {
      double sum = 0;
      for (k = 0; k < N; ++k)
        sum += (double)a[i * N + k] * b[k * N + j];
      expected[i * N + j] = (float)sum;
    }
  inputs[0].data = a;
  inputs[1].data = b;
  for (i = 0; i < 2; ++i) {
    inputs[i].size_bytes = sizeof a;
    inputs[i].dtype = TXC_DTYPE_F32;
    inputs[i].rank = 2;
    inputs[i].dims[0] = N;
    inputs[i].dims[1] = N;
  }
  outputs[0].data = c;
  outputs[0].size_bytes = sizeof c;
}

/* Runs one call on a fresh output filled with a marker; prints the status
   and whether the output is the exact product or untouched. */
static void call(const char *what, int withWorkspace, void *workspace,
                 size_t bytes) {
  txc_status status;
  char message[256];
  int32_t rc;
  memset(c, 0x7f, sizeof c);
  rc = withWorkspace
           ? sgemm_run_with_workspace(inputs, 2, outputs, 1, &status,
                                      workspace, bytes)
           : sgemm_run(inputs, 2, outputs, 1, &status);
  sgemm_error_message(&status, message, sizeof message);
  if (rc == TXC_OK) {
    printf("%s: rc 0, %s\n", what,
           memcmp(c, expected, sizeof c) == 0 ? "exact" : "WRONG");
    return;
  }
  printf("%s: rc %d dim %d min %lld max %lld: %s; output %s\n", what, (int)rc,
         (int)status.dim, (long long)status.expected_min,
         (long long)status.expected_max, message,
         c[0] == expected[0] ? "WRITTEN" : "untouched");
}

int main(void) {
  size_t bytes = (size_t)SGEMM_WORKSPACE_BYTES;
  unsigned char *block = malloc(bytes + 2 * SGEMM_WORKSPACE_ALIGN);
  unsigned char *workspace;
  float x[4] = {1, 2, 3, 4}, y[4];
  txc_tensor smallIn[1] = {{0, sizeof x, TXC_DTYPE_F32, 1, {4}}};
  txc_tensor smallOut[1] = {{0, sizeof y, 0, 0, {0}}};
  txc_status status;
  int32_t rc;

  setUp();
  printf("workspace %llu bytes, aligned to %d\n", (unsigned long long)bytes,
         (int)SGEMM_WORKSPACE_ALIGN);
  if (!block)
    return 1;
  workspace = block + (SGEMM_WORKSPACE_ALIGN -
                       (uintptr_t)block % SGEMM_WORKSPACE_ALIGN);
  memset(workspace, 0xa5, bytes); /* its contents do not matter */

  call("run", 0, NULL, 0);
  call("workspace", 1, workspace, bytes);
  call("workspace again", 1, workspace, bytes);
  call("larger workspace", 1, workspace, bytes + SGEMM_WORKSPACE_ALIGN);
  call("NULL workspace", 1, NULL, bytes);
  call("small workspace", 1, workspace, bytes - 1);
  call("misaligned workspace", 1, workspace + 4, bytes);
  /* The workspace is checked before the guards. */
  inputs[0].dims[0] = N + 1;
  call("small workspace, bad input", 1, workspace, bytes - 1);
  call("bad input", 1, workspace, bytes);
  free(block);

  /* A program without workspace takes NULL and 0. */
  smallIn[0].data = x;
  smallOut[0].data = y;
  rc = small_run_with_workspace(smallIn, 1, smallOut, 1, &status, NULL, 0);
  printf("small: workspace %llu bytes, rc %d, y[3] = %g\n",
         (unsigned long long)SMALL_WORKSPACE_BYTES, (int)rc, y[3]);
  return 0;
}
