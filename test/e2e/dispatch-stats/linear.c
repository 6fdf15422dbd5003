/* End-to-end test of the dispatch statistics block (docs/specialization.md)
 * of samples/linear compiled with the variants B=1, B=8 and B=7.
 *
 *   linear B...     one call per batch size through <p>_run_with_options
 *                   with a block; after each call the block must equal the
 *                   harness's own model of it; then prints the block
 *                   formatted by <p>_format_dispatch_stats.
 *   linear checks   blocks the object must not write (another size,
 *                   another layout, options of the 56-byte struct) and the
 *                   formatting function's snprintf semantics.
 *   linear threads  threads share one block: its totals are exact.
 *
 * Exits non-zero on any mismatch. */
#define _POSIX_C_SOURCE 200112L
#include "linear.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/expect.h"
#include "../common/f32.h"

/* The variants' ids, bound values and slots in the block, as the harness
 * knows them from the command line of the test. */
static const int64_t bound[LINEAR_NUM_VARIANTS + 1] = {0, 1, 8, 7};
static const int slot_of[LINEAR_NUM_VARIANTS + 1] = {
    -1, LINEAR_MISSED_B1_B, LINEAR_MISSED_B8_B, LINEAR_MISSED_B7_B};

/* The code a call at batch b runs: -1 outside [1, 4096]. */
static int32_t expected_code(int64_t b) {
  if (b < 1 || b > 4096)
    return -1;
  for (int v = 1; v <= LINEAR_NUM_VARIANTS; ++v)
    if (bound[v] == b)
      return v;
  return 0;
}

/* One call; returns its status code. */
static int32_t call(int64_t batch, linear_dispatch_stats *stats,
                    uint32_t options_size, int32_t *variant) {
  /* Inputs only read, shared by the threads; each call its own output. */
  static float x[4096 * 4], w[12], b[3];
  int64_t rows = batch > 0 ? batch : 1;
  float *y = malloc((size_t)rows * 12);
  txc_tensor in[3], out[1];
  linear_descriptors(in, x, w, b, batch);
  out[0] = tensor_of(y, rows * 12, 0, 0, 0, 0);
  txc_run_options options;
  memset(&options, 0, sizeof options);
  options.struct_size = options_size;
  options.dispatch_stats = stats;
  txc_status status;
  int32_t rc = linear_run_with_options(in, 3, out, 1, &status, &options);
  *variant = status.variant;
  free(y);
  return rc;
}

/* Applies one call at batch b to the model of the block: its code's
 * counter, and for every variant tried before it (dispatch order: here the
 * ids, one bound symbol each), the guard of B with its last value. */
static void model_call(linear_dispatch_stats *model, int64_t b) {
  int32_t code = expected_code(b);
  if (code < 0) {
    ++model->failed;
    return;
  }
  ++model->calls[code];
  for (int v = 1; v <= LINEAR_NUM_VARIANTS; ++v)
    if (code == 0 || v < code) {
      ++model->missed[slot_of[v]].count;
      model->missed[slot_of[v]].last = b;
    }
}

static void expect_equal(const linear_dispatch_stats *got,
                         const linear_dispatch_stats *want, int64_t b) {
  EXPECT(got->failed == want->failed, "B=%lld: failed %llu, want %llu",
         (long long)b, (unsigned long long)got->failed,
         (unsigned long long)want->failed);
  for (int c = 0; c <= LINEAR_NUM_VARIANTS; ++c)
    EXPECT(got->calls[c] == want->calls[c], "B=%lld: calls[%d] %llu, want %llu",
           (long long)b, c, (unsigned long long)got->calls[c],
           (unsigned long long)want->calls[c]);
  for (int s = 0; s < LINEAR_NUM_VARIANTS; ++s) {
    EXPECT(got->missed[s].count == want->missed[s].count &&
               got->missed[s].last == want->missed[s].last,
           "B=%lld: missed[%d] %llu last %lld, want %llu last %lld",
           (long long)b, s, (unsigned long long)got->missed[s].count,
           (long long)got->missed[s].last,
           (unsigned long long)want->missed[s].count,
           (long long)want->missed[s].last);
    EXPECT(got->missed[s].variant == want->missed[s].variant &&
               got->missed[s].guard == want->missed[s].guard,
           "B=%lld: missed[%d] names variant %d guard %d", (long long)b, s,
           got->missed[s].variant, got->missed[s].guard);
  }
}

static void print_block(const linear_dispatch_stats *stats) {
  int32_t length = linear_format_dispatch_stats(stats, NULL, 0);
  EXPECT(length > 0, "format: length %d", length);
  char *text = malloc((size_t)length + 1);
  int32_t written = linear_format_dispatch_stats(stats, text, length + 1);
  EXPECT(written == length, "format: wrote %d of %d", written, length);
  EXPECT(strlen(text) == (size_t)length, "format: strlen %zu of %d",
         strlen(text), length);
  fputs(text, stdout);
  free(text);
}

