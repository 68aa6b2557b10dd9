/* The 8-bit depthwise convolution's exact int32 sums with AVX2 (nnapi_host_depthwise_avx2.h), for
 * x86-64 machines without AVX-512.
 *
 * VPMADDWD adds two products of int16 values into each int32 lane, so two taps of one channel
 * share a lane: the two taps' codes, widened to int16, are interleaved (VPUNPCKLWD / VPUNPCKHWD,
 * within each 128-bit half), the weights the same way once per call, and each pixel's sums stay
 * in two registers of sixteen channels over its pairs of taps. As in nnapi_host_depthwise_vnni.c,
 * the codes are read as unsigned bytes (signed codes with their top bit flipped), out-of-image taps
 * read a line of zero-point codes, and the zero point's share comes off at the end: every sum is
 * the plain loop's exact one (the caller bounds it below 2^31). The last channels of a row that
 * does not fill sixteen are read through a zero-padded copy, except a last eight (72, 120, 200
 * channels), which take the registers' low halves.
 */
#include "nnapi_host_depthwise_avx2.h"

#include <stdlib.h>
#include <string.h>

#include "nnapi_host_common.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define AVX2 __attribute__((target("avx2")))
#define MAX_TAPS 64
#define BLOCK 16 /* channels per block: 16 int16 codes in a 256-bit register */

struct DepthwiseAvx2 {
    int64_t c, blocks, pairs, taps;
    int64_t tap_row[MAX_TAPS], tap_column[MAX_TAPS]; /* ky, and kx * dilation_w, of each tap */
    uint8_t flip;                                     /* 0x80 for signed codes */
    int16_t *packed;     /* [blocks][pairs][2][16]: the interleaved weights of channels 0-3, 8-11 then 4-7, 12-15 */
    int32_t *correction; /* [blocks * 16]: zp (as read) * the channel's weight sum */
    uint8_t *zp_line;    /* w * c + BLOCK bytes of the zero point's code */
};

static AVX2 void pack_weights(DepthwiseAvx2 *v, const int16_t *weights) {
    for (int64_t bi = 0; bi < v->blocks; ++bi) {
        int64_t c0 = bi * BLOCK, n = v->c - c0 < BLOCK ? v->c - c0 : BLOCK;
        for (int64_t p = 0; p < v->pairs; ++p) {
            int16_t lanes[2][BLOCK];
            memset(lanes, 0, sizeof lanes);
            for (int j = 0; j < 2; ++j) {
                int64_t t = 2 * p + j;
                for (int64_t ch = 0; t < v->taps && ch < n; ++ch) lanes[j][ch] = weights[t * v->c + c0 + ch];
            }
            __m256i w0 = _mm256_loadu_si256((const __m256i *)lanes[0]), w1 = _mm256_loadu_si256((const __m256i *)lanes[1]);
            int16_t *dst = v->packed + (bi * v->pairs + p) * 2 * BLOCK;
            _mm256_storeu_si256((__m256i *)dst, _mm256_unpacklo_epi16(w0, w1));
            _mm256_storeu_si256((__m256i *)(dst + BLOCK), _mm256_unpackhi_epi16(w0, w1));
        }
    }
}

DepthwiseAvx2 *nnapi_host_depthwise_avx2_prepare(const int16_t *weights, const int64_t *g, int32_t x_zp,
                                                 int x_signed) {
    const int64_t w = g[2], c = g[3], kh = g[4], kw = g[5];
    const int64_t taps = kh * kw;
    if (taps > MAX_TAPS || c <= 0 || w <= 0 || !nnapi_host_cpu_avx2()) return NULL;
    DepthwiseAvx2 *v = calloc(1, sizeof *v);
    if (!v) return NULL;
    v->c = c;
    v->taps = taps;
    v->blocks = (c + BLOCK - 1) / BLOCK;
    v->pairs = (taps + 1) / 2;
    v->flip = x_signed ? 0x80 : 0;
    nnapi_host_depthwise_taps(g, v->tap_row, v->tap_column);
    v->packed = aligned_alloc(32, (size_t)(v->blocks * v->pairs * 2 * BLOCK) * sizeof(int16_t));
    v->correction = aligned_alloc(32, (size_t)(v->blocks * BLOCK) * sizeof(int32_t));
    v->zp_line = malloc((size_t)(w * c + BLOCK));
    if (!v->packed || !v->correction || !v->zp_line) {
        nnapi_host_depthwise_avx2_free(v);
        return NULL;
    }
    memset(v->zp_line, (uint8_t)x_zp, (size_t)(w * c + BLOCK));
    nnapi_host_depthwise_correction(weights, c, taps, x_zp, x_signed, v->blocks * BLOCK, v->correction);
    pack_weights(v, weights);
    return v;
}

