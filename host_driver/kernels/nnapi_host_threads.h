/* The compiled kernels' thread pool (nnapi_host_threads.c). */
#ifndef NNAPI_HOST_THREADS_H
#define NNAPI_HOST_THREADS_H

#include <stdint.h>

/* Computes items [begin, end) on the thread numbered `worker` (0: the caller). */
typedef void (*nnapi_host_range_fn)(void *ctx, int64_t begin, int64_t end, int32_t worker);

/* fn over items [0, count) in chunks of `grain`, on up to the pool's thread count (and at most
 * max_workers threads when it is > 0, the size of a caller's per-worker scratch); returns when
 * every item is done. Each item must be computed the same way whichever thread takes it. */
void nnapi_host_parallel(nnapi_host_range_fn fn, void *ctx, int64_t count, int64_t grain, int32_t max_workers);

#endif
