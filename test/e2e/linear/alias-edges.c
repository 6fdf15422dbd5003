/* The alias guard of the compiled `linear` sample (Y: f32[B,3] against X:
 * f32[B,4], W: f32[4,3], b: f32[3]) at the edges of its fast path's single
 * compare per pair (AbiEmitter.cpp, mayOverlap): Y touching each input on
 * either side (passes, and runs), overlapping it by one byte on either side
 * or entirely (fails with guard 23 and the input's index), at B = 1 and 5.
 * Then ranges that wrap past the top of the address space, where the fast
 * path's test says "overlap" but the guard's own test (the interpreter's,
 * the host evaluator's) does not: the verdict must be the guard's, so the
 * guards pass and the kernel runs on these pointers, which faults; the
 * call runs in a child process and must die by a signal, not return
 * TXC_E_ALIAS.
 *
 * Prints one line per case for FileCheck; exits non-zero on a mismatch. */
#define _DEFAULT_SOURCE
#include "linear.h"

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../common/expect.h"
#include "../common/f32.h"

/* The tensors of the calls that run; 4 KiB of deterministic floats. */
static float arena[1024];

typedef struct call {
  txc_tensor in[3];
  txc_tensor out[1];
} call;

/* X at 1024, W at 2048, b at 3072 of the arena; Y where `y` says. */
static call make_call(int64_t batch, char *y) {
  call c;
  c.in[0] = tensor((char *)arena + 1024, batch * 16, 2, batch, 4);
  c.in[1] = tensor((char *)arena + 2048, 48, 2, 4, 3);
  c.in[2] = tensor((char *)arena + 3072, 12, 1, 3, 0);
  c.out[0] = tensor(y, batch * 12, 2, batch, 3);
  return c;
}

/* `other` < 0: the call must pass; else fail the alias guard against input
 * `other`. */
static void expect(const char *what, int64_t batch, call c, int other) {
  txc_status status;
  memset(&status, 0x5a, sizeof status);
  int32_t rc = linear_run(c.in, 3, c.out, 1, &status);
  if (other < 0) {
    EXPECT(rc == TXC_OK && status.guard == -1, "%s B=%lld: rc=%d guard=%d",
           what, (long long)batch, rc, status.guard);
  } else {
    EXPECT(rc == TXC_E_ALIAS && status.guard == LINEAR_NUM_GUARDS - 1 &&
               status.expected_min == TXC_TENSOR_INPUT &&
               status.expected_max == other,
           "%s B=%lld: rc=%d guard=%d other=%lld,%lld", what,
           (long long)batch, rc, status.guard,
           (long long)status.expected_min, (long long)status.expected_max);
  }
  printf("%s B=%lld: rc=%d guard=%d\n", what, (long long)batch, rc,
         status.guard);
}

static void edges(int64_t batch) {
  static const char *names[3] = {"X", "W", "b"};
  for (int i = 0; i < 3; ++i) {
    char *start = (char *)make_call(batch, (char *)arena).in[i].data;
    int64_t bytes = make_call(batch, (char *)arena).in[i].size_bytes;
    int64_t ybytes = batch * 12;
    char what[64];
    snprintf(what, sizeof what, "Y right after %s", names[i]);
    expect(what, batch, make_call(batch, start + bytes), -1);
    snprintf(what, sizeof what, "Y right before %s", names[i]);
    expect(what, batch, make_call(batch, start - ybytes), -1);
    snprintf(what, sizeof what, "Y on the last byte of %s", names[i]);
    expect(what, batch, make_call(batch, start + bytes - 1), i);
    snprintf(what, sizeof what, "Y over the first byte of %s", names[i]);
    expect(what, batch, make_call(batch, start - ybytes + 1), i);
    snprintf(what, sizeof what, "Y at %s", names[i]);
    expect(what, batch, make_call(batch, start), i);
  }
}

/* Runs the call in a child; prints how it ended. */
static void wraps(const char *what, call c) {
  fflush(stdout);
  pid_t child = fork();
  if (child == 0) {
    txc_status status;
    _exit(linear_run(c.in, 3, c.out, 1, &status));
  }
  int wstatus = 0;
  waitpid(child, &wstatus, 0);
  EXPECT(WIFSIGNALED(wstatus), "%s: exited with %d, expected a fault", what,
         WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1);
  printf("%s: %s\n", what,
         WIFSIGNALED(wstatus) ? "guards passed, the kernel faulted"
                              : "returned");
}

int main(void) {
  for (size_t i = 0; i < sizeof arena / sizeof arena[0]; ++i)
    arena[i] = next_float();
  edges(1);
  edges(5);
  /* Y = [2^64 - 4, +12) wraps to [.., 8); b = [4, 16). */
  call c = make_call(1, (char *)(UINTPTR_MAX - 3));
  c.in[2].data = (void *)(uintptr_t)4;
  wraps("Y wraps onto b", c);
  /* X = [2^64 - 8, +16) wraps to [.., 8); Y = [4, 16). */
  c = make_call(1, (char *)(uintptr_t)4);
  c.in[0].data = (void *)(UINTPTR_MAX - 7);
  wraps("X wraps onto Y", c);
  if (failures)
    return 1;
  printf("all checks passed\n");
  return 0;
}
