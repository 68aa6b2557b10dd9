/* The 8-bit product of nnapi_host_gemm.c with AVX2, for x86-64 machines without AVX-512 VNNI
 * (nnapi_host_gemm_avx2.h).
 *
 * AVX2 has no instruction that adds byte products into int32 lanes without a 16-bit step that can
 * saturate (VPMADDUBSW: 255 * 127 * 2 > 32767), so both operands are widened to int16 and
 * VPMADDWD adds pairs of exact products into int32 lanes: exact like the VNNI product. The weights
 * stay in nnapi_host_gemm.c's packed layout ([block][group][16 channels][4 k] int8): sixteen bytes
 * (four channels' four k) widen to one register of sixteen int16, whose int32 lanes pair (k0, k1)
 * and (k2, k3) of each channel; a row's four bytes, widened and repeated, meet them, and the two
 * lanes of a channel are added at the end (VPHADDD). Two rows times sixteen channels per tile: 8
 * sums, 4 weight and 2 row registers of the 16.
 */
#include "nnapi_host_gemm_avx2.h"

#include <string.h>

#include "nnapi_host_common.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define AVX2 __attribute__((target("avx2")))
#define LANES 16
#define DEPTH 4


/* The four bytes as int16, repeated over the register: (b0, b1, b2, b3) four times. */
static inline AVX2 __m256i widened_row(uint32_t bytes) {
    return _mm256_cvtepu8_epi16(_mm_set1_epi32((int)bytes));
}

/* Channels 4q..4q+3 of a packed group as int16: (k0, k1, k2, k3) per channel. */
static inline AVX2 __m256i widened_weights(const int8_t *group, int q) {
    return _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(group + 16 * q)));
}

/* Eight channels in order from the pair sums of channels 0-3 (s0) and 4-7 (s1). */
static inline AVX2 __m256i channel_sums(__m256i s0, __m256i s1) {
    /* VPHADDD per 128-bit lane: (c0, c1, c4, c5 | c2, c3, c6, c7) */
    return _mm256_permute4x64_epi64(_mm256_hadd_epi32(s0, s1), _MM_SHUFFLE(3, 1, 2, 0));
}

static inline AVX2 void store_lanes(int32_t *dst, __m256i v, int64_t width) {
    if (width >= 8) {
        _mm256_storeu_si256((__m256i *)dst, v);
    } else if (width > 0) {
        const __m256i index = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
        _mm256_maskstore_epi32(dst, _mm256_cmpgt_epi32(_mm256_set1_epi32((int)width), index), v);
    }
}

/* Rows row0 and row1 (row1 may repeat row0: then `height` is 1) times one block of 16 channels. */
static AVX2 void tile(const uint8_t *row0, const uint8_t *row1, int64_t k, int64_t groups, const int8_t *w,
                      uint32_t flip, int32_t *acc, int64_t n, int64_t height, int64_t width) {
    __m256i s[2][4];
    for (int r = 0; r < 2; ++r)
        for (int q = 0; q < 4; ++q) s[r][q] = _mm256_setzero_si256();
    int64_t whole = k / DEPTH, g = 0;
    for (; g < groups; ++g) {
        const int8_t *wg = w + g * LANES * DEPTH;
        uint32_t b0, b1;
        if (g < whole) {
            memcpy(&b0, row0 + g * DEPTH, DEPTH);
            memcpy(&b1, row1 + g * DEPTH, DEPTH);
            b0 ^= flip;
            b1 ^= flip;
        } else {
            b0 = nnapi_host_activation_group(row0, k, g, flip);
            b1 = nnapi_host_activation_group(row1, k, g, flip);
        }
        __m256i a0 = widened_row(b0), a1 = widened_row(b1);
        for (int q = 0; q < 4; ++q) {
            __m256i wq = widened_weights(wg, q);
            s[0][q] = _mm256_add_epi32(s[0][q], _mm256_madd_epi16(a0, wq));
            s[1][q] = _mm256_add_epi32(s[1][q], _mm256_madd_epi16(a1, wq));
        }
    }
    /* Constant indices: a variable one would keep s in memory (nnapi_host_float_avx2.c). */
    store_lanes(acc, channel_sums(s[0][0], s[0][1]), width);
    store_lanes(acc + 8, channel_sums(s[0][2], s[0][3]), width - 8);
    if (height > 1) {
        store_lanes(acc + n, channel_sums(s[1][0], s[1][1]), width);
        store_lanes(acc + n + 8, channel_sums(s[1][2], s[1][3]), width - 8);
    }
}

void AVX2 nnapi_host_product_avx2(const uint8_t *a, int64_t rows, int64_t k, int64_t n, const int8_t *packed,
                                  uint32_t flip, int64_t first_block, int64_t last_block, int32_t *acc) {
    int64_t groups = (k + DEPTH - 1) / DEPTH, stride = groups * LANES * DEPTH;
    for (int64_t r0 = 0; r0 < rows; r0 += 2) {
        int64_t height = rows - r0 < 2 ? rows - r0 : 2;
        const uint8_t *row0 = a + r0 * k, *row1 = height == 2 ? row0 + k : row0;
        for (int64_t b = first_block; b < last_block; ++b) {
            int64_t width = n - b * LANES < LANES ? n - b * LANES : LANES;
            tile(row0, row1, k, groups, packed + b * stride, flip, acc + r0 * n + b * LANES, n, height, width);
        }
    }
}

#else /* no x86-64: nnapi_host_gemm.c keeps its plain product */

void nnapi_host_product_avx2(const uint8_t *a, int64_t rows, int64_t k, int64_t n, const int8_t *packed,
                             uint32_t flip, int64_t first_block, int64_t last_block, int32_t *acc) {
    (void)a, (void)rows, (void)k, (void)n, (void)packed, (void)flip, (void)first_block, (void)last_block, (void)acc;
}

#endif
