/* Stress test of txc_pthreads.h (threads.test): pools of 1-4 threads run
   launches of 0-36 tasks back to back and after pauses long enough for the
   workers to stop spinning and sleep; every task index must run exactly
   once per launch (its index is added to a per-launch sum), and the
   launch must not return before all have run. Under TSan (and with
   TXC_PTHREADS_SPINS=0, always sleeping) it checks the pool's
   synchronization. */
#include "txc_pthreads.h"

#include <stdio.h>

static void task(void *arg, int64_t i) {
  __atomic_add_fetch((int64_t *)arg + i % 4, i + 1, __ATOMIC_RELAXED);
}

int main(void) {
  int threads, round;
  for (threads = 1; threads <= 4; ++threads) {
    txc_pthreads_pool *pool = txc_pthreads_create(threads);
    if (!pool)
      return 2;
    for (round = 0; round < 2000; ++round) {
      int64_t sums[4] = {0, 0, 0, 0};
      int64_t n = round % 37, i, expected = 0;
      txc_pthreads_parallel_for(pool, n, task, sums);
      for (i = 0; i < n; ++i)
        expected += i + 1;
      /* Plain reads: a launch that returned early races with its tasks. */
      if (sums[0] + sums[1] + sums[2] + sums[3] != expected) {
        printf("%d threads, round %d: wrong sum\n", threads, round);
        return 1;
      }
      if (round % 500 == 0) {
        volatile int spin;
        for (spin = 0; spin < 3000000; ++spin)
          ;
      }
    }
    txc_pthreads_destroy(pool);
  }
  printf("pool: ok\n");
  return 0;
}
