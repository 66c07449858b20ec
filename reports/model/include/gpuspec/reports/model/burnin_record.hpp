#pragma once
/// What a burn-in (and the memory test) leaves in its result (docs/burnin.md, docs/report.md):
/// the GEMM's checksums, the memory test's bad words, and the run as a bounded time series.
/// Plain structs; report.hpp holds one as `result::burnin`, written only for the results of
/// `burnin.*` and `memory.test` (an optional key of v1.1).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpuspec::reports::inline model {

/// Caps that keep a report of any run length bounded (docs/burnin.md, "Bounds").
inline constexpr std::size_t burnin_max_intervals = 1440;    ///< 24 h of minutes; then pairs merge
inline constexpr std::size_t burnin_max_mismatches = 16;     ///< the first mismatches, in order
inline constexpr std::size_t burnin_max_bad_words = 16;      ///< the first bad words, in order
inline constexpr std::size_t burnin_max_event_samples = 600; ///< raw samples around events

/// One interval (a minute, `burnin_record::interval_s`) of the run: per-second telemetry and
/// the work done, summarised.
struct burnin_interval {
  double start_s = 0, end_s = 0; ///< since the run started (telemetry's clock origin)
  std::int64_t gemm_iterations = 0;
  /// The GEMM's throughput in the result's unit over its device time in this interval; null
  /// when no GEMM iteration ended in it (a memory-test interval).
  std::optional<double> throughput;
  std::int64_t telemetry_samples = 0;
  std::optional<double> sm_clock_mhz_median, mem_clock_mhz_median;
  std::optional<double> temperature_c_max, power_w_mean, power_w_max;
  std::vector<std::string> throttle_reasons; ///< union seen in the interval
  std::int64_t checksum_mismatches = 0;
  std::int64_t memtest_words = 0, memtest_bad_words = 0;
  friend bool operator==(const burnin_interval&, const burnin_interval&) = default;
};

/// A GEMM iteration whose output checksum differed from the first iteration's.
struct burnin_mismatch {
  std::int64_t iteration = 0; ///< 0 is the reference iteration
  double time_s = 0;          ///< since the run started
  std::string expected;       ///< the reference checksum, "0x" and 16 hex digits
  std::string actual;
  friend bool operator==(const burnin_mismatch&, const burnin_mismatch&) = default;
};

/// A word the memory test read back wrong.
struct burnin_bad_word {
  std::string address;          ///< device virtual address, "0x..." (hex)
  std::string pattern;          ///< memtest_patterns.hpp's name, e.g. "walking_ones"
  std::string expected, actual; ///< the 64-bit word, "0x" and 16 hex digits
  /// Optional (v1.1): the word read again once its pass ended ("0x" and 16 hex digits), and
  /// whether it was still wrong then: `stuck` (the cell holds a wrong value: a hard fault) or not
  /// (transient: it read wrong once and right after), as cuda_memtest and DCGM's memtest tell
  /// the two apart. Empty / nullopt when the word was not read again.
  std::string reread;
  std::optional<bool> stuck;
  friend bool operator==(const burnin_bad_word&, const burnin_bad_word&) = default;
};

/// One raw telemetry sample, kept around an event (a throttle reason appearing, a mismatch, a
/// bad word, the temperature limit crossed).
struct burnin_sample {
  double time_s = 0;
  std::optional<double> sm_clock_mhz, mem_clock_mhz, temperature_c, power_w;
  std::vector<std::string> throttle_reasons;
  friend bool operator==(const burnin_sample&, const burnin_sample&) = default;
};

/// The GEMM phase: what was multiplied, with which pinned algorithm, and the checksums.
struct burnin_gemm {
  std::string dtype; ///< "bf16" | "fp16"
  std::int64_t m = 0, n = 0, k = 0;
  std::int64_t seed = 0;     ///< the inputs' seed: the same on every GPU
  std::string algorithm;     ///< cuBLASLt's pinned algorithm (id, tile, stages, split-K, scheme)
  std::string reduction;     ///< cuBLASLt's reduction scheme ("none": no split-K)
  bool deterministic = true; ///< false: checksums are not compared bit for bit (the why below)
  std::string determinism_note;
  std::int64_t iterations = 0;
  std::string reference_checksum; ///< iteration 0's, "0x" and 16 hex digits; "" when none ran
  std::int64_t checksum_mismatches = 0;
  std::vector<burnin_mismatch> mismatches; ///< the first burnin_max_mismatches
  friend bool operator==(const burnin_gemm&, const burnin_gemm&) = default;
};

/// The memory test: patterns written and every word read back.
struct burnin_memtest {
  std::int64_t bytes = 0; ///< tested per pass
  std::int64_t passes = 0;
  std::vector<std::string> patterns; ///< in the order run
  std::int64_t words_checked = 0, bad_words = 0;
  std::vector<burnin_bad_word> bad; ///< the first burnin_max_bad_words
  friend bool operator==(const burnin_memtest&, const burnin_memtest&) = default;
};

struct burnin_record {
  std::optional<double> duration_s;   ///< what --duration asked; null for memory.test
  double elapsed_s = 0;               ///< from the first load to the last, as run
  double busy_s = 0;                  ///< device time of the GEMM iterations and memory passes
  double interval_s = 60;             ///< the length of one interval (doubles when pairs merge)
  std::optional<double> idle_power_w; ///< before the load started; null when not sampled
  std::optional<burnin_gemm> gemm;
  std::optional<burnin_memtest> memtest;
  std::vector<burnin_interval> intervals;   ///< at most burnin_max_intervals
  std::vector<burnin_sample> event_samples; ///< at most burnin_max_event_samples
  friend bool operator==(const burnin_record&, const burnin_record&) = default;
};

} // namespace gpuspec::reports::model
