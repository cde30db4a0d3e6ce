#pragma once
// HEMO_HD marks a function that runs on the host and on a CUDA device. Everything in
// physics/ and in a plugin's kernels.hpp is written with it, once, for both backends.
#if defined(__CUDACC__)
#define HEMO_HD __host__ __device__ __forceinline__
#define HEMO_DEVICE_COMPILE 1
#else
#define HEMO_HD inline
#define HEMO_DEVICE_COMPILE 0
#endif

#if defined(__CUDACC__) || defined(__GNUC__)
#define HEMO_RESTRICT __restrict__
#else
#define HEMO_RESTRICT
#endif

#if defined(__CUDACC__)
#define HEMO_UNROLL _Pragma("unroll")
#elif defined(__clang__)
#define HEMO_UNROLL _Pragma("unroll")
#elif defined(__GNUC__)
#define HEMO_UNROLL _Pragma("GCC unroll 19")
#else
#define HEMO_UNROLL
#endif
