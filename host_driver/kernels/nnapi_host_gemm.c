/* The 8-bit matrix product of a 1x1 convolution or a FULLY_CONNECTED with its requantization, in
 * one pass over the activations (host_driver/operations/_qconv.py, _packed_gemm_kernel).
 *
 * acc[m][n] = sum over k of u[m][k] * w[n][k], exactly, in int32, where u are the activation
 * codes as unsigned bytes (int8 codes read as code + 128, their bit pattern with the top bit
 * flipped) and w are the int8 weights; the caller folds the zero points and the +128 into the
 * requantization's constants (the same folding as its torch._int_mm kernel), and bounds every sum
 * below 2^31. Blocks of rows are requantized by nnapi_host_requantize while their accumulators are
 * in cache: no int32 tensor of the whole output is written.
 *
 * Weights are packed once per compilation as [ceil(N / 16)][ceil(K / 4)][16][4] int8, zero-filled
 * past N and K: one 64-byte vector holds four consecutive k of sixteen output channels, the operand
 * of AVX-512 VNNI's VPDPBUSD (unsigned bytes times signed bytes, four products summed into each
 * int32 lane, without saturation). Machines without AVX-512 VNNI run the same packed product with
 * AVX2 (nnapi_host_gemm_avx2.c), others in plain C; the tests run each the machine has.
 */
#include <stdint.h>
#include <string.h>

#include "nnapi_host_common.h"
#include "nnapi_host_gemm_avx2.h"
#include "nnapi_host_kernels.h"
#include "nnapi_host_threads.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define NNAPI_HOST_HAS_X86 1
#endif

#define NNAPI_HOST_EXPORT __attribute__((visibility("default")))
#define LANES 16 /* output channels per packed block */
#define DEPTH 4  /* k per packed group */
#define TILE_ROWS 8 /* rows of the VNNI product's register tile */



/* acc[rows][n] of `rows` activation rows from `a` (row stride k), the columns of blocks
 * [first_block, last_block) of 16 output channels. */
static void product_plain(const uint8_t *a, int64_t rows, int64_t k, int64_t n, const int8_t *packed, uint32_t flip,
                          int64_t first_block, int64_t last_block, int32_t *acc) {
    int64_t groups = (k + DEPTH - 1) / DEPTH;
    for (int64_t r = 0; r < rows; ++r) {
        const uint8_t *row = a + r * k;
        for (int64_t b = first_block; b < last_block; ++b) {
            int32_t lanes[LANES] = {0};
            const int8_t *w = packed + b * groups * LANES * DEPTH;
            for (int64_t g = 0; g < groups; ++g) {
                uint32_t u = nnapi_host_activation_group(row, k, g, flip);
                const int8_t *wg = w + g * LANES * DEPTH;
                for (int j = 0; j < LANES; ++j) {
                    int32_t sum = 0;
                    for (int t = 0; t < DEPTH; ++t) sum += (int32_t)((u >> (8 * t)) & 0xff) * wg[j * DEPTH + t];
                    lanes[j] += sum;
                }
            }
            int64_t width = n - b * LANES < LANES ? n - b * LANES : LANES;
            memcpy(acc + r * n + b * LANES, lanes, (size_t)width * sizeof(int32_t));
        }
    }
}

