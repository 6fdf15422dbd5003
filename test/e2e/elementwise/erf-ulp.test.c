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

  sweep(verf_run, erff, "erf", -10.0f, 10.0f, 5);
  return 0;
}
