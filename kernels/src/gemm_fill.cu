// Seeded, non-zero GEMM inputs (gemm_fill.hpp) for fp64, fp32, fp16, bf16, fp8 e4m3 and int8.
//
// What it does: writes gemm_fill_bits(type, seed, i) to element i, one element per thread of a
// grid-stride loop of 256-thread blocks. Bound by memory bandwidth (a hash and one store per
// element); runs once per benchmark, outside timing. Any architecture: the values are built as
// integer bit patterns, so no fp16/bf16/fp8 arithmetic (and no sm_80+/sm_89+ intrinsic) is needed.

#include "gpuspec/kernels/gemm_fill.hpp"

#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include <cuda_runtime.h>

#include "gpuspec/kernels/cuda_check.cuh"
#include "gpuspec/kernels/launch_math.hpp"

namespace gpuspec::kernels {

namespace {

constexpr unsigned gemm_fill_block_threads = 256;
/// Grid cap: enough blocks to fill every SM many times over; the loop covers the rest.
constexpr std::uint64_t gemm_fill_max_blocks = 65536;

template <class Storage>
__global__ void __launch_bounds__(gemm_fill_block_threads)
    gemm_fill_seeded_kernel(Storage* __restrict__ p, gemm_fill_type type, std::size_t n,
                            std::uint64_t seed) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride)
    p[i] = static_cast<Storage>(gemm_fill_bits(type, seed, i));
}

template <class Storage>
void launch_typed(void* p, gemm_fill_type type, std::size_t n, std::uint64_t seed,
                  stream_handle stream) {
  const std::uint64_t wanted = ceil_div(n, gemm_fill_block_threads);
  const auto blocks =
      static_cast<unsigned>(wanted < gemm_fill_max_blocks ? wanted : gemm_fill_max_blocks);
  gemm_fill_seeded_kernel<Storage>
      <<<blocks, gemm_fill_block_threads, 0, stream>>>(static_cast<Storage*>(p), type, n, seed);
  GPUSPEC_CUDA_CHECK_LAUNCH();
}

} // namespace

void launch_gemm_fill(void* p, gemm_fill_type type, std::size_t n, std::uint64_t seed,
                      stream_handle stream) {
  if (n == 0)
    return;
  if (p == nullptr)
    throw std::invalid_argument("launch_gemm_fill: null pointer for a non-empty fill");
  switch (gemm_fill_bytes(type)) {
  case 8:
    launch_typed<std::uint64_t>(p, type, n, seed, stream);
    return;
  case 4:
    launch_typed<std::uint32_t>(p, type, n, seed, stream);
    return;
  case 2:
    launch_typed<std::uint16_t>(p, type, n, seed, stream);
    return;
  case 1:
    launch_typed<std::uint8_t>(p, type, n, seed, stream);
    return;
  default:
    throw std::invalid_argument("launch_gemm_fill: unknown element type");
  }
}

} // namespace gpuspec::kernels
