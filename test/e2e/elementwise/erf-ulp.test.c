/* Driver of erf-ulp.test: calls the compiled erf on a sweep of floats and on
   special values, and prints the largest distance to glibc's erff in units
   in the last place. */
#include "erf.h"
#include "ulp-sweep.h"

#include <math.h>

static void run(float *x, float *y, int64_t n) {
  run_unary(verf_run, x, y, n);
}

int main(void) {
  float specials[] = {NAN, -NAN, INFINITY, -INFINITY, 0.0f, -0.0f,
                      1e-40f, -1e-40f, 1e-30f, -1e-30f, 3.9f, -3.9f,
                      10.0f, -10.0f};
  int count = sizeof specials / sizeof *specials;
  float y[16];
  run(specials, y, count);
  int ok = 1;
  for (int i = 0; i < count; ++i) {
    float want = erff(specials[i]);
    int same = isnan(want) ? isnan(y[i])
               : (isinf(specials[i]) || want == 0)
                   ? bits(y[i]) == bits(want)
                   : ulps(y[i], want) <= 5;
    if (!same) {
      printf("erf(%a) = %a, erff gives %a\n", specials[i], y[i], want);
      ok = 0;
    }
  }
  if (ok)
    printf("specials ok\n");

  /* Every 256th float between -10 and 10 (both signs walk their bits). */
  enum { kChunk = 1 << 20 };
  float *xs = malloc(kChunk * 4), *ys = malloc(kChunk * 4);
  int64_t above = 0, maxUlp = 0, n = 0;
  uint32_t ranges[2][2] = {{bits(0.0f), bits(10.0f)},
                           {bits(-0.0f), bits(-10.0f)}};
  for (int r = 0; r < 2; ++r)
    for (uint32_t u = ranges[r][0]; u < ranges[r][1];) {
      int64_t m = 0;
      for (; m < kChunk && u < ranges[r][1]; ++m, u += 256)
        xs[m] = from(u);
      run(xs, ys, m);
      for (int64_t i = 0; i < m; ++i) {
        int64_t d = ulps(ys[i], erff(xs[i]));
        if (d > maxUlp)
          maxUlp = d;
        if (d > 5 && above++ < 5)
          printf("erf(%a) = %a, erff gives %a\n", xs[i], ys[i], erff(xs[i]));
      }
      n += m;
    }
  printf("arguments: %lld\nabove 5 ulp: %lld\nmax ulp: %lld\n", (long long)n,
         (long long)above, (long long)maxUlp);
  free(xs);
  free(ys);
  return 0;
}
