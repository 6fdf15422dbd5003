/* Every kind of descriptor guard of a contract large enough that the entry
 * points check it with the guard table's interpreter (wide.json: more than
 * 64 guards in each entry point), violated one at a time: the return code, every txc_status
 * field and the message, for <p>_run and <p>_output_shapes. */
#include "wide.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/tensor.h"

enum { B = 5, R = 7, NI = WIDE_NUM_INPUTS, NO = WIDE_NUM_OUTPUTS };

typedef struct call {
  txc_tensor in[NI], out[NO];
  int null_inputs, null_outputs; /* pass NULL instead of in / out */
  int64_t num_inputs, num_outputs;
} call;

static float data[NI + NO][64 * 3 + 80];

/* A [d0, d1] matrix of `element`-byte elements at p. */
static txc_tensor tensor(void *p, int32_t dtype, int64_t d0, int64_t d1,
                         int64_t element) {
  return tensor_of(p, d0 * d1 * element, dtype, 2, d0, d1);
}

static call valid(void) {
  call c;
  for (int i = 0; i < 9; ++i)
    c.in[i] = tensor(data[i], TXC_DTYPE_F32, B, 3, 4);
  c.in[9] = tensor(data[9], TXC_DTYPE_F32, 40 - R, 2, 4);
  c.in[10] = tensor(data[10], TXC_DTYPE_I32, R, B, 4);
  for (int o = 0; o < NO; ++o)
    c.out[o] = tensor(data[NI + o], TXC_DTYPE_F32, 0, 0, 4),
    c.out[o].size_bytes = B * 3 * 4;
  c.null_inputs = c.null_outputs = 0;
  c.num_inputs = NI;
  c.num_outputs = NO;
  return c;
}

static void show(const char *what, const char *entry, int32_t rc,
                 const txc_status *s) {
  char message[512];
  int length = wide_error_message(s, message, sizeof message);
  printf("%s: %s rc=%d guard=%d kind=%d index=%d dim=%d symbol=%d "
         "min=%lld max=%lld actual=%lld len=%d: %s\n",
         what, entry, rc, s->guard, s->tensor_kind, s->tensor_index, s->dim,
         s->symbol, (long long)s->expected_min, (long long)s->expected_max,
         (long long)s->actual, length, message);
}

static void run(const char *what, call c) {
  const txc_tensor *inputs = c.null_inputs ? NULL : c.in;
  txc_tensor *outputs = c.null_outputs ? NULL : c.out;
  txc_status s;
  memset(&s, 0x5a, sizeof s);
  int32_t rc = wide_run(inputs, c.num_inputs, outputs, c.num_outputs, &s);
  show(what, "run", rc, &s);
  memset(&s, 0x5a, sizeof s);
  rc = wide_output_shapes(inputs, c.num_inputs, outputs, c.num_outputs,
                          &s);
  if (rc != 0)
    show(what, "shapes", rc, &s);
  /* A NULL status still gets the code. */
  int32_t quiet =
      wide_run(inputs, c.num_inputs, outputs, c.num_outputs, NULL);
  if (quiet != wide_run(inputs, c.num_inputs, outputs, c.num_outputs, &s))
    printf("%s: rc differs with a NULL status\n", what);
}

int main(void) {
  call c = valid();
  for (int i = 0; i < 8 * 15; ++i)
    data[0][i] = (float)(i % 7) - 3.0f;
  run("valid", c);
  c = valid();
  wide_run(c.in, NI, c.out, NO, NULL);
  printf("O0[1][2]=%g dims=%lld,%lld\n", data[NI][5], (long long)c.out[0].dims[0],
         (long long)c.out[0].dims[1]);
  c = valid(); c.num_inputs = NI - 1; run("num_inputs", c);
  c = valid(); c.num_outputs = NO + 1; run("num_outputs", c);
  c = valid(); c.null_inputs = 1; run("inputs NULL", c);
  c = valid(); c.null_outputs = 1; run("outputs NULL", c);
  c = valid(); c.in[3].data = NULL; run("I3 data NULL", c);
  c = valid(); c.in[4].dtype = TXC_DTYPE_F64; run("I4 dtype f64", c);
  c = valid(); c.in[4].dtype = 77; run("I4 dtype 77", c);
  c = valid(); c.in[5].rank = 3; run("I5 rank 3", c);
  c = valid(); c.in[6].dims[1] = 4; run("I6 dim 1", c);
  c = valid(); c.in[0].dims[0] = 65; run("B 65", c);
  c = valid(); c.in[0].dims[0] = INT64_MIN; run("B INT64_MIN", c);
  c = valid(); c.in[7].dims[0] = B + 1; run("I7 dim 0 not B", c);
  c = valid(); c.in[9].dims[0] = 40 - 31; run("R 31", c);
  c = valid(); c.in[9].dims[0] = 40 - 2; run("R 2", c);
  c = valid(); c.in[10].dims[0] = R + 1; run("K dim 0 not R", c);
  c = valid(); c.in[10].dims[1] = B - 1; run("K dim 1 not B", c);
  c = valid(); c.in[10].size_bytes -= 1; run("K too small", c);
  c = valid(); c.out[2].data = NULL; run("O2 data NULL", c);
  c = valid(); c.out[4].size_bytes = 59; run("O4 too small", c);
  c = valid(); c.out[3].data = data[9]; run("O3 overlaps J", c);
  c = valid(); c.out[4].data = (char *)data[NI + 1] + 4; run("O4 overlaps O1", c);
  /* The message cut short as by snprintf, and its full length returned. */
  txc_status s;
  c = valid(); c.in[6].dims[1] = 4;
  wide_run(c.in, c.num_inputs, c.out, c.num_outputs, &s);
  char full[512], cut[512];
  int length = wide_error_message(&s, full, sizeof full);
  for (size_t size = 0; size < (size_t)length + 2; size += 7) {
    memset(cut, '#', sizeof cut);
    int n = wide_error_message(&s, size ? cut : NULL, size);
    size_t end = size - 1 < (size_t)length ? size - 1 : (size_t)length;
    if (n != length ||
        (size && (strncmp(cut, full, end) != 0 || cut[end] != 0)))
      printf("cut at %zu wrong: %d '%s'\n", size, n, cut);
  }
  printf("cut checked up to %d\n", length);
  return 0;
}
