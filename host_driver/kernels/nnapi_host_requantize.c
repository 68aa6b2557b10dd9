/* The requantization of rows of accumulators with AVX-512 (or AVX2 without it), the per-channel
 * constants held in registers (nnapi_host_kernels.c's nnapi_host_requantize calls it for rows of 16 channels or
 * more; the 8-bit product and the depthwise convolution requantize through it).
 *
 * Each code is the same float64 expression, operation for operation, as requantize_one in
 * nnapi_host_kernels.c (the one proved equal to NNAPI's integer reference): y = (double)acc;
 * y = y * r; y = y + c; y = y + (acc > threshold ? half : -half) with a branch; a clamp of y to
 * [lo, hi] unless every y fits int32; the truncating conversion to int32, its clamp to [lo, hi]
 * and the xor. Vector lanes round each operation as the scalar code does (no fused multiply-add:
 * the library is built with -ffp-contract=off, and the intrinsics name each operation).
 *
 * The loop runs over sixteen channels at a time outside and the rows inside: the constants of
 * those channels are loaded once per block of rows instead of once per code.
 */
#include <stdint.h>

#include "nnapi_host_common.h"
#include "nnapi_host_requantize.h"

/* 0: the plain loops only (tests compare the two), 1: this file's where the CPU has AVX-512. */
/* 0: the plain loops; 1: AVX-512 where the CPU has it, else AVX2; 2: AVX2 even where AVX-512 is there
 * (so that a machine with both tests what one with AVX2 alone runs). */
static int vector_requantize_enabled = 1;

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq")))

/* The constants of sixteen channels, as two vectors of eight float64 each. */
typedef struct {
    __m512d r[2], c[2], threshold[2], half[2], minus_half[2];
} ChannelConstants;

static inline AVX512 __attribute__((always_inline)) __m512d widen(const void *acc, int is_int32, __mmask8 mask) {
    if (is_int32) return _mm512_cvtepi32_pd(_mm256_maskz_loadu_epi32(mask, acc));
    return _mm512_cvtps_pd(_mm256_maskz_loadu_ps(mask, acc));
}

/* Eight codes as int32: requantize_one's float64 operations in its order, then the truncating
 * conversion. Without int_clamp y is clamped to [lo, hi] first: vmaxpd(lo, y) is lo > y ? lo : y,
 * the scalar y < lo ? lo : y (NaN and signed zeros alike), vminpd(hi, y) likewise; the conversion
 * of a y within [lo, hi] stays within it, so its int32 clamp changes nothing. */
static inline AVX512 __attribute__((always_inline)) __m256i eight_codes(__m512d a, const ChannelConstants *k,
                                                                        int part, int branch, int int_clamp,
                                                                        __m512d lo, __m512d hi) {
    __m512d y = _mm512_mul_pd(a, k->r[part]);
    y = _mm512_add_pd(y, k->c[part]);
    if (branch) {
        __mmask8 above = _mm512_cmp_pd_mask(a, k->threshold[part], _CMP_GT_OQ);
        y = _mm512_add_pd(y, _mm512_mask_blend_pd(above, k->minus_half[part], k->half[part]));
    }
    if (!int_clamp) {
        y = _mm512_max_pd(lo, y);
        y = _mm512_min_pd(hi, y);
    }
    return _mm512_cvttpd_epi32(y);
}

/* Sixteen channels of two rows as 32 bytes, row 0's sixteen codes then row 1's: the int32 values
 * narrowed with signed then unsigned saturation (to [0, 255], which holds [lo, hi]: the clamp to
 * [0, 255] then to [lo, hi] is the clamp to [lo, hi]), the bytes put back in channel order, clamped
 * to [lo, hi] and xored. */
static inline AVX512 __attribute__((always_inline)) __m256i two_rows_of_codes(__m256i row0_low, __m256i row0_high,
                                                                              __m256i row1_low, __m256i row1_high,
                                                                              __m256i lo, __m256i hi, __m256i flip,
                                                                              int full_range) {
    /* Per 128-bit lane, groups of four bytes: r0[0:4] r0[8:12] r1[0:4] r1[8:12] | r0[4:8] ... */
    __m256i bytes = _mm256_packus_epi16(_mm256_packs_epi32(row0_low, row0_high),
                                        _mm256_packs_epi32(row1_low, row1_high));
    bytes = _mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
    if (!full_range) {
        bytes = _mm256_max_epu8(bytes, lo);
        bytes = _mm256_min_epu8(bytes, hi);
    }
    return _mm256_xor_si256(bytes, flip);
}

