/* The float32 loops of the host driver's float path (host_driver/operations/_float_fast.py): a
 * matrix product with packed weights (1x1 NHWC convolutions, FULLY_CONNECTED, other convolutions
 * over their unrolled taps) and an NHWC depthwise convolution, each with its bias and fused
 * activation applied as the results are written.
 *
 * Every output is one chain of float32 multiply-adds in a fixed order (k ascending; taps ky, kx
 * ascending), started from 0, then + bias, then the activation's clamp: it does not depend on the
 * blocking or on which thread computes it, so the bytes do not depend on the thread count. The
 * AVX-512 versions fuse each multiply-add (explicit FMA: the library is built with
 * -ffp-contract=off), as the AVX2 ones (nnapi_host_float_avx2.c, the same bits); the plain C versions round the product and the sum apart, so the two may
 * differ in the last bits, but a machine always takes the same one.
 *
 * Packed weights: [ceil(N / 16)][K][16] float32, zero-filled past N (one 64-byte vector holds one
 * k of sixteen output channels); bias: ceil(N / 16) * 16 float32, zero-filled.
 */
#include <stdint.h>
#include <string.h>

#include "nnapi_host_kernels.h"
#include "nnapi_host_elementwise.h"
#include "nnapi_host_float_avx2.h"
#include "nnapi_host_threads.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define NNAPI_HOST_HAS_X86 1
#endif

#define NNAPI_HOST_EXPORT __attribute__((visibility("default")))
#define LANES 16     /* output channels per packed block */
#define TILE_ROWS 6  /* rows per register block of the AVX-512 product (6 x 2 accumulators) */
#define CHUNK_ROWS 48 /* rows per parallel item: their activations stay in L2 across column blocks */

/* The fused activation's bounds: a NaN stays a NaN (the comparisons keep the value). */
static inline float clamp_plain(float v, float lo, float hi) {
    v = lo > v ? lo : v;
    return hi < v ? hi : v;
}

typedef struct {
    const float *a;       /* [m, k] */
    const float *packed;  /* see above */
    const float *bias;    /* padded, or NULL */
    float *out;           /* [m, n] */
    int64_t m, k, n;
    int64_t col_groups, blocks_per_group;
    float lo, hi;
    int32_t avx512, avx2; /* the AVX-512 loops, or those of nnapi_host_float_avx2.c */
    const int64_t *unroll; /* NULL, or a convolution's geometry: rows are its taps (unroll_taps) */
    float *rows;           /* with unroll: CHUNK_ROWS * k floats per worker */
    int32_t epilogue;      /* NNAPI_HOST_EPILOGUE_*: applied to each item's results while in cache */
} FloatGemmJob;

/* The epilogue on rows [r0, r0 + rows) x columns [c0, c1) of out (row length n). */
static void apply_epilogue(int32_t epilogue, float *out, int64_t n, int64_t r0, int64_t rows, int64_t c0,
                           int64_t c1) {
    void (*activate)(float *, int64_t) = epilogue == NNAPI_HOST_EPILOGUE_SILU         ? nnapi_host_silu_in_place
                                         : epilogue == NNAPI_HOST_EPILOGUE_HARD_SWISH ? nnapi_host_hard_swish_in_place
                                                                                      : NULL;
    if (activate == NULL || c1 <= c0) return;
    for (int64_t r = r0; r < r0 + rows; ++r) activate(out + r * n + c0, c1 - c0);
}

/* An image's few channels: no library call for a dozen bytes. */
static inline void copy_floats(float *dst, const float *src, int64_t count) {
    if (count < 16) {
        for (int64_t t = 0; t < count; ++t) dst[t] = src[t];
    } else {
        memcpy(dst, src, (size_t)count * sizeof(float));
    }
}