#ifdef NNAPI_HOST_HAS_X86
static inline uint32_t load4(const uint8_t *p) {
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

#define VNNI __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni")))

/* The last, partial group of four bytes of a row (k % 4 of them; zeros past k), xored with flip:
 * a masked load, which reads nothing past the row (no library call per row and tile). */
static inline VNNI uint32_t last_group(const uint8_t *row, int64_t k, int64_t group, uint32_t flip) {
    int64_t start = group * DEPTH;
    __mmask16 mask = (__mmask16)((1u << (k - start)) - 1u);
    return (uint32_t)_mm_cvtsi128_si32(_mm_maskz_loadu_epi8(mask, row + start)) ^ flip;
}

#define VNNI_TILE(NAME, PAIR)                                                                                  \
    static inline VNNI void NAME(const uint8_t *const *row, int64_t k, int64_t groups, const int8_t *w0,       \
                                 const int8_t *w1, uint32_t flip, int32_t *acc, int64_t n, int64_t height,     \
                                 int64_t width0, int64_t width1) {                                             \
        __m512i s0[TILE_ROWS], s1[TILE_ROWS];                                                                  \
        _Pragma("GCC unroll 8") for (int r = 0; r < TILE_ROWS; ++r) s0[r] = s1[r] = _mm512_setzero_si512();    \
        int64_t whole = k / DEPTH, g = 0;                                                                      \
        __m512i flips = _mm512_set1_epi32((int)flip);                                                          \
        for (; g < whole; ++g) {                                                                               \
            __m512i a0 = _mm512_loadu_si512((const void *)(w0 + g * LANES * DEPTH));                           \
            __m512i a1 = PAIR ? _mm512_loadu_si512((const void *)(w1 + g * LANES * DEPTH)) : a0;               \
            _Pragma("GCC unroll 8") for (int r = 0; r < TILE_ROWS; ++r) {                                      \
                __m512i u = _mm512_xor_si512(_mm512_set1_epi32((int)load4(row[r] + g * DEPTH)), flips);        \
                s0[r] = _mm512_dpbusd_epi32(s0[r], u, a0);                                                     \
                if (PAIR) s1[r] = _mm512_dpbusd_epi32(s1[r], u, a1);                                           \
            }                                                                                                  \
        }                                                                                                      \
        for (; g < groups; ++g) { /* the last, partial group of four k */                                     \
            __m512i a0 = _mm512_loadu_si512((const void *)(w0 + g * LANES * DEPTH));                           \
            __m512i a1 = PAIR ? _mm512_loadu_si512((const void *)(w1 + g * LANES * DEPTH)) : a0;               \
            _Pragma("GCC unroll 8") for (int r = 0; r < TILE_ROWS; ++r) {                                      \
                __m512i u = _mm512_set1_epi32((int)last_group(row[r], k, g, flip));                            \
                s0[r] = _mm512_dpbusd_epi32(s0[r], u, a0);                                                     \
                if (PAIR) s1[r] = _mm512_dpbusd_epi32(s1[r], u, a1);                                           \
            }                                                                                                  \
        }                                                                                                      \
        __mmask16 mask0 = (__mmask16)((1u << width0) - 1u), mask1 = (__mmask16)((1u << width1) - 1u);          \
        if (width0 == LANES && (!PAIR || width1 == LANES)) { /* masked stores are slow on AMD Zen 4 */        \
            for (int64_t r = 0; r < height; ++r) {                                                             \
                _mm512_storeu_si512((void *)(acc + r * n), s0[r]);                                             \
                if (PAIR) _mm512_storeu_si512((void *)(acc + r * n + LANES), s1[r]);                           \
            }                                                                                                  \
        } else {                                                                                               \
            for (int64_t r = 0; r < height; ++r) {                                                             \
                _mm512_mask_storeu_epi32((void *)(acc + r * n), mask0, s0[r]);                                 \
                if (PAIR) _mm512_mask_storeu_epi32((void *)(acc + r * n + LANES), mask1, s1[r]);               \
            }                                                                                                  \
        }                                                                                                      \
    }

/* TILE_ROWS rows times two blocks of 16 output channels (w0, w1), or one (w0): each group of
 * four k loads the blocks' weight vectors once and broadcasts each row's four bytes, so that 16
 * (8) independent sums hide VPDPBUSD's latency. Rows past `height` repeat the first and are not
 * stored; the blocks store width0 and width1 lanes. */
VNNI_TILE(vnni_tile_pair, 1)
VNNI_TILE(vnni_tile_one, 0)

/* Two rows (row[1] may repeat row[0]) times two blocks of 16 output channels (w1 may repeat w0),
 * for a block of one or two rows (a FULLY_CONNECTED of one input): even and odd groups of four k
 * in separate sums (8 independent sums; the integer sums add exactly), instead of an 8-row tile
 * of which most rows would be repeats. Stores `height` rows of width0 and (pair) width1 lanes. */
static VNNI void vnni_two_rows(const uint8_t *const *row, int64_t k, int64_t groups, const int8_t *w0,
                               const int8_t *w1, int pair, uint32_t flip, int32_t *acc, int64_t n, int64_t height,
                               int64_t width0, int64_t width1) {
    __m512i s[2][2][2]; /* [phase][row][block] */
    for (int p = 0; p < 2; ++p)
        for (int r = 0; r < 2; ++r) s[p][r][0] = s[p][r][1] = _mm512_setzero_si512();
    const __m512i flips = _mm512_set1_epi32((int)flip);
    int64_t whole = k / DEPTH, g = 0;
    for (; g + 1 < whole; g += 2) {
        for (int p = 0; p < 2; ++p) {
            __m512i a0 = _mm512_loadu_si512((const void *)(w0 + (g + p) * LANES * DEPTH));
            __m512i a1 = _mm512_loadu_si512((const void *)(w1 + (g + p) * LANES * DEPTH));
            for (int r = 0; r < 2; ++r) {
                __m512i u = _mm512_xor_si512(_mm512_set1_epi32((int)load4(row[r] + (g + p) * DEPTH)), flips);
                s[p][r][0] = _mm512_dpbusd_epi32(s[p][r][0], u, a0);
                s[p][r][1] = _mm512_dpbusd_epi32(s[p][r][1], u, a1);
            }
        }
    }
    for (; g < groups; ++g) { /* an odd last whole group, then the partial one */
        __m512i a0 = _mm512_loadu_si512((const void *)(w0 + g * LANES * DEPTH));
        __m512i a1 = _mm512_loadu_si512((const void *)(w1 + g * LANES * DEPTH));
        for (int r = 0; r < 2; ++r) {
            uint32_t bytes = g < whole ? load4(row[r] + g * DEPTH) ^ flip : last_group(row[r], k, g, flip);
            __m512i u = _mm512_set1_epi32((int)bytes);
            s[0][r][0] = _mm512_dpbusd_epi32(s[0][r][0], u, a0);
            s[0][r][1] = _mm512_dpbusd_epi32(s[0][r][1], u, a1);
        }
    }
    __mmask16 mask0 = (__mmask16)((1u << width0) - 1u), mask1 = (__mmask16)((1u << width1) - 1u);
    for (int64_t r = 0; r < height; ++r) {
        _mm512_mask_storeu_epi32((void *)(acc + r * n), mask0, _mm512_add_epi32(s[0][r][0], s[1][r][0]));
        if (pair) _mm512_mask_storeu_epi32((void *)(acc + r * n + LANES), mask1, _mm512_add_epi32(s[0][r][1], s[1][r][1]));
    }
}

/* TILE_ROWS rows at a time (fewer at the end), two blocks of 16 output channels per tile and the
 * last odd block alone. */
static VNNI void product_vnni(const uint8_t *a, int64_t rows, int64_t k, int64_t n, const int8_t *packed,
                              uint32_t flip, int64_t first_block, int64_t last_block, int32_t *acc) {
    int64_t groups = (k + DEPTH - 1) / DEPTH, blocks = last_block, stride = groups * LANES * DEPTH;
    for (int64_t r0 = 0; r0 < rows; r0 += TILE_ROWS) {
        int64_t height = rows - r0 < TILE_ROWS ? rows - r0 : TILE_ROWS;
        const uint8_t *row[TILE_ROWS];
        for (int64_t r = 0; r < TILE_ROWS; ++r) row[r] = a + (r0 + (r < height ? r : 0)) * k;
        for (int64_t b = first_block; b < blocks; b += 2) {
            int pair = b + 1 < blocks;
            int64_t width0 = n - b * LANES < LANES ? n - b * LANES : LANES;
            int64_t rest = n - (b + 1) * LANES, width1 = rest < LANES ? rest : LANES;
            if (height <= 2) {
                vnni_two_rows(row, k, groups, packed + b * stride, packed + (b + pair) * stride, pair, flip,
                              acc + r0 * n + b * LANES, n, height, width0, width1);
            } else if (pair) {
                vnni_tile_pair(row, k, groups, packed + b * stride, packed + (b + 1) * stride, flip,
                               acc + r0 * n + b * LANES, n, height, width0, width1);
            } else {
                vnni_tile_one(row, k, groups, packed + b * stride, 0, flip, acc + r0 * n + b * LANES, n, height,
                              width0, 0);
            }
        }
    }
}
#endif

/* acc[r][j] += beta * (sum over k of u[r][k]): weights q_w - zp_w = w + beta for per-tensor
 * weights stored as w = q_w - t (FULLY_CONNECTED's uint8 weights whose zero point is not 128). */
static void add_row_sums(const uint8_t *a, int64_t rows, int64_t k, int64_t n, uint8_t flip, int32_t beta,
                         int64_t first_column, int64_t last_column, int32_t *acc) {
    for (int64_t r = 0; r < rows; ++r) {
        const uint8_t *row = a + r * k;
        int32_t sum = 0;
        for (int64_t i = 0; i < k; ++i) sum += (uint8_t)(row[i] ^ flip);
        int32_t add = beta * sum;
        for (int64_t j = first_column; j < last_column; ++j) acc[r * n + j] += add;
    }
}

/* Whether this machine runs the AVX2 product (what it runs without AVX-512 VNNI). */
NNAPI_HOST_EXPORT int32_t nnapi_host_gemm_avx2(void) { return nnapi_host_cpu_avx2(); }

/* Whether this machine runs the AVX-512 VNNI product. */
NNAPI_HOST_EXPORT int32_t nnapi_host_gemm_vnni(void) {
#ifdef NNAPI_HOST_HAS_X86
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512bw");
#else
    return 0;
#endif
}

/* a: [m, k] 8-bit codes (int8 when a_signed); packed: see above; scratch: block_rows * n int32;
 * out: [m, n] codes. The requantization arguments are nnapi_host_requantize's (constants of
 * `repeat` copies, repeat <= block_rows, for a long inner loop when there are few channels).
 * beta: added times each row's sum of u (0 for none; the caller bounds the sums below 2^31).
 * product: PRODUCT_VNNI, PRODUCT_AVX2 or PRODUCT_PLAIN (nnapi_host_gemm_requantize's). */
enum { PRODUCT_PLAIN = 0, PRODUCT_AVX2 = 1, PRODUCT_VNNI = 2 };
typedef struct {
    const uint8_t *a;
    int64_t k, n, m, block_rows, repeat;
    const int8_t *packed;
    const double *r, *c, *threshold, *half;
    int32_t lo, hi, xor_mask, int32_clamp, beta, product;
    uint32_t flip;
    const uint8_t *table;
    int32_t *scratch; /* block_rows * n int32 per worker */
    uint8_t *out;
    const int64_t *unroll; /* NULL, or a convolution's geometry: rows are its taps (below) */
    uint8_t *rows;         /* with unroll: block_rows * k bytes per worker */
    uint8_t pad_code;      /* with unroll: the code out-of-image taps read (the zero point's) */
    int64_t column_groups; /* items per block of rows: its columns split in groups (for few rows) */
    int64_t group_blocks;  /* blocks of 16 channels per group */
} GemmJob;

/* Rows [m0, m0 + count) of a convolution's unrolled taps: row m is output pixel m of the NHWC
 * input x, its kh * kw taps of c codes each in (ky, kx, c) order, out-of-image taps pad_code.
 * geometry: {n, h, w, c, kh, kw, stride_h, stride_w, dilation_h, dilation_w, pad_top, pad_left,
 * oh, ow}. */
static void unroll_rows(const uint8_t *x, const int64_t *g, uint8_t pad_code, int64_t m0, int64_t count,
                        uint8_t *rows) {
    int64_t h = g[1], w = g[2], c = g[3], kh = g[4], kw = g[5], oh = g[12], ow = g[13];
    for (int64_t r = 0; r < count; ++r) {
        int64_t m = m0 + r, b = m / (oh * ow), oy = m / ow % oh, ox = m % ow;
        uint8_t *dst = rows + r * kh * kw * c;
        int64_t y0 = oy * g[6] - g[10], x0 = ox * g[7] - g[11];
        if (g[9] == 1 && y0 >= 0 && y0 + (kh - 1) * g[8] < h && x0 >= 0 && x0 + kw <= w) {
            /* Every tap inside, a row of taps contiguous: one copy per kernel row. */
            for (int64_t ky = 0; ky < kh; ++ky, dst += kw * c) {
                memcpy(dst, x + ((b * h + y0 + ky * g[8]) * w + x0) * c, (size_t)(kw * c));
            }
            continue;
        }
        for (int64_t ky = 0; ky < kh; ++ky) {
            int64_t iy = oy * g[6] - g[10] + ky * g[8];
            for (int64_t kx = 0; kx < kw; ++kx, dst += c) {
                int64_t ix = ox * g[7] - g[11] + kx * g[9];
                const uint8_t *src = x + ((b * h + iy) * w + ix) * c;
                int inside = iy >= 0 && iy < h && ix >= 0 && ix < w;
                if (c < 16) { /* an image's few channels: no library call per tap */
                    for (int64_t t = 0; t < c; ++t) dst[t] = inside ? src[t] : pad_code;
                } else if (inside) {
                    memcpy(dst, src, (size_t)c);
                } else {
                    memset(dst, pad_code, (size_t)c);
                }
            }
        }
    }
}

#ifdef NNAPI_HOST_HAS_X86
/* The bits [from, to) of a 64-bit mask (the part of [from, to) within [0, 64)). */
static inline uint64_t bit_span(int64_t from, int64_t to) {
    from = from < 0 ? 0 : from;
    to = to > 64 ? 64 : to;
    if (to <= from) return 0;
    uint64_t below_to = to >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << to) - 1;
    uint64_t below_from = from >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << from) - 1;
    return below_to & ~below_from;
}

