#pragma once
/// Input initialisation and output poisoning (docs/design.md rule 6). CUDA-free launchers, and the
/// pure helpers that choose a poison and recognise it.
///
/// A poison is a value written over an output before the run that no result of the kernel under
/// test can take, so an element that still holds it afterwards was never written, rather than
/// written wrong: the checks report it as "not written".

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "gpuspec/kernels/stream_handle.hpp"

namespace gpuspec::kernels {

/// p[i] = seeded_value<T>(seed, i) for i < n (see seeded_values.hpp): random, seeded, in [1, 2).
/// Instantiated for float and double.
template <class T>
void launch_fill_seeded(T* p, std::size_t n, std::uint64_t seed, stream_handle stream);

/// Sets every byte of [p, p + bytes) to 0xFF. All-ones is a NaN in fp16, bf16, fp32 and fp64, so
/// an output the kernel under test fails to write is caught by the check.
void poison_with_nan(void* p, std::size_t bytes, stream_handle stream);

/// Sets every byte of [p, p + bytes) to `byte`: the poison of integer outputs, whose words
/// (byte_poison_word) are chosen outside what a result can be.
void poison_with_byte(void* p, std::size_t bytes, std::uint8_t byte, stream_handle stream);

/// What poison_with_nan leaves in a 32-bit word: a NaN as fp32, a pair of NaNs as fp16x2.
inline constexpr std::uint32_t nan_poison_word = 0xFFFFFFFFu;

/// The 32-bit word that poison_with_byte(byte) leaves: the byte four times.
[[nodiscard]] constexpr std::uint32_t byte_poison_word(std::uint8_t byte) {
  return std::uint32_t{byte} * 0x01010101u;
}

/// For an integer output whose every word is a possible result in general (arithmetic modulo
/// 2^32), but whose exact results are known before the run: the first byte b, from `first` on
/// (wrapping at 256), whose word byte_poison_word(b) is none of `results`, so that word cannot
/// be a correct result of this launch. Nothing if all 256 such words are results.
[[nodiscard]] constexpr std::optional<std::uint8_t>
poison_byte_avoiding(std::span<const std::uint32_t> results, std::uint8_t first = 0x80) {
  std::array<bool, 256> taken{};
  for (const std::uint32_t r : results)
    if (r == byte_poison_word(static_cast<std::uint8_t>(r & 0xFFu)))
      taken[r & 0xFFu] = true;
  for (unsigned k = 0; k < 256; ++k) {
    const auto b = static_cast<std::uint8_t>((first + k) & 0xFFu);
    if (!taken[b])
      return b;
  }
  return std::nullopt;
}

} // namespace gpuspec::kernels
