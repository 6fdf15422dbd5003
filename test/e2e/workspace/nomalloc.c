/* Zero allocations per call with a caller's workspace (docs/abi.md,
   "Workspace"). Built with -Wl,--wrap for malloc, calloc, realloc, free,
   aligned_alloc and posix_memalign: every allocation the objects make goes
   through the counters below. For each program and symbol value it sizes
   the workspace with <p>_workspace_size, allocates exactly that many bytes
   (ASan then catches any access past the layout's end), and checks that
   <p>_run_with_workspace
     - makes no allocation, call after call;
     - computes bit for bit what <p>_run computes, and what the -O0 build
       (<p>_ref_run: no workspace, every temporary its own malloc) computes
       up to rounding: a layout whose buffers overlap shows here;
     - fails with TXC_E_WORKSPACE (dim 1, expected_min = the size) with one
       byte less, before touching the output.
   The symbol's values come from the command line's ranges: its minimum,
   maximum and odd sizes in between. */
#define _POSIX_C_SOURCE 200112L
#include "attention.h"
#include "cnn.h"
#include "kmatmul.h"
#include "mlp.h"
#include "attention_ref.h"
#include "cnn_ref.h"
#include "kmatmul_ref.h"
#include "mlp_ref.h"

#include <math.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "count_allocations.h"

typedef int32_t (*RunFn)(const txc_tensor *, int64_t, txc_tensor *, int64_t,
                         txc_status *);
typedef int32_t (*RunWsFn)(const txc_tensor *, int64_t, txc_tensor *, int64_t,
                           txc_status *, void *, size_t);
typedef int32_t (*SizeFn)(const txc_tensor *, int64_t, size_t *,
                          txc_status *);
typedef int32_t (*ShapesFn)(const txc_tensor *, int64_t, txc_tensor *, int64_t,
                            txc_status *);

/* A program with f32 inputs whose dims are constants or, where -1, the
   symbol, and one f32 output. */
typedef struct {
  const char *name;
  RunFn run;
  RunWsFn runWithWorkspace;
  SizeFn workspaceSize;
  ShapesFn outputShapes;
  RunFn reference;
  int numInputs;
  int rank[2];
  int64_t dims[2][4];
} Program;

static const Program programs[] = {
    {"attention", attention_run, attention_run_with_workspace,
     attention_workspace_size, attention_output_shapes, attention_ref_run, 1, {2}, {{-1, 32}}},
    {"cnn", cnn_run, cnn_run_with_workspace, cnn_workspace_size,
     cnn_output_shapes, cnn_ref_run, 1, {4}, {{-1, 3, 16, 16}}},
    {"mlp", mlp_run, mlp_run_with_workspace, mlp_workspace_size,
     mlp_output_shapes, mlp_ref_run, 1, {2}, {{-1, 16}}},
    {"kmatmul", kmatmul_run, kmatmul_run_with_workspace,
     kmatmul_workspace_size, kmatmul_output_shapes, kmatmul_ref_run, 2, {2, 2},
     {{256, -1}, {-1, 256}}},
};

static int64_t elements(const txc_tensor *t) {
  int64_t n = 1;
  int d;
  for (d = 0; d < t->rank; ++d)
    n *= t->dims[d];
  return n;
}

/* Whether `a` and `b` (n floats) agree up to rounding. */
static int close(const float *a, const float *b, int64_t n) {
  int64_t i;
  for (i = 0; i < n; ++i)
    if (!(fabsf(a[i] - b[i]) <= 1e-4f + 1e-4f * fabsf(b[i])))
      return 0;
  return 1;
}

