/* One-pass loops of the host driver's prepared 8-bit kernels (host_driver/operations/_native.py).
 *
 * Each computes, element by element, what a sequence of torch passes of the driver computes
 * (host_driver/operations/_qfast.py), in the same IEEE operations, so that a convolution's
 * requantization, a table lookup or a QUANTIZE reads its input once and writes its codes once
 * instead of making five to twelve passes over float64 temporaries. The driver proves or tests
 * each result equal to its reference kernels; nothing here decides a rounding of its own.
 *
 * Built with -ffp-contract=off: a fused multiply-add would round once where the proved float64
 * expression rounds twice. On x86-64 each loop is compiled for AVX-512, AVX2 and the baseline,
 * chosen when the library is loaded.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "nnapi_host_kernels.h"
#include "nnapi_host_common.h"
#include "nnapi_host_depthwise_avx2.h"
#include "nnapi_host_depthwise_vnni.h"
#include "nnapi_host_requantize.h"
#include "nnapi_host_threads.h"

/* -- requantization of convolution accumulators ---------------------------------------------------
 * codes = clamp(floor(acc * r + c [+ or - half by the side of threshold]), lo, hi) ^ xor_mask,
 * the expression of _qfast.Requantizer.codes: y = (double)acc; y = y * r; y = y + c; then
 * y + half where acc > threshold, y - half below (threshold is a half-integer: never equal).
 * Clamping before the truncating conversion is the same as flooring then clamping because
 * lo >= 0 and hi are integers; with int_clamp (the requantizer's int32_clamp: every y of the
 * accumulators' domain is within int32) the conversion comes first and the clamp is on int32,
 * half the vector operations of a float64 clamp.
 */
static inline uint8_t requantize_one(double a, double r, double c, double threshold, double half, int branch,
                                     int int_clamp, int32_t lo, int32_t hi, uint8_t xor_mask) {
    double y = a * r;
    y = y + c;
    if (branch) {
        y = y + (a > threshold ? half : -half);
    }
    if (!int_clamp) {
        y = y < (double)lo ? (double)lo : y;
        y = y > (double)hi ? (double)hi : y;
    }
    int32_t v = (int32_t)y;
    v = v < lo ? lo : v;
    v = v > hi ? hi : v;
    return (uint8_t)((uint8_t)v ^ xor_mask);
}

typedef void (*requantize_loop)(const void *acc, int64_t outer, int64_t channels, int64_t inner, int64_t repeat,
                                const double *r, const double *c, const double *threshold, const double *half,
                                int32_t lo, int32_t hi, uint8_t xor_mask, uint8_t *out);

/* Channels innermost (inner == 1): rows of `channels` codes. The constants hold `repeat` copies
 * of the per-channel values, so that the inner loop runs over repeat * channels elements (long
 * enough to vectorize when there are few channels); the rows left over use the first copy.
 * Channels outside (inner > 1, NCHW): one channel's constants per run of `inner` elements. */
#define REQUANTIZE_LOOPS(SUFFIX, ACC_T, BRANCH, INT_CLAMP)                                                 \
    NNAPI_HOST_CLONES static void rows_##SUFFIX(const void *acc_, int64_t rows, int64_t channels,           \
                                                int64_t inner, int64_t repeat, const double *restrict r,    \
                                                const double *restrict c, const double *restrict threshold, \
                                                const double *restrict half, int32_t lo, int32_t hi,        \
                                                uint8_t xor_mask, uint8_t *restrict out) {                  \
        const ACC_T *restrict acc = (const ACC_T *)acc_;                                                   \
        (void)inner;                                                                                       \
        int64_t period = channels * repeat, blocks = rows / repeat;                                        \
        for (int64_t b = 0; b < blocks; ++b) {                                                             \
            const ACC_T *a = acc + b * period;                                                             \
            uint8_t *o = out + b * period;                                                                 \
            for (int64_t k = 0; k < period; ++k) {                                                         \
                o[k] = requantize_one((double)a[k], r[k], c[k], BRANCH ? threshold[k] : 0.0,               \
                                      BRANCH ? half[k] : 0.0, BRANCH, INT_CLAMP, lo, hi, xor_mask);        \
            }                                                                                              \
        }                                                                                                  \
        for (int64_t row = blocks * repeat; row < rows; ++row) {                                           \
            const ACC_T *a = acc + row * channels;                                                         \
            uint8_t *o = out + row * channels;                                                             \
            for (int64_t k = 0; k < channels; ++k) {                                                       \
                o[k] = requantize_one((double)a[k], r[k], c[k], BRANCH ? threshold[k] : 0.0,               \
                                      BRANCH ? half[k] : 0.0, BRANCH, INT_CLAMP, lo, hi, xor_mask);        \
            }                                                                                              \
        }                                                                                                  \
    }                                                                                                      \
    NNAPI_HOST_CLONES static void planes_##SUFFIX(const void *acc_, int64_t outer, int64_t channels,        \
                                                  int64_t inner, int64_t repeat, const double *restrict r,  \
                                                  const double *restrict c, const double *restrict threshold, \
                                                  const double *restrict half, int32_t lo, int32_t hi,      \
                                                  uint8_t xor_mask, uint8_t *restrict out) {                \
        const ACC_T *restrict acc = (const ACC_T *)acc_;                                                   \
        (void)repeat;                                                                                      \
        for (int64_t o = 0; o < outer; ++o) {                                                              \
            for (int64_t ch = 0; ch < channels; ++ch) {                                                    \
                int64_t base = (o * channels + ch) * inner;                                                \
                double rc = r[ch], cc = c[ch];                                                             \
                double t = BRANCH ? threshold[ch] : 0.0, h = BRANCH ? half[ch] : 0.0;                      \
                for (int64_t i = 0; i < inner; ++i) {                                                      \
                    out[base + i] = requantize_one((double)acc[base + i], rc, cc, t, h, BRANCH, INT_CLAMP,  \
                                                   lo, hi, xor_mask);                                      \
                }                                                                                          \
            }                                                                                              \
        }                                                                                                  \
    }

