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
    int threads;           /* wanted count, the caller included */
    int started;           /* workers running */
    _Atomic unsigned long generation;
    /* The current job's chunks: (job & 0xffff) << 48 | chunks << 24 | next chunk. A thread owns a
     * chunk once its compare-and-swap moves `next` on; a worker late for a finished job sees
     * another job number and takes nothing, so the caller never waits for idle workers. */
    _Atomic uint64_t ticket;
    _Atomic int64_t done;  /* chunks computed */
    nnapi_host_range_fn fn;
    void *ctx;
    int64_t count, grain;
    int workers; /* threads allowed on the current job, the caller included: worker indices below it */
} Pool;

static Pool pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 1, 0, 0, 0, 0,
                    0, 0, 0, 0, 1};

#define MAX_CHUNKS (1LL << 24)

/* Claims and computes chunks of the job whose ticket is `job` (its top 16 bits) until none is
 * left; `worker` names the thread to fn. */
static void take_chunks(uint64_t job, int worker) {
    uint64_t t = atomic_load_explicit(&pool.ticket, memory_order_acquire);
    for (;;) {
        if ((t >> 48) != (job >> 48)) return;
        int64_t chunks = (int64_t)((t >> 24) & 0xffffff), index = (int64_t)(t & 0xffffff);
        if (index >= chunks) return;
        if (!atomic_compare_exchange_weak_explicit(&pool.ticket, &t, t + 1, memory_order_acq_rel,
                                                   memory_order_acquire)) {
            continue; /* t now holds the current ticket */
        }
        int64_t begin = index * pool.grain;
        int64_t end = begin + pool.grain < pool.count ? begin + pool.grain : pool.count;
        pool.fn(pool.ctx, begin, end, worker);
        atomic_fetch_add_explicit(&pool.done, 1, memory_order_release);
        t = atomic_load_explicit(&pool.ticket, memory_order_acquire);
    }
}

/* The generation each worker was made at: a new thread may first run after the job that made it
 * was published, and must still see that job. */
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
        uint64_t job = atomic_load_explicit(&pool.ticket, memory_order_acquire);
        /* pool.workers is the current job's when its ticket matches (read after the ticket). */
        if (worker < pool.workers) take_chunks(job, worker);
    }
    return NULL;
}

static void after_fork_in_child(void) {
    pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
    pthread_cond_t fresh_cond = PTHREAD_COND_INITIALIZER;
    pool.busy = fresh;
    pool.lock = fresh;
    pool.wake = fresh_cond;
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
    static uint64_t jobs;
    if (count <= 0) return;
    if (grain < 1) grain = 1;
    if (count / grain >= MAX_CHUNKS) grain = count / (MAX_CHUNKS - 1) + 1;
    if (pool.threads <= 1 || max_workers == 1 || count <= grain || pthread_mutex_trylock(&pool.busy) != 0) {
        fn(ctx, 0, count, 0);
        return;
    }
    start_workers();
    int helpers = pool.threads - 1 < pool.started ? pool.threads - 1 : pool.started;
    if (max_workers > 0 && helpers > max_workers - 1) helpers = max_workers - 1;
    int64_t chunks = (count + grain - 1) / grain;
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
    atomic_store_explicit(&pool.done, 0, memory_order_relaxed);
    uint64_t job = (++jobs & 0xffff) << 48 | (uint64_t)chunks << 24;
    atomic_store_explicit(&pool.ticket, job, memory_order_release);
    pthread_mutex_lock(&pool.lock);
    atomic_fetch_add_explicit(&pool.generation, 1, memory_order_release);
    pthread_cond_broadcast(&pool.wake);
    pthread_mutex_unlock(&pool.lock);
    take_chunks(job, 0);
    /* Only chunks a worker is computing are left: wait for them, yielding the core on a busy
     * machine so that the worker holding one can run. */
    int rounds = 0;
    while (atomic_load_explicit(&pool.done, memory_order_acquire) != chunks) {
        if (++rounds < SPIN_ROUNDS) {
            CPU_RELAX();
        } else {
            sched_yield();
        }
    }
    pthread_mutex_unlock(&pool.busy);
}
