/* The float32 product and depthwise convolution with AVX2 and FMA (nnapi_host_float_avx2.c), for
 * nnapi_host_float.c on machines without AVX-512: the AVX-512 loops' bits. */
#ifndef NNAPI_HOST_FLOAT_AVX2_H
#define NNAPI_HOST_FLOAT_AVX2_H

#include <stdint.h>

/* Whether this machine has AVX2 and FMA. */
int nnapi_host_float_avx2_supported(void);

/* out[r][j] = clamp(sum over t of a[r][t] * w[j][t] + bias[j], lo, hi) for rows [r0, r0 + rows)
 * and the columns of packed blocks [b0, b1) of 16 (nnapi_host_float.c's layout; bias padded or
 * NULL; rows of a k long, of out n long). */
void nnapi_host_float_gemm_avx2(const float *a, int64_t k, int64_t n, const float *packed, const float *bias,
                                float lo, float hi, float *out, int64_t r0, int64_t rows, int64_t b0, int64_t b1);

/* Output row oy of batch b of an NHWC depthwise convolution (multiplier 1) of x with w [kh, kw, c]
 * (geometry as nnapi_host_float_depthwise's), + bias (or NULL), clamped, into out [n, oh, ow, c]. */
void nnapi_host_float_depthwise_row_avx2(const float *x, const float *w, const float *bias, float lo, float hi,
                                         const int64_t *geometry, int64_t b, int64_t oy, float *out);

#endif