/* Chunks of 64 bytes a kernel row of unroll_rows_avx512 may have (kw * c <= 512). */
#define UNROLL_CHUNKS 8

/* unroll_rows for dilation_w 1 and kw * c <= 64 * UNROLL_CHUNKS on a machine with AVX-512 BW: each
 * kernel row's kw * c bytes in chunks of 64, the in-image pixels' bytes loaded under a mask (the
 * same for every kernel row of an output pixel) over the zero point's code, so that a border pixel
 * costs what an interior one does and an image's three channels are not copied byte by byte.
 * Masked loads read nothing outside the mask. */
static __attribute__((target("avx512f,avx512bw"))) void unroll_rows_avx512(const uint8_t *x, const int64_t *g,
                                                                          uint8_t pad_code, int64_t m0,
                                                                          int64_t count, uint8_t *rows) {
    const int64_t h = g[1], w = g[2], c = g[3], kh = g[4], kw = g[5], oh = g[12], ow = g[13];
    const int64_t span = kw * c, chunks = (span + 63) / 64;
    const __m512i pad = _mm512_set1_epi8((char)pad_code);
    const __mmask64 last_store = (__mmask64)bit_span(0, span - (chunks - 1) * 64);
    uint8_t *dst = rows;
    const uint8_t *limit = rows + count * kh * span; /* whole-vector stores stay within this block */
    int64_t b = m0 / (oh * ow), oy = m0 / ow % oh, ox = m0 % ow;
    for (int64_t r = 0; r < count; ++r) {
        int64_t y0 = oy * g[6] - g[10], x0 = ox * g[7] - g[11];
        /* The in-image bytes of every kernel row: kernel columns [first, end) of x0 + kx in [0, w). */
        int64_t first = x0 < 0 ? -x0 : 0, end = w - x0 < kw ? w - x0 : kw;
        int64_t inside_from = first * c, inside_to = end > first ? end * c : inside_from;
        __mmask64 load[UNROLL_CHUNKS];
        for (int64_t ch = 0; ch < chunks; ++ch) load[ch] = (__mmask64)bit_span(inside_from - 64 * ch, inside_to - 64 * ch);
        for (int64_t ky = 0; ky < kh; ++ky) {
            int64_t iy = y0 + ky * g[8];
            int in_image = iy >= 0 && iy < h;
            /* The kernel row's taps start at pixel (iy, x0), which may lie left of the image: the
             * address is formed as an integer and only in-image bytes are read. */
            uintptr_t src = (uintptr_t)x + (uintptr_t)(((b * h + iy) * w + x0) * c);
            for (int64_t ch = 0; ch < chunks; ++ch, dst += 64) {
                __m512i bytes = _mm512_mask_loadu_epi8(pad, in_image ? load[ch] : 0, (const void *)(src + 64 * ch));
                if (dst + 64 <= limit) {
                    /* A whole vector: the bytes past the span are the next span's, written after. */
                    _mm512_storeu_si512((void *)dst, bytes);
                } else {
                    _mm512_mask_storeu_epi8(dst, ch == chunks - 1 ? last_store : ~(__mmask64)0, bytes);
                }
            }
            dst -= chunks * 64 - span;
        }
        if (++ox == ow) {
            ox = 0;
            if (++oy == oh) oy = 0, ++b;
        }
    }
}
#endif

