/* The 8-bit depthwise convolution's exact int32 sums with AVX-512 VNNI (nnapi_host_depthwise_vnni.h).
 *
 * VPDPBUSD adds four products of unsigned and signed bytes to each int32 lane, so four taps of
 * one channel share a lane: the taps' input bytes are interleaved (two rounds of byte and word
 * unpacks over 64 channels), the weights are interleaved the same way once per call, and each
 * pixel's sums stay in four registers over its tap groups. The codes are read as unsigned bytes
 * (signed codes with their top bit flipped: x + 128) and the zero point's share comes off at the
 * end: sum (x - zp) * w = sum x * w - zp * sum w. Taps outside the image read a line of zero-point
 * codes instead (their term is zp * w, cancelled like the others), so every pixel has all of its
 * taps and one correction per channel. The sums wrap in int32 like the exact value, which the
 * caller bounds below 2^31: the result is the same exact sum as the plain loop's. Channels go in
 * blocks of 64 (512-bit registers) while more than 32 are left, the last 32 or fewer in a block of
 * 32 (256-bit registers: 32-channel layers waste no half vector).
 */
#include "nnapi_host_depthwise_vnni.h"

#include <stdlib.h>
#include <string.h>

#include "nnapi_host_common.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define VNNI __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni")))
#define MAX_TAPS 64
#define BLOCK 64 /* channels per block: 64 bytes of codes */

struct DepthwiseVnni {
    int64_t c, blocks, groups, taps, w;
    int64_t narrow;               /* the last block is 32 channels wide (256-bit registers) */
    int64_t tap_row[MAX_TAPS];    /* ky of each tap */
    int64_t tap_column[MAX_TAPS]; /* kx * dilation_w of each tap */
    uint8_t flip;                 /* 0x80 for signed codes */
    int8_t *packed;               /* [blocks][groups][4][64] interleaved weights */
    int32_t *correction;          /* [blocks * 64]: zp (as read) * the channel's weight sum */
    uint8_t *zp_line;             /* w * c bytes of the zero point's code */
};

/* The two unpack rounds: lane (L, q) of out[k] holds the four taps' bytes of channel 16L + 4k + q. */
static VNNI inline void interleave(__m512i v0, __m512i v1, __m512i v2, __m512i v3, __m512i out[4]) {
    __m512i a = _mm512_unpacklo_epi8(v0, v1), b = _mm512_unpackhi_epi8(v0, v1);
    __m512i c = _mm512_unpacklo_epi8(v2, v3), d = _mm512_unpackhi_epi8(v2, v3);
    out[0] = _mm512_unpacklo_epi16(a, c);
    out[1] = _mm512_unpackhi_epi16(a, c);
    out[2] = _mm512_unpacklo_epi16(b, d);
    out[3] = _mm512_unpackhi_epi16(b, d);
}

static VNNI inline void interleave_narrow(__m256i v0, __m256i v1, __m256i v2, __m256i v3, __m256i out[4]) {
    __m256i a = _mm256_unpacklo_epi8(v0, v1), b = _mm256_unpackhi_epi8(v0, v1);
    __m256i c = _mm256_unpacklo_epi8(v2, v3), d = _mm256_unpackhi_epi8(v2, v3);
    out[0] = _mm256_unpacklo_epi16(a, c);
    out[1] = _mm256_unpackhi_epi16(a, c);
    out[2] = _mm256_unpacklo_epi16(b, d);
    out[3] = _mm256_unpackhi_epi16(b, d);
}

int nnapi_host_depthwise_vnni_supported(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512bw");
}

