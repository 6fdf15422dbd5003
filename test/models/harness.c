/* Runs an imported zoo model (test/models) through its generated header,
 * the way a deployment calls it:
 *
 *   harness [--run | --threads N] INPUT.npy OUT_DIR [REPEAT]
 *
 * reads the model's one input from a .npy file (f32 or i64, C order),
 * asks <model>_output_shapes for the output's dims and
 * <model>_workspace_size for the workspace these shapes need, allocates
 * both once, calls <model>_run_with_workspace and writes
 * OUT_DIR/<output>.npy. With --run, every call is <model>_run instead,
 * which allocates its workspace itself. With --threads N, every call is
 * <model>_run_with_options with the same workspace and a txc_pthreads.h
 * pool of N threads (N = 1: the options' serial path, no pool; link with
 * -pthread). A failed call prints the status
 * and the artifact's message and exits with 3. With REPEAT, the call is
 * then made REPEAT more times and each one's wall-clock time is printed
 * as `time_ns N` (bench/zoo_bench.py).
 *
 * Built with -DTXC_COUNT_ALLOCATIONS and linked with
 * -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free,
 * --wrap=aligned_alloc,--wrap=posix_memalign, it also counts the
 * allocations of the REPEAT calls and prints `allocations N in R calls`
 * (test/models/convbn.test; docs/performance.md, "The model zoo").
 *
 * Compile with -DTXC_MODEL=<prefix> -DTXC_MODEL_HEADER='"<prefix>.h"'.
 * C99 and POSIX clock_gettime, posix_memalign and threads. */
#define _POSIX_C_SOURCE 200112L
#include TXC_MODEL_HEADER

#include <time.h>

#include "txc_pthreads.h"
#include "txc_sample.h"

#define TXC_CAT2(a, b) a##b
#define TXC_CAT(a, b) TXC_CAT2(a, b)
#define MODEL_FN(suffix) TXC_CAT(TXC_MODEL, suffix)

/* Reads a version 1.0 .npy file: its dtype, dims and data (malloc'd). */
static int read_npy(const char *path, txc_tensor *t) {
  unsigned char preamble[10];
  char header[4096];
  FILE *f = fopen(path, "rb");
  if (!f || fread(preamble, 1, 10, f) != 10 || preamble[6] != 1) {
    fprintf(stderr, "%s: not a version 1.0 .npy file\n", path);
    return -1;
  }
  size_t length = (size_t)preamble[8] | ((size_t)preamble[9] << 8);
  if (length >= sizeof header || fread(header, 1, length, f) != length) {
    fprintf(stderr, "%s: bad .npy header\n", path);
    return -1;
  }
  header[length] = '\0';
  int32_t dtype = strstr(header, "'<f4'")   ? TXC_DTYPE_F32
                  : strstr(header, "'<i8'") ? TXC_DTYPE_I64
                                            : 0;
  const char *shape = strstr(header, "'shape': (");
  if (!dtype || !shape || strstr(header, "'fortran_order': True")) {
    fprintf(stderr, "%s: only C-order f32 and i64 arrays are read\n", path);
    return -1;
  }
  int64_t dims[TXC_MAX_RANK];
  int32_t rank = 0;
  char *cursor = (char *)shape + strlen("'shape': (");
  while (*cursor != ')' && rank < TXC_MAX_RANK) {
    char *end;
    long long dim = strtoll(cursor, &end, 10);
    if (end == cursor)
      break;
    dims[rank++] = dim;
    cursor = end;
    while (*cursor == ',' || *cursor == ' ')
      ++cursor;
  }
  *t = txc_sample_tensor(NULL, dtype, rank, dims);
  t->data = malloc(t->size_bytes ? (size_t)t->size_bytes : 1);
  if (!t->data ||
      fread(t->data, 1, (size_t)t->size_bytes, f) != (size_t)t->size_bytes) {
    fprintf(stderr, "%s: truncated data\n", path);
    return -1;
  }
  fclose(f);
  return 0;
}

#ifdef TXC_COUNT_ALLOCATIONS
#include "../e2e/workspace/count_allocations.h"
#endif

/* How the model is called: its workspace, or NULL for <model>_run, and
   the threads of <model>_run_with_options (0: not through the options). */
typedef struct {
  void *workspace;
  size_t bytes;
  int allocating;
  int threads;
  txc_pthreads_pool *pool;
  txc_run_options options;
} Call;

