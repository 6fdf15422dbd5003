/* txc_pthreads.h: a small reference thread pool over POSIX threads for the
   parallel_for hook of <p>_run_with_options (docs/abi.md, Threads).
   Header-only, C99 and C++; link with -pthread.

     txc_pthreads_pool *pool = txc_pthreads_create(4);  // 4 threads in all
     txc_run_options options = {0};
     options.struct_size = sizeof options;
     txc_pthreads_set_options(pool, &options);
     rc = p_run_with_options(inputs, n, outputs, m, &status, &options);
     ...
     txc_pthreads_destroy(pool);

   A pool of N threads starts N - 1 workers; the thread that calls
   txc_pthreads_parallel_for runs tasks too. The n tasks are handed out in
   chunks of consecutive indices that the threads take from an atomic
   counter, so a thread that was descheduled takes fewer. A worker that
   wakes after the caller ran out of tasks does not join the launch (on a
   loaded machine the caller does not wait for workers to be scheduled).
   Between launches, idle workers spin for TXC_PTHREADS_SPINS pauses
   (a kernel's launches follow each other within microseconds:
   a futex wake-up per launch cost more than a task's work) before they
   sleep on a condition variable; the caller likewise spins before it
   sleeps waiting for the workers that joined. Calls from several threads
   at once are served one after the other. A task must not call
   parallel_for on the same pool (objects compiled by txc never do). */
#ifndef TXC_PTHREADS_H
#define TXC_PTHREADS_H

#include "txc_runtime.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

/* Pauses a thread spins before it sleeps: 20000 are 50-500 us, depending
   on the CPU's pause. */
