/* Attributes and small helpers shared by the host driver's compiled kernels. */
#ifndef NNAPI_HOST_COMMON_H
#define NNAPI_HOST_COMMON_H

#include <stdint.h>

/* Element-wise loops compiled for AVX-512, AVX2 and the baseline, chosen when the library is
 * loaded (GCC on x86-64; other compilers and machines build the baseline only). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define NNAPI_HOST_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define NNAPI_HOST_CLONES
#endif

/* Whether this machine has AVX2 (the vector paths of x86-64 machines without AVX-512). */
static inline int nnapi_host_cpu_avx2(void) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2");
#else
    return 0;
#endif
}

/* The vector depthwise sums' per-call tables (nnapi_host_depthwise_vnni.c, _avx2.c), geometry as
 * nnapi_host_depthwise's: each tap's kernel row ky and column offset kx * dilation_w. */
static inline void nnapi_host_depthwise_taps(const int64_t *g, int64_t *tap_row, int64_t *tap_column) {
    for (int64_t t = 0; t < g[4] * g[5]; ++t) {
        tap_row[t] = t / g[5];
        tap_column[t] = (t % g[5]) * g[9];
    }
}

/* correction[ch] = the zero point as the loads read it (signed codes with their top bit flipped:
 * x_zp + 128) times channel ch's weight sum, for ch < count (0 past the c channels): what reading
 * out-of-image taps and the zero point's share adds, taken off at the end. */
static inline void nnapi_host_depthwise_correction(const int16_t *weights, int64_t c, int64_t taps, int32_t x_zp,
                                                   int x_signed, int64_t count, int32_t *correction) {
    const int32_t zp_read = x_signed ? x_zp + 128 : x_zp;
    for (int64_t ch = 0; ch < count; ++ch) {
        int32_t sum = 0;
        for (int64_t t = 0; ch < c && t < taps; ++t) sum += weights[t * c + ch];
        correction[ch] = zp_read * sum;
    }
}

/* The library is built with -fvisibility=hidden: these are its interface (host_driver/operations/_native.py). */
#define NNAPI_HOST_EXPORT __attribute__((visibility("default")))

#endif
