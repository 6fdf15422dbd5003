/* Bitwise determinism across thread counts (docs/abi.md, Threads): calls
   the program P (its header is program.h, its macros' prefix PU) through
   <p>_run and <p>_run_with_options with no options, options without a
   hook, a struct_size that ends before the hook, and txc_pthreads pools of
   1, 2, 3 and 8 threads (a counting hook around the pool), on f32 inputs
   whose shapes are the arguments ("512x512 512x512"), and memcmps every
   output with <p>_run's. Also the workspace passed in the options and the
   TXC_E_WORKSPACE status of a too small one.

   With --time THREADS ROUNDS first (scripts/bench.sh --threads), it times
   instead: in each round the median of several calls with one thread and
   with a pool of THREADS (interleaved, the workspace passed in the
   options), and prints the medians over the rounds and their ratio. */
/* clock_gettime under -std=c99. */
#define _POSIX_C_SOURCE 200809L

#include "program.h"
#include "txc_pthreads.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../common/timing.h"

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define RUN CAT(P, _run)
#define RUN_WITH_OPTIONS CAT(P, _run_with_options)
#define OUTPUT_SHAPES CAT(P, _output_shapes)
#define NUM_INPUTS CAT(PU, _NUM_INPUTS)
#define NUM_OUTPUTS CAT(PU, _NUM_OUTPUTS)
#define WORKSPACE_SIZE CAT(P, _workspace_size)

/* Counts the launches and the tasks, then runs them on the pool. */
typedef struct counter {
  txc_pthreads_pool *pool;
  int64_t launches, tasks;
} counter;

static void counting_parallel_for(void *ctx, int64_t n, txc_task_fn task,
                                  void *arg) {
  counter *c = (counter *)ctx;
  /* Launches come one at a time from the calling thread: no race. */
  ++c->launches;
  c->tasks += n;
  txc_pthreads_parallel_for(c->pool, n, task, arg);
}

static int64_t elements(const txc_tensor *t) {
  int64_t n = 1;
  int d;
  for (d = 0; d < t->rank; ++d)
    n *= t->dims[d];
  return n;
}

static txc_tensor inputs[NUM_INPUTS > 0 ? NUM_INPUTS : 1];
/* The workspace these inputs need (<p>_workspace_size: the static size, or
   the symbol-sized one at these shapes). */
static size_t workspace_bytes;
static txc_tensor outputs[NUM_OUTPUTS], expected[NUM_OUTPUTS];

/* Calls with `options` into fresh garbage-filled outputs; 1 if every output
   equals <p>_run's bit for bit. */
static int identical(const txc_run_options *options, int32_t *rc) {
  txc_status status;
  int o, same = 1;
  for (o = 0; o < NUM_OUTPUTS; ++o)
    memset(outputs[o].data, 0xA5, (size_t)outputs[o].size_bytes);
  *rc = RUN_WITH_OPTIONS(inputs, NUM_INPUTS, outputs, NUM_OUTPUTS, &status,
                         options);
  for (o = 0; o < NUM_OUTPUTS; ++o)
    same &= memcmp(outputs[o].data, expected[o].data,
                   (size_t)expected[o].size_bytes) == 0;
  return same;
}

static void report(const char *what, const txc_run_options *options,
                   const counter *c) {
  int32_t rc;
  int same = identical(options, &rc);
  printf("%s: rc %d, %s", what, (int)rc, same ? "identical" : "DIFFERENT");
  if (c)
    printf(", %s", c->launches ? "parallel" : "serial");
  printf("\n");
}

/* Median time of `calls` calls with `options`, in seconds. */
static double time_calls(const txc_run_options *options, int calls) {
  double times[64];
  txc_status status;
  int c;
  for (c = 0; c < calls; ++c) {
    double start = now();
    RUN_WITH_OPTIONS(inputs, NUM_INPUTS, outputs, NUM_OUTPUTS, &status,
                     options);
    times[c] = now() - start;
  }
  return median(times, calls);
}

/* 1 thread against `threads`, interleaved over `rounds` rounds. */
static void time_threads(int threads, int rounds) {
  txc_run_options serial, parallel;
  txc_pthreads_pool *pool = txc_pthreads_create(threads);
  void *workspace = malloc((size_t)workspace_bytes + 64);
  double one[64], many[64], probe;
  int r, calls;
  memset(&serial, 0, sizeof serial);
  serial.struct_size = sizeof serial;
  serial.workspace = (char *)workspace + (64 - (uintptr_t)workspace % 64) % 64;
  serial.workspace_bytes = workspace_bytes;
  parallel = serial;
  txc_pthreads_set_options(pool, &parallel);
  /* Enough calls per round for about 20 ms, at most 63. */
  probe = time_calls(&serial, 1);
  calls = probe > 0.02 ? 1 : (int)(0.02 / (probe + 1e-9)) + 1;
  calls = calls > 63 ? 63 : calls;
  rounds = rounds > 64 ? 64 : rounds;
  for (r = 0; r < rounds; ++r) {
    one[r] = time_calls(&serial, calls);
    many[r] = time_calls(&parallel, calls);
  }
  probe = median(one, rounds);
  printf("1 thread %.4f ms, %d threads %.4f ms, speedup %.2fx (medians of %d "
         "rounds of %d calls)\n",
         1e3 * probe, threads, 1e3 * median(many, rounds),
         probe / median(many, rounds), rounds, calls);
  txc_pthreads_destroy(pool);
  free(workspace);
}

