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

/* Runs the program on x[B,8]; returns 0 if it succeeded and took the branch
   that the sign of sum(x) calls for. */
static int run_once(const char *label, float *x, int64_t batch, float *y,
                    const char *dump) {
  int64_t x_dims[2] = {batch, FEATURES}, y_dims[2] = {batch, UNITS};
  unsigned char took_then = 0xCD; /* the call writes 0 or 1 */
  txc_tensor inputs[BRANCH_NUM_INPUTS];
  inputs[BRANCH_INPUT_X] = txc_sample_tensor(x, TXC_DTYPE_F32, 2, x_dims);
  txc_tensor outputs[BRANCH_NUM_OUTPUTS];
  outputs[BRANCH_OUTPUT_Y] = txc_sample_tensor(y, TXC_DTYPE_F32, 2, y_dims);
  outputs[BRANCH_OUTPUT_took_then] =
      txc_sample_tensor(&took_then, TXC_DTYPE_BOOL, 0, NULL);

  txc_status status;
  char message[512];
  int32_t rc = branch_run(inputs, BRANCH_NUM_INPUTS, outputs,
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
         (int)took_then,
         took_then == 1 ? "relu(X*Wt^T + bt)" : "tanh((-X)*We^T)");
  txc_sample_print_rows(y, batch, UNITS, 4);
  if (took_then != (sum > 0 ? 1 : 0)) {
    fprintf(stderr, "the wrong branch ran\n");
    return 1;
  }
  if (dump) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/%s", dump, took_then ? "then" : "else");
    if (txc_sample_write_npy(dir, "X", &inputs[BRANCH_INPUT_X]) != 0 ||
        txc_sample_write_npy(dir, "Y", &outputs[BRANCH_OUTPUT_Y]) != 0 ||
        txc_sample_write_npy(dir, "took_then",
                             &outputs[BRANCH_OUTPUT_took_then]) != 0) {
      fprintf(stderr, "cannot write the .npy files to %s\n", dir);
      return 1;
    }
  }
  return 0;
}

int main(int argc, char **argv) {
  int64_t batch = 3;
  const char *dump = NULL;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--dump") == 0 && i + 1 < argc)
      dump = argv[++i];
    else
      batch = atoll(argv[i]);
  }
  if (batch < BRANCH_SYMBOL_B_MIN || batch > BRANCH_SYMBOL_B_MAX) {
    fprintf(stderr, "B must be in [%lld, %lld]\n",
            (long long)BRANCH_SYMBOL_B_MIN, (long long)BRANCH_SYMBOL_B_MAX);
    return 2;
  }

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
  int64_t x_dims[2] = {batch, FEATURES}, y_dims[2] = {batch, UNITS};
  unsigned char took_then = 0;
  txc_tensor inputs[BRANCH_NUM_INPUTS], outputs[BRANCH_NUM_OUTPUTS];
  inputs[BRANCH_INPUT_X] = txc_sample_tensor(x, TXC_DTYPE_F64, 2, x_dims);
  inputs[BRANCH_INPUT_X].size_bytes = count * (int64_t)sizeof(float);
  outputs[BRANCH_OUTPUT_Y] = txc_sample_tensor(y, TXC_DTYPE_F32, 2, y_dims);
  outputs[BRANCH_OUTPUT_took_then] =
      txc_sample_tensor(&took_then, TXC_DTYPE_BOOL, 0, NULL);
  txc_status status;
  char message[512];
  int32_t rc = branch_run(inputs, BRANCH_NUM_INPUTS, outputs,
                          BRANCH_NUM_OUTPUTS, &status);
  branch_error_message(&status, message, sizeof message);
  printf("\n");
  txc_sample_report("Calling with X as f64", rc, message);

  free(x);
  free(y);
  return rc == TXC_E_DTYPE ? 0 : 1;
}