#ifdef NNAPI_HOST_HAS_X86
/* The same with masked vectors (a scalar loop of 9 floats costs as much as their products). */
__attribute__((target("avx512f"))) static inline void copy_floats_avx512(float *dst, const float *src,
                                                                         int64_t count) {
    for (int64_t t = 0; t < count; t += LANES) {
        __mmask16 mask = count - t < LANES ? (__mmask16)((1u << (count - t)) - 1u) : (__mmask16)0xffff;
        _mm512_mask_storeu_ps(dst + t, mask, _mm512_maskz_loadu_ps(mask, src + t));
    }
}
#endif

/* Rows [m0, m0 + count) of a convolution's unrolled taps: row m is output pixel m of the NHWC
 * input x, its kh * kw taps of c values each in (ky, kx, c) order, out-of-image taps 0.
 * geometry: {n, h, w, c, kh, kw, stride_h, stride_w, dilation_h, dilation_w, pad_top, pad_left,
 * oh, ow}. */
typedef void (*copy_fn)(float *dst, const float *src, int64_t count);

static inline __attribute__((always_inline)) void unroll_taps_with(copy_fn copy, const float *x, const int64_t *g,
                                                                   int64_t m0, int64_t count, float *rows) {
    int64_t h = g[1], w = g[2], c = g[3], kh = g[4], kw = g[5], oh = g[12], ow = g[13];
    int64_t b = m0 / (oh * ow), oy = m0 / ow % oh, ox = m0 % ow - 1;
    for (int64_t r = 0; r < count; ++r) {
        if (++ox == ow) { /* the next pixel without a division */
            ox = 0;
            if (++oy == oh) oy = 0, ++b;
        }
        float *dst = rows + r * kh * kw * c;
        int64_t x0 = ox * g[7] - g[11];
        /* Undilated taps of a row all inside the image lie side by side: one copy of kw * c. */
        int64_t span = g[9] == 1 && x0 >= 0 && x0 + kw <= w ? kw * c : 0;
        for (int64_t ky = 0; ky < kh; ++ky) {
            int64_t iy = oy * g[6] - g[10] + ky * g[8];
            if (span && iy >= 0 && iy < h) {
                copy(dst, x + ((b * h + iy) * w + x0) * c, span);
                dst += span;
                continue;
            }
            for (int64_t kx = 0; kx < kw; ++kx, dst += c) {
                int64_t ix = x0 + kx * g[9];
                if (iy >= 0 && iy < h && ix >= 0 && ix < w) {
                    copy(dst, x + ((b * h + iy) * w + ix) * c, c);
                } else {
                    for (int64_t t = 0; t < c; ++t) dst[t] = 0.0f;
                }
            }
        }
    }
}

static void unroll_taps(const float *x, const int64_t *g, int64_t m0, int64_t count, float *rows) {
    unroll_taps_with(copy_floats, x, g, m0, count, rows);
}

#ifdef NNAPI_HOST_HAS_X86
__attribute__((target("avx512f"))) static void unroll_taps_avx512(const float *x, const int64_t *g, int64_t m0,
                                                                  int64_t count, float *rows) {
    unroll_taps_with(copy_floats_avx512, x, g, m0, count, rows);
}
#endif

/* Rows [r0, r0 + rows) and column blocks [b0, b1) in plain C. */
static void gemm_plain(const FloatGemmJob *j, int64_t r0, int64_t rows, int64_t b0, int64_t b1) {
    int64_t k = j->k, n = j->n;
    for (int64_t b = b0; b < b1; ++b) {
        const float *w = j->packed + b * k * LANES;
        int64_t width = n - b * LANES < LANES ? n - b * LANES : LANES;
        for (int64_t r = r0; r < r0 + rows; ++r) {
            const float *row = j->a + r * k;
            float acc[LANES] = {0};
            for (int64_t t = 0; t < k; ++t) {
                float x = row[t];
                for (int l = 0; l < LANES; ++l) acc[l] += x * w[t * LANES + l];
            }
            float *dst = j->out + r * n + b * LANES;
            for (int64_t l = 0; l < width; ++l) {
                float v = j->bias ? acc[l] + j->bias[b * LANES + l] : acc[l];
                dst[l] = clamp_plain(v, j->lo, j->hi);
            }
        }
    }
}

