/* A run of compiled kernels as one call from Python (host_driver/native_runs.py).
 *
 * A plan's consecutive prepared steps make the same kernel calls with the same arguments at every
 * execution of a compilation: only where the model's inputs (and values from steps outside the
 * run) lie changes, and the caller patches those addresses in. Each call is recorded once as a
 * row of CALL_SLOTS int64 values: the kind, then the kernel's arguments in order (addresses and
 * integers as int64, a double or float argument as the bits of a double). Running the rows here
 * costs nothing per step beyond the kernels themselves; in Python each step cost some
 * microseconds (mobilenet_v2's 67 steps: a fifth of an 8-bit execution).
 */
#define _POSIX_C_SOURCE 199309L /* clock_gettime under -std=c11 (scripts/cross_compile_check.sh) */
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "nnapi_host_common.h"
#include "nnapi_host_kernels.h"

#define CALL_SLOTS 32

/* The kinds (_native.py's CALL_* mirror them). */
enum {
    CALL_GEMM_REQUANTIZE = 1,
    CALL_DEPTHWISE = 2,
    CALL_TABLE = 3,
    CALL_TABLE_ROWS = 4,
    CALL_QUANTIZE = 5,
    CALL_MEAN_ROWS = 6,
    CALL_MAX_POOL = 7,
    CALL_REQUANTIZE = 8,
    CALL_FLOAT_GEMM = 9,
    CALL_FLOAT_CONV = 10,
    CALL_FLOAT_DEPTHWISE = 11,
    CALL_FLOAT_LOGISTIC = 12,
    CALL_FLOAT_SILU = 13,
    CALL_FLOAT_MUL = 14,
    CALL_LINEAR_INT8 = 15,
    CALL_FLOAT_ADD = 16,
    CALL_FLOAT_MEAN = 17,
};

static inline double as_double(int64_t bits) {
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

#define P(i) ((void *)(intptr_t)a[i])
#define I(i) ((int32_t)a[i])
#define L(i) (a[i])
#define D(i) as_double(a[i])
#define F(i) ((float)as_double(a[i]))

/* One row; returns 0, or nonzero when the kernel refused (as it returns to Python). */
static int32_t run_call(const int64_t *row) {
    const int64_t *a = row + 1;
    switch (row[0]) {
    case CALL_GEMM_REQUANTIZE:
        nnapi_host_gemm_requantize(P(0), I(1), L(2), L(3), L(4), P(5), L(6), L(7), P(8), P(9), P(10), P(11), I(12),
                                   I(13), I(14), I(15), P(16), I(17), I(18), P(19), I(20), P(21), P(22), I(23), P(24));
        return 0;
    case CALL_DEPTHWISE:
        nnapi_host_depthwise(P(0), I(1), P(2), P(3), I(4), P(5), P(6), P(7), P(8), I(9), I(10), I(11), I(12), P(13),
                             P(14), I(15), I(16), L(17), P(18));
        return 0;
    case CALL_TABLE:
        return nnapi_host_table(P(0), P(1), L(2), P(3), I(4), P(5));
    case CALL_TABLE_ROWS:
        return nnapi_host_table_rows(P(0), L(1), L(2), P(3), P(4), I(5), P(6));
    case CALL_QUANTIZE:
        nnapi_host_quantize(P(0), L(1), D(2), I(3), I(4), I(5), P(6), P(7));
        return 0;
    case CALL_MEAN_ROWS:
        nnapi_host_mean_rows(P(0), I(1), L(2), L(3), L(4), I(5), I(6), P(7), P(8));
        return 0;
    case CALL_MAX_POOL:
        nnapi_host_max_pool(P(0), I(1), P(2), I(3), I(4), P(5));
        return 0;
    case CALL_REQUANTIZE:
        nnapi_host_requantize(P(0), I(1), L(2), L(3), L(4), L(5), P(6), P(7), P(8), P(9), I(10), I(11), I(12), I(13),
                              P(14), P(15));
        return 0;
    case CALL_FLOAT_GEMM:
        nnapi_host_float_gemm(P(0), L(1), L(2), L(3), P(4), P(5), F(6), F(7), I(8), I(9), P(10));
        return 0;
    case CALL_FLOAT_CONV:
        nnapi_host_float_conv(P(0), P(1), L(2), P(3), P(4), F(5), F(6), I(7), P(8), I(9), I(10), P(11));
        return 0;
    case CALL_FLOAT_DEPTHWISE:
        nnapi_host_float_depthwise(P(0), P(1), P(2), P(3), F(4), F(5), I(6), I(7), P(8));
        return 0;
    case CALL_FLOAT_LOGISTIC:
        nnapi_host_float_logistic(P(0), L(1), P(2));
        return 0;
    case CALL_FLOAT_SILU:
        nnapi_host_float_silu(P(0), L(1), P(2));
        return 0;
    case CALL_FLOAT_MUL:
        return nnapi_host_float_mul(P(0), P(1), L(2), L(3), I(4), P(5));
    case CALL_FLOAT_ADD:
        return nnapi_host_float_add(P(0), P(1), L(2), L(3), I(4), P(5));
    case CALL_FLOAT_MEAN:
        nnapi_host_float_mean(P(0), L(1), L(2), L(3), P(4));
        return 0;
    case CALL_LINEAR_INT8:
        nnapi_host_linear_int8(P(0), L(1), L(2), P(3), L(4), P(5), L(6), P(7), I(8), P(9));
        return 0;
    default:
        return -1;
    }
}

static int64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* Runs rows [0, count) of calls ([count][CALL_SLOTS]) in order, ns[i] (when ns is not NULL) the
 * nanoseconds row i took (the plan reports each operation's time); returns -1 when every call
 * ran, else the index of the first that refused or had an unknown kind (the later ones did not
 * run). */
NNAPI_HOST_EXPORT int64_t nnapi_host_run_calls(const int64_t *calls, int64_t count, int64_t *ns) {
    int64_t start = ns ? now_ns() : 0;
    for (int64_t i = 0; i < count; ++i) {
        if (run_call(calls + i * CALL_SLOTS) != 0) return i;
        if (ns) {
            int64_t end = now_ns();
            ns[i] = end - start;
            start = end;
        }
    }
    return -1;
}

/* The row width the caller must use. */
NNAPI_HOST_EXPORT int32_t nnapi_host_call_slots(void) { return CALL_SLOTS; }