static int run_calls(int argc, char **argv) {
  linear_dispatch_stats stats = LINEAR_DISPATCH_STATS_INIT;
  linear_dispatch_stats model = LINEAR_DISPATCH_STATS_INIT;
  for (int i = 1; i < argc; ++i) {
    int64_t b = atoll(argv[i]);
    int32_t variant;
    int32_t rc = call(b, &stats, sizeof(txc_run_options), &variant);
    EXPECT((rc == TXC_OK) == (expected_code(b) >= 0) &&
               variant == expected_code(b),
           "B=%lld: rc %d variant %d", (long long)b, rc, variant);
    model_call(&model, b);
    expect_equal(&stats, &model, b);
  }
  print_block(&stats);
  return 0;
}

/* A block the object must leave alone: the call runs all the same. */
static void expect_untouched(linear_dispatch_stats *block,
                             uint32_t options_size, const char *what) {
  linear_dispatch_stats before;
  memcpy(&before, block, sizeof before);
  int32_t variant;
  EXPECT(call(8, block, options_size, &variant) == TXC_OK && variant == 2,
         "%s: the call failed", what);
  EXPECT(call(0, block, options_size, &variant) != TXC_OK && variant == -1,
         "%s: the bad call passed", what);
  EXPECT(memcmp(&before, block, sizeof before) == 0, "%s: block written",
         what);
}

static int run_checks(void) {
  linear_dispatch_stats block = LINEAR_DISPATCH_STATS_INIT;
  block.struct_size -= 8; /* a block of another size */
  expect_untouched(&block, sizeof(txc_run_options), "struct_size");
  EXPECT(linear_format_dispatch_stats(&block, NULL, 0) == -1,
         "format accepted a block of another size");
  block.struct_size += 8;
  block.layout ^= 1; /* another program's block of the same size */
  expect_untouched(&block, sizeof(txc_run_options), "layout");
  EXPECT(linear_format_dispatch_stats(&block, NULL, 0) == -1,
         "format accepted a block of another layout");
  EXPECT(linear_format_dispatch_stats(NULL, NULL, 0) == -1,
         "format accepted NULL");
  block.layout ^= 1;
  /* A caller compiled against the 56-byte txc_run_options has no block. */
  expect_untouched(&block, 56, "options of 56 bytes");

  /* snprintf's semantics: the whole length, a truncated NUL-terminated
   * text, nothing past size. */
  int32_t variant;
  call(2, &block, sizeof(txc_run_options), &variant);
  int32_t length = linear_format_dispatch_stats(&block, NULL, 0);
  char full[4096], small[16];
  EXPECT(linear_format_dispatch_stats(&block, full, sizeof full) == length,
         "format: length differs with a buffer");
  memset(small, 'x', sizeof small);
  EXPECT(linear_format_dispatch_stats(&block, small, 10) == length,
         "format: truncated length");
  EXPECT(memcmp(small, full, 9) == 0 && small[9] == '\0' && small[10] == 'x',
         "format: truncation");
  printf("checks done\n");
  return 0;
}

enum { THREADS = 8, CALLS = 400 };
static const int64_t thread_batches[5] = {1, 8, 7, 2, 0};
static linear_dispatch_stats shared = LINEAR_DISPATCH_STATS_INIT;

static void *thread_main(void *arg) {
  (void)arg;
  for (int i = 0; i < CALLS; ++i) {
    int32_t variant;
    call(thread_batches[i % 5], &shared, sizeof(txc_run_options), &variant);
  }
  return NULL;
}

static int run_threads(void) {
  pthread_t threads[THREADS];
  for (int t = 0; t < THREADS; ++t)
    pthread_create(&threads[t], NULL, thread_main, NULL);
  for (int t = 0; t < THREADS; ++t)
    pthread_join(threads[t], NULL);
  linear_dispatch_stats model = LINEAR_DISPATCH_STATS_INIT;
  for (int i = 0; i < THREADS * CALLS; ++i)
    model_call(&model, thread_batches[i % 5]);
  /* The last values depend on the threads' order: one that the variant's
   * guard sent elsewhere. */
  for (int v = 1; v <= LINEAR_NUM_VARIANTS; ++v) {
    int64_t last = shared.missed[slot_of[v]].last;
    int32_t code = expected_code(last);
    EXPECT(code == 0 || code > v, "variant %d: last %lld", v,
           (long long)last);
    model.missed[slot_of[v]].last = last;
  }
  expect_equal(&shared, &model, -1);
  print_block(&shared);
  return 0;
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "checks") == 0)
    run_checks();
  else if (argc > 1 && strcmp(argv[1], "threads") == 0)
    run_threads();
  else
    run_calls(argc, argv);
  if (failures)
    fprintf(stderr, "%d failures\n", failures);
  else
    printf("all checks passed\n");
  return failures != 0;
}