#ifndef TXC_PTHREADS_SPINS
#define TXC_PTHREADS_SPINS 20000
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The fields marked "atomic" are only accessed with __atomic builtins
   (sequentially consistent where a thread stores one flag and then reads
   the other's: busy/open, sleepers/generation, waiting/busy). */
typedef struct txc_pthreads_pool {
  pthread_mutex_t mutex;  /* with `wake` and `done`, for sleeping only */
  pthread_cond_t wake;    /* a new job, or stop */
  pthread_cond_t done;    /* the last worker left the job */
  pthread_mutex_t serial; /* one parallel_for at a time */
  pthread_t *workers;
  int num_workers;
  int stop;               /* atomic */
  int sleepers;           /* atomic: workers sleeping (or about to) */
  int waiting;            /* atomic: the caller sleeps (or is about to) */
  uint64_t generation;    /* atomic: number of jobs started */
  int open;               /* atomic: workers may join the current job */
  int busy;               /* atomic: workers in the current job */
  txc_task_fn task;       /* the current job, written while no worker */
  void *arg;              /* is in a job, read once open is seen */
  int64_t n;
  int64_t chunk;          /* task indices taken at once */
  int64_t next;           /* atomic: next task index */
} txc_pthreads_pool;

static inline void txc_pthreads_pause_(void) {
#if defined(__x86_64__) || defined(__i386__)
  __asm__ __volatile__("pause");
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

/* Spins while `condition` holds, at most TXC_PTHREADS_SPINS pauses (a
   count, not a clock: clock_gettime needs POSIX feature macros a C99
   caller may not define). */
#define TXC_PTHREADS_SPIN_WHILE_(condition)                                   \
  do {                                                                        \
    long txc_spins_ = 0;                                                      \
    while ((condition) && txc_spins_++ < TXC_PTHREADS_SPINS)                  \
      txc_pthreads_pause_();                                                  \
  } while (0)

/* Runs chunks of tasks of the current job until none is left. */
static inline void txc_pthreads_run_tasks_(txc_pthreads_pool *pool,
                                           txc_task_fn task, void *arg,
                                           int64_t n, int64_t chunk) {
  for (;;) {
    int64_t i = __atomic_fetch_add(&pool->next, chunk, __ATOMIC_RELAXED);
    int64_t end = i + chunk < n ? i + chunk : n;
    if (i >= n)
      return;
    for (; i < end; ++i)
      task(arg, i);
  }
}

/* Waits until a job newer than `seen` starts or the pool stops: spins,
   then sleeps. Returns the newest generation. */
static inline uint64_t txc_pthreads_await_(txc_pthreads_pool *pool,
                                           uint64_t seen) {
  TXC_PTHREADS_SPIN_WHILE_(
      __atomic_load_n(&pool->generation, __ATOMIC_ACQUIRE) == seen &&
      !__atomic_load_n(&pool->stop, __ATOMIC_ACQUIRE));
  if (__atomic_load_n(&pool->generation, __ATOMIC_ACQUIRE) == seen) {
    pthread_mutex_lock(&pool->mutex);
    /* Announced before the check: a caller that starts a job after it
       sees the sleeper and signals (under the mutex, so after the wait
       began). */
    __atomic_add_fetch(&pool->sleepers, 1, __ATOMIC_SEQ_CST);
    while (__atomic_load_n(&pool->generation, __ATOMIC_SEQ_CST) == seen &&
           !__atomic_load_n(&pool->stop, __ATOMIC_SEQ_CST))
      pthread_cond_wait(&pool->wake, &pool->mutex);
    __atomic_sub_fetch(&pool->sleepers, 1, __ATOMIC_SEQ_CST);
    pthread_mutex_unlock(&pool->mutex);
  }
  return __atomic_load_n(&pool->generation, __ATOMIC_ACQUIRE);
}

/* Joins the current job if it is still open, runs its tasks, leaves. */
static inline void txc_pthreads_join_(txc_pthreads_pool *pool) {
  /* busy before open: the caller, which closes the job before it reads
     busy, either waits for this worker or is seen to have closed it. */
  __atomic_add_fetch(&pool->busy, 1, __ATOMIC_SEQ_CST);
  if (__atomic_load_n(&pool->open, __ATOMIC_SEQ_CST))
    txc_pthreads_run_tasks_(pool, pool->task, pool->arg, pool->n,
                            pool->chunk);
  if (__atomic_sub_fetch(&pool->busy, 1, __ATOMIC_SEQ_CST) == 0 &&
      __atomic_load_n(&pool->waiting, __ATOMIC_SEQ_CST)) {
    pthread_mutex_lock(&pool->mutex);
    pthread_cond_signal(&pool->done);
    pthread_mutex_unlock(&pool->mutex);
  }
}

static inline void *txc_pthreads_worker_(void *opaque) {
  txc_pthreads_pool *pool = (txc_pthreads_pool *)opaque;
  uint64_t seen = 0;
  for (;;) {
    seen = txc_pthreads_await_(pool, seen);
    if (__atomic_load_n(&pool->stop, __ATOMIC_ACQUIRE))
      return NULL;
    txc_pthreads_join_(pool);
  }
}

/* Stops and joins the workers, frees the pool. NULL is ignored. */
static inline void txc_pthreads_destroy(txc_pthreads_pool *pool) {
  int i;
  if (!pool)
    return;
  pthread_mutex_lock(&pool->mutex);
  __atomic_store_n(&pool->stop, 1, __ATOMIC_SEQ_CST);
  pthread_cond_broadcast(&pool->wake);
  pthread_mutex_unlock(&pool->mutex);
  for (i = 0; i < pool->num_workers; ++i)
    pthread_join(pool->workers[i], NULL);
  pthread_mutex_destroy(&pool->mutex);
  pthread_mutex_destroy(&pool->serial);
  pthread_cond_destroy(&pool->wake);
  pthread_cond_destroy(&pool->done);
  free(pool->workers);
  free(pool);
}

/* A pool of num_threads threads in all (the caller's included): starts
   num_threads - 1 workers. NULL if memory or a thread could not be had. */
static inline txc_pthreads_pool *txc_pthreads_create(int num_threads) {
  txc_pthreads_pool *pool =
      (txc_pthreads_pool *)calloc(1, sizeof(txc_pthreads_pool));
  int workers = num_threads > 1 ? num_threads - 1 : 0;
  if (!pool)
    return NULL;
  pool->workers = (pthread_t *)calloc(workers ? (size_t)workers : 1,
                                      sizeof(pthread_t));
  if (!pool->workers) {
    free(pool);
    return NULL;
  }
  pthread_mutex_init(&pool->mutex, NULL);
  pthread_mutex_init(&pool->serial, NULL);
  pthread_cond_init(&pool->wake, NULL);
  pthread_cond_init(&pool->done, NULL);
  for (; pool->num_workers < workers; ++pool->num_workers)
    if (pthread_create(&pool->workers[pool->num_workers], NULL,
                       txc_pthreads_worker_, pool) != 0) {
      txc_pthreads_destroy(pool);
      return NULL;
    }
  return pool;
}

/* Threads of the pool, the caller's included. */
static inline int txc_pthreads_num_threads(const txc_pthreads_pool *pool) {
  return pool ? pool->num_workers + 1 : 1;
}

/* Waits, spinning then sleeping, until the workers that joined the
   current job have left it. */
static inline void txc_pthreads_wait_workers_(txc_pthreads_pool *pool) {
  TXC_PTHREADS_SPIN_WHILE_(__atomic_load_n(&pool->busy, __ATOMIC_ACQUIRE));
  if (!__atomic_load_n(&pool->busy, __ATOMIC_ACQUIRE))
    return;
  pthread_mutex_lock(&pool->mutex);
  __atomic_store_n(&pool->waiting, 1, __ATOMIC_SEQ_CST);
  while (__atomic_load_n(&pool->busy, __ATOMIC_SEQ_CST))
    pthread_cond_wait(&pool->done, &pool->mutex);
  __atomic_store_n(&pool->waiting, 0, __ATOMIC_SEQ_CST);
  pthread_mutex_unlock(&pool->mutex);
}

/* The txc_parallel_for_fn of the pool (ctx is the pool): runs task(arg, i)
   for i in [0, n) on the workers and the calling thread, and returns when
   all have finished. */
static inline void txc_pthreads_parallel_for(void *ctx, int64_t n,
                                             txc_task_fn task, void *arg) {
  txc_pthreads_pool *pool = (txc_pthreads_pool *)ctx;
  int64_t i, chunk;
  if (n <= 0)
    return;
  if (!pool || pool->num_workers == 0 || n == 1) {
    for (i = 0; i < n; ++i)
      task(arg, i);
    return;
  }
  /* About 4 chunks per thread: few atomic operations, and still a balance
     for threads that start late or run slower. */
  chunk = n / (4 * (int64_t)(pool->num_workers + 1));
  pthread_mutex_lock(&pool->serial);
  pool->task = task;
  pool->arg = arg;
  pool->n = n;
  pool->chunk = chunk > 1 ? chunk : 1;
  __atomic_store_n(&pool->next, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&pool->open, 1, __ATOMIC_SEQ_CST);
  __atomic_add_fetch(&pool->generation, 1, __ATOMIC_SEQ_CST);
  if (__atomic_load_n(&pool->sleepers, __ATOMIC_SEQ_CST)) {
    pthread_mutex_lock(&pool->mutex);
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->mutex);
  }
  txc_pthreads_run_tasks_(pool, task, arg, n, pool->chunk);
  /* Every task is taken: close the job to the workers that have not
     joined yet, and wait for those that did. */
  __atomic_store_n(&pool->open, 0, __ATOMIC_SEQ_CST);
  txc_pthreads_wait_workers_(pool);
  pthread_mutex_unlock(&pool->serial);
}

/* Sets the threads fields of options to use the pool. */
static inline void txc_pthreads_set_options(txc_pthreads_pool *pool,
                                     txc_run_options *options) {
  options->parallel_for = txc_pthreads_parallel_for;
  options->parallel_ctx = pool;
  options->num_threads = txc_pthreads_num_threads(pool);
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TXC_PTHREADS_H */
