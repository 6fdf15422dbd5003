/* Calls a compiled program without inputs and writes each output's bytes to
   out<i>.bin. Compile with -DHEADER='"p.h"' -DPREFIX=p -DPREFIX_UPPER=P, and
   -DEXTERNAL to call <p>_run_with_weights with the blob named by argv[1];
   then the blob's checks are exercised first (NULL, misaligned, wrong size,
   corrupted header), each printing its status and message. */
#define _POSIX_C_SOURCE 200112L /* posix_memalign */
#include HEADER

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define NUM_OUTPUTS CAT(PREFIX_UPPER, _NUM_OUTPUTS)
#define OUTPUT_SHAPES CAT(PREFIX, _output_shapes)
#define ERROR_MESSAGE CAT(PREFIX, _error_message)

static size_t dtype_size(int32_t dtype) {
  switch (dtype) {
  case TXC_DTYPE_F64:
  case TXC_DTYPE_I64:
    return 8;
  case TXC_DTYPE_F32:
  case TXC_DTYPE_I32:
    return 4;
  case TXC_DTYPE_F16:
  case TXC_DTYPE_BF16:
  case TXC_DTYPE_I16:
    return 2;
  default:
    return 1;
  }
}

#ifdef EXTERNAL
#define RUN_WITH_WEIGHTS CAT(PREFIX, _run_with_weights)
#define WEIGHTS_BYTES CAT(PREFIX_UPPER, _WEIGHTS_BYTES)
static const void *blob;
static size_t blob_size;

static int call(const void *weights, size_t size, txc_tensor *outputs,
                txc_status *status) {
  return RUN_WITH_WEIGHTS(weights, size, NULL, 0, outputs, NUM_OUTPUTS,
                          status);
}

static void expect_weights_failure(const char *what, const void *weights,
                                   size_t size, txc_tensor *outputs) {
  txc_status status;
  char message[512];
  int rc = call(weights, size, outputs, &status);
  ERROR_MESSAGE(&status, message, sizeof message);
  printf("%s: rc=%d guard=%d dim=%d: %s\n", what, rc, (int)status.guard,
         (int)status.dim, message);
}
#else
#define RUN CAT(PREFIX, _run)
#endif

int main(int argc, char **argv) {
  txc_tensor outputs[NUM_OUTPUTS];
  txc_status status;
  char message[512];
  int32_t rc;
  int i;
  memset(outputs, 0, sizeof outputs);
  rc = OUTPUT_SHAPES(NULL, 0, outputs, NUM_OUTPUTS, &status);
  if (rc != TXC_OK) {
    ERROR_MESSAGE(&status, message, sizeof message);
    printf("output_shapes failed: %s\n", message);
    return 1;
  }
  for (i = 0; i < NUM_OUTPUTS; ++i) {
    size_t bytes = dtype_size(outputs[i].dtype);
    int d;
    for (d = 0; d < outputs[i].rank; ++d)
      bytes *= (size_t)outputs[i].dims[d];
    outputs[i].data = malloc(bytes ? bytes : 1);
    outputs[i].size_bytes = (int64_t)bytes;
  }
#ifdef EXTERNAL
  {
    FILE *f = fopen(argc > 1 ? argv[1] : "", "rb");
    void *memory = NULL;
    unsigned char *copy;
    if (!f) {
      printf("cannot open the weights blob\n");
      return 1;
    }
    fseek(f, 0, SEEK_END);
    blob_size = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    /* 64-byte aligned, one spare block for the misaligned case. */
    if (posix_memalign(&memory, 64, blob_size + 64) != 0) {
      printf("out of memory\n");
      return 1;
    }
    copy = memory;
    if (fread(copy, 1, blob_size, f) != blob_size) {
      printf("cannot read the weights blob\n");
      return 1;
    }
    fclose(f);
    blob = copy;
    printf("blob: %lu bytes, header says %lu\n", (unsigned long)blob_size,
           (unsigned long)WEIGHTS_BYTES);
    expect_weights_failure("null", NULL, blob_size, outputs);
    memmove(copy + 8, copy, blob_size);
    expect_weights_failure("misaligned", copy + 8, blob_size, outputs);
    memmove(copy, copy + 8, blob_size);
    expect_weights_failure("short", blob, blob_size - 1, outputs);
    expect_weights_failure("long", blob, blob_size + 1, outputs);
    copy[24] ^= 1; /* the fingerprint */
    expect_weights_failure("fingerprint", blob, blob_size, outputs);
    copy[24] ^= 1;
    copy[0] = 'X'; /* the magic */
    expect_weights_failure("magic", blob, blob_size, outputs);
    copy[0] = 'T';
    rc = call(blob, blob_size, outputs, &status);
  }
#else
  rc = RUN(NULL, 0, outputs, NUM_OUTPUTS, &status);
#endif
  if (rc != TXC_OK) {
    ERROR_MESSAGE(&status, message, sizeof message);
    printf("run failed: rc=%d %s\n", (int)rc, message);
  }
  for (i = 0; i < NUM_OUTPUTS; ++i) {
    char name[32];
    FILE *f;
    if (rc == TXC_OK) {
      snprintf(name, sizeof name, "out%d.bin", i);
      f = fopen(name, "wb");
      fwrite(outputs[i].data, 1, (size_t)outputs[i].size_bytes, f);
      fclose(f);
    }
    free(outputs[i].data);
  }
#ifdef EXTERNAL
  free((void *)blob);
#endif
  if (rc != TXC_OK)
    return 1;
  (void)argc;
  (void)argv;
  printf("ok: %d outputs\n", NUM_OUTPUTS);
  return 0;
}
