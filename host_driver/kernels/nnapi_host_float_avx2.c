/* nnapi_host_float.c's product and depthwise convolution with AVX2 and FMA, for x86-64 machines
 * without AVX-512 (nnapi_host_float_avx2.h).
 *
 * Each output is the chain of the AVX-512 loops, operation for operation: fused multiply-adds in
 * k order (taps ky, kx ascending, out-of-image ones skipped) from 0, then + bias, then
 * min(hi, max(lo, v)) (a NaN stays a NaN). So these loops give the AVX-512 loops' bits; eight
 * lanes a vector instead of sixteen, and the channels past the last whole eight under a mask
 * (VMASKMOVPS reads and writes nothing outside it).
 */
#include "nnapi_host_float_avx2.h"

#include "nnapi_host_common.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define AVX2 __attribute__((target("avx2,fma")))
#define LANES 16     /* output channels per packed block (two vectors) */
#define TILE_ROWS 6  /* rows per register block: 6 x 2 sums */

int nnapi_host_float_avx2_supported(void) {
    return nnapi_host_cpu_avx2() && __builtin_cpu_supports("fma");
}

/* The lanes below `count` (0..8) as a VMASKMOVPS mask. */
static inline AVX2 __m256i lanes_below(int64_t count) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)count), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/* + bias, the clamp, stored: `width` (0..8) lanes at dst. */
static inline AVX2 void store8(__m256 acc, const float *bias, float lo, float hi, float *dst, int64_t width) {
    if (width <= 0) return;
    __m256i mask = lanes_below(width);
    if (bias) acc = _mm256_add_ps(acc, width >= 8 ? _mm256_loadu_ps(bias) : _mm256_maskload_ps(bias, mask));
    acc = _mm256_min_ps(_mm256_set1_ps(hi), _mm256_max_ps(_mm256_set1_ps(lo), acc));
    if (width >= 8) {
        _mm256_storeu_ps(dst, acc);
    } else {
        _mm256_maskstore_ps(dst, mask, acc);
    }
}

void AVX2 nnapi_host_float_gemm_avx2(const float *a, int64_t k, int64_t n, const float *packed, const float *bias,
                                     float lo, float hi, float *out, int64_t r0, int64_t rows, int64_t b0,
                                     int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
        const float *w = packed + b * k * LANES;
        const float *bb = bias ? bias + b * LANES : 0;
        int64_t width = n - b * LANES < LANES ? n - b * LANES : LANES;
        for (int64_t t0 = r0; t0 < r0 + rows; t0 += TILE_ROWS) {
            int64_t height = r0 + rows - t0 < TILE_ROWS ? r0 + rows - t0 : TILE_ROWS;
            const float *row[TILE_ROWS]; /* missing rows repeat the first, unstored */
            for (int64_t r = 0; r < TILE_ROWS; ++r) row[r] = a + (t0 + (r < height ? r : 0)) * k;
            __m256 s[TILE_ROWS][2];
#pragma GCC unroll 6
            for (int r = 0; r < TILE_ROWS; ++r) s[r][0] = s[r][1] = _mm256_setzero_ps();
            for (int64_t t = 0; t < k; ++t) {
                __m256 w0 = _mm256_loadu_ps(w + t * LANES), w1 = _mm256_loadu_ps(w + t * LANES + 8);
#pragma GCC unroll 6
                for (int r = 0; r < TILE_ROWS; ++r) {
                    __m256 x = _mm256_broadcast_ss(row[r] + t);
                    s[r][0] = _mm256_fmadd_ps(x, w0, s[r][0]);
                    s[r][1] = _mm256_fmadd_ps(x, w1, s[r][1]);
                }
            }
            /* Constant indices (an unrolled loop): a variable one made GCC keep s in memory, storing
             * every sum at every k (10 GMAC/s instead of 25 on one Zen 3 core). */
#pragma GCC unroll 6
            for (int r = 0; r < TILE_ROWS; ++r) {
                if (r >= height) break;
                float *dst = out + (t0 + r) * n + b * LANES;
                store8(s[r][0], bb, lo, hi, dst, width);
                store8(s[r][1], bb ? bb + 8 : 0, lo, hi, dst + 8, width - 8);
            }
        }
    }
}

void AVX2 nnapi_host_float_depthwise_row_avx2(const float *x, const float *w, const float *bias, float lo, float hi,
                                              const int64_t *g, int64_t b, int64_t oy, float *out) {
    const int64_t h = g[1], width = g[2], c = g[3], kh = g[4], kw = g[5], sw = g[7], dh = g[8], dw = g[9];
    const int64_t left = g[11], ow = g[13];
    float *dst = out + ((b * g[12] + oy) * ow) * c;
    const float *xb = x + b * h * width * c;
    const int64_t top = oy * g[6] - g[10];
    int64_t ky0 = 0, ky1 = kh; /* the filter rows inside the image */
    while (ky0 < kh && top + ky0 * dh < 0) ++ky0;
    while (ky1 > ky0 && top + (ky1 - 1) * dh >= h) --ky1;
    for (int64_t ox = 0; ox < ow; ++ox) {
        const int64_t x0 = ox * sw - left;
        int64_t kx0 = 0, kx1 = kw;
        while (kx0 < kw && x0 + kx0 * dw < 0) ++kx0;
        while (kx1 > kx0 && x0 + (kx1 - 1) * dw >= width) --kx1;
        for (int64_t c0 = 0; c0 < c; c0 += 8) {
            const int64_t n = c - c0 < 8 ? c - c0 : 8;
            const __m256i mask = lanes_below(n);
            __m256 acc = _mm256_setzero_ps();
            for (int64_t ky = ky0; ky < ky1; ++ky) {
                const float *xrow = xb + ((top + ky * dh) * width + x0) * c + c0;
                const float *wrow = w + ky * kw * c + c0;
                for (int64_t kx = kx0; kx < kx1; ++kx) {
                    const float *xp = xrow + kx * dw * c, *wp = wrow + kx * c;
                    __m256 xv = n == 8 ? _mm256_loadu_ps(xp) : _mm256_maskload_ps(xp, mask);
                    __m256 wv = n == 8 ? _mm256_loadu_ps(wp) : _mm256_maskload_ps(wp, mask);
                    acc = _mm256_fmadd_ps(xv, wv, acc);
                }
            }
            store8(acc, bias ? bias + c0 : 0, lo, hi, dst + ox * c + c0, n);
        }
    }
}

#else /* no x86-64: nnapi_host_float.c keeps its plain loops */

int nnapi_host_float_avx2_supported(void) { return 0; }
void nnapi_host_float_gemm_avx2(const float *a, int64_t k, int64_t n, const float *packed, const float *bias,
                                float lo, float hi, float *out, int64_t r0, int64_t rows, int64_t b0, int64_t b1) {
    (void)a, (void)k, (void)n, (void)packed, (void)bias, (void)lo, (void)hi, (void)out, (void)r0, (void)rows;
    (void)b0, (void)b1;
}
void nnapi_host_float_depthwise_row_avx2(const float *x, const float *w, const float *bias, float lo, float hi,
                                         const int64_t *g, int64_t b, int64_t oy, float *out) {
    (void)x, (void)w, (void)bias, (void)lo, (void)hi, (void)g, (void)b, (void)oy, (void)out;
}

#endif