/* Sizes and allocates the workspace for the input's shapes, once. */
static int32_t prepare(Call *call, const txc_tensor *input,
                       txc_status *status) {
  int32_t rc;
  call->workspace = NULL;
  call->bytes = 0;
  if (call->allocating)
    return TXC_OK;
  rc = MODEL_FN(_workspace_size)(input, 1, &call->bytes, status);
  if (rc != TXC_OK)
    return rc;
  /* 64 bytes even when none are needed: the pointer must not be NULL. */
  if (posix_memalign(&call->workspace, 64, call->bytes ? call->bytes : 64)) {
    fprintf(stderr, "cannot allocate a workspace of %zu bytes\n",
            call->bytes);
    exit(1);
  }
  memset(&call->options, 0, sizeof call->options);
  call->options.struct_size = sizeof call->options;
  call->options.workspace = call->workspace;
  call->options.workspace_bytes = call->bytes;
  if (call->threads > 1) {
    call->pool = txc_pthreads_create(call->threads);
    if (!call->pool) {
      fprintf(stderr, "cannot start %d threads\n", call->threads);
      exit(1);
    }
    txc_pthreads_set_options(call->pool, &call->options);
  }
  return TXC_OK;
}

static int32_t call_model(const Call *call, const txc_tensor *input,
                          txc_tensor *output, txc_status *status) {
  if (call->allocating)
    return MODEL_FN(_run)(input, 1, output, 1, status);
  if (call->threads)
    return MODEL_FN(_run_with_options)(input, 1, output, 1, status,
                                       &call->options);
  return MODEL_FN(_run_with_workspace)(input, 1, output, 1, status,
                                       call->workspace, call->bytes);
}

/* Calls the model `repeat` times, printing each call's time. */
static int32_t time_calls(const Call *call, long repeat,
                          const txc_tensor *input, txc_tensor *output,
                          txc_status *status) {
  for (long i = 0; i < repeat; ++i) {
    struct timespec begin, end;
#ifdef TXC_COUNT_ALLOCATIONS
    counting = 1;
#endif
    clock_gettime(CLOCK_MONOTONIC, &begin);
    int32_t rc = call_model(call, input, output, status);
    clock_gettime(CLOCK_MONOTONIC, &end);
#ifdef TXC_COUNT_ALLOCATIONS
    counting = 0;
#endif
    if (rc != TXC_OK)
      return rc;
    printf("time_ns %lld\n", (long long)(end.tv_sec - begin.tv_sec) *
                                     1000000000LL +
                                 (end.tv_nsec - begin.tv_nsec));
  }
#ifdef TXC_COUNT_ALLOCATIONS
  printf("allocations %ld in %ld calls\n", allocations, repeat);
#endif
  return TXC_OK;
}

int main(int argc, char **argv) {
  txc_tensor input, output;
  txc_status status;
  Call call;
  char message[512];
  memset(&call, 0, sizeof call);
  if (argc > 1 && strcmp(argv[1], "--run") == 0) {
    call.allocating = 1;
    --argc;
    ++argv;
  } else if (argc > 2 && strcmp(argv[1], "--threads") == 0) {
    call.threads = atoi(argv[2]);
    argc -= 2;
    argv += 2;
  }
  if ((argc != 3 && argc != 4) || call.threads < 0) {
    fprintf(stderr,
            "usage: %s [--run | --threads N] INPUT.npy OUT_DIR [REPEAT]\n",
            argv[0]);
    return 2;
  }
  if (read_npy(argv[1], &input) != 0)
    return 2;
  memset(&output, 0, sizeof output);
  int32_t rc = MODEL_FN(_output_shapes)(&input, 1, &output, 1, &status);
  if (rc == TXC_OK)
    rc = prepare(&call, &input, &status);
  if (rc == TXC_OK) {
    output.size_bytes =
        txc_sample_num_elements(&output) * txc_sample_dtype_size(output.dtype);
    output.data = malloc(output.size_bytes ? (size_t)output.size_bytes : 1);
    rc = call_model(&call, &input, &output, &status);
  }
  if (rc == TXC_OK && argc == 4)
    rc = time_calls(&call, atol(argv[3]), &input, &output, &status);
  if (rc != TXC_OK) {
    MODEL_FN(_error_message)(&status, message, sizeof message);
    txc_sample_report(argv[1], rc, message);
    return 3;
  }
  if (txc_sample_write_npy(argv[2], "y", &output) != 0) {
    fprintf(stderr, "cannot write %s/y.npy\n", argv[2]);
    return 1;
  }
  if (call.pool)
    txc_pthreads_destroy(call.pool);
  free(call.workspace);
  free(input.data);
  free(output.data);
  return 0;
}