REQUANTIZE_LOOPS(f32, float, 0, 0)
REQUANTIZE_LOOPS(f32_branch, float, 1, 0)
REQUANTIZE_LOOPS(f32_int, float, 0, 1)
REQUANTIZE_LOOPS(f32_branch_int, float, 1, 1)
REQUANTIZE_LOOPS(i32, int32_t, 0, 0)
REQUANTIZE_LOOPS(i32_branch, int32_t, 1, 0)
REQUANTIZE_LOOPS(i32_int, int32_t, 0, 1)
REQUANTIZE_LOOPS(i32_branch_int, int32_t, 1, 1)

/* [planes][int32 accumulators][branch][int32 clamp] */
static const requantize_loop REQUANTIZE[2][2][2][2] = {
    {{{rows_f32, rows_f32_int}, {rows_f32_branch, rows_f32_branch_int}},
     {{rows_i32, rows_i32_int}, {rows_i32_branch, rows_i32_branch_int}}},
    {{{planes_f32, planes_f32_int}, {planes_f32_branch, planes_f32_branch_int}},
     {{planes_i32, planes_i32_int}, {planes_i32_branch, planes_i32_branch_int}}},
};

NNAPI_HOST_CLONES static void lookup_plain(uint8_t *restrict codes, int64_t n, const uint8_t *restrict table) {
    for (int64_t i = 0; i < n; ++i) codes[i] = table[codes[i]];
}

static void lookup_in_place(uint8_t *codes, int64_t n, const uint8_t *table) {
    if (!nnapi_host_lookup_vector(codes, n, table)) lookup_plain(codes, n, table);
}

/* acc: float32 (acc_is_int32 == 0) or int32 accumulators, contiguous [outer, channels, inner];
 * inner == 1 takes `repeat` (constants of repeat * channels entries), inner > 1 one copy.
 * threshold and half are NULL when the requantizer has no branch. lo, hi: the code range
 * shifted as the codes are computed (int8 outputs are uint8 codes with xor_mask 0x80).
 * int32_clamp: every value of the expression fits int32 (see requantize_one).
 * table: NULL, or 256 8-bit codes the codes then become (an activation's table, read by the
 * codes' bit patterns), while they are still in cache. */
NNAPI_HOST_EXPORT void nnapi_host_requantize(const void *acc, int32_t acc_is_int32, int64_t outer, int64_t channels,
                                             int64_t inner, int64_t repeat, const double *r, const double *c,
                                             const double *threshold, const double *half, int32_t lo, int32_t hi,
                                             int32_t xor_mask, int32_t int32_clamp, const uint8_t *table,
                                             uint8_t *out) {
    int branch = threshold != 0 && half != 0;
    if (inner != 1 || !nnapi_host_requantize_rows_vector(acc, acc_is_int32, outer, channels, r, c, threshold, half,
                                                         lo, hi, (uint8_t)xor_mask, int32_clamp, out)) {
        REQUANTIZE[inner != 1][acc_is_int32 != 0][branch][int32_clamp != 0](
            acc, outer, channels, inner, repeat, r, c, threshold, half, lo, hi, (uint8_t)xor_mask, out);
    }
    if (table) {
        lookup_in_place(out, outer * channels * inner, table);
    }
}

/* -- depthwise convolution with its requantization ---------------------------------------------------------
 * NHWC 8-bit x [n, h, w, c] (signed codes when x_signed), depth multiplier 1, weights
 * q_w - zp_w as int16 [kh][kw][c], explicit padding (taps outside the image read nothing: NNAPI's
 * zero point contributes (zp - zp) * w = 0). Per output pixel the int32 sums
 * acc[ch] = sum over in-bounds taps of (x - x_zp) * w, exact (the caller bounds them below 2^31),
 * then the same requantization as nnapi_host_requantize (requantize_one) on the exact sums.
 * acc: scratch of c int32. */
