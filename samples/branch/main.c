/* Calls the compiled `branch` program: a `cond` whose predicate is computed
 * from the input, sum(X) > 0, choosing between two subgraphs:
 *   then: relu(X * Wt^T + bt)      else: tanh((-X) * We^T)
 * on a batch of B rows (B in [1, 256]). The second output says which branch
 * ran.
 *
 *   txc compile branch.json -o branch.o --header branch.h
 *   cc -std=c99 -I. -I../common main.c branch.o -o branch -lm && ./branch 3
 *
 * Usage: branch [B] [--dump DIR]. Runs the program twice, on an X whose
 * elements are all positive (the then branch) and on -X (the else branch),
 * and prints Y and the predicate of each; then passes X as f64, which the
 * artifact rejects. With --dump, writes DIR/then/{X,Y,took_then}.npy and
 * DIR/else/{X,Y,took_then}.npy (the directories must exist).
 */
#include "branch.h"
#include "txc_sample.h"

#include <stdlib.h>

#define FEATURES 8
#define UNITS 4

/* The descriptors of one call on x[B,8], writing y[B,4] and took_then. */
struct call {
  txc_tensor inputs[BRANCH_NUM_INPUTS], outputs[BRANCH_NUM_OUTPUTS];
  unsigned char took_then;
};

static void describe(struct call *c, float *x, int64_t batch, float *y) {
  int64_t x_dims[2] = {batch, FEATURES}, y_dims[2] = {batch, UNITS};
  c->took_then = 0xCD; /* the call writes 0 or 1 */
  c->inputs[BRANCH_INPUT_X] = txc_sample_tensor(x, TXC_DTYPE_F32, 2, x_dims);
  c->outputs[BRANCH_OUTPUT_Y] = txc_sample_tensor(y, TXC_DTYPE_F32, 2, y_dims);
  c->outputs[BRANCH_OUTPUT_took_then] =
      txc_sample_tensor(&c->took_then, TXC_DTYPE_BOOL, 0, NULL);
}

/* Runs the program on x[B,8]; returns 0 if it succeeded and took the branch
   that the sign of sum(x) calls for. */
static int run_once(const char *label, float *x, int64_t batch, float *y,
                    const char *dump) {
  struct call c;
  describe(&c, x, batch, y);
  txc_status status;
  char message[512];
  int32_t rc = branch_run(c.inputs, BRANCH_NUM_INPUTS, c.outputs,
                          BRANCH_NUM_OUTPUTS, &status);
  if (rc != TXC_OK) {
    branch_error_message(&status, message, sizeof message);
    fprintf(stderr, "branch_run failed (%d): %s\n", (int)rc, message);
    return 1;
  }
  double sum = 0;
  for (int64_t i = 0; i < batch * FEATURES; ++i)
    sum += x[i];
  printf("%s: sum(X) = %.4f, took_then = %d, so Y = %s:\n", label, sum,
         (int)c.took_then,
         c.took_then == 1 ? "relu(X*Wt^T + bt)" : "tanh((-X)*We^T)");
  txc_sample_print_rows(y, batch, UNITS, 4);
  if (c.took_then != (sum > 0 ? 1 : 0)) {
    fprintf(stderr, "the wrong branch ran\n");
    return 1;
  }
  if (dump) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/%s", dump, c.took_then ? "then" : "else");
    if (txc_sample_write_npy(dir, "X", &c.inputs[BRANCH_INPUT_X]) != 0 ||
        txc_sample_write_npy(dir, "Y", &c.outputs[BRANCH_OUTPUT_Y]) != 0 ||
        txc_sample_write_npy(dir, "took_then",
                             &c.outputs[BRANCH_OUTPUT_took_then]) != 0) {
      fprintf(stderr, "cannot write the .npy files to %s\n", dir);
      return 1;
    }
  }
  return 0;
}

int main(int argc, char **argv) {
  int64_t batch = 3;
  const char *dump;
  if (txc_sample_args(argc, argv, "B", BRANCH_SYMBOL_B_MIN, BRANCH_SYMBOL_B_MAX,
                      &batch, &dump) != 0)
    return 2;

  int64_t count = batch * FEATURES;
  float *x = malloc((size_t)count * sizeof(float));
  float *y = malloc((size_t)batch * UNITS * sizeof(float));
  if (!x || !y)
    return 1;
  /* Every element in [0.25, 0.75]: sum(X) > 0 takes the then branch. */
  for (int64_t i = 0; i < count; ++i)
    x[i] = 0.5f + 0.25f * (float)((i * 37) % 17 - 8) / 8.0f;
  if (run_once("X > 0", x, batch, y, dump) != 0)
    return 1;
  /* The same values negated: sum(X) < 0 takes the else branch. */
  for (int64_t i = 0; i < count; ++i)
    x[i] = -x[i];
  printf("\n");
  if (run_once("X < 0", x, batch, y, dump) != 0)
    return 1;

  /* Break the contract: X as f64. Rejected before any memory is read. */
  struct call c;
  describe(&c, x, batch, y);
  c.inputs[BRANCH_INPUT_X].dtype = TXC_DTYPE_F64;
  txc_status status;
  char message[512];
  int32_t rc = branch_run(c.inputs, BRANCH_NUM_INPUTS, c.outputs,
                          BRANCH_NUM_OUTPUTS, &status);
  branch_error_message(&status, message, sizeof message);
  printf("\n");
  txc_sample_report("Calling with X as f64", rc, message);

  free(x);
  free(y);
  return rc == TXC_E_DTYPE ? 0 : 1;
}
