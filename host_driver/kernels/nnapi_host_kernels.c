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

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define NNAPI_HOST_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define NNAPI_HOST_CLONES
#endif

#define NNAPI_HOST_EXPORT __attribute__((visibility("default")))

/* -- requantization of convolution accumulators ---------------------------------------------------
 * codes = clamp(floor(acc * r + c [+ or - half by the side of threshold]), lo, hi) ^ xor_mask,
 * the expression of _qfast.Requantizer.codes: y = (double)acc; y = y * r; y = y + c; then
 * y + half where acc > threshold, y - half below (threshold is a half-integer: never equal).
 * Clamping before the truncating conversion is the same as flooring then clamping because
 * lo >= 0 and hi are integers.
 */
static inline uint8_t requantize_one(double a, double r, double c, double threshold, double half, int branch,
                                     double lo, double hi, uint8_t xor_mask) {
    double y = a * r;
    y = y + c;
    if (branch) {
        y = y + (a > threshold ? half : -half);
    }
    y = y < lo ? lo : y;
    y = y > hi ? hi : y;
    return (uint8_t)((uint8_t)(int32_t)y ^ xor_mask);
}

/* Channels innermost: rows of `channels` codes. The constants hold `repeat` copies of the
 * per-channel values, so that the inner loop runs over repeat * channels elements (long
 * enough to vectorize when there are few channels); the rows left over use the first copy. */
#define REQUANTIZE_ROWS(NAME, ACC_T, BRANCH)                                                              \
    NNAPI_HOST_CLONES static void NAME(const ACC_T *restrict acc, int64_t rows, int64_t channels,         \
                                       int64_t repeat, const double *restrict r, const double *restrict c, \
                                       const double *restrict threshold, const double *restrict half,      \
                                       double lo, double hi, uint8_t xor_mask, uint8_t *restrict out) {    \
        int64_t period = channels * repeat, blocks = rows / repeat;                                       \
        for (int64_t b = 0; b < blocks; ++b) {                                                            \
            const ACC_T *a = acc + b * period;                                                            \
            uint8_t *o = out + b * period;                                                                \
            for (int64_t k = 0; k < period; ++k) {                                                        \
                o[k] = requantize_one((double)a[k], r[k], c[k], BRANCH ? threshold[k] : 0.0,              \
                                      BRANCH ? half[k] : 0.0, BRANCH, lo, hi, xor_mask);                  \
            }                                                                                             \
        }                                                                                                 \
        for (int64_t row = blocks * repeat; row < rows; ++row) {                                          \
            const ACC_T *a = acc + row * channels;                                                        \
            uint8_t *o = out + row * channels;                                                            \
            for (int64_t k = 0; k < channels; ++k) {                                                      \
                o[k] = requantize_one((double)a[k], r[k], c[k], BRANCH ? threshold[k] : 0.0,              \
                                      BRANCH ? half[k] : 0.0, BRANCH, lo, hi, xor_mask);                  \
            }                                                                                             \
        }                                                                                                 \
    }

/* Channels outside: [outer, channels, inner] (NCHW), one channel's constants per inner run. */
#define REQUANTIZE_PLANES(NAME, ACC_T, BRANCH)                                                            \
    NNAPI_HOST_CLONES static void NAME(const ACC_T *restrict acc, int64_t outer, int64_t channels,        \
                                       int64_t inner, const double *restrict r, const double *restrict c,  \
                                       const double *restrict threshold, const double *restrict half,      \
                                       double lo, double hi, uint8_t xor_mask, uint8_t *restrict out) {    \
        for (int64_t o = 0; o < outer; ++o) {                                                             \
            for (int64_t ch = 0; ch < channels; ++ch) {                                                   \
                int64_t base = (o * channels + ch) * inner;                                               \
                double rc = r[ch], cc = c[ch];                                                            \
                double t = BRANCH ? threshold[ch] : 0.0, h = BRANCH ? half[ch] : 0.0;                     \
                for (int64_t i = 0; i < inner; ++i) {                                                     \
                    out[base + i] = requantize_one((double)acc[base + i], rc, cc, t, h, BRANCH, lo, hi,   \
                                                   xor_mask);                                             \
                }                                                                                         \
            }                                                                                             \
        }                                                                                                 \
    }

