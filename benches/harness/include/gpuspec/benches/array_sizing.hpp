#pragma once
/// How big the arrays of a device-memory benchmark can be. Pure, host only.

#include <cstdint>

namespace gpuspec::benches {

struct array_fit {
  std::uint64_t bytes_per_array = 0; ///< 0: nothing fits
  bool shrunk = false;               ///< smaller than requested, to fit free memory
  bool below_4x_l2 = false;          ///< under 4x the L2 size: caches may inflate the figure
};

/// Bytes per array for `arrays` arrays of `requested` bytes each, given `free_bytes` of free
/// device memory of which `reserve_bytes` stay free. When they do not fit, each array gets an
/// equal share of what is available, rounded down to a whole MiB (to 4 KiB under 1 MiB), so
/// every element size divides it. Only as much is taken off as needed, so the arrays stay at
/// or above 4x the L2 size whenever the memory allows it.
[[nodiscard]] array_fit fit_arrays(std::uint64_t requested, int arrays, std::uint64_t free_bytes,
                                   std::uint64_t reserve_bytes, std::uint64_t l2_bytes);

} // namespace gpuspec::benches