#define DEPTHWISE_LOOP(SUFFIX, X_T, BRANCH, INT_CLAMP)                                                      \
    NNAPI_HOST_CLONES static void depthwise_##SUFFIX(                                                        \
        const X_T *restrict x, int64_t n, int64_t h, int64_t w, int64_t c, const int16_t *restrict weights,  \
        int64_t kh, int64_t kw, int64_t stride_h, int64_t stride_w, int64_t dilation_h, int64_t dilation_w,  \
        int64_t pad_top, int64_t pad_left, int64_t oh, int64_t ow, int32_t x_zp, const double *restrict r,   \
        const double *restrict cc, const double *restrict threshold, const double *restrict half, int32_t lo, \
        int32_t hi, uint8_t xor_mask, int32_t *restrict acc, uint8_t *restrict out, int64_t first,           \
        int64_t last) {                                                                                      \
        (void)n;                                                                                             \
        for (int64_t row = first; row < last; ++row) {                                                       \
            int64_t b = row / oh, oy = row % oh;                                                             \
            {                                                                                                \
                for (int64_t ox = 0; ox < ow; ++ox) {                                                        \
                    for (int64_t ch = 0; ch < c; ++ch) acc[ch] = 0;                                          \
                    for (int64_t ky = 0; ky < kh; ++ky) {                                                    \
                        int64_t iy = oy * stride_h - pad_top + ky * dilation_h;                              \
                        if (iy < 0 || iy >= h) continue;                                                     \
                        for (int64_t kx = 0; kx < kw; ++kx) {                                                \
                            int64_t ix = ox * stride_w - pad_left + kx * dilation_w;                         \
                            if (ix < 0 || ix >= w) continue;                                                 \
                            const X_T *xp = x + ((b * h + iy) * w + ix) * c;                                 \
                            const int16_t *wp = weights + (ky * kw + kx) * c;                                \
                            for (int64_t ch = 0; ch < c; ++ch) acc[ch] += ((int32_t)xp[ch] - x_zp) * wp[ch]; \
                        }                                                                                    \
                    }                                                                                        \
                    uint8_t *o = out + ((b * oh + oy) * ow + ox) * c;                                        \
                    for (int64_t ch = 0; ch < c; ++ch) {                                                     \
                        o[ch] = requantize_one((double)acc[ch], r[ch], cc[ch], BRANCH ? threshold[ch] : 0.0, \
                                               BRANCH ? half[ch] : 0.0, BRANCH, INT_CLAMP, lo, hi, xor_mask); \
                    }                                                                                        \
                }                                                                                            \
            }                                                                                                \
        }                                                                                                    \
    }

DEPTHWISE_LOOP(u8, uint8_t, 0, 0)
DEPTHWISE_LOOP(u8_branch, uint8_t, 1, 0)
DEPTHWISE_LOOP(u8_int, uint8_t, 0, 1)
DEPTHWISE_LOOP(u8_branch_int, uint8_t, 1, 1)
DEPTHWISE_LOOP(s8, int8_t, 0, 0)
DEPTHWISE_LOOP(s8_branch, int8_t, 1, 0)
DEPTHWISE_LOOP(s8_int, int8_t, 0, 1)
DEPTHWISE_LOOP(s8_branch_int, int8_t, 1, 1)

typedef struct {
    const uint8_t *x;
    int32_t x_signed, x_zp, lo, hi, branch, int_clamp;
    const int64_t *g;
    const int16_t *weights;
    const double *r, *c, *threshold, *half;
    uint8_t mask;
    int32_t *acc; /* ow * c int32 per worker */
    uint8_t *out;
    int avx512;   /* the sums by depthwise_sums_avx512, requantized a row at a time */
    int64_t repeat; /* copies of the constants (nnapi_host_requantize's repeat) */
    const uint8_t *table; /* applied to each row by the AVX-512 path, to the whole output otherwise */
    const DepthwiseVnni *vnni; /* the sums by nnapi_host_depthwise_vnni_row instead (with avx512 set) */
    const DepthwiseAvx2 *avx2; /* the sums by nnapi_host_depthwise_avx2_row, a row at a time as avx512 */
} DepthwiseJob;

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define NNAPI_HOST_HAS_X86 1

/* One output row's exact int32 sums acc[ox][ch] (the same sums as the loop above), tap by tap
 * over the row's in-bounds span, sixteen channels per vector: the codes widened, less the zero
 * point, times the int16 weights widened, added in int32 (exact: the order does not matter). */