static VNNI void pack_weights(DepthwiseVnni *v, const int16_t *weights) {
    for (int64_t bi = 0; bi < v->blocks; ++bi) {
        int64_t c0 = bi * BLOCK, n = v->c - c0 < BLOCK ? v->c - c0 : BLOCK;
        for (int64_t g = 0; g < v->groups; ++g) {
            int8_t lanes[4][BLOCK];
            memset(lanes, 0, sizeof lanes);
            for (int j = 0; j < 4; ++j) {
                int64_t t = 4 * g + j;
                for (int64_t ch = 0; t < v->taps && ch < n; ++ch) lanes[j][ch] = (int8_t)weights[t * v->c + c0 + ch];
            }
            int8_t *dst = v->packed + (bi * v->groups + g) * 4 * BLOCK;
            if (v->narrow && bi == v->blocks - 1) {
                __m256i out[4];
                interleave_narrow(_mm256_loadu_si256((const __m256i *)lanes[0]), _mm256_loadu_si256((const __m256i *)lanes[1]),
                                  _mm256_loadu_si256((const __m256i *)lanes[2]), _mm256_loadu_si256((const __m256i *)lanes[3]),
                                  out);
                for (int k = 0; k < 4; ++k) _mm256_storeu_si256((__m256i *)(dst + k * 32), out[k]);
                continue;
            }
            __m512i out[4];
            interleave(_mm512_loadu_si512(lanes[0]), _mm512_loadu_si512(lanes[1]), _mm512_loadu_si512(lanes[2]),
                       _mm512_loadu_si512(lanes[3]), out);
            for (int k = 0; k < 4; ++k) _mm512_storeu_si512(dst + k * BLOCK, out[k]);
        }
    }
}

DepthwiseVnni *nnapi_host_depthwise_vnni_prepare(const int16_t *weights, const int64_t *g, int32_t x_zp,
                                                 int x_signed) {
    const int64_t w = g[2], c = g[3], kh = g[4], kw = g[5];
    int64_t taps = kh * kw;
    if (taps > MAX_TAPS || c <= 0 || w <= 0 || !nnapi_host_depthwise_vnni_supported()) return NULL;
    for (int64_t i = 0; i < taps * c; ++i) {
        if (weights[i] < -128 || weights[i] > 127) return NULL; /* VPDPBUSD multiplies signed bytes */
    }
    DepthwiseVnni *v = calloc(1, sizeof *v);
    if (!v) return NULL;
    v->c = c;
    v->w = w;
    v->taps = taps;
    v->blocks = (c + BLOCK - 1) / BLOCK;
    v->narrow = c - (v->blocks - 1) * BLOCK <= 32;
    v->groups = (taps + 3) / 4;
    v->flip = x_signed ? 0x80 : 0;
    nnapi_host_depthwise_taps(g, v->tap_row, v->tap_column);
    v->packed = aligned_alloc(64, (size_t)(v->blocks * v->groups * 4 * BLOCK));
    v->correction = aligned_alloc(64, (size_t)(v->blocks * BLOCK) * sizeof(int32_t));
    v->zp_line = malloc((size_t)(w * c));
    if (!v->packed || !v->correction || !v->zp_line) {
        nnapi_host_depthwise_vnni_free(v);
        return NULL;
    }
    memset(v->zp_line, (uint8_t)x_zp, (size_t)(w * c));
    nnapi_host_depthwise_correction(weights, c, taps, x_zp, x_signed, v->blocks * BLOCK, v->correction);
    pack_weights(v, weights);
    return v;
}

void nnapi_host_depthwise_vnni_free(DepthwiseVnni *v) {
    if (!v) return;
    free(v->packed);
    free(v->correction);
    free(v->zp_line);
    free(v);
}

/* The four registers of one pixel's sums in channel order (a 4x4 transpose of 128-bit lanes),
 * less the zero point's share, stored to acc (the channels below `n` of the block). */