/* Items [first, last): item i is the block i / column_groups of block_rows rows, its columns
 * those of group i % column_groups (every column when there is one group). Each is computed and
 * requantized alone, so the codes do not depend on which thread takes which item. */
static void gemm_blocks(void *ctx, int64_t first, int64_t last, int32_t worker) {
    const GemmJob *j = (const GemmJob *)ctx;
    int32_t *scratch = j->scratch + (int64_t)worker * j->block_rows * j->n;
    const int64_t all_blocks = (j->n + LANES - 1) / LANES;
    for (int64_t item = first; item < last; ++item) {
        int64_t blk = item / j->column_groups, group = item % j->column_groups;
        int64_t first_block = group * j->group_blocks, last_block = first_block + j->group_blocks;
        last_block = last_block < all_blocks ? last_block : all_blocks;
        int64_t first_column = first_block * LANES, last_column = last_block * LANES;
        last_column = last_column < j->n ? last_column : j->n;
        int64_t m0 = blk * j->block_rows;
        int64_t rows = j->m - m0 < j->block_rows ? j->m - m0 : j->block_rows;
        const uint8_t *a = j->a + m0 * j->k;
        if (j->unroll) {
            uint8_t *rows_of_worker = j->rows + (int64_t)worker * j->block_rows * j->k;
#ifdef NNAPI_HOST_HAS_X86
            if (j->product == PRODUCT_VNNI && j->unroll[9] == 1 && j->unroll[5] * j->unroll[3] <= 64 * UNROLL_CHUNKS) {
                unroll_rows_avx512(j->a, j->unroll, j->pad_code, m0, rows, rows_of_worker);
            } else
#endif
            {
                unroll_rows(j->a, j->unroll, j->pad_code, m0, rows, rows_of_worker);
            }
            a = rows_of_worker;
        }
#ifdef NNAPI_HOST_HAS_X86
        if (j->product == PRODUCT_VNNI) {
            product_vnni(a, rows, j->k, j->n, j->packed, j->flip, first_block, last_block, scratch);
        } else
#endif
        if (j->product == PRODUCT_AVX2) {
            nnapi_host_product_avx2(a, rows, j->k, j->n, j->packed, j->flip, first_block, last_block, scratch);
        } else
        {
            product_plain(a, rows, j->k, j->n, j->packed, j->flip, first_block, last_block, scratch);
        }
        if (j->beta) {
            add_row_sums(a, rows, j->k, j->n, (uint8_t)(j->flip & 0xff), j->beta, first_column, last_column, scratch);
        }
        if (j->column_groups == 1) {
            nnapi_host_requantize(scratch, 1, rows, j->n, 1, j->repeat, j->r, j->c, j->threshold, j->half, j->lo,
                                  j->hi, j->xor_mask, j->int32_clamp, j->table, j->out + m0 * j->n);
            continue;
        }
        /* A group's columns row by row (few rows: the groups are for small m). */
        int64_t width = last_column - first_column;
        for (int64_t r = 0; r < rows; ++r) {
            nnapi_host_requantize(scratch + r * j->n + first_column, 1, 1, width, 1, 1, j->r + first_column,
                                  j->c + first_column, j->threshold ? j->threshold + first_column : 0,
                                  j->half ? j->half + first_column : 0, j->lo, j->hi, j->xor_mask, j->int32_clamp,
                                  j->table, j->out + (m0 + r) * j->n + first_column);
        }
    }
}