__attribute__((target("avx512f,avx512bw,avx512vl"))) static void depthwise_sums_avx512(
    const uint8_t *x, int x_signed, const int64_t *g, const int16_t *weights, int32_t x_zp, int64_t row,
    int32_t *acc) {
    const int64_t h = g[1], w = g[2], c = g[3], kh = g[4], kw = g[5], sh = g[6], sw = g[7], dh = g[8], dw = g[9];
    const int64_t top = g[10], left = g[11], oh = g[12], ow = g[13];
    const int64_t b = row / oh, oy = row % oh;
    const __m512i zp = _mm512_set1_epi32(x_zp);
    memset(acc, 0, (size_t)(ow * c) * sizeof(int32_t));
    for (int64_t ky = 0; ky < kh; ++ky) {
        int64_t iy = oy * sh - top + ky * dh;
        if (iy < 0 || iy >= h) continue;
        const uint8_t *line = x + (b * h + iy) * w * c;
        for (int64_t kx = 0; kx < kw; ++kx) {
            /* ox with 0 <= ox * sw - left + kx * dw < w */
            int64_t shift = kx * dw - left;
            int64_t first = shift >= 0 ? 0 : (-shift + sw - 1) / sw;
            int64_t last = w - 1 - shift < 0 ? -1 : (w - 1 - shift) / sw;
            if (last > ow - 1) last = ow - 1;
            const int16_t *wt = weights + (ky * kw + kx) * c;
            for (int64_t c0 = 0; c0 < c; c0 += 16) {
                __mmask16 mask = c - c0 >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (c - c0)) - 1u);
                __m512i wv = _mm512_cvtepi16_epi32(_mm256_maskz_loadu_epi16(mask, wt + c0));
                const uint8_t *xp = line + (first * sw + shift) * c + c0;
                int32_t *ap = acc + first * c + c0;
                if (mask == 0xffff) { /* whole blocks without masks (masked stores are slow on AMD Zen 4) */
                    /* The weight in the low half of each int32 lane, zero in the high half: VPMADDWD
                     * makes the one exact product of the code difference (within int16) per lane. */
                    __m512i wz = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(wt + c0)));
                    for (int64_t ox = first; ox <= last; ++ox, xp += sw * c, ap += c) {
                        __m128i bytes = _mm_loadu_si128((const __m128i *)xp);
                        __m512i xv = x_signed ? _mm512_cvtepi8_epi32(bytes) : _mm512_cvtepu8_epi32(bytes);
                        __m512i prod = _mm512_madd_epi16(_mm512_sub_epi32(xv, zp), wz);
                        _mm512_storeu_si512(ap, _mm512_add_epi32(_mm512_loadu_si512(ap), prod));
                    }
                    continue;
                }
                for (int64_t ox = first; ox <= last; ++ox, xp += sw * c, ap += c) {
                    __m128i bytes = _mm_maskz_loadu_epi8(mask, xp);
                    __m512i xv = x_signed ? _mm512_cvtepi8_epi32(bytes) : _mm512_cvtepu8_epi32(bytes);
                    __m512i prod = _mm512_mullo_epi32(_mm512_sub_epi32(xv, zp), wv);
                    _mm512_mask_storeu_epi32(ap, mask, _mm512_add_epi32(_mm512_maskz_loadu_epi32(mask, ap), prod));
                }
            }
        }
    }
}
#endif

/* Output rows [first, last) of every batch (b * oh + oy): each row alone, whichever thread. */
static void depthwise_rows(void *ctx, int64_t first, int64_t last, int32_t worker) {
    const DepthwiseJob *j = (const DepthwiseJob *)ctx;
    const int64_t *g = j->g;
    int32_t *acc = j->acc + (int64_t)worker * g[13] * g[3];
#ifdef NNAPI_HOST_HAS_X86
    if (j->avx512 || j->avx2) {
        int64_t width = g[13] * g[3];
        for (int64_t row = first; row < last; ++row) {
            if (j->avx2) {
                nnapi_host_depthwise_avx2_row(j->avx2, j->x, g, row, acc);
            } else if (j->vnni) {
                nnapi_host_depthwise_vnni_row(j->vnni, j->x, g, row, acc);
            } else {
                depthwise_sums_avx512(j->x, j->x_signed, g, j->weights, j->x_zp, row, acc);
            }
            nnapi_host_requantize(acc, 1, g[13], g[3], 1, j->repeat, j->r, j->c, j->threshold, j->half, j->lo, j->hi, j->mask,
                                  j->int_clamp, j->table, j->out + row * width);
        }
        return;
    }
#endif
#define DEPTHWISE_CALL(SUFFIX, X_T)                                                                                \
    depthwise_##SUFFIX((const X_T *)j->x, g[0], g[1], g[2], g[3], j->weights, g[4], g[5], g[6], g[7], g[8], g[9],  \
                       g[10], g[11], g[12], g[13], j->x_zp, j->r, j->c, j->threshold, j->half, j->lo, j->hi, j->mask, \
                       acc, j->out, first, last)
    if (j->x_signed) {
        if (j->branch) {
            if (j->int_clamp) DEPTHWISE_CALL(s8_branch_int, int8_t); else DEPTHWISE_CALL(s8_branch, int8_t);
        } else {
            if (j->int_clamp) DEPTHWISE_CALL(s8_int, int8_t); else DEPTHWISE_CALL(s8, int8_t);
        }
    } else {
        if (j->branch) {
            if (j->int_clamp) DEPTHWISE_CALL(u8_branch_int, uint8_t); else DEPTHWISE_CALL(u8_branch, uint8_t);
        } else {
            if (j->int_clamp) DEPTHWISE_CALL(u8_int, uint8_t); else DEPTHWISE_CALL(u8, uint8_t);
        }
    }
