#pragma once
/// The arithmetic of the host/device transfer benchmarks (transfer.*): the size axis, how many
/// copies one sample holds, the bytes counted, and the seeded pattern every destination byte is
/// checked against. CUDA-free and pure: the host tests check each of them.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gpuspec/kernels/pointer_chase.hpp" // size_text
#include "gpuspec/kernels/seeded_values.hpp"

namespace gpuspec::kernels {

enum class transfer_kind { h2d, d2h, bidir };

/// The smallest and largest copy of the size axis, and its factor.
inline constexpr std::uint64_t transfer_min_bytes = std::uint64_t{4} << 10; // 4 KiB
inline constexpr std::uint64_t transfer_max_bytes = std::uint64_t{1} << 30; // 1 GiB
inline constexpr std::uint64_t transfer_size_factor = 4;
/// The one size the quick suite runs: large enough that the per-copy start cost is a small part
/// of a copy (a few ms at PCIe Gen4/5 rates), a quarter of the largest so quick stays quick.
inline constexpr std::uint64_t transfer_quick_bytes = std::uint64_t{256} << 20; // 256 MiB

/// The values of the `size` axis: 4 KiB to 1 GiB by factors of 4 (size_text: "4KiB", ...,
/// "1GiB"), with transfer_quick_bytes first, since quick takes an axis's first value.
[[nodiscard]] inline std::vector<std::string> transfer_size_texts() {
  std::vector<std::string> sizes{size_text(transfer_quick_bytes)};
  for (std::uint64_t b = transfer_min_bytes; b <= transfer_max_bytes; b *= transfer_size_factor)
    if (b != transfer_quick_bytes)
      sizes.push_back(size_text(b));
  return sizes;
}

/// A sample moves at least this many bytes, in back-to-back copies of the case's size, so a
/// small copy is timed over many and far above the events' ~0.5 us resolution.
inline constexpr std::uint64_t transfer_sample_min_bytes = std::uint64_t{16} << 20; // 16 MiB
/// ... but holds at most this many copies: a sample is enqueued behind the hold kernel, and a
/// stream that fills its launch queue (about a thousand entries by public forum reports)
/// blocks the host thread that should release the hold. nvbandwidth times 16 copies per sample.
inline constexpr std::uint64_t transfer_max_copies_per_sample = 64;

/// Copies of `bytes` one sample enqueues (per direction): ceil(16 MiB / bytes), between 1 and 64.
[[nodiscard]] constexpr std::uint64_t transfer_copies_per_sample(std::uint64_t bytes) {
  if (bytes == 0)
    return 1;
  const std::uint64_t wanted =
      transfer_sample_min_bytes / bytes + (transfer_sample_min_bytes % bytes != 0 ? 1 : 0);
  if (wanted < 1)
    return 1;
  return wanted < transfer_max_copies_per_sample ? wanted : transfer_max_copies_per_sample;
}

/// Directions a transfer moves data in: 1, or 2 for bidir.
[[nodiscard]] constexpr int transfer_directions(transfer_kind kind) {
  return kind == transfer_kind::bidir ? 2 : 1;
}

/// Bytes counted for one sample: each copy once, in each direction it moves data (a memcpy
/// counted once, docs/design.md rule 8; bidir counts both directions).
[[nodiscard]] constexpr double transfer_bytes_per_sample(transfer_kind kind, std::uint64_t bytes,
                                                         std::uint64_t copies) {
  return static_cast<double>(bytes) * static_cast<double>(copies) *
         static_cast<double>(transfer_directions(kind));
}

// --- the pattern and the check ------------------------------------------------------------

/// Destinations are poisoned with this byte before the run: every 8-byte word then holds
/// transfer_poison_word, which no pattern word equals, so a word still holding it after the
/// run was never written.
inline constexpr std::uint8_t transfer_poison_byte = 0xFF;
inline constexpr std::uint64_t transfer_poison_word = ~std::uint64_t{0};

/// Word `index` (8 bytes, little-endian in memory on every host gpuspec runs on) of the pattern
/// `seed`: seeded_bits, never 0 (non-zero inputs, docs/design.md rule 6) and never the poison.
[[nodiscard]] constexpr std::uint64_t transfer_pattern_word(std::uint64_t seed,
                                                            std::uint64_t index) {
  const std::uint64_t w = seeded_bits(seed, index);
  if (w == 0)
    return 1;
  if (w == transfer_poison_word)
    return transfer_poison_word - 1;
  return w;
}

/// Writes the pattern's words first_word, first_word + 1, ... over `out`, whose size must be a
/// multiple of 8 (a trailing partial word is left as it was).
inline void fill_transfer_pattern(std::span<std::byte> out, std::uint64_t seed,
                                  std::uint64_t first_word) {
  const std::size_t words = out.size() / 8;
  for (std::size_t w = 0; w < words; ++w) {
    const std::uint64_t value = transfer_pattern_word(seed, first_word + w);
    std::memcpy(out.data() + w * 8, &value, 8);
  }
}

/// What a byte-for-byte comparison found.
struct byte_comparison {
  std::uint64_t compared = 0;         ///< bytes
  std::uint64_t mismatched_bytes = 0; ///< bytes that differ
  std::uint64_t unwritten_words = 0;  ///< 8-byte words (at 8-byte offsets) still the poison
  std::optional<std::uint64_t> first_mismatch; ///< byte offset of the first that differs
  std::uint8_t first_got = 0, first_expected = 0;

  /// Folds in the comparison of the bytes that follow these.
  void append(const byte_comparison& next) {
    if (!first_mismatch && next.first_mismatch) {
      first_mismatch = next.first_mismatch;
      first_got = next.first_got;
      first_expected = next.first_expected;
    }
    compared += next.compared;
    mismatched_bytes += next.mismatched_bytes;
    unwritten_words += next.unwritten_words;
  }
};

/// Blocks compare_bytes hands to memcmp; only a block that differs is scanned byte by byte.
inline constexpr std::size_t compare_block_bytes = 4096;

/// Compares got[i] with expected[i] for every byte of the shorter span (memcmp per 4 KiB block,
/// the fast path for a correct copy), with positions reported from `offset` (the spans' place
/// in the whole buffer, a multiple of 8 so that words line up with the poison's).
[[nodiscard]] inline byte_comparison compare_bytes(std::span<const std::byte> got,
                                                   std::span<const std::byte> expected,
                                                   std::uint64_t offset = 0) {
  byte_comparison r;
  const std::size_t n = got.size() < expected.size() ? got.size() : expected.size();
  r.compared = n;
  for (std::size_t block = 0; block < n; block += compare_block_bytes) {
    const std::size_t len = n - block < compare_block_bytes ? n - block : compare_block_bytes;
    if (std::memcmp(got.data() + block, expected.data() + block, len) == 0)
      continue;
    for (std::size_t i = block; i < block + len; ++i) {
      if (got[i] == expected[i])
        continue;
      ++r.mismatched_bytes;
      if (!r.first_mismatch) {
        r.first_mismatch = offset + i;
        r.first_got = static_cast<std::uint8_t>(got[i]);
        r.first_expected = static_cast<std::uint8_t>(expected[i]);
      }
    }
    for (std::size_t w = (block + 7) / 8 * 8; w + 8 <= block + len; w += 8) {
      std::uint64_t word = 0;
      std::memcpy(&word, got.data() + w, 8);
      if (word == transfer_poison_word)
        ++r.unwritten_words;
    }
  }
  return r;
}

} // namespace gpuspec::kernels
