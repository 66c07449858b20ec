// L2 flush by reading a scratch buffer of at least twice the L2 size (see l2_flush.hpp for why a
// read and not a memset). Bound by memory bandwidth; runs before each cold sample, outside
// timing. Any architecture (ld.global.cg: cache in L2, not L1).

#include "gpuspec/kernels/l2_flush.hpp"

#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include <cuda_runtime.h>

#include "gpuspec/kernels/cuda_check.cuh"
#include "gpuspec/kernels/launch_math.hpp"

namespace gpuspec::kernels {

namespace {

constexpr unsigned flush_block_threads = 256;

__global__ void __launch_bounds__(flush_block_threads)
    l2_flush_kernel(const uint4* __restrict__ scratch, std::size_t vectors,
                    unsigned* __restrict__ sink) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  unsigned acc = 0;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < vectors;
       i += stride) {
    const uint4 v = __ldcg(scratch + i);
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc != 0u) // never true for the zeroed buffer; keeps the loads alive
    *sink = acc;
}

} // namespace

void launch_l2_flush(const void* scratch, std::size_t bytes, unsigned* sink, stream_handle stream) {
  if (bytes % 16 != 0 || reinterpret_cast<std::uintptr_t>(scratch) % 16 != 0)
    throw std::invalid_argument(
        "launch_l2_flush: the scratch buffer must be 16-byte aligned and a multiple of 16 bytes");
  const std::size_t vectors = bytes / 16;
  if (vectors == 0)
    return;
  l2_flush_kernel<<<grid_blocks(vectors, flush_block_threads), flush_block_threads, 0, stream>>>(
      static_cast<const uint4*>(scratch), vectors, sink);
  GPUSPEC_CUDA_CHECK_LAUNCH();
}

} // namespace gpuspec::kernels