#undef DEPTHWISE_CALL
}

/* Whether this machine runs the depthwise sums with AVX2 (what it runs without AVX-512). */
NNAPI_HOST_EXPORT int32_t nnapi_host_depthwise_avx2(void) { return nnapi_host_cpu_avx2(); }

/* Whether this machine runs the depthwise sums with AVX-512. */
NNAPI_HOST_EXPORT int32_t nnapi_host_depthwise_avx512(void) {
#ifdef NNAPI_HOST_HAS_X86
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
#else
    return 0;
#endif
}

/* geometry: {n, h, w, c, kh, kw, stride_h, stride_w, dilation_h, dilation_w, pad_top, pad_left, oh, ow}.
 * The other arguments as nnapi_host_requantize's; table applies to the codes as there.
 * acc: acc_slots * ow * c int32 (output rows run on up to acc_slots threads). sums: 0 the plain
 * loop; 1 the AVX-512 sums where the CPU has them, else the AVX2 ones where it has those; 2 the VNNI
 * sums where the CPU has them and the weights fit signed bytes, else as 1; 3 the AVX2 sums where
 * the CPU has them (every path gives the same exact sums). The vector paths requantize each row with `repeat` copies of the constants (r, c, ... hold repeat * c
 * entries; the plain loop reads the first copy). */
NNAPI_HOST_EXPORT void nnapi_host_depthwise(const uint8_t *x, int32_t x_signed, const int64_t *geometry,
                                            const int16_t *weights, int32_t x_zp, const double *r, const double *c,
                                            const double *threshold, const double *half, int32_t lo, int32_t hi,
                                            int32_t xor_mask, int32_t int32_clamp, const uint8_t *table,
                                            int32_t *acc, int32_t acc_slots, int32_t sums, int64_t repeat,
                                            uint8_t *out) {
    const int64_t *g = geometry;
    int avx512 = sums >= 1 && sums <= 2 && nnapi_host_depthwise_avx512();
    DepthwiseVnni *vnni = avx512 && sums == 2 ? nnapi_host_depthwise_vnni_prepare(weights, g, x_zp, x_signed) : NULL;
    DepthwiseAvx2 *avx2 = sums >= 1 && !avx512 ? nnapi_host_depthwise_avx2_prepare(weights, g, x_zp, x_signed) : NULL;
    DepthwiseJob job = {x, x_signed, x_zp, lo, hi, threshold != 0 && half != 0, int32_clamp != 0, g, weights, r, c,
                        threshold, half, (uint8_t)xor_mask, acc, out, avx512, repeat, table, vnni, avx2};
    int64_t rows = g[0] * g[12], taps = g[13] * g[3] * g[4] * g[5];
    /* Rows in chunks of about 32k multiply-adds; a small convolution stays on the caller. */
    int64_t grain = taps >= 32768 ? 1 : 32768 / (taps > 0 ? taps : 1);
    nnapi_host_parallel(depthwise_rows, &job, rows, grain, rows * taps < (1 << 16) ? 1 : acc_slots);
    nnapi_host_depthwise_vnni_free(vnni);
    nnapi_host_depthwise_avx2_free(avx2);
    if (table && !job.avx512 && !job.avx2) {
        lookup_in_place(out, g[0] * g[12] * g[13] * g[3], table);
    }
}

/* -- the mean over rows (a global 8-bit average pool) ----------------------------------------------------------
 * x: [batches, rows, channels] 8-bit codes (signed when is_signed); per batch and channel the sum s
 * of the rows, then the reference's rounding division trunc((s + (s >= 0 ? half : -half)) / rows)
 * with half = rows / 2, clamped to [lo, hi]. rows * 255 must fit int32 (the caller checks). */
NNAPI_HOST_CLONES static void channel_sums_u8(const uint8_t *restrict x, int64_t rows, int64_t channels,
                                              int32_t *restrict sums) {
    for (int64_t k = 0; k < channels; ++k) sums[k] = 0;
    for (int64_t r = 0; r < rows; ++r) {
        const uint8_t *row = x + r * channels;
        for (int64_t k = 0; k < channels; ++k) sums[k] += row[k];
    }
}