/* a: [m, k] 8-bit codes (int8 when a_signed); packed: see above; scratch: scratch_slots * block_rows
 * * n int32 (blocks of rows run on up to scratch_slots threads); out: [m, n] codes. The
 * requantization arguments are nnapi_host_requantize's (constants of `repeat` copies, repeat <=
 * block_rows, for a long inner loop when there are few channels). beta: added times each row's
 * sum of u (0 for none; the caller bounds the sums below 2^31). product: 0 the plain C product, 1
 * AVX2's, 2 AVX-512 VNNI's, each where the machine has it (else the next one down). unroll: NULL (a is the [m, k] rows), or the geometry of an
 * NHWC convolution of input a whose unrolled taps are the rows (k = kh * kw * c, m the output
 * pixels; unroll_rows), made a block at a time in `rows` (scratch_slots * block_rows * k bytes),
 * out-of-image taps reading pad_code. */
NNAPI_HOST_EXPORT void nnapi_host_gemm_requantize(const uint8_t *a, int32_t a_signed, int64_t m, int64_t k, int64_t n,
                                                  const int8_t *packed, int64_t block_rows, int64_t repeat,
                                                  const double *r,
                                                  const double *c, const double *threshold, const double *half,
                                                  int32_t lo, int32_t hi, int32_t xor_mask, int32_t int32_clamp,
                                                  const uint8_t *table, int32_t beta, int32_t product,
                                                  int32_t *scratch, int32_t scratch_slots,
                                                  const int64_t *unroll, uint8_t *rows, int32_t pad_code,
                                                  uint8_t *out) {
    GemmJob job = {a, k, n, m, block_rows, repeat, packed, r, c, threshold, half, lo, hi, xor_mask, int32_clamp, beta,
                   product >= PRODUCT_VNNI && nnapi_host_gemm_vnni()   ? PRODUCT_VNNI
                   : product >= PRODUCT_AVX2 && nnapi_host_gemm_avx2() ? PRODUCT_AVX2
                                                                       : PRODUCT_PLAIN,
                   a_signed ? 0x80808080u : 0u, table, scratch, out,
                   unroll, rows, (uint8_t)pad_code, 1, 0};
    /* Blocks of whole 8-row tiles (the product computes a tile's rows past the end anyway). */
    if (block_rows >= TILE_ROWS) job.block_rows = block_rows / TILE_ROWS * TILE_ROWS;
    int64_t blocks = (m + job.block_rows - 1) / job.block_rows;
    /* A job of a few thousand multiply-adds costs less than waking a thread. */
    int32_t slots = m * k * n < (1 << 16) ? 1 : scratch_slots;
    /* Few blocks of rows for the threads (a small image, a FULLY_CONNECTED's few rows): each
     * block's columns also split, in groups of pairs of 16-channel blocks (the product's tile). */
    int64_t channel_blocks = (n + LANES - 1) / LANES, groups = 1;
    if (slots > 1 && blocks < 4 * (int64_t)slots) {
        int64_t wanted = (4 * (int64_t)slots + blocks - 1) / blocks, pairs = (channel_blocks + 1) / 2;
        groups = wanted < pairs ? wanted : pairs;
    }
    int64_t pairs_per_group = ((channel_blocks + 1) / 2 + groups - 1) / groups;
    job.group_blocks = 2 * pairs_per_group;
    job.column_groups = (channel_blocks + job.group_blocks - 1) / job.group_blocks;
    nnapi_host_parallel(gemm_blocks, &job, blocks * job.column_groups, 1, slots);
}

