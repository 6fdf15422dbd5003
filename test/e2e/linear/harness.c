/* End-to-end test of the compiled `linear` sample (Y = X*W + b, B in
 * [1, 4096]): results against an independent reference at boundary batch
 * sizes, the output-shapes entry point, and every guard of the artifact
 * violated at least once. For guard failures all tensor data live in
 * PROT_NONE pages, so touching any of it would crash the test; the harness
 * is also built with AddressSanitizer.
 *
 * Prints one line per guard violation ("guard <id> code <code>: <message>")
 * for FileCheck, and exits non-zero on any mismatch.
 */
#define _DEFAULT_SOURCE
#include "linear.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../common/expect.h"
#include "../common/f32.h"

static void check_batch(int64_t batch) {
  linear_inputs l;
  linear_inputs_init(&l, batch);
  const float *x = l.x, *w = l.w, *b = l.b;
  txc_tensor *in = l.in;
  float *y = malloc((size_t)batch * 3 * sizeof(float));
  for (int64_t i = 0; i < batch * 3; ++i)
    y[i] = NAN;

  txc_tensor out[1] = {tensor(y, batch * 12, 0, 0, 0)};
  out[0].dtype = 0;
  txc_status status;
  int32_t rc = linear_run(in, 3, out, 1, &status);
  EXPECT(rc == TXC_OK, "B=%lld: rc=%d", (long long)batch, rc);
  EXPECT(status.code == TXC_OK && status.guard == -1, "status not OK");
  EXPECT(out[0].rank == 2 && out[0].dims[0] == batch && out[0].dims[1] == 3 &&
             out[0].dtype == TXC_DTYPE_F32,
         "B=%lld: output descriptor rank %d dims [%lld,%lld]", (long long)batch,
         out[0].rank, (long long)out[0].dims[0], (long long)out[0].dims[1]);
  double max_error = 0;
  for (int64_t i = 0; i < batch; ++i)
    for (int j = 0; j < 3; ++j) {
      double expected = b[j];
      for (int k = 0; k < 4; ++k)
        expected += (double)x[i * 4 + k] * (double)w[k * 3 + j];
      double error = fabs((double)y[i * 3 + j] - expected);
      if (!(error <= max_error))
        max_error = isnan(error) ? INFINITY : error;
    }
  EXPECT(max_error <= 1e-5, "B=%lld: max abs error %g", (long long)batch,
         max_error);
  printf("B=%lld ok (max abs error %.1e)\n", (long long)batch, max_error);

  /* A NULL status is allowed. */
  EXPECT(linear_run(in, 3, out, 1, NULL) == TXC_OK, "NULL status");

  /* The output-shapes entry point does not need output buffers. */
  txc_tensor shapes[1];
  memset(shapes, 0, sizeof shapes);
  rc = linear_output_shapes(in, 3, shapes, 1, &status);
  EXPECT(rc == TXC_OK && shapes[0].rank == 2 && shapes[0].dims[0] == batch &&
             shapes[0].dims[1] == 3,
         "output_shapes B=%lld", (long long)batch);
  linear_inputs_free(&l);
  free(y);
}

/* ---- guard violations ---- */

static char *guarded;    /* PROT_NONE pages standing in for all tensor data */
static int seen[LINEAR_NUM_GUARDS];

typedef struct call {
  txc_tensor in[3];
  txc_tensor out[1];
  int null_inputs, null_outputs; /* pass NULL instead of in / out */
  int64_t num_inputs, num_outputs;
} call;

/* A valid call with B = 5 whose data pointers must never be dereferenced. */
static call valid_call(void) {
  call c;
  linear_descriptors(c.in, (float *)guarded, (float *)(guarded + 4096),
                     (float *)(guarded + 8192), 5);
  c.out[0] = tensor(guarded + 12288, 5 * 12, 0, 0, 0);
  c.null_inputs = c.null_outputs = 0;
  c.num_inputs = 3;
  c.num_outputs = 1;
  return c;
}

static void expect_failure(const char *what, call c, int32_t expected_code) {
  const txc_tensor *inputs = c.null_inputs ? NULL : c.in;
  txc_tensor *outputs = c.null_outputs ? NULL : c.out;
  txc_status status;
  memset(&status, 0x5a, sizeof status);
  int32_t rc = linear_run(inputs, c.num_inputs, outputs, c.num_outputs,
                          &status);
  char message[512];
  int length = linear_error_message(&status, message, sizeof message);
  EXPECT(rc == expected_code, "%s: rc=%d, expected %d (%s)", what, rc,
         expected_code, message);
  EXPECT(status.code == rc, "%s: status.code=%d rc=%d", what, status.code, rc);
  EXPECT(length > 0 && (size_t)length == strlen(message), "%s: length %d",
         what, length);
  EXPECT(status.guard >= 0 && status.guard < LINEAR_NUM_GUARDS,
         "%s: guard %d", what, status.guard);
  if (status.guard >= 0 && status.guard < LINEAR_NUM_GUARDS)
    seen[status.guard] = 1;
  /* output_shapes agrees on input guards (it skips output guards). */
  txc_status shape_status;
  txc_tensor scratch[1];
  memset(scratch, 0, sizeof scratch);
  int32_t shape_rc = linear_output_shapes(
      inputs, c.num_inputs, outputs ? scratch : NULL, c.num_outputs,
      &shape_status);
  if (status.tensor_kind != TXC_TENSOR_OUTPUT)
    EXPECT(shape_rc == rc && shape_status.guard == status.guard,
           "%s: output_shapes rc=%d guard=%d, run rc=%d guard=%d", what,
           shape_rc, shape_status.guard, rc, status.guard);
  printf("%s: guard %d code %d: %s\n", what, status.guard, rc, message);
}

