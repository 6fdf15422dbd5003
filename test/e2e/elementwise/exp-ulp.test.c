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

  sweep(vexp_run, expf, "exp", -110.0f, 95.0f, 1);
  return 0;
}