/* Rows [0, rows) of channels [ch0, ch0 + width), width <= 16, two rows at a time. */
static inline AVX512 __attribute__((always_inline)) void channel_block(
    const void *acc, int is_int32, int64_t rows, int64_t channels, int64_t ch0, int64_t width, const double *r,
    const double *c, const double *threshold, const double *half, int branch, int int_clamp, int32_t lo, int32_t hi,
    uint8_t xor_mask, uint8_t *out) {
    __mmask16 mask = width >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << width) - 1u);
    __mmask8 low = (__mmask8)(mask & 0xff), high = (__mmask8)(mask >> 8);
    ChannelConstants k;
    for (int part = 0; part < 2; ++part) {
        __mmask8 m = part ? high : low;
        int64_t at = ch0 + 8 * part;
        k.r[part] = _mm512_maskz_loadu_pd(m, r + at);
        k.c[part] = _mm512_maskz_loadu_pd(m, c + at);
        if (branch) {
            k.threshold[part] = _mm512_maskz_loadu_pd(m, threshold + at);
            k.half[part] = _mm512_maskz_loadu_pd(m, half + at);
            /* -half exactly: the scalar code adds -half, a sign flip of half. */
            k.minus_half[part] = _mm512_castsi512_pd(
                _mm512_xor_si512(_mm512_castpd_si512(k.half[part]), _mm512_set1_epi64((int64_t)1 << 63)));
        }
    }
    const __m512d lo_d = _mm512_set1_pd((double)lo), hi_d = _mm512_set1_pd((double)hi);
    const __m256i lo_b = _mm256_set1_epi8((char)lo), hi_b = _mm256_set1_epi8((char)hi);
    const __m256i flip = _mm256_set1_epi8((char)xor_mask);
    const int full_range = lo == 0 && hi == 255;
    const int64_t size = 4, stride = channels * size; /* int32 and float32 accumulators alike */
    const uint8_t *in = (const uint8_t *)acc + ch0 * size;
    uint8_t *o = out + ch0;
    /* Masked stores are slow on some CPUs (AMD Zen 4): whole blocks store plainly. */
    const int whole = width == 16;
    for (int64_t row = 0; row < rows; row += 2, in += 2 * stride, o += 2 * channels) {
        const uint8_t *in1 = row + 1 < rows ? in + stride : in; /* an odd last row: computed twice, stored once */
        __m256i v00 = eight_codes(widen(in, is_int32, low), &k, 0, branch, int_clamp, lo_d, hi_d);
        __m256i v01 = eight_codes(widen(in + 8 * size, is_int32, high), &k, 1, branch, int_clamp, lo_d, hi_d);
        __m256i v10 = eight_codes(widen(in1, is_int32, low), &k, 0, branch, int_clamp, lo_d, hi_d);
        __m256i v11 = eight_codes(widen(in1 + 8 * size, is_int32, high), &k, 1, branch, int_clamp, lo_d, hi_d);
        __m256i codes = two_rows_of_codes(v00, v01, v10, v11, lo_b, hi_b, flip, full_range || !int_clamp);
        if (whole) {
            _mm_storeu_si128((__m128i *)o, _mm256_castsi256_si128(codes));
            if (row + 1 < rows) _mm_storeu_si128((__m128i *)(o + channels), _mm256_extracti128_si256(codes, 1));
        } else {
            _mm_mask_storeu_epi8(o, mask, _mm256_castsi256_si128(codes));
            if (row + 1 < rows) _mm_mask_storeu_epi8(o + channels, mask, _mm256_extracti128_si256(codes, 1));
        }
    }
}

static inline AVX512 __attribute__((always_inline)) void rows_vector(
    const void *acc, int is_int32, int64_t rows, int64_t channels, const double *r, const double *c,
    const double *threshold, const double *half, int branch, int int_clamp, int32_t lo, int32_t hi, uint8_t xor_mask,
    uint8_t *out) {
    for (int64_t ch0 = 0; ch0 < channels; ch0 += 16) {
        int64_t width = channels - ch0 < 16 ? channels - ch0 : 16;
        if (width == 16) { /* a constant width: the whole-block loop without masks */
            channel_block(acc, is_int32, rows, channels, ch0, 16, r, c, threshold, half, branch, int_clamp, lo, hi,
                          xor_mask, out);
        } else {
            channel_block(acc, is_int32, rows, channels, ch0, width, r, c, threshold, half, branch, int_clamp, lo,
                          hi, xor_mask, out);
        }
    }
}

