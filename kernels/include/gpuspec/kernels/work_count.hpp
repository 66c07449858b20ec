#pragma once
/// Device work counters: how a peak kernel shows the host that it ran every loop trip the
/// benchmark credits it with. CUDA-free and pure, so the host tests judge made-up counts.
///
/// Why: some checks cannot see the iteration count. The Tensor Core peaks alternate A·(-B) and
/// A·B, so after any number of pairs every accumulator holds A·B; the fp16x2 FMA chains settle on
/// a rounding fixed point after a few hundred steps. A kernel whose loop ran short (a compiler
/// that shortened it, a warp that returned early, a wrong bound) would pass those checks while
/// the benchmark credits the full FLOP count. So each unit that runs the loop (a warp, or a
/// warpgroup for wgmma) stores how many trips of its loop it ran, once, after the loop, and the
/// host requires every unit's count to equal the trips the FLOP count assumes.
///
/// How the kernels count without changing the timed loop: the loop's own counter is the count.
/// It is advanced by an inline `asm volatile` add, which the compiler can neither see through nor
/// drop, so it cannot replace the stored value with a formula of the bound (what it would do
/// with a plain `++i`: the exit value of an induction variable is the trip count), and a copy of
/// the add goes wherever a copy of the loop body goes. The loop keeps the one add, compare and
/// branch it had; the kernel gains one store per unit, after the loop.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace gpuspec::kernels {

/// A counter word before a launch (the byte 0xFF repeated, which poison_with_nan writes): the
/// launchers bound the trips far below it (tc_max_pairs, fma_chain_max_iterations), so a counter
/// that still holds it was never written.
inline constexpr std::uint32_t work_count_poison = 0xFFFFFFFFu;

/// What the counters of one launch hold, against the trips every unit must have run.
struct work_count_verdict {
  std::size_t units = 0;       ///< counters read
  std::size_t not_written = 0; ///< still holding work_count_poison: the unit never stored
  std::size_t wrong = 0;       ///< written, but not expected_each
  std::uint64_t expected_each = 0;
  std::uint64_t counted_total = 0;      ///< sum of the written counters
  std::optional<std::size_t> first_bad; ///< lowest index not written or wrong
  std::uint32_t first_bad_value = 0;    ///< what it held

  [[nodiscard]] constexpr bool passed() const {
    return units > 0 && not_written == 0 && wrong == 0;
  }
};

/// Judges `counts` (one word per unit, as the kernel stored them) against `expected_each` trips.
[[nodiscard]] constexpr work_count_verdict judge_work_counts(std::span<const std::uint32_t> counts,
                                                             std::uint32_t expected_each) {
  work_count_verdict v;
  v.units = counts.size();
  v.expected_each = expected_each;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    const std::uint32_t c = counts[i];
    const bool unwritten = c == work_count_poison;
    if (unwritten)
      ++v.not_written;
    else {
      v.counted_total += c;
      if (c != expected_each)
        ++v.wrong;
    }
    if ((unwritten || c != expected_each) && !v.first_bad) {
      v.first_bad = i;
      v.first_bad_value = c;
    }
  }
  return v;
}

/// One sentence for the verification's detail, e.g. "every one of the 1056 warps counted 4096
/// loop trips, as the FLOP count assumes", or, failing, "work count: 3 of 1056 warps never
/// stored their count; 2 counted other than the 4096 trips the FLOP count assumes (first: warp
/// 17, got 2048); 8650752 trips counted in all, 4325376 expected". `unit` is "warp" or
/// "warpgroup".
[[nodiscard]] inline std::string describe_work_counts(const work_count_verdict& v,
                                                      std::string_view unit) {
  const std::string units = std::string(unit) + "s";
  const std::string expected = std::to_string(v.expected_each);
  if (v.units == 0)
    return "work count: no " + units + " were counted";
  if (v.passed())
    return "work count: every one of the " + std::to_string(v.units) + " " + units + " counted " +
           expected + " loop trips, as the FLOP count assumes";
  std::string s = "work count:";
  if (v.not_written > 0)
    s += " " + std::to_string(v.not_written) + " of " + std::to_string(v.units) + " " + units +
         " never stored their count (not written: still the poison)";
  if (v.wrong > 0)
    s += std::string(v.not_written > 0 ? ";" : "") + " " + std::to_string(v.wrong) + " of " +
         std::to_string(v.units) + " " + units + " counted other than the " + expected +
         " loop trips the FLOP count assumes";
  if (v.first_bad)
    s += " (first: " + std::string(unit) + " " + std::to_string(*v.first_bad) +
         (v.first_bad_value == work_count_poison
              ? ", not written"
              : ", counted " + std::to_string(v.first_bad_value)) +
         ")";
  s += "; counted " + std::to_string(v.counted_total) + " trips in all, expected " +
       std::to_string(static_cast<std::uint64_t>(v.units) * v.expected_each);
  return s;
}

} // namespace gpuspec::kernels
