/* Shared by the indexing harnesses: tensors placed right after or right
 * before an inaccessible page, so that an access one element outside a
 * tensor (or far away) crashes the test, and the EXPECT macro. Include it
 * after the program's header (txc_tensor). */
#ifndef TXC_TEST_E2E_INDEXING_PAGES_H
#define TXC_TEST_E2E_INDEXING_PAGES_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../common/expect.h"
#include "../common/tensor.h"

enum { PAGE = 4096 };

/* Pages mapped for one tensor, with an inaccessible page on each side. */
typedef struct region {
  char *base;
  size_t total;
} region;

typedef enum placement { AT_START, AT_END } placement;

/* `bytes` of memory that starts right after an inaccessible page (AT_START)
 * or ends right before one (AT_END). */
static void *place(size_t bytes, placement where, region *r) {
  size_t pages = bytes ? (bytes + PAGE - 1) / PAGE : 1;
  r->total = (pages + 2) * PAGE;
  r->base = mmap(NULL, r->total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
                 0);
  if (r->base == MAP_FAILED) {
    perror("mmap");
    exit(2);
  }
  if (mprotect(r->base + PAGE, pages * PAGE, PROT_READ | PROT_WRITE) != 0) {
    perror("mprotect");
    exit(2);
  }
  return where == AT_END ? r->base + PAGE + pages * PAGE - bytes
                         : r->base + PAGE;
}

#endif
