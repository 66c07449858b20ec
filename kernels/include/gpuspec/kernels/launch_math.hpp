#pragma once
/// Grid sizing and argument checks shared by the launchers and the host tests. CUDA-free.

#include <cstddef>
#include <cstdint>

#include "gpuspec/kernels/host_device.hpp"

namespace gpuspec::kernels {

/// The largest gridDim.x every supported architecture accepts (2^31 - 1).
inline constexpr std::uint64_t max_grid_blocks = 2147483647u;

/// ceil(a / b) for b > 0, without the overflow of (a + b - 1) / b.
GPUSPEC_HOST_DEVICE constexpr std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) {
  return a / b + (a % b != 0 ? 1u : 0u);
}

/// Blocks of `block_threads` threads giving each of `work_items` items its own thread, capped at
/// max_grid_blocks (the kernels loop grid-stride, so a capped grid is still correct). At least
/// one block, so a launch is always valid; 0 items launch one idle block.
GPUSPEC_HOST_DEVICE constexpr unsigned grid_blocks(std::uint64_t work_items,
                                                   unsigned block_threads) {
  const std::uint64_t blocks = ceil_div(work_items, block_threads);
  if (blocks == 0)
    return 1;
  return static_cast<unsigned>(blocks < max_grid_blocks ? blocks : max_grid_blocks);
}

/// Number of bits needed to write `x` (std::bit_width, usable in device code).
GPUSPEC_HOST_DEVICE constexpr int bit_width(std::uint64_t x) {
  int bits = 0;
  while (x != 0) {
    x >>= 1;
    ++bits;
  }
  return bits;
}

/// True when `p` is a multiple of 16 bytes (what 128-bit loads and cp.async need).
inline bool is_aligned_16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

/// True when [p, p + bytes) and [q, q + q_bytes) share a byte.
inline bool byte_ranges_overlap(const void* p, std::size_t bytes, const void* q,
                                std::size_t q_bytes) {
  const auto a0 = reinterpret_cast<std::uintptr_t>(p);
  const auto b0 = reinterpret_cast<std::uintptr_t>(q);
  return a0 < b0 + q_bytes && b0 < a0 + bytes;
}

} // namespace gpuspec::kernels
