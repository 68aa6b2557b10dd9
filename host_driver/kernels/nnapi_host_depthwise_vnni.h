/* The 8-bit depthwise convolution's int32 sums with AVX-512 VNNI (nnapi_host_depthwise_vnni.c), for
 * nnapi_host_depthwise in nnapi_host_kernels.c. */
#ifndef NNAPI_HOST_DEPTHWISE_VNNI_H
#define NNAPI_HOST_DEPTHWISE_VNNI_H

#include <stdint.h>

typedef struct DepthwiseVnni DepthwiseVnni;

/* Whether this machine has AVX-512 VNNI and BW. */
int nnapi_host_depthwise_vnni_supported(void);

/* The weights of one call (int16 q_w - zp_w [kh][kw][c], geometry as nnapi_host_depthwise's)
 * interleaved for VNNI, with the zero point's correction; NULL when the machine has no VNNI, a
 * weight does not fit a signed byte, the kernel has more than 64 taps, or memory runs out. */
DepthwiseVnni *nnapi_host_depthwise_vnni_prepare(const int16_t *weights, const int64_t *geometry, int32_t x_zp,
                                                 int x_signed);

void nnapi_host_depthwise_vnni_free(DepthwiseVnni *v);

/* One output row's exact int32 sums acc[ox][ch] (row = b * oh + oy), the same as the plain loop's. */
void nnapi_host_depthwise_vnni_row(const DepthwiseVnni *v, const uint8_t *x, const int64_t *geometry, int64_t row,
                                   int32_t *acc);

#endif