/* One program at one symbol value; returns the number of failures. */
static int check(const Program *p, int64_t symbol) {
  txc_tensor inputs[2], output, reference;
  txc_status status;
  size_t bytes = 0;
  int i, d, failures = 0;
  long before;
  int32_t rc;
  unsigned char *workspace;
  for (i = 0; i < p->numInputs; ++i) {
    float *data;
    int64_t n;
    memset(&inputs[i], 0, sizeof inputs[i]);
    inputs[i].dtype = TXC_DTYPE_F32;
    inputs[i].rank = p->rank[i];
    for (d = 0; d < p->rank[i]; ++d)
      inputs[i].dims[d] = p->dims[i][d] < 0 ? symbol : p->dims[i][d];
    n = elements(&inputs[i]);
    data = malloc((size_t)(n ? n : 1) * sizeof(float));
    for (d = 0; d < n; ++d)
      data[d] = (float)((d * 7 + i * 3) % 13 - 6) / 8.0f;
    inputs[i].data = data;
    inputs[i].size_bytes = (size_t)n * sizeof(float);
  }
  memset(&output, 0, sizeof output);
  output.data = &output; /* not read by output_shapes */
  if (p->outputShapes(inputs, p->numInputs, &output, 1, &status) != 0) {
    printf("%s %lld: output_shapes failed\n", p->name, (long long)symbol);
    return 1;
  }
  output.size_bytes = (size_t)elements(&output) * sizeof(float);
  reference = output;
  output.data = malloc(output.size_bytes + 1);
  reference.data = malloc(reference.size_bytes + 1);
  rc = p->reference(inputs, p->numInputs, &reference, 1, &status);
  if (rc == 0) {
    float *unoptimized = malloc(reference.size_bytes + 1);
    memcpy(unoptimized, reference.data, reference.size_bytes);
    rc = p->run(inputs, p->numInputs, &reference, 1, &status);
    if (rc == 0 && !close(reference.data, unoptimized,
                          elements(&reference))) {
      printf("%s %lld: run differs from the -O0 build\n", p->name,
             (long long)symbol);
      ++failures;
    }
    free(unoptimized);
  }
  if (p->workspaceSize(inputs, p->numInputs, &bytes, &status) != 0 ||
      rc != 0) {
    printf("%s %lld: run rc %d, workspace_size failed\n", p->name,
           (long long)symbol, rc);
    return 1;
  }
  /* Exactly the bytes asked for: ASan catches a layout past its end. */
  if (posix_memalign((void **)&workspace, 64, bytes ? bytes : 64) != 0)
    return 1;
  before = allocations;
  counting = 1;
  for (i = 0; i < 3; ++i) {
    memset(output.data, 0x7f, output.size_bytes);
    rc = p->runWithWorkspace(inputs, p->numInputs, &output, 1, &status,
                             workspace, bytes);
    if (rc != 0 ||
        memcmp(output.data, reference.data, output.size_bytes) != 0) {
      printf("%s %lld: run_with_workspace rc %d, output %s\n", p->name,
             (long long)symbol, rc,
             rc ? "-" : "differs from run's");
      ++failures;
    }
  }
  counting = 0;
  if (allocations != before) {
    printf("%s %lld: %ld allocations in 3 calls\n", p->name,
           (long long)symbol, allocations - before);
    ++failures;
  }
  if (bytes > 0) {
    memset(output.data, 0x7f, output.size_bytes);
    rc = p->runWithWorkspace(inputs, p->numInputs, &output, 1, &status,
                             workspace, bytes - 1);
    if (rc != TXC_E_WORKSPACE || status.dim != 1 ||
        status.expected_min != (int64_t)bytes ||
        status.actual != (int64_t)bytes - 1 ||
        ((unsigned char *)output.data)[0] != 0x7f) {
      printf("%s %lld: one byte short: rc %d dim %d min %lld\n", p->name,
             (long long)symbol, rc, status.dim,
             (long long)status.expected_min);
      ++failures;
    }
  }
  printf("%s %s=%lld: workspace %zu bytes, %s\n", p->name,
         p->numInputs == 2 ? "K" : "symbol", (long long)symbol, bytes,
         failures ? "FAILED" : "0 allocations per call, same as run");
  free(workspace);
  free(output.data);
  free(reference.data);
  for (i = 0; i < p->numInputs; ++i)
    free(inputs[i].data);
  return failures;
}

int main(int argc, char **argv) {
  /* argv: program name, then symbol values. */
  int failures = 0, i;
  size_t p;
  if (argc < 3)
    return 2;
  for (p = 0; p < sizeof programs / sizeof programs[0]; ++p)
    if (strcmp(programs[p].name, argv[1]) == 0)
      for (i = 2; i < argc; ++i)
        failures += check(&programs[p], atoll(argv[i]));
  printf("%s: %d failures, %ld frees counted\n", argv[1], failures, frees);
  return failures != 0;
}
