/* Attributes shared by the host driver's compiled kernels. */
#ifndef NNAPI_HOST_COMMON_H
#define NNAPI_HOST_COMMON_H

/* Element-wise loops compiled for AVX-512, AVX2 and the baseline, chosen when the library is
 * loaded (GCC on x86-64; other compilers and machines build the baseline only). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define NNAPI_HOST_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define NNAPI_HOST_CLONES
#endif

/* The library is built with -fvisibility=hidden: these are its interface (host_driver/operations/_native.py). */
#define NNAPI_HOST_EXPORT __attribute__((visibility("default")))

#endif