#ifdef NNAPI_HOST_HAS_X86
__attribute__((target("avx512f,fma"))) static inline void store_block(const FloatGemmJob *j, __m512 acc, int64_t r,
                                                                       int64_t b) {
    int64_t width = j->n - b * LANES < LANES ? j->n - b * LANES : LANES;
    if (j->bias) acc = _mm512_add_ps(acc, _mm512_loadu_ps(j->bias + b * LANES));
    /* max(lo, v) / min(hi, v) return v when v is a NaN (the second operand). */
    acc = _mm512_min_ps(_mm512_set1_ps(j->hi), _mm512_max_ps(_mm512_set1_ps(j->lo), acc));
    _mm512_mask_storeu_ps(j->out + r * j->n + b * LANES, (__mmask16)((1u << width) - 1u), acc);
}

/* One row by up to eight column blocks (missing blocks repeat the last, unstored): eight
 * independent sums keep the FMA units busy where one row would leave them waiting (a
 * FULLY_CONNECTED of one row; the same chain of each sum as the tile below). */
__attribute__((target("avx512f,fma"))) static void gemm_row_avx512(const FloatGemmJob *j, int64_t r, int64_t b0,
                                                                    int64_t b1) {
    int64_t k = j->k;
    const float *row = j->a + r * k;
    for (int64_t b = b0; b < b1; b += 8) {
        int64_t count = b1 - b < 8 ? b1 - b : 8;
        const float *w[8];
        for (int64_t q = 0; q < 8; ++q) w[q] = j->packed + (b + (q < count ? q : count - 1)) * k * LANES;
        __m512 s0 = _mm512_setzero_ps(), s1 = s0, s2 = s0, s3 = s0, s4 = s0, s5 = s0, s6 = s0, s7 = s0;
        for (int64_t t = 0; t < k; ++t) {
            __m512 a = _mm512_set1_ps(row[t]);
            int64_t o = t * LANES;
            s0 = _mm512_fmadd_ps(a, _mm512_loadu_ps(w[0] + o), s0);
            s1 = _mm512_fmadd_ps(a, _mm512_loadu_ps(w[1] + o), s1);
            s2 = _mm512_fmadd_ps(a, _mm512_loadu_ps(w[2] + o), s2);
            s3 = _mm512_fmadd_ps(a, _mm512_loadu_ps(w[3] + o), s3);
            s4 = _mm512_fmadd_ps(a, _mm512_loadu_ps(w[4] + o), s4);
            s5 = _mm512_fmadd_ps(a, _mm512_loadu_ps(w[5] + o), s5);
            s6 = _mm512_fmadd_ps(a, _mm512_loadu_ps(w[6] + o), s6);
            s7 = _mm512_fmadd_ps(a, _mm512_loadu_ps(w[7] + o), s7);
        }
        __m512 sums[8] = {s0, s1, s2, s3, s4, s5, s6, s7};
        for (int64_t q = 0; q < count; ++q) store_block(j, sums[q], r, b + q);
    }
}

/* TILE_ROWS rows (fewer at the end: missing rows repeat the first, unstored) by two column blocks
 * (or one at the end). */
