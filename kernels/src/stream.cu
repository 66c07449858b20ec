// STREAM kernels with BabelStream's semantics: one element-wise kernel template for every
// element-wise row of the table (stream_math.hpp: copy, scale = BabelStream's mul, add, triad),
// and the dot.
//
// What they measure: sustained device-memory bandwidth. Bound by DRAM/HBM bandwidth (a few
// flops per 8-24 bytes). Any architecture from Turing on (16-byte vector loads, 64-bit index
// math). The element-wise kernel gives one 16-byte vector (float4, double2) to each thread of
// an exact grid of 256-thread blocks, loads only the arrays its row reads and stores the one it
// writes; the loops are grid-stride so a grid capped at 2^31-1 blocks, and the scalar tail of a
// count that is not a multiple of the vector width, stay correct. The dot reduces in two
// deterministic stages: one wave of blocks writes per-block partial sums (accumulated in T, as
// BabelStream does), then one block adds them in double.

#include "gpuspec/kernels/stream.hpp"

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

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

/// Row::apply on each lane of a 16-byte vector.
template <class Row> __device__ __forceinline__ float4 apply_lanes(float4 x, float4 y, float s) {
  return make_float4(Row::apply(x.x, y.x, s), Row::apply(x.y, y.y, s), Row::apply(x.z, y.z, s),
                     Row::apply(x.w, y.w, s));
}
template <class Row>
__device__ __forceinline__ double2 apply_lanes(double2 x, double2 y, double s) {
  return make_double2(Row::apply(x.x, y.x, s), Row::apply(x.y, y.y, s));
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

/// Arrays a row reads (1 or 2): a scalar for device code to test.
template <class Row> inline constexpr unsigned stream_inputs = Row::row.reads.size();

/// out[i] = Row::apply(x[i], y[i], scalar) for i < n; y is not read where the row reads one
/// array.
template <class T, class Row>
__global__ void __launch_bounds__(stream_block_threads)
    stream_elementwise_kernel(const T* __restrict__ x, const T* __restrict__ y, T* __restrict__ out,
                              T scalar, std::size_t n) {
  using V = vec16_t<T>;
  constexpr unsigned width = vector_width<T>;
  constexpr bool reads_y = stream_inputs<Row> == 2;
  const std::size_t vectors = n / width;
  const std::size_t stride = grid_threads();
  const V* __restrict__ xv = reinterpret_cast<const V*>(x);
  const V* __restrict__ yv = reinterpret_cast<const V*>(y);
  V* __restrict__ outv = reinterpret_cast<V*>(out);
  for (std::size_t i = global_thread(); i < vectors; i += stride) {
    if constexpr (reads_y)
      outv[i] = apply_lanes<Row>(xv[i], yv[i], scalar);
    else
      outv[i] = apply_lanes<Row>(xv[i], V{}, scalar);
  }
  for (std::size_t i = vectors * width + global_thread(); i < n; i += stride)
    out[i] = Row::apply(x[i], reads_y ? y[i] : T(0), scalar);
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

template <class T> T* required_array(const stream_arrays<T>& arrays, char name) {
  T* p = arrays[name];
  if (p == nullptr)
    throw std::invalid_argument(std::string("STREAM launcher: array ") + name + " is missing");
  require_aligned(p, std::string(1, name).c_str());
  return p;
}

template <class T, class Row>
void launch_elementwise(const stream_arrays<T>& arrays, T scalar, std::size_t n,
                        stream_handle stream) {
  constexpr std::string_view reads = Row::row.reads;
  const T* x = required_array(arrays, reads[0]);
  const T* y = reads.size() == 2 ? required_array(arrays, reads[1]) : nullptr;
  T* out = required_array(arrays, Row::row.writes);
  if (n == 0)
    return;
  stream_elementwise_kernel<T, Row>
      <<<stream_grid_blocks(n, vector_width<T>), stream_block_threads, 0, stream>>>(x, y, out,
                                                                                    scalar, n);
  GPUSPEC_CUDA_CHECK_LAUNCH();
}

} // namespace

template <class T>
void launch_stream(stream_op op, const stream_arrays<T>& arrays, T scalar, std::size_t n,
                   stream_handle stream) {
  const bool launched = visit_stream_elementwise(
      op, [&]<class Row>() { launch_elementwise<T, Row>(arrays, scalar, n, stream); });
  if (!launched)
    throw std::invalid_argument("launch_stream: memory.stream." + std::string(stream_row(op).name) +
                                " has no element-wise kernel (the dot: launch_dot)");
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
  template void launch_stream<T>(stream_op, const stream_arrays<T>&, T, std::size_t,               \
                                 stream_handle);                                                   \
  template unsigned dot_resident_blocks<T>();                                                      \
  template void launch_dot<T>(const T*, const T*, T*, unsigned, double*, std::size_t,              \
                              stream_handle);

GPUSPEC_INSTANTIATE_STREAM(float)
GPUSPEC_INSTANTIATE_STREAM(double)
#undef GPUSPEC_INSTANTIATE_STREAM

} // namespace gpuspec::kernels
