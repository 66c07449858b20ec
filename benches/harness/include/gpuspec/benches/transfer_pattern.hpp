#pragma once
/// The transfer families' seeded pattern in device memory (transfer.cpp, transfer_p2p.cpp):
/// written through host pieces, outside any timed region, so every byte a copy moves can be
/// checked against kernels::fill_transfer_pattern.

#include <cstddef>
#include <cstdint>

namespace gpuspec::benches {

/// The host piece the pattern is written and checked through (64 MiB).
inline constexpr std::uint64_t transfer_piece_bytes = std::uint64_t{64} << 20;

/// Fills `bytes` of device memory at `device` with the pattern `seed` (cudaMemcpy, synchronous).
void upload_transfer_pattern(std::byte* device, std::uint64_t bytes, std::uint64_t seed);

} // namespace gpuspec::benches
