#pragma once
/// The memory test's patterns (docs/burnin.md), defined once for the kernels and the host: the
/// value word `index` must hold under a pattern, a seed and a phase. They follow DCGM's memtest
/// and memtest86: walking ones and zeros (each word a single set or cleared bit, the bit moving
/// from word to word), moving inversions (one value everywhere, then its complement, read back
/// in ascending then descending order), address in address (each word holds its own address,
/// then its complement) and random (seeded values, then their complement). Pure functions of
/// their arguments, so the verify pass recomputes what the write pass wrote.

#include <cstdint>
#include <string_view>

#include "gpuspec/kernels/host_device.hpp"
#include "gpuspec/kernels/seeded_values.hpp"

namespace gpuspec::kernels {

enum class memtest_pattern : std::uint8_t {
  walking_ones,
  walking_zeros,
  moving_inversions,
  address,
  random,
};

/// Every pattern, in the order a pass runs them.
inline constexpr memtest_pattern memtest_patterns[] = {
    memtest_pattern::walking_ones, memtest_pattern::walking_zeros,
    memtest_pattern::moving_inversions, memtest_pattern::address, memtest_pattern::random};

/// The name a report gives the pattern ("walking_ones", ...).
[[nodiscard]] constexpr std::string_view name_of(memtest_pattern p) {
  switch (p) {
  case memtest_pattern::walking_ones:
    return "walking_ones";
  case memtest_pattern::walking_zeros:
    return "walking_zeros";
  case memtest_pattern::moving_inversions:
    return "moving_inversions";
  case memtest_pattern::address:
    return "address";
  case memtest_pattern::random:
    return "random";
  }
  return "?";
}

/// The word at `index` (of 64-bit words from `base_address`, the allocation's device address)
/// under pattern `p` and `seed`; `inverted` is the second phase, which writes the complement.
GPUSPEC_HOST_DEVICE constexpr std::uint64_t memtest_word(memtest_pattern p, std::uint64_t seed,
                                                         std::uint64_t base_address,
                                                         std::uint64_t index, bool inverted) {
  std::uint64_t w = 0;
  switch (p) {
  case memtest_pattern::walking_ones:
    w = std::uint64_t{1} << ((index + seed) & 63u);
    break;
  case memtest_pattern::walking_zeros:
    w = ~(std::uint64_t{1} << ((index + seed) & 63u));
    break;
  case memtest_pattern::moving_inversions:
    w = splitmix64(seed); // one value in every word
    break;
  case memtest_pattern::address:
    w = base_address + 8 * index;
    break;
  case memtest_pattern::random:
    w = seeded_bits(seed, index);
    break;
  }
  return inverted ? ~w : w;
}

/// Whether a pattern has its complement phase (walking bits are their own complement's pattern:
/// ones and zeros run as two patterns instead).
GPUSPEC_HOST_DEVICE constexpr bool memtest_has_inverse(memtest_pattern p) {
  return p == memtest_pattern::moving_inversions || p == memtest_pattern::address ||
         p == memtest_pattern::random;
}

} // namespace gpuspec::kernels
