/* The compiled kernels' entry points (each file's comment says what its arguments mean); the
 * library exports them to host_driver/operations/_native.py, and nnapi_host_calls.c runs a
 * recorded sequence of them in one call. */
#ifndef NNAPI_HOST_KERNELS_H
#define NNAPI_HOST_KERNELS_H

#include <stdint.h>

/* nnapi_host_kernels.c */
void nnapi_host_requantize(const void *acc, int32_t acc_is_int32, int64_t outer, int64_t channels, int64_t inner,
                           int64_t repeat, const double *r, const double *c, const double *threshold,
                           const double *half, int32_t lo, int32_t hi, int32_t xor_mask, int32_t int32_clamp,
                           const uint8_t *table, uint8_t *out);
void nnapi_host_depthwise(const uint8_t *x, int32_t x_signed, const int64_t *geometry, const int16_t *weights,
                          int32_t x_zp, const double *r, const double *c, const double *threshold, const double *half,
                          int32_t lo, int32_t hi, int32_t xor_mask, int32_t int32_clamp, const uint8_t *table,
                          int32_t *acc, int32_t acc_slots, int32_t sums, int64_t repeat, uint8_t *out);
void nnapi_host_mean_rows(const uint8_t *x, int32_t is_signed, int64_t batches, int64_t rows, int64_t channels,
                          int32_t lo, int32_t hi, int32_t *sums, uint8_t *out);
void nnapi_host_max_pool(const uint8_t *x, int32_t is_signed, const int64_t *geometry, int32_t lo, int32_t hi,
                         uint8_t *out);
int32_t nnapi_host_table_rows(const uint8_t *x, int64_t rows, int64_t channels, const uint8_t *key,
                              const void *table, int32_t element_size, void *out);
int32_t nnapi_host_table(const uint8_t *a, const uint8_t *b, int64_t n, const void *table, int32_t element_size,
                         void *out);
void nnapi_host_quantize(const float *x, int64_t n, double scale, int32_t zp, int32_t lo, int32_t hi,
                         const int32_t *special, uint8_t *out);

/* nnapi_host_gemm.c */
void nnapi_host_gemm_requantize(const uint8_t *a, int32_t a_signed, int64_t m, int64_t k, int64_t n,
                                const int8_t *packed, int64_t block_rows, int64_t repeat, const double *r,
                                const double *c, const double *threshold, const double *half, int32_t lo,
                                int32_t hi, int32_t xor_mask, int32_t int32_clamp, const uint8_t *table, int32_t beta,
                                int32_t product, int32_t *scratch, int32_t scratch_slots, const int64_t *unroll,
                                uint8_t *rows, int32_t pad_code, uint8_t *out);
void nnapi_host_linear_int8(const float *x, int64_t m, int64_t k, const int8_t *q, int64_t n, const float *scale,
                            int64_t scale_count, const float *bias, int32_t use_avx512, float *out);

/* nnapi_host_float.c */
void nnapi_host_float_gemm(const float *a, int64_t m, int64_t k, int64_t n, const float *packed, const float *bias,
                           float lo, float hi, int32_t loops, int32_t epilogue, float *out);
void nnapi_host_float_conv(const float *x, const int64_t *geometry, int64_t n, const float *packed,
                           const float *bias, float lo, float hi, int32_t loops, float *rows, int32_t slots,
                           int32_t epilogue, float *out);
void nnapi_host_float_depthwise(const float *x, const int64_t *geometry, const float *w, const float *bias, float lo,
                                float hi, int32_t loops, int32_t epilogue, float *out);

/* nnapi_host_elementwise.c */
void nnapi_host_float_logistic(const float *x, int64_t n, float *out);
void nnapi_host_float_silu(const float *x, int64_t n, float *out);
int32_t nnapi_host_float_mul(const float *a, const float *b, int64_t n, int64_t period, int32_t act, float *out);
void nnapi_host_float_mean(const float *x, int64_t batches, int64_t rows, int64_t channels, float *out);
int32_t nnapi_host_float_add(const float *a, const float *b, int64_t n, int64_t period, int32_t act, float *out);

#endif