/* One compiled loop per accumulator type, branch and clamp (constant arguments fold away). */
#define ROWS_VECTOR(SUFFIX, IS_INT32, BRANCH, INT_CLAMP)                                                        \
    static AVX512 void rows_vector_##SUFFIX(const void *acc, int64_t rows, int64_t channels, const double *r,    \
                                            const double *c, const double *threshold, const double *half,       \
                                            int32_t lo, int32_t hi, uint8_t xor_mask, uint8_t *out) {           \
        rows_vector(acc, IS_INT32, rows, channels, r, c, threshold, half, BRANCH, INT_CLAMP, lo, hi, xor_mask,  \
                    out);                                                                                       \
    }

ROWS_VECTOR(f32, 0, 0, 0)
ROWS_VECTOR(f32_branch, 0, 1, 0)
ROWS_VECTOR(f32_int, 0, 0, 1)
ROWS_VECTOR(f32_branch_int, 0, 1, 1)
ROWS_VECTOR(i32, 1, 0, 0)
ROWS_VECTOR(i32_branch, 1, 1, 0)
ROWS_VECTOR(i32_int, 1, 0, 1)
ROWS_VECTOR(i32_branch_int, 1, 1, 1)

typedef void (*rows_vector_loop)(const void *, int64_t, int64_t, const double *, const double *, const double *,
                                 const double *, int32_t, int32_t, uint8_t, uint8_t *);

/* [int32 accumulators][branch][int32 clamp] */
static const rows_vector_loop ROWS_VECTOR_LOOPS[2][2][2] = {
    {{rows_vector_f32, rows_vector_f32_int}, {rows_vector_f32_branch, rows_vector_f32_branch_int}},
    {{rows_vector_i32, rows_vector_i32_int}, {rows_vector_i32_branch, rows_vector_i32_branch_int}},
};

/* codes[i] = table[codes[i]], 64 codes per step: two 128-byte halves of the table looked up by the
 * low seven bits (VPERMI2B) and chosen by the top bit. */
static __attribute__((target("avx512f,avx512bw,avx512vbmi"))) void lookup_vbmi(uint8_t *codes, int64_t n,
                                                                              const uint8_t *table) {
    const __m512i t0 = _mm512_loadu_si512((const void *)table), t1 = _mm512_loadu_si512((const void *)(table + 64));
    const __m512i t2 = _mm512_loadu_si512((const void *)(table + 128));
    const __m512i t3 = _mm512_loadu_si512((const void *)(table + 192));
    for (int64_t i = 0; i < n; i += 64) {
        __mmask64 mask = n - i >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << (n - i)) - 1);
        __m512i index = _mm512_maskz_loadu_epi8(mask, codes + i);
        __m512i low = _mm512_permutex2var_epi8(t0, index, t1), high = _mm512_permutex2var_epi8(t2, index, t3);
        __m512i looked_up = _mm512_mask_blend_epi8(_mm512_movepi8_mask(index), low, high);
        if (n - i >= 64) {
            _mm512_storeu_si512((void *)(codes + i), looked_up);
        } else {
            _mm512_mask_storeu_epi8(codes + i, mask, looked_up);
        }
    }
}

static int cpu_has_vbmi(void) {
    static int known = -1;
    if (known < 0) {
        __builtin_cpu_init();
        known = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                __builtin_cpu_supports("avx512vbmi");
    }
    return known;
}

static int cpu_has_vector_requantize(void) {
    static int known = -1;
    if (known < 0) {
        __builtin_cpu_init();
        known = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
    }
    return known;
}
/* -- the same with AVX2 (machines without AVX-512): eight channels at a time, four float64 lanes
 * a register, each operation of eight_codes in the same order (VMAXPD / VMINPD take the same
 * operand order; VCMPPD's GT_OQ and a blend choose the half). */
#define AVX2 __attribute__((target("avx2")))

