/* The 8-bit depthwise convolution's int32 sums with AVX2 (nnapi_host_depthwise_avx2.c), for
 * nnapi_host_depthwise in nnapi_host_kernels.c on machines without AVX-512. */
#ifndef NNAPI_HOST_DEPTHWISE_AVX2_H
#define NNAPI_HOST_DEPTHWISE_AVX2_H

#include <stdint.h>

typedef struct DepthwiseAvx2 DepthwiseAvx2;

/* The weights of one call (int16 q_w - zp_w [kh][kw][c], geometry as nnapi_host_depthwise's)
 * interleaved in pairs of taps, with the zero point's correction; NULL when the machine has no
 * AVX2, the kernel has more than 64 taps, or memory runs out. */
DepthwiseAvx2 *nnapi_host_depthwise_avx2_prepare(const int16_t *weights, const int64_t *geometry, int32_t x_zp,
                                                 int x_signed);

void nnapi_host_depthwise_avx2_free(DepthwiseAvx2 *v);

/* One output row's exact int32 sums acc[ox][ch] (row = b * oh + oy), the same as the plain loop's. */
void nnapi_host_depthwise_avx2_row(const DepthwiseAvx2 *v, const uint8_t *x, const int64_t *geometry, int64_t row,
                                   int32_t *acc);

#endif
