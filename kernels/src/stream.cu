// STREAM kernels with BabelStream's semantics (copy, scale = BabelStream's mul, add, triad, dot).
//
// What they measure: sustained device-memory bandwidth. Bound by DRAM/HBM bandwidth (a few
// flops per 8-24 bytes). Any architecture from Turing on (16-byte vector loads, 64-bit index
// math). Each element-wise kernel gives one 16-byte vector (float4, double2) to each thread of
// an exact grid of 256-thread blocks; the loops are grid-stride so a grid capped at 2^31-1
// blocks, and the scalar tail of a count that is not a multiple of the vector width, stay
// correct. The dot reduces in two deterministic stages: one wave of blocks writes per-block
// partial sums (accumulated in T, as BabelStream does), then one block adds them in double.

#include "gpuspec/kernels/stream.hpp"

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include <cuda_runtime.h>

#include "gpuspec/kernels/cuda_check.cuh"
#include "gpuspec/kernels/stream_math.hpp"

namespace gpuspec::kernels {

namespace {

template <class T> struct vec16;
template <> struct vec16<float> { using type = float4; };
template <> struct vec16<double> { using type = double2; };
template <class T> using vec16_t = typename vec16<T>::type;

static_assert(sizeof(vec16_t<float>) == 16 && sizeof(vec16_t<double>) == 16);
static_assert(vector_width<float> == 4 && vector_width<double> == 2);

__device__ __forceinline__ float4 scale_v(float4 c, float s) {
  return make_float4(s * c.x, s * c.y, s * c.z, s * c.w);
}
__device__ __forceinline__ double2 scale_v(double2 c, double s) {
  return make_double2(s * c.x, s * c.y);
}

__device__ __forceinline__ float4 add_v(float4 a, float4 b) {
  return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
}
__device__ __forceinline__ double2 add_v(double2 a, double2 b) {
  return make_double2(a.x + b.x, a.y + b.y);
}

__device__ __forceinline__ float4 triad_v(float4 b, float4 c, float s) {
  return make_float4(b.x + s * c.x, b.y + s * c.y, b.z + s * c.z, b.w + s * c.w);
}
__device__ __forceinline__ double2 triad_v(double2 b, double2 c, double s) {
  return make_double2(b.x + s * c.x, b.y + s * c.y);
}

__device__ __forceinline__ float dot_v(float4 a, float4 b, float acc) {
  acc += a.x * b.x;
  acc += a.y * b.y;
  acc += a.z * b.z;
  acc += a.w * b.w;
  return acc;
}
__device__ __forceinline__ double dot_v(double2 a, double2 b, double acc) {
  acc += a.x * b.x;
  acc += a.y * b.y;
  return acc;
}

__device__ __forceinline__ std::size_t global_thread() {
  return static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ std::size_t grid_threads() {
  return static_cast<std::size_t>(gridDim.x) * blockDim.x;
}

template <class T>
__global__ void __launch_bounds__(stream_block_threads)
    copy_kernel(const T* __restrict__ a, T* __restrict__ c, std::size_t n) {
  using V = vec16_t<T>;
  constexpr unsigned width = vector_width<T>;
  const std::size_t vectors = n / width;
  const std::size_t stride = grid_threads();
  const V* __restrict__ av = reinterpret_cast<const V*>(a);
  V* __restrict__ cv = reinterpret_cast<V*>(c);
  for (std::size_t i = global_thread(); i < vectors; i += stride)
    cv[i] = av[i];
  for (std::size_t i = vectors * width + global_thread(); i < n; i += stride)
    c[i] = a[i];
}

template <class T>
__global__ void __launch_bounds__(stream_block_threads)
    scale_kernel(const T* __restrict__ c, T* __restrict__ b, T scalar, std::size_t n) {
  using V = vec16_t<T>;
  constexpr unsigned width = vector_width<T>;
  const std::size_t vectors = n / width;
  const std::size_t stride = grid_threads();
  const V* __restrict__ cv = reinterpret_cast<const V*>(c);
  V* __restrict__ bv = reinterpret_cast<V*>(b);
  for (std::size_t i = global_thread(); i < vectors; i += stride)
    bv[i] = scale_v(cv[i], scalar);
  for (std::size_t i = vectors * width + global_thread(); i < n; i += stride)
    b[i] = scalar * c[i];
}

template <class T>
__global__ void __launch_bounds__(stream_block_threads)
    add_kernel(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ c, std::size_t n) {
  using V = vec16_t<T>;
  constexpr unsigned width = vector_width<T>;
  const std::size_t vectors = n / width;
  const std::size_t stride = grid_threads();
  const V* __restrict__ av = reinterpret_cast<const V*>(a);
  const V* __restrict__ bv = reinterpret_cast<const V*>(b);
  V* __restrict__ cv = reinterpret_cast<V*>(c);
  for (std::size_t i = global_thread(); i < vectors; i += stride)
    cv[i] = add_v(av[i], bv[i]);
  for (std::size_t i = vectors * width + global_thread(); i < n; i += stride)
    c[i] = a[i] + b[i];
}

template <class T>
__global__ void __launch_bounds__(stream_block_threads)
    triad_kernel(const T* __restrict__ b, const T* __restrict__ c, T* __restrict__ a, T scalar,
                 std::size_t n) {
  using V = vec16_t<T>;
  constexpr unsigned width = vector_width<T>;
  const std::size_t vectors = n / width;
  const std::size_t stride = grid_threads();
  const V* __restrict__ bv = reinterpret_cast<const V*>(b);
  const V* __restrict__ cv = reinterpret_cast<const V*>(c);
  V* __restrict__ av = reinterpret_cast<V*>(a);
  for (std::size_t i = global_thread(); i < vectors; i += stride)
    av[i] = triad_v(bv[i], cv[i], scalar);
  for (std::size_t i = vectors * width + global_thread(); i < n; i += stride)
    a[i] = b[i] + scalar * c[i];
}

/// First stage: each block writes the sum of its threads' products to partials[blockIdx.x].
/// Launched with exactly stream_block_threads threads per block (a power of two).
template <class T>
__global__ void __launch_bounds__(stream_block_threads)
    dot_partials_kernel(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ partials,
                        std::size_t n) {
  using V = vec16_t<T>;
  constexpr unsigned width = vector_width<T>;
  __shared__ T cache[stream_block_threads];

  const std::size_t vectors = n / width;
  const std::size_t stride = grid_threads();
  const V* __restrict__ av = reinterpret_cast<const V*>(a);
  const V* __restrict__ bv = reinterpret_cast<const V*>(b);
  T acc = T(0);
#pragma unroll 4
  for (std::size_t i = global_thread(); i < vectors; i += stride)
    acc = dot_v(av[i], bv[i], acc);
  for (std::size_t i = vectors * width + global_thread(); i < n; i += stride)
    acc += a[i] * b[i];

  cache[threadIdx.x] = acc;
  __syncthreads();
  for (unsigned offset = stream_block_threads / 2; offset > 0; offset /= 2) {
    if (threadIdx.x < offset)
      cache[threadIdx.x] += cache[threadIdx.x + offset];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    partials[blockIdx.x] = cache[0];
}

/// Second stage: one block of dot_finish_threads threads adds `count` partials in double.
template <class T>
__global__ void __launch_bounds__(dot_finish_threads)
    dot_finish_kernel(const T* __restrict__ partials, unsigned count, double* __restrict__ result) {
  __shared__ double cache[dot_finish_threads];
  double acc = 0.0;
  for (unsigned i = threadIdx.x; i < count; i += dot_finish_threads)
    acc += static_cast<double>(partials[i]);
  cache[threadIdx.x] = acc;
  __syncthreads();
  for (unsigned offset = dot_finish_threads / 2; offset > 0; offset /= 2) {
    if (threadIdx.x < offset)
      cache[threadIdx.x] += cache[threadIdx.x + offset];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    *result = cache[0];
}

void require_aligned(const void* p, const char* what) {
  if (reinterpret_cast<std::uintptr_t>(p) % 16 != 0)
    throw std::invalid_argument(
        std::string("STREAM launcher: array ") + what +
        " is not 16-byte aligned (the kernels use 16-byte vector accesses)");
}

} // namespace

template <class T> void launch_copy(const T* a, T* c, std::size_t n, stream_handle stream) {
  require_aligned(a, "a");
  require_aligned(c, "c");
  if (n == 0)
    return;
  copy_kernel<T>
      <<<stream_grid_blocks(n, vector_width<T>), stream_block_threads, 0, stream>>>(a, c, n);
  GPUSPEC_CUDA_CHECK_LAUNCH();
}

template <class T>
void launch_scale(const T* c, T* b, T scalar, std::size_t n, stream_handle stream) {
  require_aligned(c, "c");
  require_aligned(b, "b");
  if (n == 0)
    return;
  scale_kernel<T><<<stream_grid_blocks(n, vector_width<T>), stream_block_threads, 0, stream>>>(
      c, b, scalar, n);
  GPUSPEC_CUDA_CHECK_LAUNCH();
}

template <class T>
void launch_add(const T* a, const T* b, T* c, std::size_t n, stream_handle stream) {
  require_aligned(a, "a");
  require_aligned(b, "b");
  require_aligned(c, "c");
  if (n == 0)
    return;
  add_kernel<T>
      <<<stream_grid_blocks(n, vector_width<T>), stream_block_threads, 0, stream>>>(a, b, c, n);
  GPUSPEC_CUDA_CHECK_LAUNCH();
}

template <class T>
void launch_triad(const T* b, const T* c, T* a, T scalar, std::size_t n, stream_handle stream) {
  require_aligned(b, "b");
  require_aligned(c, "c");
  require_aligned(a, "a");
  if (n == 0)
    return;
  triad_kernel<T><<<stream_grid_blocks(n, vector_width<T>), stream_block_threads, 0, stream>>>(
      b, c, a, scalar, n);
  GPUSPEC_CUDA_CHECK_LAUNCH();
}

template <class T> unsigned dot_resident_blocks() {
  int device = 0;
  GPUSPEC_CUDA_CHECK(cudaGetDevice(&device));
  int sms = 0;
  GPUSPEC_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  int per_sm = 0;
  GPUSPEC_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &per_sm, dot_partials_kernel<T>, static_cast<int>(stream_block_threads), 0));
  const long long blocks = static_cast<long long>(sms > 0 ? sms : 1) * (per_sm > 0 ? per_sm : 1);
  return static_cast<unsigned>(blocks);
}

template <class T>
void launch_dot(const T* a, const T* b, T* partials, unsigned blocks, double* result, std::size_t n,
                stream_handle stream) {
  require_aligned(a, "a");
  require_aligned(b, "b");
  if (blocks == 0)
    throw std::invalid_argument("launch_dot: blocks must be at least 1");
  if (partials == nullptr || result == nullptr)
    throw std::invalid_argument("launch_dot: partials and result must be device memory");
  dot_partials_kernel<T><<<blocks, stream_block_threads, 0, stream>>>(a, b, partials, n);
  GPUSPEC_CUDA_CHECK_LAUNCH();
  dot_finish_kernel<T><<<1, dot_finish_threads, 0, stream>>>(partials, blocks, result);
  GPUSPEC_CUDA_CHECK_LAUNCH();
}

#define GPUSPEC_INSTANTIATE_STREAM(T)                                                              \
  template void launch_copy<T>(const T*, T*, std::size_t, stream_handle);                          \
  template void launch_scale<T>(const T*, T*, T, std::size_t, stream_handle);                      \
  template void launch_add<T>(const T*, const T*, T*, std::size_t, stream_handle);                 \
  template void launch_triad<T>(const T*, const T*, T*, T, std::size_t, stream_handle);            \
  template unsigned dot_resident_blocks<T>();                                                      \
  template void launch_dot<T>(const T*, const T*, T*, unsigned, double*, std::size_t,              \
                              stream_handle);

GPUSPEC_INSTANTIATE_STREAM(float)
GPUSPEC_INSTANTIATE_STREAM(double)
#undef GPUSPEC_INSTANTIATE_STREAM

} // namespace gpuspec::kernels
