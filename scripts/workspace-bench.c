/* Times <p>_run and <p>_run_with_workspace of one program with one f32 input
   [n0, cols] and one f32 output of at most n0 x 64 (docs/performance.md, "The workspace entry point"): interleaved
   rounds, medians. Build: cc -O2 -std=c99 -DPROGRAM_H=\"attention.h\"
   -DP=attention -DWORKSPACE_BYTES_MACRO=ATTENTION_WORKSPACE_BYTES
   [-DWORKSPACE_DYNAMIC_MACRO] workspace-bench.c attention.o -lm; run:
   ./a.out n0 cols calls rounds. */
#define _POSIX_C_SOURCE 200112L
#include PROGRAM_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define RUN CAT(P, _run)
#define RUNWS CAT(P, _run_with_workspace)
#define WSSIZE CAT(P, _workspace_size)
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}
static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}
int main(int argc, char **argv) {
  long n0 = atol(argv[1]), cols = atol(argv[2]), calls = atol(argv[3]);
  int rounds = atoi(argv[4]), r, i;
  txc_tensor in, out;
  txc_status st;
  size_t bytes;
  void *ws;
  double *a = malloc(sizeof(double) * rounds), *b = malloc(sizeof(double) * rounds);
  float *x = malloc(sizeof(float) * n0 * cols), *y = malloc(sizeof(float) * n0 * 64);
  for (i = 0; i < n0 * cols; ++i) x[i] = (float)(i % 13) / 13.0f;
  memset(&in, 0, sizeof in); memset(&out, 0, sizeof out);
  in.data = x; in.dtype = TXC_DTYPE_F32; in.rank = 2; in.dims[0] = n0; in.dims[1] = cols;
  in.size_bytes = sizeof(float) * n0 * cols;
  out.data = y; out.size_bytes = sizeof(float) * n0 * 64;
#ifdef WORKSPACE_DYNAMIC_MACRO
  if (WSSIZE(&in, 1, &bytes, &st)) return 1;
#else
  bytes = WORKSPACE_BYTES_MACRO;
#endif
  if (posix_memalign(&ws, 64, bytes ? bytes : 64)) return 1;
  for (r = 0; r < rounds; ++r) {
    double t = now();
    for (i = 0; i < calls; ++i) if (RUN(&in, 1, &out, 1, &st)) return 2;
    a[r] = (now() - t) / calls;
    t = now();
    for (i = 0; i < calls; ++i) if (RUNWS(&in, 1, &out, 1, &st, ws, bytes)) return 3;
    b[r] = (now() - t) / calls;
  }
  qsort(a, rounds, sizeof *a, cmp); qsort(b, rounds, sizeof *b, cmp);
  printf("run %.1f us, run_with_workspace %.1f us (workspace %zu bytes)\n",
         a[rounds / 2] * 1e6, b[rounds / 2] * 1e6, bytes);
  return 0;
}
