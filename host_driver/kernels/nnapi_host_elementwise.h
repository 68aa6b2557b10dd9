/* What the float convolutions share with the element-wise loops (nnapi_host_elementwise.c). */
#ifndef NNAPI_HOST_ELEMENTWISE_H
#define NNAPI_HOST_ELEMENTWISE_H

#include <stdint.h>

/* v[i] = v[i] * logistic(v[i]): SiLU in place, element for element as nnapi_host_float_silu. */
void nnapi_host_silu_in_place(float *v, int64_t n);

/* v[i] = v[i] * min(max(v[i] + 3, 0), 6) / 6: HARD_SWISH in place, as PyTorch's hardswish. */
void nnapi_host_hard_swish_in_place(float *v, int64_t n);

/* The activations a float convolution applies to its results as it writes them. */
enum { NNAPI_HOST_EPILOGUE_NONE = 0, NNAPI_HOST_EPILOGUE_SILU = 1, NNAPI_HOST_EPILOGUE_HARD_SWISH = 2 };

#endif
