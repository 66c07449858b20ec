#pragma once
/// The burn-in's rules (docs/burnin.md, docs/check.md): what a result's burn-in record says
/// about its GPU, and what the GEMM checksums of a report's GPUs say side by side. Pure
/// functions over the report model.

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gpuspec/reports/judge/diagnosis.hpp"
#include "gpuspec/reports/judge/expectations.hpp"
#include "gpuspec/reports/model/report.hpp"

namespace gpuspec::reports::inline judge {

/// Intervals holding a GEMM left out at the start of the drift comparison: the soak. A cold GPU
/// runs its first minute faster than it sustains once hot (docs/design.md, measurement rule 10), so
/// comparing against it would call the warm-up a drift.
inline constexpr std::size_t drift_soak_intervals = 1;

/// Throughput at the start of the run against its end: after the soak, the median of the first
/// `intervals` intervals that ran the GEMM and of the last as many (a quarter of them, 1 to 5).
/// The warn and fail fractions (expect.json's burnin_drift_warn, burnin_drift_fail) are initial
/// policy: no anchor states a drift bound (DCGM's targeted stress holds throughput to a target,
/// gpu-burn reports it), to be revisited once burn-ins of real GPUs are on record.
struct throughput_drift {
  double first = 0, last = 0;
  double drop = 0; ///< 1 - last / first: positive when throughput fell
  std::size_t intervals = 0;
  std::size_t soak_intervals = 0; ///< left out at the start
};
/// nullopt with fewer than 3 intervals holding a throughput after the soak (nothing to compare).
[[nodiscard]] std::optional<throughput_drift> drift_of(std::span<const burnin_interval> intervals);

/// One burn-in or memory-test result's own findings: checksum mismatches within the GPU (fail:
/// the first iteration, its time and both checksums), bad memory words (fail: the first
/// address, its pattern, the count), throughput drift (warn or fail), too little work for the
/// duration or power that never left idle (inconclusive), the power brake asserted (warn).
/// Empty when the record is clean.
[[nodiscard]] std::vector<diagnosis> burnin_findings(const report& r, const result& res,
                                                     const device_info* device,
                                                     const expectation_settings& settings);

/// The cross-GPU comparison of a report's burn-in GEMMs: results of the same bench id and
/// axes, shape, dtype, seed, algorithm and GPU model must have the same reference checksum.
/// The checksum most of them share is the reference; the others fail. With no majority (two
/// GPUs that disagree), all of them fail: the comparison cannot say which is wrong.
struct checksum_comparison {
  std::vector<std::pair<std::size_t, diagnosis>> findings; ///< by index into report.results
  std::vector<std::string> notes;                          ///< what could not be compared, and why
};
[[nodiscard]] checksum_comparison compare_burnin_checksums(const report& r);

} // namespace gpuspec::reports::judge
