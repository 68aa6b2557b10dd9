/* The 8-bit product with AVX2 (nnapi_host_gemm_avx2.c): the same exact int32 sums as
 * nnapi_host_gemm.c's plain and VNNI products, on the same packed weights. */
#ifndef NNAPI_HOST_GEMM_AVX2_H
#define NNAPI_HOST_GEMM_AVX2_H

#include <stdint.h>
#include <string.h>

/* Four activation bytes of a row from k = 4 * group, xored with flip: a group of the packed product
 * (nnapi_host_gemm.c). The bytes past k (zeros, then flipped) meet zero weights: any value is exact. */
static inline uint32_t nnapi_host_activation_group(const uint8_t *row, int64_t k, int64_t group, uint32_t flip) {
    int64_t start = group * 4;
    uint32_t bytes = 0;
    memcpy(&bytes, row + start, start + 4 <= k ? 4 : (size_t)(k - start));
    return bytes ^ flip;
}

/* acc[rows][n]: the columns of blocks [first_block, last_block) of 16 output channels, from the
 * `rows` activation rows of a (row stride k, bytes xored with flip) and the packed weights. */
void nnapi_host_product_avx2(const uint8_t *a, int64_t rows, int64_t k, int64_t n, const int8_t *packed,
                             uint32_t flip, int64_t first_block, int64_t last_block, int32_t *acc);

#endif
