/* now() and median(): the timing modes of the e2e harnesses
 * (threads/harness.c) and of bench/specialize_bench.c. C99 with
 * _POSIX_C_SOURCE >= 199309L defined before any include (clock_gettime). */
#ifndef TXC_TEST_E2E_COMMON_TIMING_H
#define TXC_TEST_E2E_COMMON_TIMING_H

#include <stdlib.h>
#include <time.h>

/* Seconds on the monotonic clock. */
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The median of `n` values; sorts them. */
static double median(double *values, int n) {
  qsort(values, (size_t)n, sizeof *values, compare_doubles);
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

#endif
