#pragma once
/// GPUSPEC_HOST_DEVICE marks the pure helpers that kernels and host code share (index math,
/// byte counts, seeded input values). Under nvcc it is `__host__ __device__`; for the host
/// compiler it is nothing, so these headers build without the CUDA toolkit.

#if defined(__CUDACC__)
#define GPUSPEC_HOST_DEVICE __host__ __device__
#else
#define GPUSPEC_HOST_DEVICE
#endif