NNAPI_HOST_CLONES static void channel_sums_s8(const int8_t *restrict x, int64_t rows, int64_t channels,
                                              int32_t *restrict sums) {
    for (int64_t k = 0; k < channels; ++k) sums[k] = 0;
    for (int64_t r = 0; r < rows; ++r) {
        const int8_t *row = x + r * channels;
        for (int64_t k = 0; k < channels; ++k) sums[k] += row[k];
    }
}

/* sums: scratch of `channels` int32. */
NNAPI_HOST_EXPORT void nnapi_host_mean_rows(const uint8_t *x, int32_t is_signed, int64_t batches, int64_t rows,
                                            int64_t channels, int32_t lo, int32_t hi, int32_t *sums, uint8_t *out) {
    int32_t half = (int32_t)(rows / 2), count = (int32_t)rows;
    for (int64_t b = 0; b < batches; ++b) {
        const uint8_t *xb = x + b * rows * channels;
        if (is_signed) {
            channel_sums_s8((const int8_t *)xb, rows, channels, sums);
        } else {
            channel_sums_u8(xb, rows, channels, sums);
        }
        for (int64_t k = 0; k < channels; ++k) {
            int32_t s = sums[k];
            int32_t v = (s + (s >= 0 ? half : -half)) / count;
            v = v < lo ? lo : v;
            v = v > hi ? hi : v;
            out[b * channels + k] = (uint8_t)v;
        }
    }
}

/* -- an 8-bit NHWC max pool -------------------------------------------------------------------------------
 * The maximum of each window's in-bounds codes (padding is never a maximum: the reference pads with
 * a value below every code), clamped to [lo, hi]. Codes are compared as uint8 after xor with flip
 * (0x80 for int8: the order of their values); lo and hi are in that shifted range, so lo >= 0 and
 * a window without an in-bounds element (a running maximum of 0) gives lo, as the reference does.
 * geometry: {n, h, w, c, kh, kw, stride_h, stride_w, pad_top, pad_left, oh, ow}. */
static inline void max_into(uint8_t *restrict acc, const uint8_t *restrict x, int64_t c, uint8_t flip) {
    for (int64_t k = 0; k < c; ++k) {
        uint8_t v = (uint8_t)(x[k] ^ flip);
        acc[k] = v > acc[k] ? v : acc[k];
    }
}

typedef struct {
    const uint8_t *x;
    const int64_t *g;
    uint8_t flip, lo, hi;
    uint8_t *out;
} MaxPoolJob;

/* Output rows [first, last) (batch * oh + oy), compiled per instruction set as a whole. */
NNAPI_HOST_CLONES static void max_pool_range(const MaxPoolJob *j, int64_t first, int64_t last) {
    const int64_t *g = j->g;
    int64_t h = g[1], w = g[2], c = g[3], oh = g[10], ow = g[11];
    for (int64_t row = first; row < last; ++row) {
        int64_t b = row / oh, oy = row % oh;
        int64_t y0 = oy * g[6] - g[8];
        for (int64_t ox = 0; ox < ow; ++ox) {
            uint8_t *o = j->out + ((row * ow) + ox) * c;
            int64_t x0 = ox * g[7] - g[9];
            memset(o, 0, (size_t)c);
            for (int64_t ky = 0; ky < g[4]; ++ky) {
                int64_t iy = y0 + ky;
                if (iy < 0 || iy >= h) continue;
                for (int64_t kx = 0; kx < g[5]; ++kx) {
                    int64_t ix = x0 + kx;
                    if (ix < 0 || ix >= w) continue;
                    max_into(o, j->x + ((b * h + iy) * w + ix) * c, c, j->flip);
                }
            }
            for (int64_t k = 0; k < c; ++k) {
                uint8_t v = o[k] < j->lo ? j->lo : o[k];
                v = v > j->hi ? j->hi : v;
                o[k] = (uint8_t)(v ^ j->flip);
            }
        }
    }
}

static void max_pool_rows(void *ctx, int64_t first, int64_t last, int32_t worker) {
    (void)worker;
    max_pool_range((const MaxPoolJob *)ctx, first, last);
}

/* x: [n, h, w, c] codes (int8 when is_signed); lo, hi: the clamp in codes; out: [n, oh, ow, c]. */
NNAPI_HOST_EXPORT void nnapi_host_max_pool(const uint8_t *x, int32_t is_signed, const int64_t *geometry, int32_t lo,
                                           int32_t hi, uint8_t *out) {
    uint8_t shift = is_signed ? 0x80 : 0;
    MaxPoolJob job = {x, geometry, shift, (uint8_t)(lo + (is_signed ? 128 : 0)), (uint8_t)(hi + (is_signed ? 128 : 0)),
                      out};
    int64_t rows = geometry[0] * geometry[10];
    int64_t per_row = geometry[11] * geometry[3] * geometry[4] * geometry[5];
    int64_t grain = per_row >= 32768 ? 1 : 32768 / (per_row > 0 ? per_row : 1);
    nnapi_host_parallel(max_pool_rows, &job, rows, grain, 0);
}