__attribute__((target("avx512f,fma"))) static void gemm_avx512(const FloatGemmJob *j, int64_t r0, int64_t rows,
                                                                int64_t b0, int64_t b1) {
    int64_t k = j->k;
    for (int64_t b = b0; b < b1; b += 2) {
        int pair = b + 1 < b1;
        const float *w0 = j->packed + b * k * LANES;
        const float *w1 = pair ? w0 + k * LANES : w0;
        for (int64_t t0 = r0; t0 < r0 + rows; t0 += TILE_ROWS) {
            int64_t height = r0 + rows - t0 < TILE_ROWS ? r0 + rows - t0 : TILE_ROWS;
            if (height == 1) {
                gemm_row_avx512(j, t0, b, pair ? b + 2 : b + 1);
                continue;
            }
            const float *row[TILE_ROWS];
            for (int64_t r = 0; r < TILE_ROWS; ++r) row[r] = j->a + (t0 + (r < height ? r : 0)) * k;
            __m512 c00 = _mm512_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00;
            __m512 c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
            for (int64_t t = 0; t < k; ++t) {
                __m512 x0 = _mm512_loadu_ps(w0 + t * LANES), x1 = _mm512_loadu_ps(w1 + t * LANES);
                __m512 a;
#define ROW(R)                                       \
    a = _mm512_set1_ps(row[R][t]);                   \
    c##R##0 = _mm512_fmadd_ps(a, x0, c##R##0);       \
    c##R##1 = _mm512_fmadd_ps(a, x1, c##R##1);
                ROW(0) ROW(1) ROW(2) ROW(3) ROW(4) ROW(5)
#undef ROW
            }
            __m512 first[TILE_ROWS] = {c00, c10, c20, c30, c40, c50};
            __m512 second[TILE_ROWS] = {c01, c11, c21, c31, c41, c51};
            for (int64_t r = 0; r < height; ++r) {
                store_block(j, first[r], t0 + r, b);
                if (pair) store_block(j, second[r], t0 + r, b + 1);
            }
        }
    }
}
#endif

/* Items: (chunk of CHUNK_ROWS rows) x (group of column blocks). */
static void gemm_items(void *ctx, int64_t first, int64_t last, int32_t worker) {
    const FloatGemmJob *job = (const FloatGemmJob *)ctx;
    int64_t blocks = (job->n + LANES - 1) / LANES;
    for (int64_t item = first; item < last; ++item) {
        int64_t chunk = item / job->col_groups, group = item % job->col_groups;
        int64_t r0 = chunk * CHUNK_ROWS, rows = job->m - r0 < CHUNK_ROWS ? job->m - r0 : CHUNK_ROWS;
        int64_t b0 = group * job->blocks_per_group;
        int64_t b1 = b0 + job->blocks_per_group < blocks ? b0 + job->blocks_per_group : blocks;
        const FloatGemmJob *j = job;
        FloatGemmJob local;
        if (job->unroll) { /* this chunk's taps, then the product of rows [0, rows) of them */
            local = *job;
            local.a = job->rows + (int64_t)worker * CHUNK_ROWS * job->k;
            local.out = job->out + r0 * job->n;
#ifdef NNAPI_HOST_HAS_X86
            if (job->avx512) {
                unroll_taps_avx512(job->a, job->unroll, r0, rows, (float *)local.a);
            } else
#endif
            {
                unroll_taps(job->a, job->unroll, r0, rows, (float *)local.a);
            }
            r0 = 0;
            j = &local;
        }
#ifdef NNAPI_HOST_HAS_X86
        if (j->avx512 && rows == 1) {
            gemm_row_avx512(j, r0, b0, b1);
        } else if (j->avx512) {
            gemm_avx512(j, r0, rows, b0, b1);
        } else
#endif
        if (j->avx2) {
            nnapi_host_float_gemm_avx2(j->a, j->k, j->n, j->packed, j->bias, j->lo, j->hi, j->out, r0, rows, b0, b1);
        } else {
            gemm_plain(j, r0, rows, b0, b1);
        }
        apply_epilogue(j->epilogue, j->out, j->n, r0, rows, b0 * LANES, b1 * LANES < j->n ? b1 * LANES : j->n);
    }
}

/* Whether this machine runs the AVX-512 float loops. */
NNAPI_HOST_EXPORT int32_t nnapi_host_float_avx512(void) {
#ifdef NNAPI_HOST_HAS_X86
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma");
#else
    return 0;
#endif
}

