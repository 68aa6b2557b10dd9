/* Float32 element-wise operations of the host driver's float path (host_driver/operations/_float_fast.py):
 * LOGISTIC, MUL and ADD (same shapes, or one row of the last dimension broadcast) with their fused activation,
 * SiLU's MUL(x, LOGISTIC(x)) in one pass, and MEAN over middle dims (a global average pool). Each element is computed alone, in a fixed order of
 * float32 operations, so the results do not depend on the thread count or the instruction set.
 *
 * LOGISTIC is NNAPI's 1 / (1 + exp(-x)) with exp computed here: a branch-free form the compiler
 * vectorizes (glibc's expf is a call per element), within a few float32 ulps of the exact value;
 * like the reference's float arithmetic, exp(-x) past float32's range is infinity (the result 0)
 * and NaN stays NaN. SiLU rounds the logistic to float32 before the product, as the two NNAPI
 * operations do.
 */
#include <stdint.h>
#include <string.h>

#include "nnapi_host_kernels.h"
#include "nnapi_host_common.h"
#include "nnapi_host_elementwise.h"
#include "nnapi_host_threads.h"

/* GCC keeps float operations that could raise an exception out of an if-converted loop unless told
 * exceptions are not observed (none is read here); it changes no value: every operation and its
 * rounding stay as written (no -ffast-math). Without it the AVX2 and plain loops are not vectorized. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-trapping-math")
#endif

#define CHUNK 16384 /* elements per item of the pool */

/* exp(t) for t in [-86, 88.75]: t = n ln2 + r with |r| <= ln2 / 2 (ln2 split in two parts so that
 * n * LN2_HI is exact), e^r by its Taylor series to r^7 (truncation below 1e-8 relative), times
 * 2^(n-1) * 2 (n reaches 128 at the top of the range, where the product overflows as exp does). */
static inline float exp_in_range(float t) {
    const float log2e = 1.44269504088896341f, ln2_hi = 0.693145751953125f, ln2_lo = 1.42860682030941723e-6f;
    const float round_magic = 12582912.0f; /* 1.5 * 2^23: adding it rounds to an integer */
    float shifted = t * log2e + round_magic;
    int32_t shifted_bits;
    memcpy(&shifted_bits, &shifted, sizeof shifted_bits);
    float n = shifted - round_magic;
    float r = t - n * ln2_hi;
    r = r - n * ln2_lo;
    float p = 1.0f / 5040.0f;
    p = p * r + 1.0f / 720.0f;
    p = p * r + 1.0f / 120.0f;
    p = p * r + 1.0f / 24.0f;
    p = p * r + 1.0f / 6.0f;
    p = p * r + 0.5f;
    p = p * r + 1.0f;
    p = p * r + 1.0f;
    /* 2^(n-1), n read from the rounded sum's low bits (0x4B400000 + n): no float to int conversion,
     * which the compiler keeps out of a vectorized loop; n >= -125 here, a normal number. */
    int32_t bits = (shifted_bits - 0x4B400000 + 126) << 23;
    float scale;
    memcpy(&scale, &bits, sizeof scale);
    return p * scale * 2.0f;
}

static inline float logistic(float x) {
    float t = -x;
    float clamped = t < -86.0f ? -86.0f : t; /* e^-86 added to 1 is 1: the result is 1 either way */
    clamped = clamped > 88.75f ? 88.75f : clamped;
    float d = 1.0f + exp_in_range(clamped);
    d = t > 88.75f ? __builtin_inff() : d; /* exp overflows: the result is 1 / inf */
    float y = 1.0f / d;
    return x != x ? x : y;
}

/* The fused activation of MUL: 0 none, 1 RELU, 2 RELU1, 3 RELU6 (NaN stays NaN). */
static inline float activate(float y, int32_t act) {
    float lo = act == 2 ? -1.0f : 0.0f, hi = act == 2 ? 1.0f : 6.0f;
    if (act != 0) y = y < lo ? lo : y;
    if (act >= 2) y = y > hi ? hi : y;
    return y;
}

NNAPI_HOST_CLONES static void logistic_range(const float *restrict x, int64_t n, float *restrict out) {
#pragma GCC unroll 4
    for (int64_t i = 0; i < n; ++i) out[i] = logistic(x[i]);
}

