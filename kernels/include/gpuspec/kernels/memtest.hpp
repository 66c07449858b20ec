#pragma once
/// The memory test's kernels (kernels/src/memtest.cu; docs/burnin.md): fill a buffer of 64-bit
/// words with a pattern (memtest_patterns.hpp), then read every word back, count the ones that
/// differ and record the first few. CUDA-free header; the buffers are device memory from cudaMalloc
/// (never managed memory: a page that migrates to the host would be tested there).

#include <cstddef>
#include <cstdint>

#include "gpuspec/kernels/memtest_patterns.hpp"
#include "gpuspec/kernels/stream_handle.hpp"

namespace gpuspec::kernels {

inline constexpr std::uint32_t memtest_max_records = 16;

struct memtest_record {
  std::uint64_t address = 0; ///< the word's device address
  std::uint64_t expected = 0, actual = 0;
};

/// What a check pass found; lives in device memory while the kernel runs.
struct memtest_outcome {
  std::uint64_t bad_words = 0;
  std::uint32_t recorded = 0; ///< records filled (at most memtest_max_records)
  memtest_record first[memtest_max_records];
};

/// Writes pattern `p` (phase `inverted`) into `words[0, count)`.
void memtest_fill(std::uint64_t* words, std::size_t count, memtest_pattern p, std::uint64_t seed,
                  bool inverted, stream_handle stream);
/// Reads back `words[0, count)` against pattern `p` (phase `inverted`), adding to `*outcome`
/// (device memory; zero it before the first pass). With `then_invert`, each word is rewritten
/// with its complement phase once read (a moving-inversions step: read, then write the
/// inverse, in ascending order; `descending` walks the buffer from its end).
void memtest_check(std::uint64_t* words, std::size_t count, memtest_pattern p, std::uint64_t seed,
                   bool inverted, bool then_invert, bool descending, memtest_outcome* outcome,
                   stream_handle stream);

/// A bad word read again after its pass: stuck when it still differs from what the pass left in
/// it (`left`: the pattern's first phase, where every pass ends), transient when it now holds
/// that. The walk order of a pass: each check is a grid-stride loop (thread t of T visits words
/// t, t + T, ...; "descending" visits count - 1 - k for the same k), so thousands of words are
/// read at once and a pass is ascending or descending only as a whole, not word by word as in
/// memtest86's single-threaded walk.
[[nodiscard]] constexpr bool memtest_reread_stuck(std::uint64_t left, std::uint64_t reread) {
  return reread != left;
}

/// The host reference of memtest_check's reading (no rewrite): what the kernel must find in
/// `words`, a host copy of a buffer whose device address was `base_address`.
inline memtest_outcome memtest_check_host(const std::uint64_t* words, std::size_t count,
                                          memtest_pattern p, std::uint64_t seed,
                                          std::uint64_t base_address, bool inverted) {
  memtest_outcome out;
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint64_t expected = memtest_word(p, seed, base_address, i, inverted);
    if (words[i] == expected)
      continue;
    if (out.recorded < memtest_max_records)
      out.first[out.recorded++] = {base_address + 8 * i, expected, words[i]};
    ++out.bad_words;
  }
  return out;
}

} // namespace gpuspec::kernels