/* Whether this machine runs the AVX2 float loops (what it runs without AVX-512). */
NNAPI_HOST_EXPORT int32_t nnapi_host_float_avx2(void) { return nnapi_host_float_avx2_supported(); }

/* loops: 0 the plain C ones; 1 AVX-512's where the machine has it, else AVX2's where it has those;
 * 2 AVX2's where it has them. Sets the job's avx512 and avx2. */
static void choose_loops(int32_t loops, int32_t *avx512, int32_t *avx2) {
    *avx512 = loops == 1 && nnapi_host_float_avx512();
    *avx2 = loops >= 1 && !*avx512 && nnapi_host_float_avx2_supported();
}


/* The product (see nnapi_host_float_gemm), its rows unrolled when `unroll` is given. */
static void float_gemm(const float *a, int64_t m, int64_t k, int64_t n, const float *packed, const float *bias,
                       float lo, float hi, int32_t loops, const int64_t *unroll, float *rows, int32_t slots,
                       int32_t epilogue, float *out) {
    int64_t blocks = (n + LANES - 1) / LANES, chunks = (m + CHUNK_ROWS - 1) / CHUNK_ROWS;
    /* Few rows (a FULLY_CONNECTED, a 7 x 7 image): split the columns too, in even pairs of blocks
     * (eights for one row). */
    int64_t group_blocks = m == 1 ? 8 : 4;
    int64_t col_groups = chunks >= 8 ? 1 : (blocks + group_blocks - 1) / group_blocks;
    int64_t per_group = (blocks + col_groups - 1) / col_groups;
    per_group += per_group & 1;
    col_groups = (blocks + per_group - 1) / per_group;
    FloatGemmJob job = {a, packed, bias, out, m, k, n, col_groups, per_group, lo, hi, 0, 0, unroll, rows, epilogue};
    choose_loops(loops, &job.avx512, &job.avx2);
    int64_t items = chunks * col_groups;
    /* A job of a few thousand multiply-adds costs less than waking a thread. */
    int32_t workers = m * k * n < (1 << 16) ? 1 : slots;
    nnapi_host_parallel(gemm_items, &job, items, 1, workers);
}

/* out[m][n] = clamp(sum over t of a[m][t] * w[n][t] + bias[n], lo, hi) with w packed as above,
 * then the epilogue (NNAPI_HOST_EPILOGUE_*); bias: padded, or NULL. loops: as choose_loops'. */
NNAPI_HOST_EXPORT void nnapi_host_float_gemm(const float *a, int64_t m, int64_t k, int64_t n, const float *packed,
                                             const float *bias, float lo, float hi, int32_t loops,
                                             int32_t epilogue, float *out) {
    float_gemm(a, m, k, n, packed, bias, lo, hi, loops, NULL, NULL, 0, epilogue, out);
}

/* An ungrouped NHWC convolution of x as the same product over its unrolled taps (k = kh * kw * c
 * in (ky, kx, c) order, m = n * oh * ow; out-of-image taps 0), made CHUNK_ROWS rows at a time in
 * `rows` (slots * CHUNK_ROWS * k floats: the threads' scratch, at most `slots` threads). */
NNAPI_HOST_EXPORT void nnapi_host_float_conv(const float *x, const int64_t *geometry, int64_t n, const float *packed,
                                             const float *bias, float lo, float hi, int32_t loops, float *rows,
                                             int32_t slots, int32_t epilogue, float *out) {
    const int64_t *g = geometry;
    float_gemm(x, g[0] * g[12] * g[13], g[3] * g[4] * g[5], n, packed, bias, lo, hi, loops, geometry, rows,
               slots < 1 ? 1 : slots, epilogue, out);
}

