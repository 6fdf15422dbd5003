/* Counts the allocations of a process linked with
     -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free,
     --wrap=aligned_alloc,--wrap=posix_memalign
   (every call of these, the objects' included, goes through the wrappers
   below): while `counting` is set, `allocations` counts the allocations
   and `frees` the frees of non-NULL pointers. Used by workspace/nomalloc.c
   and test/models/harness.c (zero allocations per call of
   <p>_run_with_workspace, docs/abi.md "Workspace"). C99, one translation
   unit per program. */
#ifndef TXC_COUNT_ALLOCATIONS_H
#define TXC_COUNT_ALLOCATIONS_H

#include <stddef.h>

static long allocations, frees;
static int counting;

void *__real_malloc(size_t);
void *__real_calloc(size_t, size_t);
void *__real_realloc(void *, size_t);
void __real_free(void *);
void *__real_aligned_alloc(size_t, size_t);
int __real_posix_memalign(void **, size_t, size_t);

void *__wrap_malloc(size_t n) {
  allocations += counting;
  return __real_malloc(n);
}
void *__wrap_calloc(size_t n, size_t size) {
  allocations += counting;
  return __real_calloc(n, size);
}
void *__wrap_realloc(void *p, size_t n) {
  allocations += counting;
  return __real_realloc(p, n);
}
void __wrap_free(void *p) {
  frees += counting && p;
  __real_free(p);
}
void *__wrap_aligned_alloc(size_t alignment, size_t n) {
  allocations += counting;
  return __real_aligned_alloc(alignment, n);
}
int __wrap_posix_memalign(void **p, size_t alignment, size_t n) {
  allocations += counting;
  return __real_posix_memalign(p, alignment, n);
}

#endif