static inline AVX2 __m256d widen4(const uint8_t *p, int is_int32, __m128i mask, int whole) {
    if (is_int32) {
        return _mm256_cvtepi32_pd(whole ? _mm_loadu_si128((const __m128i *)p) : _mm_maskload_epi32((const int *)p, mask));
    }
    return _mm256_cvtps_pd(whole ? _mm_loadu_ps((const float *)p) : _mm_maskload_ps((const float *)p, mask));
}

static inline AVX2 __m128i four_codes(__m256d a, __m256d r, __m256d c, __m256d threshold, __m256d half,
                                      __m256d minus_half, int branch, int int_clamp, __m256d lo, __m256d hi) {
    __m256d y = _mm256_add_pd(_mm256_mul_pd(a, r), c);
    if (branch) y = _mm256_add_pd(y, _mm256_blendv_pd(minus_half, half, _mm256_cmp_pd(a, threshold, _CMP_GT_OQ)));
    if (!int_clamp) y = _mm256_min_pd(hi, _mm256_max_pd(lo, y));
    return _mm256_cvttpd_epi32(y);
}

/* Rows [0, rows) of channels [ch0, ch0 + width), width <= 8. */
static inline AVX2 __attribute__((always_inline)) void block8(const void *acc, int is_int32, int64_t rows,
                                                              int64_t channels, int64_t ch0, int64_t width,
                                                              const double *r, const double *c,
                                                              const double *threshold, const double *half, int branch,
                                                              int int_clamp, int32_t lo, int32_t hi, uint8_t xor_mask,
                                                              uint8_t *out) {
    const __m128i index = _mm_setr_epi32(0, 1, 2, 3);
    const __m128i m0 = _mm_cmpgt_epi32(_mm_set1_epi32((int)width), index);
    const __m128i m1 = _mm_cmpgt_epi32(_mm_set1_epi32((int)width - 4), index);
    const __m256i d0 = _mm256_cvtepi32_epi64(m0), d1 = _mm256_cvtepi32_epi64(m1);
    const int whole = width == 8;
    __m256d k[2][5];
    for (int part = 0; part < 2; ++part) {
        __m256i m = part ? d1 : d0;
        int64_t at = ch0 + 4 * part;
        k[part][0] = _mm256_maskload_pd(r + at, m);
        k[part][1] = _mm256_maskload_pd(c + at, m);
        if (branch) {
            k[part][2] = _mm256_maskload_pd(threshold + at, m);
            k[part][3] = _mm256_maskload_pd(half + at, m);
            k[part][4] = _mm256_xor_pd(k[part][3], _mm256_set1_pd(-0.0)); /* -half: a sign flip, as the scalar code */
        } else {
            k[part][2] = k[part][3] = k[part][4] = _mm256_setzero_pd();
        }
    }
    const __m256d lo_d = _mm256_set1_pd((double)lo), hi_d = _mm256_set1_pd((double)hi);
    const __m128i lo_b = _mm_set1_epi8((char)lo), hi_b = _mm_set1_epi8((char)hi), flip = _mm_set1_epi8((char)xor_mask);
    for (int64_t row = 0; row < rows; ++row) {
        const uint8_t *in = (const uint8_t *)acc + (row * channels + ch0) * 4;
        __m128i q[2];
        for (int part = 0; part < 2; ++part) {
            __m256d a = widen4(in + 16 * part, is_int32, part ? m1 : m0, whole);
            q[part] = four_codes(a, k[part][0], k[part][1], k[part][2], k[part][3], k[part][4], branch, int_clamp,
                                 lo_d, hi_d);
        }
        /* int32 -> [0, 255] by saturation (holding [lo, hi]), then [lo, hi], then the xor. */
        __m128i bytes = _mm_packus_epi16(_mm_packs_epi32(q[0], q[1]), _mm_setzero_si128());
        bytes = _mm_xor_si128(_mm_min_epu8(_mm_max_epu8(bytes, lo_b), hi_b), flip);
        uint8_t *o = out + row * channels + ch0;
        if (whole) {
            _mm_storel_epi64((__m128i *)o, bytes);
        } else {
            uint8_t eight[16];
            _mm_storeu_si128((__m128i *)eight, bytes);
            for (int64_t t = 0; t < width; ++t) o[t] = eight[t];
        }
    }
}

