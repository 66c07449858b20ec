#pragma once
/// Seeded, non-zero input values (docs/design.md rule 6), computed the same on host and device.
///
/// Element i of an array seeded with `seed` is a counter-based hash of (seed, i) mapped to
/// [1, 2). The mapping is exact: a 23-bit (float) or 52-bit (double) integer k gives 1 + k·2^-p,
/// which the type represents exactly, so the device's init kernel and the host's reference
/// produce bit-identical values whatever the compiler does with FMA contraction. Host
/// verification recomputes inputs from (seed, i) instead of copying them back.

#include <cstdint>

#include "gpuspec/kernels/host_device.hpp"

namespace gpuspec::kernels {

/// SplitMix64's output function (Steele, Lea, Flood 2014): a bijective 64-bit mix.
GPUSPEC_HOST_DEVICE constexpr std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// 64 well-mixed bits for element `index` of the sequence `seed`.
GPUSPEC_HOST_DEVICE constexpr std::uint64_t seeded_bits(std::uint64_t seed, std::uint64_t index) {
  return splitmix64(splitmix64(seed) + index * 0x9E3779B97F4A7C15ull);
}

template <class T> struct seeded;

template <> struct seeded<float> {
  /// In [1, 2): 1 + k·2^-23 with k the top 23 bits.
  GPUSPEC_HOST_DEVICE static constexpr float value(std::uint64_t seed, std::uint64_t index) {
    const auto k = static_cast<std::uint32_t>(seeded_bits(seed, index) >> 41);
    return 1.0f + static_cast<float>(k) * (1.0f / 8388608.0f);
  }
};

template <> struct seeded<double> {
  /// In [1, 2): 1 + k·2^-52 with k the top 52 bits.
  GPUSPEC_HOST_DEVICE static constexpr double value(std::uint64_t seed, std::uint64_t index) {
    const std::uint64_t k = seeded_bits(seed, index) >> 12;
    return 1.0 + static_cast<double>(k) * (1.0 / 4503599627370496.0);
  }
};

/// seeded<T>::value, spelled as a function.
template <class T>
GPUSPEC_HOST_DEVICE constexpr T seeded_value(std::uint64_t seed, std::uint64_t index) {
  return seeded<T>::value(seed, index);
}

} // namespace gpuspec::kernels
