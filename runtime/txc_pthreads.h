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
   txc_pthreads_parallel_for runs tasks too, and waits only for the workers
   that joined the launch: a worker that wakes after the caller ran out of
   tasks does not join (on a loaded machine the caller does not wait for
   workers to be scheduled). Idle workers sleep on a condition variable (no
   spinning). Calls from several threads at once are served one after the
   other. A task must not call parallel_for on the same pool (objects
   compiled by txc never do). */
#ifndef TXC_PTHREADS_H
#define TXC_PTHREADS_H

#include "txc_runtime.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct txc_pthreads_pool {
  pthread_mutex_t mutex;  /* guards everything below but `next` */
  pthread_cond_t wake;    /* a new job, or stop */
  pthread_cond_t done;    /* the last worker left the job */
  pthread_mutex_t serial; /* one parallel_for at a time */
  pthread_t *workers;
  int num_workers;
  int stop;
  uint64_t generation;    /* number of jobs started */
  int open;               /* workers may still join the current job */
  int busy;               /* workers that joined it and have not left */
  txc_task_fn task;       /* the current job */
  void *arg;
  int64_t n;
  int64_t next;           /* next task index, taken atomically */
} txc_pthreads_pool;

/* Runs tasks of the current job until none is left. */
static inline void txc_pthreads_run_tasks_(txc_pthreads_pool *pool, txc_task_fn task,
                                    void *arg, int64_t n) {
  for (;;) {
    int64_t i = __atomic_fetch_add(&pool->next, 1, __ATOMIC_RELAXED);
    if (i >= n)
      return;
    task(arg, i);
  }
}

static inline void *txc_pthreads_worker_(void *opaque) {
  txc_pthreads_pool *pool = (txc_pthreads_pool *)opaque;
  uint64_t seen = 0;
  pthread_mutex_lock(&pool->mutex);
  for (;;) {
    while (!pool->stop && pool->generation == seen)
      pthread_cond_wait(&pool->wake, &pool->mutex);
    if (pool->stop)
      break;
    seen = pool->generation;
    if (!pool->open)
      continue; /* finished without this worker */
    ++pool->busy;
    {
      txc_task_fn task = pool->task;
      void *arg = pool->arg;
      int64_t n = pool->n;
      pthread_mutex_unlock(&pool->mutex);
      txc_pthreads_run_tasks_(pool, task, arg, n);
      pthread_mutex_lock(&pool->mutex);
    }
    if (--pool->busy == 0)
      pthread_cond_signal(&pool->done);
  }
  pthread_mutex_unlock(&pool->mutex);
  return NULL;
}

/* Stops and joins the workers, frees the pool. NULL is ignored. */
static inline void txc_pthreads_destroy(txc_pthreads_pool *pool) {
  int i;
  if (!pool)
    return;
  pthread_mutex_lock(&pool->mutex);
  pool->stop = 1;
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

/* The txc_parallel_for_fn of the pool (ctx is the pool): runs task(arg, i)
   for i in [0, n) on the workers and the calling thread, and returns when
   all have finished. */
static inline void txc_pthreads_parallel_for(void *ctx, int64_t n, txc_task_fn task,
                                      void *arg) {
  txc_pthreads_pool *pool = (txc_pthreads_pool *)ctx;
  int64_t i;
  if (n <= 0)
    return;
  if (!pool || pool->num_workers == 0 || n == 1) {
    for (i = 0; i < n; ++i)
      task(arg, i);
    return;
  }
  pthread_mutex_lock(&pool->serial);
  pthread_mutex_lock(&pool->mutex);
  pool->task = task;
  pool->arg = arg;
  pool->n = n;
  __atomic_store_n(&pool->next, 0, __ATOMIC_RELAXED);
  pool->busy = 0;
  pool->open = 1;
  ++pool->generation;
  pthread_cond_broadcast(&pool->wake);
  pthread_mutex_unlock(&pool->mutex);
  txc_pthreads_run_tasks_(pool, task, arg, n);
  /* Every task is taken: wait for those the workers run, and close the
     job to the workers that have not joined yet. */
  pthread_mutex_lock(&pool->mutex);
  while (pool->busy > 0)
    pthread_cond_wait(&pool->done, &pool->mutex);
  pool->open = 0;
  pthread_mutex_unlock(&pool->mutex);
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