/* -- a weight-only int8 FULLY_CONNECTED ---------------------------------------------------------------
 * out[i][j] = scale[j] * (sum over t of x[i][t] * q[j][t]) + bias[j] (scale[0] for every j when
 * scale_count is 1; bias may be NULL): DEQUANTIZE of constant int8 weights (zero point 0) and a
 * float FULLY_CONNECTED, the weights read as their int8 codes (a quarter of the float32 copy's
 * memory traffic; a language model's decode step is that traffic). Each sum runs as 16 partial
 * float32 sums added pairwise at the end, in the same order on every CPU and every run (use_avx512:
 * the AVX-512 version when the CPU has it, else the AVX2 one where it has that, the same bits as the
 * plain one). */
#define PARTIALS 16

/* The pairwise end of the 16 partial sums, and the tail past the last whole 16 (shared by both
 * versions, so that they round alike). */
static float finish_dot(float *partial, const float *x, const int8_t *q, int64_t whole, int64_t k) {
    for (int64_t t = whole; t < k; ++t) partial[t - whole] += x[t] * (float)q[t];
    for (int width = PARTIALS / 2; width > 0; width /= 2) {
        for (int j = 0; j < width; ++j) partial[j] += partial[j + width];
    }
    return partial[0];
}

static float dot_int8_plain(const float *restrict x, const int8_t *restrict q, int64_t k) {
    float partial[PARTIALS] = {0};
    int64_t whole = k / PARTIALS * PARTIALS;
    for (int64_t t = 0; t < whole; t += PARTIALS) {
        for (int j = 0; j < PARTIALS; ++j) partial[j] += x[t + j] * (float)q[t + j];
    }
    return finish_dot(partial, x, q, whole, k);
}

