#include "gpuspec/benches/array_sizing.hpp"

namespace gpuspec::benches {

array_fit fit_arrays(std::uint64_t requested, int arrays, std::uint64_t free_bytes,
                     std::uint64_t reserve_bytes, std::uint64_t l2_bytes) {
  array_fit fit;
  const std::uint64_t count = arrays > 0 ? static_cast<std::uint64_t>(arrays) : 1;
  const std::uint64_t available = free_bytes > reserve_bytes ? free_bytes - reserve_bytes : 0;
  const std::uint64_t share = available / count;
  if (requested <= share) {
    fit.bytes_per_array = requested;
  } else {
    constexpr std::uint64_t mib = std::uint64_t{1} << 20;
    constexpr std::uint64_t page = std::uint64_t{4} << 10;
    const std::uint64_t unit = share >= mib ? mib : page;
    fit.bytes_per_array = share / unit * unit;
    fit.shrunk = true;
  }
  fit.below_4x_l2 = l2_bytes > 0 && fit.bytes_per_array < 4 * l2_bytes;
  return fit;
}

} // namespace gpuspec::benches
