/* Driver of exp-ulp.test: calls the compiled exp on a sweep of floats and
   on special values, and prints the largest distance to glibc's expf in
   units in the last place. */
#include "exp.h"
#include "ulp-sweep.h"

#include <math.h>

static void run(float *x, float *y, int64_t n) {
  run_unary(vexp_run, x, y, n);
}

int main(void) {
  float specials[] = {NAN, -NAN, INFINITY, -INFINITY, 0.0f, -0.0f,
                      88.72283935546875f, 88.7228469848632812f,
                      -103.97283935546875f, -103.9728469848632812f,
                      -87.33654022216796875f, 1e-30f, -1e-30f};
  int count = sizeof specials / sizeof *specials;
  float y[16];
  run(specials, y, count);
  int ok = 1;
  for (int i = 0; i < count; ++i) {
    float want = expf(specials[i]);
    int same = isnan(want) ? isnan(y[i])
                           : (isinf(want) || want == 0)
                                 ? bits(y[i]) == bits(want)
                                 : ulps(y[i], want) <= 1;
    if (!same) {
      printf("exp(%a) = %a, expf gives %a\n", specials[i], y[i], want);
      ok = 0;
    }
  }
  if (ok)
    printf("specials ok\n");

  /* Every 256th float between -110 and 95 (both signs walk their bits). */
  enum { kChunk = 1 << 20 };
  float *xs = malloc(kChunk * 4), *ys = malloc(kChunk * 4);
  int64_t above = 0, maxUlp = 0, n = 0;
  uint32_t ranges[2][2] = {{bits(0.0f), bits(95.0f)},
                           {bits(-0.0f), bits(-110.0f)}};
  for (int r = 0; r < 2; ++r)
    for (uint32_t u = ranges[r][0]; u < ranges[r][1];) {
      int64_t m = 0;
      for (; m < kChunk && u < ranges[r][1]; ++m, u += 256)
        xs[m] = from(u);
      run(xs, ys, m);
      for (int64_t i = 0; i < m; ++i) {
        float want = expf(xs[i]);
        int64_t d = isinf(want) ? (isinf(ys[i]) ? 0 : 99) : ulps(ys[i], want);
        if (d > maxUlp)
          maxUlp = d;
        if (d > 1 && above++ < 5)
          printf("exp(%a) = %a, expf gives %a\n", xs[i], ys[i], want);
      }
      n += m;
    }
  printf("arguments: %lld\nabove 1 ulp: %lld\nmax ulp: %lld\n", (long long)n,
         (long long)above, (long long)maxUlp);
  free(xs);
  free(ys);
  return 0;
}