NNAPI_HOST_CLONES static void silu_range(const float *restrict x, int64_t n, float *restrict out) {
#pragma GCC unroll 4
    for (int64_t i = 0; i < n; ++i) {
        float s = logistic(x[i]);
        out[i] = x[i] * s;
    }
}

/* SiLU of v in place (a convolution's fused epilogue: nnapi_host_float.c): the same float32
 * operations per element as silu_range, so the same values. */
NNAPI_HOST_CLONES void nnapi_host_silu_in_place(float *v, int64_t n) {
#pragma GCC unroll 4
    for (int64_t i = 0; i < n; ++i) {
        float x = v[i];
        float s = logistic(x);
        v[i] = x * s;
    }
}

/* HARD_SWISH of v in place (a convolution's fused epilogue): x * min(max(x + 3, 0), 6) / 6 in
 * float32, the operations in the order PyTorch's hardswish kernel (the host driver's float
 * HARD_SWISH) performs them; NaN stays NaN. */
NNAPI_HOST_CLONES void nnapi_host_hard_swish_in_place(float *v, int64_t n) {
#pragma GCC unroll 4
    for (int64_t i = 0; i < n; ++i) {
        float x = v[i];
        float t = x + 3.0f;
        t = t < 0.0f ? 0.0f : t;
        t = t > 6.0f ? 6.0f : t;
        v[i] = x * t / 6.0f;
    }
}

/* out[i] = act(a[i] OP b[i % period]): period == n for two tensors of one shape, the row's
 * length when b is one row broadcast over a. */
#define BINARY_RANGE(NAME, OP)                                                                                   \
    NNAPI_HOST_CLONES static void NAME(const float *restrict a, const float *restrict b, int64_t begin,          \
                                       int64_t end, int64_t period, int32_t act, float *restrict out) {          \
        if (period == 1) { /* a single value broadcast */                                                      \
            const float value = b[0];                                                                            \
            for (int64_t t = begin; t < end; ++t) out[t] = activate(a[t] OP value, act);                         \
            return;                                                                                              \
        }                                                                                                        \
        int64_t i = begin;                                                                                       \
        while (i < end) {                                                                                        \
            int64_t k = i % period, len = end - i < period - k ? end - i : period - k;                           \
            const float *ai = a + i, *bk = b + k;                                                                \
            float *oi = out + i;                                                                                 \
            switch (act) {                                                                                       \
            case 0:                                                                                              \
                for (int64_t t = 0; t < len; ++t) oi[t] = ai[t] OP bk[t];                                        \
                break;                                                                                           \
            case 1:                                                                                              \
                for (int64_t t = 0; t < len; ++t) oi[t] = activate(ai[t] OP bk[t], 1);                           \
                break;                                                                                           \
            case 2:                                                                                              \
                for (int64_t t = 0; t < len; ++t) oi[t] = activate(ai[t] OP bk[t], 2);                           \
                break;                                                                                           \
            default:                                                                                             \
                for (int64_t t = 0; t < len; ++t) oi[t] = activate(ai[t] OP bk[t], 3);                           \
                break;                                                                                           \
            }                                                                                                    \
            i += len;                                                                                            \
        }                                                                                                        \
    }

BINARY_RANGE(mul_range, *)
BINARY_RANGE(add_range, +)

enum { LOGISTIC = 0, SILU = 1, MUL = 2, ADD = 3 };

typedef struct {
    int32_t kind, act;
    const float *a, *b;
    int64_t n, period;
    float *out;
} ElementwiseJob;

static void elementwise_chunks(void *ctx, int64_t first, int64_t last, int32_t worker) {
    const ElementwiseJob *j = (const ElementwiseJob *)ctx;
    (void)worker;
    int64_t begin = first * CHUNK, end = last * CHUNK < j->n ? last * CHUNK : j->n;
    if (j->kind == LOGISTIC) {
        logistic_range(j->a + begin, end - begin, j->out + begin);
    } else if (j->kind == SILU) {
        silu_range(j->a + begin, end - begin, j->out + begin);
    } else if (j->kind == MUL) {
        mul_range(j->a, j->b, begin, end, j->period, j->act, j->out);
    } else {
        add_range(j->a, j->b, begin, end, j->period, j->act, j->out);
    }
}

static void run(ElementwiseJob *job) {
    nnapi_host_parallel(elementwise_chunks, job, (job->n + CHUNK - 1) / CHUNK, 1, 0);
}

