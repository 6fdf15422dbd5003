/* A generic runner for end-to-end tests of compiled txc programs: reads the
 * inputs of one call from a file written by txcref.py, calls the program,
 * and writes the status and the outputs to another file. Every tensor lives
 * in a heap buffer of exactly its size, so AddressSanitizer reports any
 * access past it; outputs start as 0xff bytes (NaN for floats), so a value
 * the program did not write shows up as a mismatch.
 *
 * Build: cc -DTXC_ENTRY=<prefix> -include <prefix>.h runner.c <prefix>.o
 * Usage: runner CALL RESULT
 *
 * CALL (little-endian int64 unless noted):
 *   num_inputs; per input: dtype, rank, dims[rank], size_bytes, bytes
 *   num_outputs; per output: size_bytes
 * RESULT:
 *   rc, message length, message bytes;
 *   per output: dtype, rank, dims[rank], size_bytes, bytes
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef TXC_ENTRY
#error "define TXC_ENTRY to the program's entry-point prefix"
#endif
#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define RUN CAT(TXC_ENTRY, _run)
#define ERROR_MESSAGE CAT(TXC_ENTRY, _error_message)

#define MAX_TENSORS 64

static FILE *in_file;

static void fail(const char *what) {
  fprintf(stderr, "runner: %s\n", what);
  exit(2);
}

static int64_t read_i64(void) {
  int64_t value;
  if (fread(&value, sizeof value, 1, in_file) != 1)
    fail("truncated call file");
  return value;
}

static void *alloc_exact(int64_t bytes) {
  /* malloc(0) may return NULL; the program rejects NULL data pointers. */
  void *p = malloc(bytes > 0 ? (size_t)bytes : 1);
  if (!p)
    fail("out of memory");
  return p;
}

static void write_i64(FILE *f, int64_t value) { fwrite(&value, sizeof value, 1, f); }

int main(int argc, char **argv) {
  txc_tensor inputs[MAX_TENSORS], outputs[MAX_TENSORS];
  int64_t num_inputs, num_outputs, i;
  int d;
  if (argc != 3)
    fail("usage: runner CALL RESULT");
  in_file = fopen(argv[1], "rb");
  if (!in_file)
    fail("cannot open the call file");
  memset(inputs, 0, sizeof inputs);
  memset(outputs, 0, sizeof outputs);
  num_inputs = read_i64();
  if (num_inputs < 0 || num_inputs > MAX_TENSORS)
    fail("bad input count");
  for (i = 0; i < num_inputs; ++i) {
    txc_tensor *t = &inputs[i];
    t->dtype = (int32_t)read_i64();
    t->rank = (int32_t)read_i64();
    if (t->rank < 0 || t->rank > TXC_MAX_RANK)
      fail("bad rank");
    for (d = 0; d < t->rank; ++d)
      t->dims[d] = read_i64();
    t->size_bytes = read_i64();
    t->data = alloc_exact(t->size_bytes);
    if (t->size_bytes > 0 &&
        fread(t->data, (size_t)t->size_bytes, 1, in_file) != 1)
      fail("truncated input data");
  }
  num_outputs = read_i64();
  if (num_outputs < 0 || num_outputs > MAX_TENSORS)
    fail("bad output count");
  for (i = 0; i < num_outputs; ++i) {
    outputs[i].size_bytes = read_i64();
    outputs[i].data = alloc_exact(outputs[i].size_bytes);
    memset(outputs[i].data, 0xff, (size_t)outputs[i].size_bytes);
  }
  fclose(in_file);

  txc_status status;
  int32_t rc = RUN(inputs, num_inputs, outputs, num_outputs, &status);
  char message[1024];
  int length = ERROR_MESSAGE(&status, message, sizeof message);
  if (length < 0 || (size_t)length >= sizeof message)
    length = (int)strlen(message);

  FILE *out = fopen(argv[2], "wb");
  if (!out)
    fail("cannot open the result file");
  write_i64(out, rc);
  write_i64(out, length);
  fwrite(message, 1, (size_t)length, out);
  for (i = 0; i < num_outputs; ++i) {
    txc_tensor *t = &outputs[i];
    write_i64(out, t->dtype);
    write_i64(out, t->rank);
    for (d = 0; d < t->rank; ++d)
      write_i64(out, t->dims[d]);
    write_i64(out, t->size_bytes);
    fwrite(t->data, 1, (size_t)t->size_bytes, out);
  }
  if (fclose(out) != 0)
    fail("cannot write the result file");
  for (i = 0; i < num_inputs; ++i)
    free(inputs[i].data);
  for (i = 0; i < num_outputs; ++i)
    free(outputs[i].data);
  return 0;
}