REQUANTIZE_ROWS(rows_f32, float, 0)
REQUANTIZE_ROWS(rows_f32_branch, float, 1)
REQUANTIZE_ROWS(rows_i32, int32_t, 0)
REQUANTIZE_ROWS(rows_i32_branch, int32_t, 1)
REQUANTIZE_PLANES(planes_f32, float, 0)
REQUANTIZE_PLANES(planes_f32_branch, float, 1)
REQUANTIZE_PLANES(planes_i32, int32_t, 0)
REQUANTIZE_PLANES(planes_i32_branch, int32_t, 1)

NNAPI_HOST_CLONES static void lookup_in_place(uint8_t *restrict codes, int64_t n, const uint8_t *restrict table) {
    for (int64_t i = 0; i < n; ++i) codes[i] = table[codes[i]];
}

/* acc: float32 (acc_is_int32 == 0) or int32 accumulators, contiguous [outer, channels, inner];
 * inner == 1 takes `repeat` (constants of repeat * channels entries), inner > 1 one copy.
 * threshold and half are NULL when the requantizer has no branch. lo, hi: the code range
 * shifted as the codes are computed (int8 outputs are uint8 codes with xor_mask 0x80).
 * table: NULL, or 256 8-bit codes the codes then become (an activation's table, read by the
 * codes' bit patterns), while they are still in cache. */
NNAPI_HOST_EXPORT void nnapi_host_requantize(const void *acc, int32_t acc_is_int32, int64_t outer, int64_t channels,
                                             int64_t inner, int64_t repeat, const double *r, const double *c,
                                             const double *threshold, const double *half, int32_t lo, int32_t hi,
                                             int32_t xor_mask, const uint8_t *table, uint8_t *out) {
    int branch = threshold != 0 && half != 0;
    double dlo = (double)lo, dhi = (double)hi;
    uint8_t mask = (uint8_t)xor_mask;
    if (inner == 1) {
        if (acc_is_int32) {
            (branch ? rows_i32_branch : rows_i32)((const int32_t *)acc, outer, channels, repeat, r, c, threshold, half,
                                                  dlo, dhi, mask, out);
        } else {
            (branch ? rows_f32_branch : rows_f32)((const float *)acc, outer, channels, repeat, r, c, threshold, half,
                                                  dlo, dhi, mask, out);
        }
    } else if (acc_is_int32) {
        (branch ? planes_i32_branch : planes_i32)((const int32_t *)acc, outer, channels, inner, r, c, threshold, half,
                                                  dlo, dhi, mask, out);
    } else {
        (branch ? planes_f32_branch : planes_f32)((const float *)acc, outer, channels, inner, r, c, threshold, half,
                                                  dlo, dhi, mask, out);
    }
    if (table) {
        lookup_in_place(out, outer * channels * inner, table);
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

/* b == NULL: the one-input table. Returns 0, or -1 for an element size it does not handle. */
NNAPI_HOST_EXPORT int32_t nnapi_host_table(const uint8_t *a, const uint8_t *b, int64_t n, const void *table,
                                           int32_t element_size, void *out) {
    switch (element_size) {
    case 1:
        b ? table2_uint8_t(a, b, n, table, out) : table1_uint8_t(a, n, table, out);
        return 0;
    case 2:
        b ? table2_uint16_t(a, b, n, table, out) : table1_uint16_t(a, n, table, out);
        return 0;
    case 4:
        b ? table2_uint32_t(a, b, n, table, out) : table1_uint32_t(a, n, table, out);
        return 0;
    default:
        return -1;
    }
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
        int in_range = (negative & up_to_limit) | (!negative & below_limit);
        int32_t special = positive ? above : below;
        special = nan ? nan_code : special;
        out[i] = (uint8_t)(in_range ? v : special);
    }
}

/* special: the codes (not bit patterns: -128..127 for int8) of +inf, -inf and NaN. */
NNAPI_HOST_EXPORT void nnapi_host_quantize(const float *x, int64_t n, double scale, int32_t zp, int32_t lo, int32_t hi,
                                           const int32_t *special, uint8_t *out) {
    quantize_f32(x, n, scale, zp, lo, hi, special[0], special[1], special[2], out);
}

/* The version of this interface (_native.py refuses a library of another). */
NNAPI_HOST_EXPORT int32_t nnapi_host_kernels_version(void) { return 1; }