void nnapi_host_depthwise_avx2_free(DepthwiseAvx2 *v) {
    if (!v) return;
    free(v->packed);
    free(v->correction);
    free(v->zp_line);
    free(v);
}

/* Sixteen codes from p (n of them when n < 16, zeros after), top bits flipped, widened to int16. */
static inline AVX2 __m256i codes16(const uint8_t *p, int64_t n, __m128i flip) {
    __m128i bytes;
    if (n >= BLOCK) {
        bytes = _mm_loadu_si128((const __m128i *)p);
    } else {
        uint8_t part[BLOCK] = {0};
        memcpy(part, p, (size_t)n);
        bytes = _mm_loadu_si128((const __m128i *)part);
    }
    return _mm256_cvtepu8_epi16(_mm_xor_si128(bytes, flip));
}

/* The channels below n of one pixel's sums (s0: channels 0-3 and 8-11, s1: 4-7 and 12-15), less
 * the zero point's share, stored to acc. */
static inline AVX2 void store_sums(__m256i s0, __m256i s1, const int32_t *correction, int64_t n, int32_t *acc) {
    __m256i low = _mm256_sub_epi32(_mm256_permute2x128_si256(s0, s1, 0x20), _mm256_load_si256((const __m256i *)correction));
    __m256i high = _mm256_sub_epi32(_mm256_permute2x128_si256(s0, s1, 0x31),
                                    _mm256_load_si256((const __m256i *)(correction + 8)));
    if (n >= BLOCK) {
        _mm256_storeu_si256((__m256i *)acc, low);
        _mm256_storeu_si256((__m256i *)(acc + 8), high);
        return;
    }
    const __m256i index = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    _mm256_maskstore_epi32(acc, _mm256_cmpgt_epi32(_mm256_set1_epi32((int)n), index), low);
    _mm256_maskstore_epi32(acc + 8, _mm256_cmpgt_epi32(_mm256_set1_epi32((int)n - 8), index), high);
}