static VNNI inline void store_sums(const __m512i s[4], const int32_t *correction, int64_t n, int32_t *acc) {
    __m512i t0 = _mm512_shuffle_i32x4(s[0], s[1], _MM_SHUFFLE(1, 0, 1, 0));
    __m512i t1 = _mm512_shuffle_i32x4(s[0], s[1], _MM_SHUFFLE(3, 2, 3, 2));
    __m512i t2 = _mm512_shuffle_i32x4(s[2], s[3], _MM_SHUFFLE(1, 0, 1, 0));
    __m512i t3 = _mm512_shuffle_i32x4(s[2], s[3], _MM_SHUFFLE(3, 2, 3, 2));
    __m512i out[4] = {_mm512_shuffle_i32x4(t0, t2, _MM_SHUFFLE(2, 0, 2, 0)),
                      _mm512_shuffle_i32x4(t0, t2, _MM_SHUFFLE(3, 1, 3, 1)),
                      _mm512_shuffle_i32x4(t1, t3, _MM_SHUFFLE(2, 0, 2, 0)),
                      _mm512_shuffle_i32x4(t1, t3, _MM_SHUFFLE(3, 1, 3, 1))};
    for (int k = 0; k < 4 && 16 * k < n; ++k) {
        __m512i value = _mm512_sub_epi32(out[k], _mm512_load_si512(correction + 16 * k));
        if (n - 16 * k >= 16) {
            _mm512_storeu_si512(acc + 16 * k, value);
        } else {
            _mm512_mask_storeu_epi32(acc + 16 * k, (__mmask16)((1u << (n - 16 * k)) - 1u), value);
        }
    }
}

/* As store_sums for a block of 32 channels: lane (L, q) of s[k] is channel 16L + 4k + q. */
static VNNI inline void store_narrow_sums(const __m256i s[4], const int32_t *correction, int64_t n, int32_t *acc) {
    __m256i out[4] = {_mm256_permute2x128_si256(s[0], s[1], 0x20), _mm256_permute2x128_si256(s[2], s[3], 0x20),
                      _mm256_permute2x128_si256(s[0], s[1], 0x31), _mm256_permute2x128_si256(s[2], s[3], 0x31)};
    for (int k = 0; k < 4 && 8 * k < n; ++k) {
        __m256i value = _mm256_sub_epi32(out[k], _mm256_load_si256((const __m256i *)(correction + 8 * k)));
        if (n - 8 * k >= 8) {
            _mm256_storeu_si256((__m256i *)(acc + 8 * k), value);
        } else {
            _mm256_mask_storeu_epi32(acc + 8 * k, (__mmask8)((1u << (n - 8 * k)) - 1u), value);
        }
    }
}

/* One output row's sums of the last block when it is 32 channels wide (c0 its first channel). */
static VNNI void narrow_block(const DepthwiseVnni *v, const uint8_t *const *line, const int64_t *g, int64_t c0,
                              int32_t *acc) {
    const int64_t w = g[2], c = g[3], kw = g[5], sw = g[7], dw = g[9], left = g[11], ow = g[13];
    const int64_t n = c - c0;
    const __mmask32 mask = n == 32 ? ~(__mmask32)0 : (((__mmask32)1 << n) - 1);
    const __m256i flip = _mm256_set1_epi8((char)v->flip);
    const __m256i *wp = (const __m256i *)(v->packed + (v->blocks - 1) * v->groups * 4 * BLOCK);
    for (int64_t ox = 0; ox < ow; ++ox) {
        const int64_t x0 = ox * sw - left;
        const int inside = x0 >= 0 && x0 + (kw - 1) * dw < w;
        __m256i s[4] = {_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256()};
        for (int64_t gi = 0; gi < v->groups; ++gi) {
            __m256i bytes[4];
            for (int j = 0; j < 4; ++j) {
                int64_t t = 4 * gi + j;
                if (t >= v->taps) {
                    bytes[j] = _mm256_setzero_si256();
                    continue;
                }
                int64_t ix = x0 + v->tap_column[t];
                const uint8_t *p = inside || (ix >= 0 && ix < w) ? line[v->tap_row[t]] + ix * c + c0 : v->zp_line + c0;
                bytes[j] = _mm256_xor_si256(_mm256_maskz_loadu_epi8(mask, p), flip);
            }
            __m256i lanes[4];
            interleave_narrow(bytes[0], bytes[1], bytes[2], bytes[3], lanes);
            for (int k = 0; k < 4; ++k) { /* groups lie 256 bytes apart, as the wide blocks' */
                s[k] = _mm256_dpbusd_epi32(s[k], lanes[k], _mm256_load_si256(wp + gi * 8 + k));
            }
        }
        store_narrow_sums(s, v->correction + c0, n, acc + ox * c + c0);
    }
}

