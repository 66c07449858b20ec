// Input initialisation (seeded values, docs/design.md rule 6) and output poisoning.
// Bound by memory bandwidth; runs once per benchmark, outside timing.

#include "gpuspec/kernels/fill.hpp"

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include "gpuspec/kernels/cuda_check.cuh"
#include "gpuspec/kernels/launch_math.hpp"
#include "gpuspec/kernels/seeded_values.hpp"

namespace gpuspec::kernels {

namespace {

constexpr unsigned fill_block_threads = 256;

template <class T>
__global__ void __launch_bounds__(fill_block_threads)
    fill_seeded_kernel(T* __restrict__ p, std::size_t n, std::uint64_t seed) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride)
    p[i] = seeded_value<T>(seed, i);
}

} // namespace

template <class T>
void launch_fill_seeded(T* p, std::size_t n, std::uint64_t seed, stream_handle stream) {
  if (n == 0)
    return;
  fill_seeded_kernel<T>
      <<<grid_blocks(n, fill_block_threads), fill_block_threads, 0, stream>>>(p, n, seed);
  GPUSPEC_CUDA_CHECK_LAUNCH();
}

void poison_with_byte(void* p, std::size_t bytes, std::uint8_t byte, stream_handle stream) {
  if (bytes == 0)
    return;
  GPUSPEC_CUDA_CHECK(cudaMemsetAsync(p, byte, bytes, stream));
}

void poison_with_nan(void* p, std::size_t bytes, stream_handle stream) {
  poison_with_byte(p, bytes, 0xFF, stream);
}

template void launch_fill_seeded<float>(float*, std::size_t, std::uint64_t, stream_handle);
template void launch_fill_seeded<double>(double*, std::size_t, std::uint64_t, stream_handle);

} // namespace gpuspec::kernels
