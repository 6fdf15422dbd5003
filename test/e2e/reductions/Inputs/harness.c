/* Generic harness for numeric end-to-end tests: runs a compiled program
 * (entry prefix `k`, header k.h) on tensors read from files and writes its
 * outputs to files, for a driver (numcheck.py) that compares them with an
 * independent reference.
 *
 * Usage: harness SPEC
 * SPEC is a text file:
 *   <num_inputs>
 *   <dtype> <rank> <dim>... <path>     one line per input (raw little-endian)
 *   <num_outputs>
 *   <path>                             one line per output
 * For each output the harness prints "output <i> dtype <d> rank <r> dims
 * <d0> ..." as reported by k_output_shapes, which must agree with what
 * k_run writes into the descriptor. Output buffers are allocated with the
 * exact size, pre-filled with 0xff bytes (NaN, or -1) so that an element the
 * kernel does not write is noticed, and followed by canary bytes that must
 * survive the call. Built with AddressSanitizer and UBSan.
 */
#include "k.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kCanaryBytes = 64, kCanary = 0xa5 };

static void die(const char *what) {
  fprintf(stderr, "harness: %s\n", what);
  exit(2);
}

static int64_t dtype_size(int32_t dtype) {
  switch (dtype) {
  case TXC_DTYPE_F64: case TXC_DTYPE_I64: return 8;
  case TXC_DTYPE_F32: case TXC_DTYPE_I32: return 4;
  case TXC_DTYPE_F16: case TXC_DTYPE_BF16: case TXC_DTYPE_I16: return 2;
  default: return 1;
  }
}

static int64_t tensor_bytes(const txc_tensor *t) {
  int64_t bytes = dtype_size(t->dtype);
  for (int32_t d = 0; d < t->rank; ++d)
    bytes *= t->dims[d];
  return bytes;
}

/* malloc that never returns NULL, even for 0 bytes (data must not be NULL). */
static void *allocate(int64_t bytes) {
  void *p = malloc((size_t)(bytes > 0 ? bytes : 1));
  if (!p)
    die("out of memory");
  return p;
}

static void read_file(const char *path, void *data, int64_t bytes) {
  FILE *f = fopen(path, "rb");
  if (!f)
    die("cannot open an input file");
  if (bytes > 0 && fread(data, 1, (size_t)bytes, f) != (size_t)bytes)
    die("input file too short");
  if (fgetc(f) != EOF)
    die("input file too long");
  fclose(f);
}

static void write_file(const char *path, const void *data, int64_t bytes) {
  FILE *f = fopen(path, "wb");
  if (!f || (bytes > 0 && fwrite(data, 1, (size_t)bytes, f) != (size_t)bytes))
    die("cannot write an output file");
  fclose(f);
}

int main(int argc, char **argv) {
  if (argc != 2)
    die("usage: harness SPEC");
  FILE *spec = fopen(argv[1], "r");
  if (!spec)
    die("cannot open the spec");
  static txc_tensor in[K_NUM_INPUTS + 1], out[K_NUM_OUTPUTS + 1],
      shapes[K_NUM_OUTPUTS + 1];
  static char out_paths[K_NUM_OUTPUTS + 1][4096];
  char path[4096];
  long long num_inputs = 0, num_outputs = 0;
  if (fscanf(spec, "%lld", &num_inputs) != 1 || num_inputs != K_NUM_INPUTS)
    die("bad input count");
  for (long long i = 0; i < num_inputs; ++i) {
    txc_tensor *t = &in[i];
    if (fscanf(spec, "%d %d", &t->dtype, &t->rank) != 2 || t->rank < 0 ||
        t->rank > TXC_MAX_RANK)
      die("bad input line");
    for (int32_t d = 0; d < t->rank; ++d) {
      long long dim;
      if (fscanf(spec, "%lld", &dim) != 1 || dim < 0)
        die("bad dim");
      t->dims[d] = dim;
    }
    if (fscanf(spec, "%4095s", path) != 1)
      die("bad input path");
    t->size_bytes = tensor_bytes(t);
    t->data = allocate(t->size_bytes);
    read_file(path, t->data, t->size_bytes);
  }
  if (fscanf(spec, "%lld", &num_outputs) != 1 || num_outputs != K_NUM_OUTPUTS)
    die("bad output count");
  for (long long o = 0; o < num_outputs; ++o)
    if (fscanf(spec, "%4095s", out_paths[o]) != 1)
      die("bad output path");
  fclose(spec);

  txc_status status;
  char message[512];
  int32_t rc = k_output_shapes(in, K_NUM_INPUTS, shapes, K_NUM_OUTPUTS,
                               &status);
  if (rc != TXC_OK) {
    k_error_message(&status, message, sizeof message);
    fprintf(stderr, "harness: output_shapes failed: %s\n", message);
    return 1;
  }
  for (long long o = 0; o < num_outputs; ++o) {
    int64_t bytes = tensor_bytes(&shapes[o]);
    unsigned char *buffer = allocate(bytes + kCanaryBytes);
    memset(buffer, 0xff, (size_t)bytes);
    memset(buffer + bytes, kCanary, kCanaryBytes);
    memset(&out[o], 0, sizeof out[o]);
    out[o].data = buffer;
    out[o].size_bytes = bytes;
  }
  rc = k_run(in, K_NUM_INPUTS, out, K_NUM_OUTPUTS, &status);
  if (rc != TXC_OK) {
    k_error_message(&status, message, sizeof message);
    fprintf(stderr, "harness: run failed: %s\n", message);
    return 1;
  }
  int failed = 0;
  for (long long o = 0; o < num_outputs; ++o) {
    const txc_tensor *s = &shapes[o], *t = &out[o];
    int64_t bytes = tensor_bytes(s);
    if (t->dtype != s->dtype || t->rank != s->rank ||
        memcmp(t->dims, s->dims, sizeof(int64_t) * (size_t)s->rank) != 0) {
      fprintf(stderr, "harness: output %lld: run and output_shapes disagree\n",
              o);
      failed = 1;
    }
    const unsigned char *canary = (const unsigned char *)t->data + bytes;
    for (int c = 0; c < kCanaryBytes; ++c)
      if (canary[c] != kCanary) {
        fprintf(stderr, "harness: output %lld: written past its end\n", o);
        failed = 1;
        break;
      }
    printf("output %lld dtype %d rank %d dims", o, s->dtype, s->rank);
    for (int32_t d = 0; d < s->rank; ++d)
      printf(" %lld", (long long)s->dims[d]);
    printf("\n");
    write_file(out_paths[o], t->data, bytes);
    free(t->data);
  }
  for (long long i = 0; i < num_inputs; ++i)
    free(in[i].data);
  return failed;
}
