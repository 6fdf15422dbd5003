/* External weights with a workspace (ext.h): C = A x W with W all 2, so
   C[i][j] is twice the sum of row i of A, exact in f32. */
#include "ext.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 256

static float a[N * N], c[N * N];

static int exact(void) {
  int i, j, k;
  for (i = 0; i < N; ++i) {
    float sum = 0;
    for (k = 0; k < N; ++k)
      sum += a[i * N + k];
    for (j = 0; j < N; ++j)
      if (c[i * N + j] != 2 * sum)
        return 0;
  }
  return 1;
}

/* 64-byte aligned block of at least `bytes` bytes inside `*block`. */
static unsigned char *aligned(size_t bytes, void **block) {
  unsigned char *p = malloc(bytes + 64);
  *block = p;
  return p ? p + (64 - (uintptr_t)p % 64) : NULL;
}

int main(int argc, char **argv) {
  txc_tensor in[1] = {{a, sizeof a, TXC_DTYPE_F32, 2, {N, N}}};
  txc_tensor out[1] = {{c, sizeof c, 0, 0, {0}}};
  txc_status status;
  char message[256];
  void *blobBlock, *workspaceBlock;
  unsigned char *blob = aligned(EXT_WEIGHTS_BYTES, &blobBlock);
  unsigned char *workspace = aligned(EXT_WORKSPACE_BYTES, &workspaceBlock);
  FILE *file = fopen(argc > 1 ? argv[1] : "ext.weights", "rb");
  int i, rc;
  if (!file || !blob || !workspace ||
      fread(blob, 1, EXT_WEIGHTS_BYTES, file) != EXT_WEIGHTS_BYTES)
    return 1;
  fclose(file);
  for (i = 0; i < N * N; ++i)
    a[i] = (float)((i / N + i % N) % 5 - 2);

  rc = ext_run_with_weights(blob, EXT_WEIGHTS_BYTES, in, 1, out, 1, &status);
  printf("run_with_weights: rc %d, %s\n", rc, exact() ? "exact" : "WRONG");
  memset(c, 0, sizeof c);
  rc = ext_run_with_weights_and_workspace(blob, EXT_WEIGHTS_BYTES, in, 1, out,
                                          1, &status, workspace,
                                          EXT_WORKSPACE_BYTES);
  printf("with workspace: rc %d, %s\n", rc, exact() ? "exact" : "WRONG");
  rc = ext_run_with_weights_and_workspace(blob, EXT_WEIGHTS_BYTES, in, 1, out,
                                          1, &status, workspace,
                                          EXT_WORKSPACE_BYTES - 64);
  ext_error_message(&status, message, sizeof message);
  printf("small workspace: rc %d: %s\n", rc, message);
  /* The blob is checked before the workspace. */
  rc = ext_run_with_weights_and_workspace(NULL, EXT_WEIGHTS_BYTES, in, 1, out,
                                          1, &status, NULL, 0);
  printf("no blob, no workspace: rc %d\n", rc);
  free(blobBlock);
  free(workspaceBlock);
  return 0;
}
