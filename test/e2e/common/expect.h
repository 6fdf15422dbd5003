/* EXPECT(cond, fmt, ...): the e2e harnesses' check. A failed condition
 * prints "FAILED file:line: " and the message on stderr and counts in
 * `failures`; the harness exits non-zero when it is not 0. C99, libc. */
#ifndef TXC_TEST_E2E_COMMON_EXPECT_H
#define TXC_TEST_E2E_COMMON_EXPECT_H

#include <stdio.h>

static int failures;
#define EXPECT(cond, ...)                                                      \
  do {                                                                         \
    if (!(cond)) {                                                             \
      ++failures;                                                              \
      fprintf(stderr, "FAILED %s:%d: ", __FILE__, __LINE__);                   \
      fprintf(stderr, __VA_ARGS__);                                            \
      fputc('\n', stderr);                                                     \
    }                                                                          \
  } while (0)

#endif