#define ROWS_AVX2(SUFFIX, IS_INT32, BRANCH, INT_CLAMP)                                                          \
    static AVX2 void rows_avx2_##SUFFIX(const void *acc, int64_t rows, int64_t channels, const double *r,        \
                                        const double *c, const double *threshold, const double *half, int32_t lo, \
                                        int32_t hi, uint8_t xor_mask, uint8_t *out) {                          \
        for (int64_t ch0 = 0; ch0 < channels; ch0 += 8) {                                                       \
            int64_t width = channels - ch0 < 8 ? channels - ch0 : 8;                                            \
            block8(acc, IS_INT32, rows, channels, ch0, width, r, c, threshold, half, BRANCH, INT_CLAMP, lo, hi, \
                   xor_mask, out);                                                                              \
        }                                                                                                       \
    }

ROWS_AVX2(f32, 0, 0, 0)
ROWS_AVX2(f32_branch, 0, 1, 0)
ROWS_AVX2(f32_int, 0, 0, 1)
ROWS_AVX2(f32_branch_int, 0, 1, 1)
ROWS_AVX2(i32, 1, 0, 0)
ROWS_AVX2(i32_branch, 1, 1, 0)
ROWS_AVX2(i32_int, 1, 0, 1)
ROWS_AVX2(i32_branch_int, 1, 1, 1)

/* [int32 accumulators][branch][int32 clamp] */
static const rows_vector_loop ROWS_AVX2_LOOPS[2][2][2] = {
    {{rows_avx2_f32, rows_avx2_f32_int}, {rows_avx2_f32_branch, rows_avx2_f32_branch_int}},
    {{rows_avx2_i32, rows_avx2_i32_int}, {rows_avx2_i32_branch, rows_avx2_i32_branch_int}},
};
#else
static int cpu_has_vector_requantize(void) { return 0; }
#endif

int nnapi_host_requantize_rows_vector(const void *acc, int32_t acc_is_int32, int64_t rows, int64_t channels,
                                      const double *r, const double *c, const double *threshold, const double *half,
                                      int32_t lo, int32_t hi, uint8_t xor_mask, int32_t int32_clamp, uint8_t *out) {
    /* The narrowing saturates to [0, 255]: a clamp within it only (always so for the driver's codes). */
    if (!vector_requantize_enabled || channels < VECTOR_REQUANTIZE_MIN_CHANNELS || lo < 0 || hi > 255 || lo > hi ||
        !(cpu_has_vector_requantize() || nnapi_host_cpu_avx2())) {
        return 0;
    }
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    int branch = threshold != 0 && half != 0;
    const rows_vector_loop(*loops)[2][2] =
        cpu_has_vector_requantize() && vector_requantize_enabled == 1 ? ROWS_VECTOR_LOOPS : ROWS_AVX2_LOOPS;
    loops[acc_is_int32 != 0][branch][int32_clamp != 0](acc, rows, channels, r, c, threshold, half, lo, hi, xor_mask,
                                                       out);
    return 1;
#else
    (void)acc, (void)acc_is_int32, (void)rows, (void)r, (void)c, (void)threshold, (void)half, (void)lo, (void)hi;
    (void)xor_mask, (void)int32_clamp, (void)out;
    return 0;
#endif
}

int nnapi_host_lookup_vector(uint8_t *codes, int64_t n, const uint8_t *table) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    if (vector_requantize_enabled == 1 && cpu_has_vbmi()) {
        lookup_vbmi(codes, n, table);
        return 1;
    }
#endif
    (void)codes, (void)n, (void)table;
    return 0;
}

static int32_t requantize_loops(int mode) {
    if (mode == 1 && cpu_has_vector_requantize()) return 2;
    return mode != 0 && nnapi_host_cpu_avx2() ? 1 : 0;
}

/* enable: 1 to use the AVX-512 requantization where the CPU has it (else AVX2's where it has that),
 * 2 for AVX2's where the CPU has it (tests), 0 for the plain loops (tests), -1 to leave it, 3 to
 * leave it and answer what 1 would use. Returns the loops in use: 0 plain, 1 AVX2, 2 AVX-512. */
NNAPI_HOST_EXPORT int32_t nnapi_host_requantize_vector(int32_t enable) {
    if (enable == 3) return requantize_loops(1);
    if (enable >= 0 && enable <= 2) vector_requantize_enabled = enable;
    return requantize_loops(vector_requantize_enabled);
}