/* -- NHWC depthwise convolution, depth multiplier 1 ------------------------------------------------ */
typedef struct {
    const float *x, *w, *bias; /* x [n, h, w, c]; w [kh, kw, c]; bias [c] or NULL */
    float *out;                /* [n, oh, ow, c] */
    const int64_t *g; /* {n, h, w, c, kh, kw, stride_h, stride_w, dilation_h, dilation_w, pad_top, pad_left, oh, ow} */
    float lo, hi;
    int32_t avx512, avx2;
    int32_t epilogue; /* NNAPI_HOST_EPILOGUE_*, applied to each output row */
} DepthwiseJob;

static void depthwise_row_plain(const DepthwiseJob *j, int64_t b, int64_t oy) {
    const int64_t *g = j->g;
    int64_t h = g[1], w = g[2], c = g[3], kh = g[4], kw = g[5], ow = g[13];
    float *dst = j->out + ((b * g[12] + oy) * ow) * c;
    for (int64_t ox = 0; ox < ow; ++ox) {
        for (int64_t ch = 0; ch < c; ++ch) {
            float acc = 0.0f;
            for (int64_t ky = 0; ky < kh; ++ky) {
                int64_t iy = oy * g[6] - g[10] + ky * g[8];
                if (iy < 0 || iy >= h) continue;
                for (int64_t kx = 0; kx < kw; ++kx) {
                    int64_t ix = ox * g[7] - g[11] + kx * g[9];
                    if (ix < 0 || ix >= w) continue;
                    acc += j->x[((b * h + iy) * w + ix) * c + ch] * j->w[(ky * kw + kx) * c + ch];
                }
            }
            float v = j->bias ? acc + j->bias[ch] : acc;
            dst[ox * c + ch] = clamp_plain(v, j->lo, j->hi);
        }
    }
}

#ifdef NNAPI_HOST_HAS_X86
/* Bias and activation of one vector of results, stored. */
__attribute__((target("avx512f,fma"))) static inline void depthwise_store(const DepthwiseJob *j, __m512 acc,
                                                                          int64_t c0, __mmask16 mask, float *o) {
    if (j->bias) acc = _mm512_add_ps(acc, _mm512_maskz_loadu_ps(mask, j->bias + c0));
    acc = _mm512_min_ps(_mm512_set1_ps(j->hi), _mm512_max_ps(_mm512_set1_ps(j->lo), acc));
    _mm512_mask_storeu_ps(o + c0, mask, acc);
}

/* Sixteen channels at a time, the same taps in the same order as the plain loop; pixel by pixel
 * (four at a time where all their taps are inside the row, sharing each weight load), all
 * channels of a pixel before the next (the rows read stay in L1). */