#ifdef NNAPI_HOST_HAS_X86
/* Lane j of the vector is partial[j] of the plain version: the same operations in the same order. */
__attribute__((target("avx512f"))) static float dot_int8_avx512(const float *x, const int8_t *q, int64_t k) {
    float partial[PARTIALS];
    int64_t whole = k / PARTIALS * PARTIALS;
    __m512 sum = _mm512_setzero_ps();
    for (int64_t t = 0; t < whole; t += PARTIALS) {
        __m512 w = _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(q + t))));
        sum = _mm512_add_ps(sum, _mm512_mul_ps(_mm512_loadu_ps(x + t), w));
    }
    _mm512_storeu_ps(partial, sum);
    return finish_dot(partial, x, q, whole, k);
}

/* The same with AVX2: partials 0-7 and 8-15 in two vectors. */
__attribute__((target("avx2"))) static float dot_int8_avx2(const float *x, const int8_t *q, int64_t k) {
    float partial[PARTIALS];
    int64_t whole = k / PARTIALS * PARTIALS;
    __m256 low = _mm256_setzero_ps(), high = _mm256_setzero_ps();
    for (int64_t t = 0; t < whole; t += PARTIALS) {
        __m128i bytes = _mm_loadu_si128((const __m128i *)(q + t));
        __m256 w0 = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(bytes));
        __m256 w1 = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_srli_si128(bytes, 8)));
        low = _mm256_add_ps(low, _mm256_mul_ps(_mm256_loadu_ps(x + t), w0));
        high = _mm256_add_ps(high, _mm256_mul_ps(_mm256_loadu_ps(x + t + 8), w1));
    }
    _mm256_storeu_ps(partial, low);
    _mm256_storeu_ps(partial + 8, high);
    return finish_dot(partial, x, q, whole, k);
}
#endif

