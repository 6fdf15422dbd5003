/* Helpers shared by the sample drivers (samples/<name>/main.c): tensor
 * descriptors, a status report, and a writer of .npy files so that a run
 * can be compared with the reference interpreter (`txc run --eager`).
 *
 * Include it after the generated header, which defines txc_tensor and the
 * TXC_DTYPE_* codes. C99, nothing but libc. The .npy writer stores the
 * machine's byte order and labels it little-endian ('<'), which is right on
 * the little-endian targets txc compiles for today (x86-64, AArch64).
 */
#ifndef TXC_SAMPLE_H
#define TXC_SAMPLE_H

#ifndef TXC_ABI_VERSION
#error "include the header txc generated for the program before txc_sample.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reads the driver's arguments, `[VALUE] [--dump DIR]`: VALUE (default
   `*value`) is the symbol named `symbol`, which must lie in [min, max].
   Returns 0, or 2 after printing a usage error. */
static inline int txc_sample_args(int argc, char **argv, const char *symbol,
                                  int64_t min, int64_t max, int64_t *value,
                                  const char **dump) {
  *dump = NULL;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--dump") == 0 && i + 1 < argc)
      *dump = argv[++i];
    else
      *value = atoll(argv[i]);
  }
  if (*value < min || *value > max) {
    fprintf(stderr, "usage: %s [%s] [--dump DIR]; %s must be in [%lld, %lld]\n",
            argv[0], symbol, symbol, (long long)min, (long long)max);
    return 2;
  }
  return 0;
}

/* Bytes per element of a TXC_DTYPE_* code, 0 if unknown. */
static inline int64_t txc_sample_dtype_size(int32_t dtype) {
  switch (dtype) {
  case TXC_DTYPE_F64: case TXC_DTYPE_I64: return 8;
  case TXC_DTYPE_F32: case TXC_DTYPE_I32: return 4;
  case TXC_DTYPE_F16: case TXC_DTYPE_BF16: case TXC_DTYPE_I16: return 2;
  case TXC_DTYPE_I8: case TXC_DTYPE_U8: case TXC_DTYPE_BOOL: return 1;
  default: return 0;
  }
}

/* A descriptor for `data` holding exactly the dense tensor dtype[dims]. */
static inline txc_tensor txc_sample_tensor(void *data, int32_t dtype,
                                           int32_t rank, const int64_t *dims) {
  txc_tensor t;
  int64_t count = 1;
  memset(&t, 0, sizeof t);
  t.data = data;
  t.dtype = dtype;
  t.rank = rank;
  for (int32_t d = 0; d < rank; ++d) {
    t.dims[d] = dims[d];
    count *= dims[d];
  }
  t.size_bytes = count * txc_sample_dtype_size(dtype);
  return t;
}

static inline int64_t txc_sample_num_elements(const txc_tensor *t) {
  int64_t count = 1;
  for (int32_t d = 0; d < t->rank; ++d)
    count *= t->dims[d];
  return count;
}

/* Prints "what: rc = N (NAME)" and the artifact's message for a status;
   `message` is the text <p>_error_message wrote. */
static inline void txc_sample_report(const char *what, int32_t rc,
                                     const char *message) {
  static const char *const names[] = {
      "TXC_OK", "TXC_E_ARG_COUNT", "TXC_E_NULL_POINTER", "TXC_E_DTYPE",
      "TXC_E_RANK", "TXC_E_DIM", "TXC_E_SYMBOL_RANGE",
      "TXC_E_SYMBOL_DIVISIBILITY", "TXC_E_SYMBOL_MISMATCH",
      "TXC_E_BUFFER_TOO_SMALL", "TXC_E_ALIAS", "TXC_E_INDEX_OUT_OF_RANGE"};
  const char *name = rc >= 0 && rc <= 11 ? names[rc] : "unknown";
  printf("%s:\n  rc = %d (%s)\n  %s\n", what, (int)rc, name, message);
}

/* Writes the tensor `t` to DIR/NAME.npy (format 1.0, C order). Returns 0 on
   success, -1 if the file cannot be written or the dtype is unknown. */
static inline int txc_sample_write_npy(const char *dir, const char *name,
                                       const txc_tensor *t) {
  const char *descr;
  char path[4096], header[512], shape[256] = "";
  size_t used = 0;
  switch (t->dtype) {
  case TXC_DTYPE_F32: descr = "<f4"; break;
  case TXC_DTYPE_F64: descr = "<f8"; break;
  case TXC_DTYPE_F16: descr = "<f2"; break;
  case TXC_DTYPE_BF16: descr = "<u2"; break;
  case TXC_DTYPE_I8: descr = "|i1"; break;
  case TXC_DTYPE_I16: descr = "<i2"; break;
  case TXC_DTYPE_I32: descr = "<i4"; break;
  case TXC_DTYPE_I64: descr = "<i8"; break;
  case TXC_DTYPE_U8: descr = "|u1"; break;
  case TXC_DTYPE_BOOL: descr = "|b1"; break;
  default: return -1;
  }
  for (int32_t d = 0; d < t->rank; ++d)
    used += (size_t)snprintf(shape + used, sizeof shape - used, "%lld,%s",
                             (long long)t->dims[d],
                             d + 1 < t->rank ? " " : "");
  if (t->rank > 1)
    shape[used - 1] = '\0'; /* "(2, 3)", but "(3,)" and "()" */
  int len = snprintf(header, sizeof header,
                     "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }",
                     descr, shape);
  /* Pad with spaces and end with '\n' so that the data starts at a
     multiple of 64 bytes (10 bytes of magic, version and length). */
  while ((10 + len + 1) % 64 != 0)
    header[len++] = ' ';
  header[len++] = '\n';

  snprintf(path, sizeof path, "%s/%s.npy", dir, name);
  FILE *f = fopen(path, "wb");
  if (!f)
    return -1;
  unsigned char preamble[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
                                (unsigned char)(len & 0xff),
                                (unsigned char)(len >> 8)};
  size_t bytes = (size_t)(txc_sample_num_elements(t) *
                          txc_sample_dtype_size(t->dtype));
  int ok = fwrite(preamble, 1, sizeof preamble, f) == sizeof preamble &&
           fwrite(header, 1, (size_t)len, f) == (size_t)len &&
           (bytes == 0 || fwrite(t->data, 1, bytes, f) == bytes);
  if (fclose(f) != 0)
    ok = 0;
  return ok ? 0 : -1;
}

/* Prints the first `max_rows` rows of a float matrix [rows, cols], then a
   line saying how many were left out. */
static inline void txc_sample_print_rows(const float *data, int64_t rows,
                                         int64_t cols, int64_t max_rows) {
  for (int64_t i = 0; i < rows && i < max_rows; ++i) {
    printf("  [");
    for (int64_t j = 0; j < cols; ++j)
      printf("%s%8.4f", j ? " " : "", data[i * cols + j]);
    printf("]\n");
  }
  if (rows > max_rows)
    printf("  ... (%lld more rows)\n", (long long)(rows - max_rows));
}

#endif /* TXC_SAMPLE_H */