/* out = 1 / (1 + exp(-x)), n elements. */
NNAPI_HOST_EXPORT void nnapi_host_float_logistic(const float *x, int64_t n, float *out) {
    ElementwiseJob job = {LOGISTIC, 0, x, 0, n, n, out};
    run(&job);
}

/* out = x * (1 / (1 + exp(-x))), the logistic rounded to float32 first. */
NNAPI_HOST_EXPORT void nnapi_host_float_silu(const float *x, int64_t n, float *out) {
    ElementwiseJob job = {SILU, 0, x, 0, n, n, out};
    run(&job);
}

/* MUL or ADD of n elements: -1 for an activation code other than NNAPI's 0-3 or a period that
 * does not divide n. */
static int32_t binary(int32_t kind, const float *a, const float *b, int64_t n, int64_t period, int32_t act,
                      float *out) {
    if (act < 0 || act > 3 || period <= 0 || n % period != 0) return -1;
    ElementwiseJob job = {kind, act, a, b, n, period, out};
    run(&job);
    return 0;
}

/* out[i] = act(a[i] * b[i % period]) for n elements (period: n, or the length of b's one row);
 * act: NNAPI's fused activation code 0-3. Returns -1 for another code or a period that does not
 * divide n. */
NNAPI_HOST_EXPORT int32_t nnapi_host_float_mul(const float *a, const float *b, int64_t n, int64_t period, int32_t act,
                                               float *out) {
    return binary(MUL, a, b, n, period, act, out);
}

/* out[i] = act(a[i] + b[i % period]), as nnapi_host_float_mul. */
NNAPI_HOST_EXPORT int32_t nnapi_host_float_add(const float *a, const float *b, int64_t n, int64_t period, int32_t act,
                                               float *out) {
    return binary(ADD, a, b, n, period, act, out);
}

/* -- MEAN over the middle dims of [batches, rows, channels] ------------------------------------------
 * out[b][c] = (float)(sum over r of (double)x[b][r][c] / rows): each sum in float64 in row order
 * (exact to float64's rounding, whichever thread computes the block), one rounding to float32 at
 * the end: within one float32 rounding of the exact mean, where torch's float32 sums are within a
 * few. Items are blocks of MEAN_BLOCK channels of one batch. */
#define MEAN_BLOCK 64

typedef struct {
    const float *x;
    int64_t rows, channels, blocks;
    float *out;
} MeanJob;

NNAPI_HOST_CLONES static void mean_block(const float *restrict x, int64_t rows, int64_t channels, int64_t width,
                                         float *restrict out) {
    double sums[MEAN_BLOCK] = {0};
    for (int64_t r = 0; r < rows; ++r) {
        const float *row = x + r * channels;
        for (int64_t c = 0; c < width; ++c) sums[c] += (double)row[c];
    }
    for (int64_t c = 0; c < width; ++c) out[c] = (float)(sums[c] / (double)rows);
}

static void mean_blocks(void *ctx, int64_t first, int64_t last, int32_t worker) {
    const MeanJob *j = (const MeanJob *)ctx;
    (void)worker;
    for (int64_t item = first; item < last; ++item) {
        int64_t b = item / j->blocks, c0 = (item % j->blocks) * MEAN_BLOCK;
        int64_t width = j->channels - c0 < MEAN_BLOCK ? j->channels - c0 : MEAN_BLOCK;
        mean_block(j->x + b * j->rows * j->channels + c0, j->rows, j->channels, width, j->out + b * j->channels + c0);
    }
}

NNAPI_HOST_EXPORT void nnapi_host_float_mean(const float *x, int64_t batches, int64_t rows, int64_t channels,
                                             float *out) {
    if (batches <= 0 || rows <= 0 || channels <= 0) return;
    MeanJob job = {x, rows, channels, (channels + MEAN_BLOCK - 1) / MEAN_BLOCK, out};
    /* Items of about CHUNK elements; a small mean stays on the caller. */
    int64_t per_item = rows * (channels < MEAN_BLOCK ? channels : MEAN_BLOCK);
    int64_t grain = per_item >= CHUNK ? 1 : CHUNK / per_item;
    nnapi_host_parallel(mean_blocks, &job, batches * job.blocks, grain, 0);
}
