/* txc_runtime.h: the definitions every header txc generates shares
   (docs/abi.md): txc_tensor, txc_status, the dtype and status codes. For
   code that handles tensors of any compiled program; a program's own
   header defines the same (guarded by TXC_ABI_VERSION), so both can be
   included. Written by txc's HeaderEmitter (emitRuntimeHeader). */
#ifndef TXC_RUNTIME_H
#define TXC_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifndef TXC_ABI_VERSION
#define TXC_ABI_VERSION 2

/* Largest rank a tensor descriptor holds. */
#define TXC_MAX_RANK 8

/* Element types: txc_tensor.dtype. */
#define TXC_DTYPE_F32 1
#define TXC_DTYPE_F64 2
#define TXC_DTYPE_F16 3
#define TXC_DTYPE_BF16 4
#define TXC_DTYPE_I8 5
#define TXC_DTYPE_I16 6
#define TXC_DTYPE_I32 7
#define TXC_DTYPE_I64 8
#define TXC_DTYPE_U8 9
#define TXC_DTYPE_BOOL 10
#define TXC_DTYPE_U16 11
#define TXC_DTYPE_U32 12
#define TXC_DTYPE_U64 13

/* Status codes returned by the entry points (docs/abi.md). */
#define TXC_OK 0 /* success */
#define TXC_E_ARG_COUNT 1 /* wrong number of inputs or outputs */
#define TXC_E_NULL_POINTER 2 /* a descriptor array or data pointer is NULL */
#define TXC_E_DTYPE 3 /* a tensor has the wrong dtype */
#define TXC_E_RANK 4 /* a tensor has the wrong rank */
#define TXC_E_DIM 5 /* a dimension does not have its required value or form */
#define TXC_E_SYMBOL_RANGE 6 /* a symbol is outside its declared range */
#define TXC_E_SYMBOL_DIVISIBILITY 7 /* a symbol is not a multiple of its declared divisor */
#define TXC_E_SYMBOL_MISMATCH 8 /* a dimension disagrees with the value of its symbols */
#define TXC_E_BUFFER_TOO_SMALL 9 /* a buffer is smaller than the tensor it holds */
#define TXC_E_ALIAS 10 /* an output overlaps an input or another output */
#define TXC_E_INDEX_OUT_OF_RANGE 11 /* an index of an indexing op (gather, scatter, ...) is out of range */

/* txc_status.tensor_kind */
#define TXC_TENSOR_NONE 0
#define TXC_TENSOR_INPUT 1
#define TXC_TENSOR_OUTPUT 2

/* A dense, row-major tensor. For inputs the caller fills every field. For
   outputs the caller fills data and size_bytes; a successful call writes
   dtype, rank and dims. */
typedef struct txc_tensor {
  void *data;          /* first element; never NULL */
  int64_t size_bytes;  /* bytes readable (inputs) or writable (outputs) */
  int32_t dtype;       /* TXC_DTYPE_* */
  int32_t rank;        /* number of valid entries in dims */
  int64_t dims[TXC_MAX_RANK];
} txc_tensor;

/* What a call reports; filled on every call when the pointer is not NULL. */
typedef struct txc_status {
  int32_t code;         /* TXC_OK or TXC_E_* */
  int32_t guard;        /* id of the failed guard (manifest "guards"), or -1 */
  int32_t tensor_kind;  /* TXC_TENSOR_* the guard is about */
  int32_t tensor_index; /* index among the inputs or the outputs, or -1 */
  int32_t dim;          /* dimension index, or -1 */
  int32_t symbol;       /* symbol index, or -1 */
  int64_t expected_min; /* expected value, or lower bound of a range */
  int64_t expected_max; /* upper bound of a range (== expected_min if none) */
  int64_t actual;       /* the value the call had */
  int32_t variant;      /* the code that ran: 0 the generic code, a variant's
                           id (<P>_VARIANT_*), -1 none (a guard failed) */
  int32_t reserved;     /* not written */
} txc_status;

/* Layout checks (C99 has no static_assert). */
typedef char txc_check_tensor_layout[(sizeof(txc_tensor) == 88) ? 1 : -1];
typedef char txc_check_status_layout[(sizeof(txc_status) == 56) ? 1 : -1];

#elif TXC_ABI_VERSION != 2
#error "headers of different txc ABI versions are included together"
#endif /* TXC_ABI_VERSION */

#ifndef TXC_RUN_OPTIONS_DEFINED
#define TXC_RUN_OPTIONS_DEFINED
/* One iteration of a kernel's parallel loop: task(arg, i), 0 <= i < n. */
typedef void (*txc_task_fn)(void *arg, int64_t i);
/* The caller's parallel for: runs task(arg, i) once for every i in
   [0, n), on any threads, in any order, and returns when all have
   finished. The calling thread may run tasks too (txc_pthreads.h). */
typedef void (*txc_parallel_for_fn)(void *ctx, int64_t n, txc_task_fn task,
                                    void *arg);
/* The options of <p>_run_with_options. Zero-initialize it and set
   struct_size = sizeof(txc_run_options): a field that ends past
   struct_size reads as zero (NULL), so that the struct can grow. */
typedef struct txc_run_options {
  uint32_t struct_size;  /* sizeof(txc_run_options) */
  int32_t num_threads;   /* threads parallel_for uses; <= 1: serial */
  void *workspace;       /* NULL: allocated per call */
  size_t workspace_bytes;
  const void *weights;   /* external weights only: the blob */
  size_t weights_size;
  txc_parallel_for_fn parallel_for; /* NULL: serial */
  void *parallel_ctx;    /* passed to parallel_for */
  void *dispatch_stats;  /* NULL, or the program's <p>_dispatch_stats */
  int32_t cpu_level;     /* objects for several CPUs: 0 the most capable
                            this machine runs, k at most the k-th listed */
} txc_run_options;
typedef char txc_check_run_options_layout[
    (sizeof(txc_run_options) == 72) ? 1 : -1];
#endif /* TXC_RUN_OPTIONS_DEFINED */

#endif /* TXC_RUNTIME_H */