int main(int argc, char **argv) {
  txc_status status;
  txc_run_options options;
  uint32_t seed = 12345;
  int i, o, threads[] = {1, 2, 3, 8};
  int time_threads_count = 0, time_rounds = 0;
  void *workspace;
  if (argc > 3 && strcmp(argv[1], "--time") == 0) {
    time_threads_count = atoi(argv[2]);
    time_rounds = atoi(argv[3]);
    argv += 3;
    argc -= 3;
  }
  if (argc != NUM_INPUTS + 1) {
    fprintf(stderr, "usage: %s DIMS... (one AxBx... per input)\n", argv[0]);
    return 2;
  }
  for (i = 0; i < NUM_INPUTS; ++i) {
    char *p = argv[i + 1];
    float *data;
    int64_t e, n;
    inputs[i].dtype = TXC_DTYPE_F32;
    for (inputs[i].rank = 0; *p; ++inputs[i].rank)
      inputs[i].dims[inputs[i].rank] = strtoll(p, &p, 10), p += *p == 'x';
    n = elements(&inputs[i]);
    data = (float *)malloc((size_t)(n ? n : 1) * sizeof(float));
    for (e = 0; e < n; ++e) {
      seed = seed * 1664525u + 1013904223u;
      data[e] = (float)((seed >> 8) & 0xFFFF) / 32768.0f - 1.0f;
    }
    inputs[i].data = data;
    inputs[i].size_bytes = n * (int64_t)sizeof(float);
  }
  if (OUTPUT_SHAPES(inputs, NUM_INPUTS, expected, NUM_OUTPUTS, &status)) {
    fprintf(stderr, "output_shapes failed: %d\n", (int)status.code);
    return 1;
  }
  for (o = 0; o < NUM_OUTPUTS; ++o) {
    int64_t bytes = elements(&expected[o]) * 4; /* f32, i32 outputs */
    expected[o].data = malloc((size_t)(bytes ? bytes : 1));
    expected[o].size_bytes = bytes;
    outputs[o].data = malloc((size_t)(bytes ? bytes : 1));
    outputs[o].size_bytes = bytes;
  }
  if (WORKSPACE_SIZE(inputs, NUM_INPUTS, &workspace_bytes, &status)) {
    fprintf(stderr, "workspace_size failed: %d\n", (int)status.code);
    return 1;
  }
  printf("run: rc %d\n",
         (int)RUN(inputs, NUM_INPUTS, expected, NUM_OUTPUTS, &status));
  if (time_rounds > 0) {
    time_threads(time_threads_count, time_rounds);
    return 0;
  }

  report("NULL options", NULL, NULL);
  memset(&options, 0, sizeof options);
  options.struct_size = sizeof options;
  report("no hook", &options, NULL);
  for (i = 0; i < 4; ++i) {
    counter c = {NULL, 0, 0};
    char what[64];
    c.pool = txc_pthreads_create(threads[i]);
    txc_pthreads_set_options(c.pool, &options);
    options.parallel_for = counting_parallel_for;
    options.parallel_ctx = &c;
    sprintf(what, "%d threads", threads[i]);
    report(what, &options, &c);
    if (threads[i] == 2) {
      /* The options end before parallel_for: as if there were none. */
      counter short_struct = {c.pool, 0, 0};
      options.parallel_ctx = &short_struct;
      options.struct_size = 40;
      report("struct_size 40", &options, &short_struct);
      options.struct_size = sizeof options;
      /* The caller's workspace, through the options. */
      workspace = malloc((size_t)workspace_bytes + 64);
      options.workspace =
          (char *)workspace + (64 - (uintptr_t)workspace % 64) % 64;
      options.workspace_bytes = workspace_bytes;
      options.parallel_ctx = &c;
      report("2 threads, workspace", &options, &c);
      /* One byte less than <p>_workspace_size's: rejected as by
         <p>_run_with_workspace. */
      options.workspace_bytes = workspace_bytes ? workspace_bytes - 1 : 0;
      {
        int32_t rc = RUN_WITH_OPTIONS(inputs, NUM_INPUTS, outputs,
                                      NUM_OUTPUTS, &status, &options);
        printf("small workspace: rc %d\n",
               workspace_bytes ? (int)rc : 13); /* none needed: accepted */
      }
      options.workspace = NULL;
      options.workspace_bytes = 0;
      free(workspace);
    }
    txc_pthreads_destroy(c.pool);
  }
  for (i = 0; i < NUM_INPUTS; ++i)
    free(inputs[i].data);
  for (o = 0; o < NUM_OUTPUTS; ++o) {
    free(expected[o].data);
    free(outputs[o].data);
  }
  return 0;
}