__attribute__((target("avx512f,fma"))) static void depthwise_row_avx512(const DepthwiseJob *j, int64_t b,
                                                                        int64_t oy) {
    const int64_t *g = j->g;
    int64_t h = g[1], w = g[2], c = g[3], kh = g[4], kw = g[5], ow = g[13];
    int64_t sw = g[7], dh = g[8], dw = g[9], left = g[11];
    float *dst = j->out + ((b * g[12] + oy) * ow) * c;
    const float *xb = j->x + b * h * w * c;
    /* The filter rows inside the image for this output row. */
    int64_t top = oy * g[6] - g[10], ky0 = 0, ky1 = kh;
    while (ky0 < kh && top + ky0 * dh < 0) ++ky0;
    while (ky1 > ky0 && top + (ky1 - 1) * dh >= h) --ky1;
    int64_t whole = c / LANES * LANES;
    __mmask16 tail = (__mmask16)((1u << (c - whole)) - 1u);
    for (int64_t ox = 0; ox < ow;) {
        int64_t x0 = ox * sw - left;
        float *o = dst + ox * c;
        if (ox + 4 <= ow && x0 >= 0 && x0 + 3 * sw + (kw - 1) * dw < w) {
            for (int64_t c0 = 0; c0 < c; c0 += LANES) {
                __mmask16 mask = c0 < whole ? (__mmask16)0xffff : tail;
                __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
                for (int64_t ky = ky0; ky < ky1; ++ky) {
                    const float *xrow = xb + ((top + ky * dh) * w + x0) * c + c0;
                    const float *wrow = j->w + ky * kw * c + c0;
                    for (int64_t kx = 0; kx < kw; ++kx) {
                        __m512 wv = _mm512_maskz_loadu_ps(mask, wrow + kx * c);
                        const float *xp = xrow + kx * dw * c;
                        a0 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(mask, xp), wv, a0);
                        a1 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(mask, xp + sw * c), wv, a1);
                        a2 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(mask, xp + 2 * sw * c), wv, a2);
                        a3 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(mask, xp + 3 * sw * c), wv, a3);
                    }
                }
                depthwise_store(j, a0, c0, mask, o);
                depthwise_store(j, a1, c0, mask, o + c);
                depthwise_store(j, a2, c0, mask, o + 2 * c);
                depthwise_store(j, a3, c0, mask, o + 3 * c);
            }
            ox += 4;
            continue;
        }
        int64_t kx0 = 0, kx1 = kw;
        while (kx0 < kw && x0 + kx0 * dw < 0) ++kx0;
        while (kx1 > kx0 && x0 + (kx1 - 1) * dw >= w) --kx1;
        for (int64_t c0 = 0; c0 < c; c0 += LANES) {
            __mmask16 mask = c0 < whole ? (__mmask16)0xffff : tail;
            __m512 acc = _mm512_setzero_ps();
            for (int64_t ky = ky0; ky < ky1; ++ky) {
                const float *xrow = xb + ((top + ky * dh) * w + x0) * c + c0;
                const float *wrow = j->w + ky * kw * c + c0;
                for (int64_t kx = kx0; kx < kx1; ++kx) {
                    acc = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(mask, xrow + kx * dw * c),
                                          _mm512_maskz_loadu_ps(mask, wrow + kx * c), acc);
                }
            }
            depthwise_store(j, acc, c0, mask, o);
        }
        ox += 1;
    }
}
#endif

static void depthwise_rows(void *ctx, int64_t first, int64_t last, int32_t worker) {
    (void)worker;
    const DepthwiseJob *j = (const DepthwiseJob *)ctx;
    int64_t row = j->g[13] * j->g[3]; /* ow * c values per output row */
    for (int64_t r = first; r < last; ++r) {
        int64_t b = r / j->g[12], oy = r % j->g[12];
#ifdef NNAPI_HOST_HAS_X86
        if (j->avx512) {
            depthwise_row_avx512(j, b, oy);
        } else
#endif
        if (j->avx2) {
            nnapi_host_float_depthwise_row_avx2(j->x, j->w, j->bias, j->lo, j->hi, j->g, b, oy, j->out);
        } else {
            depthwise_row_plain(j, b, oy);
        }
        apply_epilogue(j->epilogue, j->out + r * row, row, 0, 1, 0, row);
    }
}

/* An NHWC depthwise convolution (multiplier 1) of float32 x with w [kh, kw, c]; out-of-image taps
 * add nothing; geometry as DepthwiseJob's g. Output rows are split over the pool. */
NNAPI_HOST_EXPORT void nnapi_host_float_depthwise(const float *x, const int64_t *geometry, const float *w,
                                                  const float *bias, float lo, float hi, int32_t loops,
                                                  int32_t epilogue, float *out) {
    DepthwiseJob job = {x, w, bias, out, geometry, lo, hi, 0, 0, epilogue};
    choose_loops(loops, &job.avx512, &job.avx2);
    int64_t rows = geometry[0] * geometry[12];
    int64_t macs = rows * geometry[13] * geometry[3] * geometry[4] * geometry[5];
    nnapi_host_parallel(depthwise_rows, &job, rows, 1, macs < (1 << 16) ? 1 : 0);
}