void AVX2 nnapi_host_depthwise_avx2_row(const DepthwiseAvx2 *v, const uint8_t *x, const int64_t *g, int64_t row,
                                        int32_t *acc) {
    const int64_t h = g[1], w = g[2], c = g[3], kh = g[4], kw = g[5], sh = g[6], sw = g[7], dh = g[8], dw = g[9];
    const int64_t top = g[10], left = g[11], oh = g[12], ow = g[13];
    const int64_t b = row / oh, oy = row % oh;
    const uint8_t *line[MAX_TAPS];
    for (int64_t ky = 0; ky < kh; ++ky) {
        int64_t iy = oy * sh - top + ky * dh;
        line[ky] = iy >= 0 && iy < h ? x + (b * h + iy) * w * c : v->zp_line;
    }
    /* Each tap's codes for an output pixel whose taps are all inside the row: tap_base[t] + x0 * c. */
    const uint8_t *tap_base[MAX_TAPS];
    for (int64_t t = 0; t < v->taps; ++t) tap_base[t] = line[v->tap_row[t]] + v->tap_column[t] * c;
    const __m128i flip = _mm_set1_epi8((char)v->flip);
    for (int64_t bi = 0; bi < v->blocks; ++bi) {
        const int64_t c0 = bi * BLOCK, n = c - c0 < BLOCK ? c - c0 : BLOCK;
        const __m256i *wp = (const __m256i *)(v->packed + bi * v->pairs * 2 * BLOCK);
        for (int64_t ox = 0; ox < ow; ++ox) {
            const int64_t x0 = ox * sw - left;
            const int inside = x0 >= 0 && x0 + (kw - 1) * dw < w;
            __m256i s0 = _mm256_setzero_si256(), s1 = _mm256_setzero_si256();
            if (inside && n == BLOCK) { /* the common case: one add per tap for its address */
                const int64_t at = x0 * c + c0;
                int64_t p = 0;
                for (; 2 * p + 1 < v->taps; ++p) {
                    __m256i a = _mm256_cvtepu8_epi16(_mm_xor_si128(_mm_loadu_si128((const __m128i *)(tap_base[2 * p] + at)), flip));
                    __m256i b = _mm256_cvtepu8_epi16(
                        _mm_xor_si128(_mm_loadu_si128((const __m128i *)(tap_base[2 * p + 1] + at)), flip));
                    s0 = _mm256_add_epi32(s0, _mm256_madd_epi16(_mm256_unpacklo_epi16(a, b), _mm256_load_si256(wp + 2 * p)));
                    s1 = _mm256_add_epi32(s1, _mm256_madd_epi16(_mm256_unpackhi_epi16(a, b), _mm256_load_si256(wp + 2 * p + 1)));
                }
                if (p < v->pairs) { /* an odd last tap, paired with zeros */
                    __m256i a = _mm256_cvtepu8_epi16(_mm_xor_si128(_mm_loadu_si128((const __m128i *)(tap_base[2 * p] + at)), flip));
                    __m256i zero = _mm256_setzero_si256();
                    s0 = _mm256_add_epi32(s0, _mm256_madd_epi16(_mm256_unpacklo_epi16(a, zero), _mm256_load_si256(wp + 2 * p)));
                    s1 = _mm256_add_epi32(s1, _mm256_madd_epi16(_mm256_unpackhi_epi16(a, zero), _mm256_load_si256(wp + 2 * p + 1)));
                }
                store_sums(s0, s1, v->correction + c0, n, acc + ox * c + c0);
                continue;
            }
            if (inside && n == BLOCK / 2) { /* a last block of eight (72, 120, 200 channels): the low halves */
                const int64_t at = x0 * c + c0;
                const __m128i zero = _mm_setzero_si128();
                __m128i t0 = zero, t1 = zero;
                for (int64_t p = 0; p < v->pairs; ++p) {
                    __m128i a = _mm_cvtepu8_epi16(_mm_xor_si128(_mm_loadl_epi64((const __m128i *)(tap_base[2 * p] + at)), flip));
                    __m128i b = 2 * p + 1 < v->taps ? _mm_cvtepu8_epi16(_mm_xor_si128(
                                                          _mm_loadl_epi64((const __m128i *)(tap_base[2 * p + 1] + at)), flip))
                                                    : zero;
                    t0 = _mm_add_epi32(t0, _mm_madd_epi16(_mm_unpacklo_epi16(a, b), _mm256_castsi256_si128(_mm256_load_si256(wp + 2 * p))));
                    t1 = _mm_add_epi32(t1, _mm_madd_epi16(_mm_unpackhi_epi16(a, b), _mm256_castsi256_si128(_mm256_load_si256(wp + 2 * p + 1))));
                }
                store_sums(_mm256_castsi128_si256(t0), _mm256_castsi128_si256(t1), v->correction + c0, n, acc + ox * c + c0);
                continue;
            }
            for (int64_t p = 0; p < v->pairs; ++p) {
                __m256i codes[2];
                for (int j = 0; j < 2; ++j) {
                    int64_t t = 2 * p + j;
                    if (t >= v->taps) {
                        codes[j] = _mm256_setzero_si256(); /* its weights are zero */
                        continue;
                    }
                    int64_t ix = x0 + v->tap_column[t];
                    const uint8_t *q = inside || (ix >= 0 && ix < w) ? line[v->tap_row[t]] + ix * c + c0 : v->zp_line + c0;
                    codes[j] = codes16(q, n, flip);
                }
                s0 = _mm256_add_epi32(s0, _mm256_madd_epi16(_mm256_unpacklo_epi16(codes[0], codes[1]), _mm256_load_si256(wp + 2 * p)));
                s1 = _mm256_add_epi32(s1, _mm256_madd_epi16(_mm256_unpackhi_epi16(codes[0], codes[1]), _mm256_load_si256(wp + 2 * p + 1)));
            }
            store_sums(s0, s1, v->correction + c0, n, acc + ox * c + c0);
        }
    }
}

#else /* no x86-64: the caller keeps its other paths */

DepthwiseAvx2 *nnapi_host_depthwise_avx2_prepare(const int16_t *weights, const int64_t *g, int32_t x_zp,
                                                 int x_signed) {
    (void)weights, (void)g, (void)x_zp, (void)x_signed;
    return NULL;
}
void nnapi_host_depthwise_avx2_free(DepthwiseAvx2 *v) { (void)v; }
void nnapi_host_depthwise_avx2_row(const DepthwiseAvx2 *v, const uint8_t *x, const int64_t *g, int64_t row,
                                   int32_t *acc) {
    (void)v, (void)x, (void)g, (void)row, (void)acc;
}

#endif
