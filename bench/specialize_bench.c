/* The specialize row of docs/performance.md (scripts/bench.sh --specialize):
 * bench/programs/linear_dyn_256x256 (Y = X*W + b, X [B,256], W [256,256])
 * at a static batch B, the variant compiled for that B (`txc compile
 * --specialize B=<b>`, entry prefix `spec`) against the generic code of
 * the same program (no variants, entry prefix `gen`), both through
 * <p>_run_with_workspace with a workspace allocated once. The two objects
 * are timed in interleaved rounds (the order alternating per round), each
 * round the median of `calls` calls of each; it prints the medians over
 * the rounds and their ratio. The outputs are checked equal first and each
 * object's status.variant is checked (1 for spec, 0 for gen).
 *
 *   specialize_bench B ROUNDS CALLS
 */
#define _POSIX_C_SOURCE 200112L
#include "gen.h"
#include "spec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../test/e2e/common/timing.h"

enum { K = 256, N = 256, MAX_CALLS = 4096 };

typedef int32_t (*run_fn)(const txc_tensor *, int64_t, txc_tensor *, int64_t,
                          txc_status *, void *, size_t);
typedef int32_t (*size_fn)(const txc_tensor *, int64_t, size_t *,
                           txc_status *);

static txc_tensor tensor(float *data, int rank, int64_t d0, int64_t d1) {
  txc_tensor t;
  memset(&t, 0, sizeof t);
  t.data = data;
  t.dtype = TXC_DTYPE_F32;
  t.rank = rank;
  t.dims[0] = d0;
  t.dims[1] = d1;
  t.size_bytes = d0 * (rank == 2 ? d1 : 1) * (int64_t)sizeof(float);
  return t;
}

/* One object's entry points, its workspace and its output buffer. */
struct code {
  const char *name;
  run_fn run;
  int32_t variant; /* what status.variant must say */
  void *workspace;
  size_t bytes;
  float *y;
};

static void prepare(struct code *c, size_fn size, const txc_tensor *in,
                    int64_t b, size_t align) {
  txc_status status;
  if (size(in, 3, &c->bytes, &status) != TXC_OK ||
      posix_memalign(&c->workspace, align, c->bytes ? c->bytes : 1) ||
      !(c->y = malloc((size_t)(b * N) * sizeof(float)))) {
    fprintf(stderr, "%s: cannot prepare the call\n", c->name);
    exit(1);
  }
}

static void call(struct code *c, const txc_tensor *in, int64_t b) {
  txc_tensor out = tensor(c->y, 2, b, N);
  txc_status status;
  if (c->run(in, 3, &out, 1, &status, c->workspace, c->bytes) != TXC_OK ||
      status.variant != c->variant) {
    fprintf(stderr, "%s: the call failed or ran variant %d\n", c->name,
            (int)status.variant);
    exit(1);
  }
}

/* Median time of `calls` calls, in seconds. */
static double time_calls(struct code *c, const txc_tensor *in, int64_t b,
                         int calls) {
  static double times[MAX_CALLS];
  for (int i = 0; i < calls; ++i) {
    double start = now();
    call(c, in, b);
    times[i] = now() - start;
  }
  return median(times, calls);
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: specialize_bench B ROUNDS CALLS\n");
    return 2;
  }
  int64_t b = atoll(argv[1]);
  int rounds = atoi(argv[2]), calls = atoi(argv[3]);
  if (b < 1 || rounds < 1 || rounds > MAX_CALLS || calls < 1 ||
      calls > MAX_CALLS)
    return 2;
  float *x = malloc((size_t)(b * K) * sizeof(float));
  float *w = malloc((size_t)(K * N) * sizeof(float));
  float *bias = malloc(N * sizeof(float));
  for (int64_t i = 0; i < b * K; ++i)
    x[i] = (float)((i * 7) % 13) / 13.0f - 0.5f;
  for (int64_t i = 0; i < K * N; ++i)
    w[i] = (float)((i * 5) % 11) / 11.0f - 0.5f;
  for (int i = 0; i < N; ++i)
    bias[i] = (float)i / N;
  txc_tensor in[3] = {tensor(x, 2, b, K), tensor(w, 2, K, N),
                      tensor(bias, 1, N, 0)};
  struct code gen = {"generic", gen_run_with_workspace, 0, 0, 0, 0};
  struct code spec = {"specialized", spec_run_with_workspace, 1, 0, 0, 0};
  prepare(&gen, gen_workspace_size, in, b, GEN_WORKSPACE_ALIGN);
  prepare(&spec, spec_workspace_size, in, b, SPEC_WORKSPACE_ALIGN);
  call(&gen, in, b);
  call(&spec, in, b);
  double worst = 0;
  for (int64_t i = 0; i < b * N; ++i)
    worst = fmax(worst, fabs((double)gen.y[i] - (double)spec.y[i]));
  if (worst > 1e-3) {
    fprintf(stderr, "the variant's outputs differ by %g\n", worst);
    return 1;
  }
  static double tg[MAX_CALLS], ts[MAX_CALLS];
  for (int r = 0; r < rounds; ++r) {
    if (r % 2 == 0) {
      tg[r] = time_calls(&gen, in, b, calls);
      ts[r] = time_calls(&spec, in, b, calls);
    } else {
      ts[r] = time_calls(&spec, in, b, calls);
      tg[r] = time_calls(&gen, in, b, calls);
    }
  }
  double mg = median(tg, rounds), ms = median(ts, rounds);
  printf("linear_dyn_256x256 B=%lld: generic %.2f us, variant B=%lld "
         "%.2f us, ratio %.3fx (medians of %d interleaved rounds of %d "
         "calls; outputs within %g)\n",
         (long long)b, 1e6 * mg, (long long)b, 1e6 * ms, mg / ms, rounds,
         calls, worst);
  return 0;
}
