#include "gpuspec/benches/transfer_pattern.hpp"

#include <algorithm>
#include <span>
#include <vector>

#include <cuda_runtime.h>

#include "gpuspec/kernels/cuda_check.cuh"
#include "gpuspec/kernels/transfer_math.hpp"

namespace gpuspec::benches {

void upload_transfer_pattern(std::byte* device, std::uint64_t bytes, std::uint64_t seed) {
  std::vector<std::byte> piece(std::min(bytes, transfer_piece_bytes));
  for (std::uint64_t at = 0; at < bytes; at += piece.size()) {
    const auto len = static_cast<std::size_t>(std::min<std::uint64_t>(piece.size(), bytes - at));
    kernels::fill_transfer_pattern(std::span(piece.data(), len), seed, at / 8);
    GPUSPEC_CUDA_CHECK(cudaMemcpy(device + at, piece.data(), len, cudaMemcpyHostToDevice));
  }
}

} // namespace gpuspec::benches
