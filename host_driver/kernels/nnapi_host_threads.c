/* The compiled kernels' threads: a range of independent items (blocks of rows, output rows) split
 * over a small pool, the caller included (nnapi_host_threads.h).
 *
 * Every kernel that uses it computes each item the same way whichever thread takes it (integer
 * sums, or float sums in a fixed order), so its bytes do not depend on the thread count: the
 * driver's one answer per input holds at any count. Items are claimed from a shared counter, so a
 * thread slowed by the machine's other work takes fewer of them.
 *
 * The workers spin briefly after a job (the next operation of a plan usually follows within tens
 * of microseconds), then sleep on a condition variable. One job runs at a time: a caller that
 * finds the pool busy (another execution on another thread) computes its range alone. A forked
 * child starts with no workers (they are not copied by fork) and makes its own when it needs them.
 */
#include "nnapi_host_threads.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

#define NNAPI_HOST_EXPORT __attribute__((visibility("default")))
#define MAX_THREADS 64
#define SPIN_ROUNDS 2000 /* some tens of microseconds of pause instructions before a worker sleeps */

#if defined(__x86_64__) || defined(__i386__)
#define CPU_RELAX() __builtin_ia32_pause()
#elif defined(__aarch64__)
#define CPU_RELAX() __asm__ __volatile__("yield")
#else
#define CPU_RELAX() ((void)0)
#endif

typedef struct {
    pthread_mutex_t busy;  /* held by the caller whose job runs */
    pthread_mutex_t lock;  /* guards the sleeps below */
    pthread_cond_t wake;   /* a new job */
    pthread_cond_t done;   /* the last worker finished */
    int threads;           /* wanted count, the caller included */
    int started;           /* workers running (threads - 1 once made) */
    _Atomic unsigned long generation;
    _Atomic int remaining; /* workers still on the current job */
    _Atomic long long next;
    nnapi_host_range_fn fn;
    void *ctx;
    long long count, grain;
    int workers; /* threads on the current job, the caller included: worker indices below it */
} Pool;

static Pool pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
                    PTHREAD_COND_INITIALIZER, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1};

/* Claims chunks of `grain` items until none is left; `worker` names the thread to fn. */
static void take_chunks(int worker) {
    for (;;) {
        long long begin = atomic_fetch_add(&pool.next, pool.grain);
        if (begin >= pool.count) return;
        long long end = begin + pool.grain < pool.count ? begin + pool.grain : pool.count;
        pool.fn(pool.ctx, begin, end, worker);
    }
}

/* The generation each worker was made at: a new thread may first run after the job that made it
 * was published, and must still take that job. */
static unsigned long made_at[MAX_THREADS];

static void *worker_main(void *arg) {
    int worker = (int)(long)arg;
    unsigned long seen = made_at[worker];
    for (;;) {
        int rounds = 0;
        while (atomic_load_explicit(&pool.generation, memory_order_acquire) == seen) {
            if (++rounds < SPIN_ROUNDS) {
                CPU_RELAX();
                continue;
            }
            pthread_mutex_lock(&pool.lock);
            while (atomic_load(&pool.generation) == seen) pthread_cond_wait(&pool.wake, &pool.lock);
            pthread_mutex_unlock(&pool.lock);
        }
        seen = atomic_load(&pool.generation);
        if (worker < pool.workers) take_chunks(worker);
        if (atomic_fetch_sub(&pool.remaining, 1) == 1) {
            pthread_mutex_lock(&pool.lock);
            pthread_cond_signal(&pool.done);
            pthread_mutex_unlock(&pool.lock);
        }
    }
    return NULL;
}

static void after_fork_in_child(void) {
    pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
    pthread_cond_t fresh_cond = PTHREAD_COND_INITIALIZER;
    pool.busy = fresh;
    pool.lock = fresh;
    pool.wake = fresh_cond;
    pool.done = fresh_cond;
    pool.started = 0;
}

static pthread_once_t fork_handler_once = PTHREAD_ONCE_INIT;
static void install_fork_handler(void) { pthread_atfork(NULL, NULL, after_fork_in_child); }

/* Starts workers up to threads - 1 (called with `busy` held). */
static void start_workers(void) {
    pthread_once(&fork_handler_once, install_fork_handler);
    while (pool.started < pool.threads - 1) {
        pthread_t t;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        made_at[pool.started + 1] = atomic_load(&pool.generation);
        int failed = pthread_create(&t, &attr, worker_main, (void *)(long)(pool.started + 1));
        pthread_attr_destroy(&attr);
        if (failed) {
            pool.threads = pool.started + 1; /* run with what exists */
            return;
        }
        pool.started++;
    }
}

NNAPI_HOST_EXPORT void nnapi_host_set_threads(int32_t threads) {
    pthread_mutex_lock(&pool.busy);
    /* Fewer wanted than started: the extra workers still wake for each job but take no chunk. */
    pool.threads = threads < 1 ? 1 : threads > MAX_THREADS ? MAX_THREADS : threads;
    pthread_mutex_unlock(&pool.busy);
}

NNAPI_HOST_EXPORT int32_t nnapi_host_threads(void) { return pool.threads; }

void nnapi_host_parallel(nnapi_host_range_fn fn, void *ctx, int64_t count, int64_t grain, int32_t max_workers) {
    if (count <= 0) return;
    if (grain < 1) grain = 1;
    if (pool.threads <= 1 || max_workers == 1 || count <= grain || pthread_mutex_trylock(&pool.busy) != 0) {
        fn(ctx, 0, count, 0);
        return;
    }
    start_workers();
    int helpers = pool.threads - 1 < pool.started ? pool.threads - 1 : pool.started;
    long long chunks = (count + grain - 1) / grain;
    if (helpers > chunks - 1) helpers = (int)(chunks - 1);
    if (max_workers > 0 && helpers > max_workers - 1) helpers = max_workers - 1;
    if (helpers <= 0) {
        pthread_mutex_unlock(&pool.busy);
        fn(ctx, 0, count, 0);
        return;
    }
    pool.fn = fn;
    pool.ctx = ctx;
    pool.count = count;
    pool.grain = grain;
    pool.workers = helpers + 1;
    atomic_store(&pool.next, 0);
    /* Every started worker wakes for each job and counts down; those numbered past `helpers`
     * take no chunk (a kernel's per-worker scratch is sized for max_workers). */
    atomic_store(&pool.remaining, pool.started);
    pthread_mutex_lock(&pool.lock);
    atomic_fetch_add_explicit(&pool.generation, 1, memory_order_release);
    pthread_cond_broadcast(&pool.wake);
    pthread_mutex_unlock(&pool.lock);
    take_chunks(0);
    int rounds = 0;
    while (atomic_load_explicit(&pool.remaining, memory_order_acquire) != 0) {
        if (++rounds < SPIN_ROUNDS) {
            CPU_RELAX();
            continue;
        }
        pthread_mutex_lock(&pool.lock);
        while (atomic_load(&pool.remaining) != 0) pthread_cond_wait(&pool.done, &pool.lock);
        pthread_mutex_unlock(&pool.lock);
    }
    pthread_mutex_unlock(&pool.busy);
}