void VNNI nnapi_host_depthwise_vnni_row(const DepthwiseVnni *v, const uint8_t *x, const int64_t *g, int64_t row,
                                        int32_t *acc) {
    const int64_t h = g[1], w = g[2], c = g[3], kh = g[4], kw = g[5], sh = g[6], sw = g[7], dh = g[8], dw = g[9];
    const int64_t top = g[10], left = g[11], oh = g[12], ow = g[13];
    const int64_t b = row / oh, oy = row % oh;
    const uint8_t *line[MAX_TAPS];
    for (int64_t ky = 0; ky < kh; ++ky) {
        int64_t iy = oy * sh - top + ky * dh;
        line[ky] = iy >= 0 && iy < h ? x + (b * h + iy) * w * c : v->zp_line;
    }
    const __m512i flip = _mm512_set1_epi8((char)v->flip);
    for (int64_t bi = 0; bi < v->blocks; ++bi) {
        const int64_t c0 = bi * BLOCK, n = c - c0 < BLOCK ? c - c0 : BLOCK;
        if (v->narrow && bi == v->blocks - 1) {
            narrow_block(v, line, g, c0, acc);
            break;
        }
        const __mmask64 mask = n == BLOCK ? ~(__mmask64)0 : (((__mmask64)1 << n) - 1);
        const __m512i *wp = (const __m512i *)(v->packed + bi * v->groups * 4 * BLOCK);
        for (int64_t ox = 0; ox < ow; ++ox) {
            const int64_t x0 = ox * sw - left;
            const int inside = x0 >= 0 && x0 + (kw - 1) * dw < w;
            __m512i s[4] = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512(),
                            _mm512_setzero_si512()};
            for (int64_t gi = 0; gi < v->groups; ++gi) {
                __m512i bytes[4];
                for (int j = 0; j < 4; ++j) {
                    int64_t t = 4 * gi + j;
                    if (t >= v->taps) {
                        bytes[j] = _mm512_setzero_si512(); /* its weights are zero */
                        continue;
                    }
                    int64_t ix = x0 + v->tap_column[t];
                    const uint8_t *p = inside || (ix >= 0 && ix < w) ? line[v->tap_row[t]] + ix * c + c0
                                                                     : v->zp_line + c0;
                    bytes[j] = _mm512_xor_si512(_mm512_maskz_loadu_epi8(mask, p), flip);
                }
                __m512i lanes[4];
                interleave(bytes[0], bytes[1], bytes[2], bytes[3], lanes);
                for (int k = 0; k < 4; ++k) s[k] = _mm512_dpbusd_epi32(s[k], lanes[k], _mm512_load_si512(wp + gi * 4 + k));
            }
            store_sums(s, v->correction + c0, n, acc + ox * c + c0);
        }
    }
}

#else /* no x86-64: the caller keeps its other paths */

int nnapi_host_depthwise_vnni_supported(void) { return 0; }
DepthwiseVnni *nnapi_host_depthwise_vnni_prepare(const int16_t *weights, const int64_t *g, int32_t x_zp,
                                                 int x_signed) {
    (void)weights, (void)g, (void)x_zp, (void)x_signed;
    return NULL;
}
void nnapi_host_depthwise_vnni_free(DepthwiseVnni *v) { (void)v; }
void nnapi_host_depthwise_vnni_row(const DepthwiseVnni *v, const uint8_t *x, const int64_t *g, int64_t row,
                                   int32_t *acc) {
    (void)v, (void)x, (void)g, (void)row, (void)acc;
}

#endif
