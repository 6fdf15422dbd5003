/* The dispatch statistics of `pair` (Z = X + Y, both [B, S]) with variants
 * that bind one or two symbols: for each "BxS" on the command line, one
 * call through pair_run_with_options with a block, printing the code it
 * ran; then the block as pair_format_dispatch_stats writes it. Which
 * guard sent a call elsewhere is the first of a variant's narrowed guards,
 * in guard order, that the call fails. */
#define _POSIX_C_SOURCE 200112L
#include "pair.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/expect.h"
#include "../common/f32.h"

/* A [b, s] tensor over at least one element of storage. */
static txc_tensor matrix(float *data, int64_t b, int64_t s) {
  return tensor(data, (b > 0 && s > 0 ? b * s : 1) * 4, 2, b, s);
}

int main(int argc, char **argv) {
  pair_dispatch_stats stats = PAIR_DISPATCH_STATS_INIT;
  for (int i = 1; i < argc; ++i) {
    long long b = 0, s = 0;
    sscanf(argv[i], "%lldx%lld", &b, &s);
    size_t n = (size_t)(b > 0 && s > 0 ? b * s : 1);
    float *x = calloc(n, 4), *y = calloc(n, 4), *z = calloc(n, 4);
    txc_tensor in[2] = {matrix(x, b, s), matrix(y, b, s)};
    txc_tensor out[1] = {matrix(z, b, s)};
    txc_run_options options;
    memset(&options, 0, sizeof options);
    options.struct_size = sizeof options;
    options.dispatch_stats = &stats;
    txc_status status;
    int32_t rc = pair_run_with_options(in, 2, out, 1, &status, &options);
    EXPECT((rc == TXC_OK) == (status.variant >= 0), "%s: rc %d variant %d",
           argv[i], rc, status.variant);
    printf("%s variant %d\n", argv[i], status.variant);
    free(x);
    free(y);
    free(z);
  }
  char text[2048];
  int32_t length = pair_format_dispatch_stats(&stats, text, sizeof text);
  EXPECT(length > 0 && (size_t)length < sizeof text, "format: %d", length);
  fputs(text, stdout);
  if (failures)
    fprintf(stderr, "%d failures\n", failures);
  else
    printf("all checks passed\n");
  return failures != 0;
}
