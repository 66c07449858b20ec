// The burn-in GEMM's output checksum (output_checksum.hpp): one pass over the output's raw
// 16-bit patterns, each element's term summed per block and then into one 64-bit word with
// atomicAdd. Unsigned addition wraps and commutes, so the order the blocks finish in does not
// change the bits. Bound by memory bandwidth: 128 MiB for an 8192^2 bf16 output, read once.

#include "gpuspec/kernels/output_checksum.hpp"

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include "gpuspec/kernels/cuda_check.cuh"
#include "gpuspec/kernels/launch_math.hpp"

namespace gpuspec::kernels {

namespace {

constexpr unsigned checksum_block_threads = 256;

__global__ void __launch_bounds__(checksum_block_threads)
    output_checksum_kernel(const std::uint16_t* __restrict__ bits, std::size_t count,
                           unsigned long long* __restrict__ sum) {
  __shared__ unsigned long long block_sum[checksum_block_threads];
  unsigned long long mine = 0;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride)
    mine += checksum_term(bits[i], i);
  block_sum[threadIdx.x] = mine;
  __syncthreads();
  for (unsigned half = checksum_block_threads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half)
      block_sum[threadIdx.x] += block_sum[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    atomicAdd(sum, block_sum[0]);
}

} // namespace

void launch_output_checksum(const std::uint16_t* bits, std::size_t count, std::uint64_t* sum,
                            stream_handle stream) {
  static_assert(sizeof(unsigned long long) == sizeof(std::uint64_t));
  GPUSPEC_CUDA_CHECK(cudaMemsetAsync(sum, 0, sizeof *sum, stream));
  if (count == 0)
    return;
  // A grid of a few waves: each thread adds many terms, so the atomics are few.
  const unsigned blocks = grid_blocks(count, checksum_block_threads) > 4096
                              ? 4096
                              : grid_blocks(count, checksum_block_threads);
  output_checksum_kernel<<<blocks, checksum_block_threads, 0, stream>>>(
      bits, count, reinterpret_cast<unsigned long long*>(sum));
  GPUSPEC_CUDA_CHECK_LAUNCH();
}

} // namespace gpuspec::kernels
