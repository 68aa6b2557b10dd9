/* The AVX-512 (or AVX2) requantization of rows of accumulators (nnapi_host_requantize.c). */
#ifndef NNAPI_HOST_REQUANTIZE_H
#define NNAPI_HOST_REQUANTIZE_H

#include <stdint.h>

/* Rows narrower than this keep the plain loop (its constants repeated make a long enough loop). */
#define VECTOR_REQUANTIZE_MIN_CHANNELS 16

/* rows x channels accumulators (float32, or int32 when acc_is_int32), channels innermost, into
 * codes, as nnapi_host_requantize's rows (the first copy of the constants). Returns 1 when done,
 * 0 when the caller must run its plain loop (no AVX-512 or AVX2, too few channels, or turned off). */
int nnapi_host_requantize_rows_vector(const void *acc, int32_t acc_is_int32, int64_t rows, int64_t channels,
                                      const double *r, const double *c, const double *threshold, const double *half,
                                      int32_t lo, int32_t hi, uint8_t xor_mask, int32_t int32_clamp, uint8_t *out);

/* codes[i] = table[codes[i]] (256 entries) with AVX-512 VBMI; returns 1 when done, 0 when the
 * caller must run its plain loop (no VBMI, or the vector loops turned off). */
int nnapi_host_lookup_vector(uint8_t *codes, int64_t n, const uint8_t *table);

#endif