/* -- tables ---------------------------------------------------------------------------------------------
 * out[i] = table[x[i]] (one 8-bit input) or table[256 * a[i] + b[i]] (two of the same shape), the
 * codes read as uint8; table entries of element_size 1, 2 or 4 bytes. */
#define TABLE_LOOKUPS(T)                                                                                  \
    NNAPI_HOST_CLONES static void table1_##T(const uint8_t *restrict x, int64_t n, const T *restrict table, \
                                             T *restrict out) {                                           \
        for (int64_t i = 0; i < n; ++i) out[i] = table[x[i]];                                             \
    }                                                                                                     \
    NNAPI_HOST_CLONES static void table2_##T(const uint8_t *restrict a, const uint8_t *restrict b, int64_t n, \
                                             const T *restrict table, T *restrict out) {                  \
        for (int64_t i = 0; i < n; ++i) out[i] = table[((uint32_t)a[i] << 8) | b[i]];                     \
    }

TABLE_LOOKUPS(uint8_t)
TABLE_LOOKUPS(uint16_t)
TABLE_LOOKUPS(uint32_t)

/* out[r][k] = table[256 * key[k] + x[r][k]]: a two-input table whose other input is one row of
 * `channels` codes broadcast over `rows` (a squeeze-and-excite scale); each channel reads its own
 * 256 entries (for a row broadcast as the table's second input, the caller passes the table
 * transposed). */
#define TABLE_ROWS(T)                                                                                     \
    NNAPI_HOST_CLONES static void table_rows_##T(const uint8_t *restrict x, int64_t rows, int64_t channels,  \
                                                 const uint8_t *restrict key, const T *restrict table,     \
                                                 T *restrict out) {                                        \
        for (int64_t r = 0; r < rows; ++r) {                                                              \
            const uint8_t *xr = x + r * channels;                                                         \
            T *o = out + r * channels;                                                                    \
            for (int64_t k = 0; k < channels; ++k) o[k] = table[((uint32_t)key[k] << 8) | xr[k]];          \
        }                                                                                                 \
    }

TABLE_ROWS(uint8_t)
TABLE_ROWS(uint16_t)
TABLE_ROWS(uint32_t)

/* Elements per item of a table's or QUANTIZE's parallel loop: below it the caller alone. */
#define ELEMENTWISE_CHUNK 16384

typedef struct {
    const uint8_t *a, *b, *key;
    int64_t rows, channels;
    const void *table;
    int32_t element_size;
    void *out;
} TableJob;

#define TABLE_DISPATCH(CALL8, CALL16, CALL32)                                                             \
    switch (j->element_size) {                                                                            \
    case 1:                                                                                               \
        CALL8;                                                                                            \
        break;                                                                                            \
    case 2:                                                                                               \
        CALL16;                                                                                           \
        break;                                                                                            \
    default:                                                                                              \
        CALL32;                                                                                           \
        break;                                                                                            \
    }

/* Items are chunks of ELEMENTWISE_CHUNK elements (one or two inputs). */
static void table_chunks(void *ctx, int64_t first, int64_t last, int32_t worker) {
    const TableJob *j = (const TableJob *)ctx;
    (void)worker;
    int64_t begin = first * ELEMENTWISE_CHUNK, end = last * ELEMENTWISE_CHUNK;
    end = end < j->rows ? end : j->rows;
    int64_t n = end - begin;
    const uint8_t *a = j->a + begin, *b = j->b ? j->b + begin : 0;
    if (b) {
        TABLE_DISPATCH(table2_uint8_t(a, b, n, j->table, (uint8_t *)j->out + begin),
                       table2_uint16_t(a, b, n, j->table, (uint16_t *)j->out + begin),
                       table2_uint32_t(a, b, n, j->table, (uint32_t *)j->out + begin))
    } else {
        TABLE_DISPATCH(table1_uint8_t(a, n, j->table, (uint8_t *)j->out + begin),
                       table1_uint16_t(a, n, j->table, (uint16_t *)j->out + begin),
                       table1_uint32_t(a, n, j->table, (uint32_t *)j->out + begin))
    }
}

/* Items are rows of `channels` elements. */
static void table_row_range(void *ctx, int64_t first, int64_t last, int32_t worker) {
    const TableJob *j = (const TableJob *)ctx;
    (void)worker;
    int64_t offset = first * j->channels, rows = last - first;
    const uint8_t *x = j->a + offset;
    TABLE_DISPATCH(table_rows_uint8_t(x, rows, j->channels, j->key, j->table, (uint8_t *)j->out + offset),
                   table_rows_uint16_t(x, rows, j->channels, j->key, j->table, (uint16_t *)j->out + offset),
                   table_rows_uint32_t(x, rows, j->channels, j->key, j->table, (uint32_t *)j->out + offset))
}