typedef struct {
    const float *x, *scale, *bias;
    const int8_t *q;
    int64_t m, k, n, scale_count;
    float (*dot)(const float *, const int8_t *, int64_t);
    float *out;
} LinearInt8Job;

/* Output units [first, last): each value one dot product, computed alone (same bits at any
 * thread count). */
static void linear_int8_units(void *ctx, int64_t first, int64_t last, int32_t worker) {
    const LinearInt8Job *j = (const LinearInt8Job *)ctx;
    (void)worker;
    for (int64_t u = first; u < last; ++u) {
        const int8_t *row = j->q + u * j->k;
        float s = j->scale[j->scale_count == 1 ? 0 : u], b = j->bias ? j->bias[u] : 0.0f;
        for (int64_t i = 0; i < j->m; ++i) {
            float y = j->dot(j->x + i * j->k, row, j->k) * s;
            j->out[i * j->n + u] = j->bias ? y + b : y;
        }
    }
}

NNAPI_HOST_EXPORT void nnapi_host_linear_int8(const float *x, int64_t m, int64_t k, const int8_t *q, int64_t n,
                                              const float *scale, int64_t scale_count, const float *bias,
                                              int32_t use_avx512, float *out) {
    float (*dot)(const float *, const int8_t *, int64_t) = dot_int8_plain;
#ifdef NNAPI_HOST_HAS_X86
    __builtin_cpu_init();
    if (use_avx512 && __builtin_cpu_supports("avx512f")) {
        dot = dot_int8_avx512;
    } else if (use_avx512 && __builtin_cpu_supports("avx2")) {
        dot = dot_int8_avx2;
    }
#else
    (void)use_avx512;
#endif
    LinearInt8Job job = {x, scale, bias, q, m, k, n, scale_count, dot, out};
    /* Units in chunks of about 64k multiply-adds (a decode step's rows of weights). */
    int64_t per_unit = m * k > 0 ? m * k : 1;
    int64_t grain = per_unit >= 65536 ? 1 : 65536 / per_unit;
    nnapi_host_parallel(linear_int8_units, &job, n, grain, 0);
}