static void check_guards(void) {
  guarded = mmap(NULL, 4 * 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  EXPECT(guarded != MAP_FAILED, "mmap");
  call c;

  c = valid_call(); c.num_inputs = 2;
  expect_failure("num_inputs=2", c, TXC_E_ARG_COUNT);
  c = valid_call(); c.num_outputs = 0;
  expect_failure("num_outputs=0", c, TXC_E_ARG_COUNT);
  c = valid_call(); c.null_inputs = 1;
  expect_failure("inputs=NULL", c, TXC_E_NULL_POINTER);
  c = valid_call(); c.null_outputs = 1;
  expect_failure("outputs=NULL", c, TXC_E_NULL_POINTER);

  for (int i = 0; i < 3; ++i) {
    char what[64];
    c = valid_call(); c.in[i].data = NULL;
    snprintf(what, sizeof what, "input %d data=NULL", i);
    expect_failure(what, c, TXC_E_NULL_POINTER);
    c = valid_call(); c.in[i].dtype = TXC_DTYPE_I32;
    snprintf(what, sizeof what, "input %d dtype=i32", i);
    expect_failure(what, c, TXC_E_DTYPE);
    c = valid_call(); c.in[i].rank = 3;
    snprintf(what, sizeof what, "input %d rank=3", i);
    expect_failure(what, c, TXC_E_RANK);
    c = valid_call(); c.in[i].size_bytes -= 1;
    snprintf(what, sizeof what, "input %d size_bytes-1", i);
    expect_failure(what, c, TXC_E_BUFFER_TOO_SMALL);
  }
  c = valid_call(); c.in[0].dims[1] = 7;
  expect_failure("X=[5,7]", c, TXC_E_DIM);
  c = valid_call(); c.in[1].dims[0] = 5;
  expect_failure("W=[5,3]", c, TXC_E_DIM);
  c = valid_call(); c.in[1].dims[1] = 2;
  expect_failure("W=[4,2]", c, TXC_E_DIM);
  c = valid_call(); c.in[2].dims[0] = 4;
  expect_failure("b=[4]", c, TXC_E_DIM);
  c = valid_call(); c.in[0].dims[0] = 0;
  expect_failure("B=0", c, TXC_E_SYMBOL_RANGE);
  c = valid_call(); c.in[0].dims[0] = 4097;
  expect_failure("B=4097", c, TXC_E_SYMBOL_RANGE);
  c = valid_call(); c.in[0].dims[0] = INT64_MIN;
  expect_failure("B=INT64_MIN", c, TXC_E_SYMBOL_RANGE);

  c = valid_call(); c.out[0].data = NULL;
  expect_failure("Y data=NULL", c, TXC_E_NULL_POINTER);
  c = valid_call(); c.out[0].size_bytes = 5 * 12 - 1;
  expect_failure("Y size_bytes-1", c, TXC_E_BUFFER_TOO_SMALL);
  c = valid_call(); c.out[0].data = guarded + 8;
  expect_failure("Y overlaps X", c, TXC_E_ALIAS);
  c = valid_call(); c.out[0].data = guarded + 4096 + 47;
  expect_failure("Y overlaps W", c, TXC_E_ALIAS);
  c = valid_call(); c.out[0].data = guarded + 8192 - 59;
  expect_failure("Y overlaps b", c, TXC_E_ALIAS);

  /* Touching but not overlapping is fine (and would run; not called). */
  for (int g = 0; g < LINEAR_NUM_GUARDS; ++g)
    EXPECT(seen[g], "guard %d was never violated by this test", g);

  /* Messages for statuses txc did not produce. */
  txc_status odd;
  memset(&odd, 0, sizeof odd);
  char message[256];
  linear_error_message(&odd, message, sizeof message);
  printf("status ok: %s\n", message);
  odd.code = 99;
  odd.guard = 1000;
  linear_error_message(&odd, message, sizeof message);
  printf("unknown status: %s\n", message);
  odd.code = TXC_E_ALIAS;
  odd.guard = LINEAR_NUM_GUARDS - 1;
  odd.expected_min = 7;
  odd.expected_max = -3;
  linear_error_message(&odd, message, sizeof message);
  printf("odd alias status: %s\n", message);
  EXPECT(linear_error_message(NULL, message, sizeof message) > 0, "NULL");
  /* Truncation behaves like snprintf. */
  int full = linear_error_message(&odd, message, 8);
  EXPECT(full > 8 && strlen(message) == 7, "truncation");
  munmap(guarded, 4 * 4096);
}

int main(int argc, char **argv) {
  for (int i = 1; i < argc; ++i)
    check_batch(atoll(argv[i]));
  check_guards();
  if (failures) {
    fprintf(stderr, "%d failures\n", failures);
    return 1;
  }
  printf("all checks passed\n");
  return 0;
}