NNAPI_HOST_EXPORT int32_t nnapi_host_table_rows(const uint8_t *x, int64_t rows, int64_t channels, const uint8_t *key,
                                                const void *table, int32_t element_size, void *out) {
    if (element_size != 1 && element_size != 2 && element_size != 4) return -1;
    TableJob job = {x, 0, key, rows, channels, table, element_size, out};
    int64_t grain = channels >= ELEMENTWISE_CHUNK ? 1 : ELEMENTWISE_CHUNK / (channels > 0 ? channels : 1);
    nnapi_host_parallel(table_row_range, &job, rows, grain, 0);
    return 0;
}

/* b == NULL: the one-input table. Returns 0, or -1 for an element size it does not handle. */
NNAPI_HOST_EXPORT int32_t nnapi_host_table(const uint8_t *a, const uint8_t *b, int64_t n, const void *table,
                                           int32_t element_size, void *out) {
    if (element_size != 1 && element_size != 2 && element_size != 4) return -1;
    TableJob job = {a, b, 0, n, 0, table, element_size, out};
    nnapi_host_parallel(table_chunks, &job, (n + ELEMENTWISE_CHUNK - 1) / ELEMENTWISE_CHUNK, 1, 0);
    return 0;
}

/* -- QUANTIZE of float32 ----------------------------------------------------------------------------------
 * The reference (_qkernels.quantize): q = (float)((double)x / scale); r = sign(q) * floor(y) with
 * y = |q| + 0.5 in double; r as int64; then (float)zp + (float)r clamped to [lo, hi].
 * - While |r| < 2^24 that sum is zp + r exactly, and past it both are beyond the code range on r's
 *   side, so the clamp gives one code either way: r is computed from min(y, 2048) truncated (the
 *   floor of a non-negative value) as an int32.
 * - The int64 conversion of a NaN, an infinity or a value of magnitude 2^63 or more is the
 *   platform's (x86 gives INT64_MIN): the caller passes the codes the reference gives for +inf,
 *   -inf and NaN, which are what every such value becomes. floor(y) >= 2^63 exactly when
 *   y >= 2^63 (r too large), and floor(y) > 2^63 exactly when y > 2^63 (-r too small).
 * Codes are stored as their 8-bit patterns (int8 codes as two's complement). */
NNAPI_HOST_CLONES static void quantize_f32(const float *restrict x, int64_t n, double scale, int32_t zp, int32_t lo,
                                           int32_t hi, int32_t above, int32_t below, int32_t nan_code,
                                           uint8_t *restrict out) {
    const double limit = 9223372036854775808.0; /* 2^63 */
    for (int64_t i = 0; i < n; ++i) {
        double q = (double)(float)((double)x[i] / scale);
        double y = fabs(q) + 0.5;
        /* Every comparison is made (no branch), so that the loop vectorizes. */
        int negative = q < 0, positive = q > 0, nan = q != q;
        int below_limit = y < limit, up_to_limit = y <= limit;   /* false for NaN */
        double bounded = y < 2048.0 ? y : 2048.0;
        int32_t magnitude = (int32_t)bounded;
        int32_t v = (negative ? -magnitude : magnitude) + zp;
        v = v < lo ? lo : v;
        v = v > hi ? hi : v;
        int in_range = (negative & up_to_limit) | ((!negative) & below_limit);
        int32_t special = positive ? above : below;
        special = nan ? nan_code : special;
        out[i] = (uint8_t)(in_range ? v : special);
    }
}

typedef struct {
    const float *x;
    int64_t n;
    double scale;
    int32_t zp, lo, hi;
    const int32_t *special;
    uint8_t *out;
} QuantizeJob;

static void quantize_chunks(void *ctx, int64_t first, int64_t last, int32_t worker) {
    const QuantizeJob *j = (const QuantizeJob *)ctx;
    (void)worker;
    int64_t begin = first * ELEMENTWISE_CHUNK, end = last * ELEMENTWISE_CHUNK;
    end = end < j->n ? end : j->n;
    quantize_f32(j->x + begin, end - begin, j->scale, j->zp, j->lo, j->hi, j->special[0], j->special[1],
                 j->special[2], j->out + begin);
}

/* special: the codes (not bit patterns: -128..127 for int8) of +inf, -inf and NaN. Chunks of
 * elements run on the pool: each element is computed alone. */
NNAPI_HOST_EXPORT void nnapi_host_quantize(const float *x, int64_t n, double scale, int32_t zp, int32_t lo, int32_t hi,
                                           const int32_t *special, uint8_t *out) {
    QuantizeJob job = {x, n, scale, zp, lo, hi, special, out};
    nnapi_host_parallel(quantize_chunks, &job, (n + ELEMENTWISE_CHUNK - 1) / ELEMENTWISE_CHUNK, 1, 0);
}

/* The version of this interface (_native.py refuses a library of another). */
NNAPI_HOST_EXPORT int32_t nnapi_host_kernels_version(void) { return 10; }
