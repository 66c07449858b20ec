#pragma once
/// The comparator (CONTRIBUTING.md, style 10): a pure function from reports, the spec table and the
/// expectation rules to verdicts. No I/O.

#include <optional>
#include <span>

#include "gpuspec/reports/judge/expectations.hpp"
#include "gpuspec/reports/judge/verdict.hpp"
#include "gpuspec/reports/model/report.hpp"
#include "gpuspec/reports/model/spec_table.hpp"

namespace gpuspec::reports::inline judge {

struct check_options {
  /// When set, each result is judged against the matching result of this report (the same
  /// result and the same GPU, identity.hpp: bench id and axes; serial, else UUID, else index)
  /// instead of its reference; a result with no partner there is judged against its reference,
  /// and a note says how many had none.
  const report* baseline = nullptr;
  std::optional<double> baseline_tolerance; ///< overrides the rules' setting
};

/// Judges every result of every report, diagnoses every warn and fail, and rolls up per GPU,
/// per node and overall. Three frames for slow GPUs: the spec table (or the baseline),
/// identical siblings in one report, and, with `fleet_min_reports` or more reports of one
/// model, the fleet median by a modified z-score. O(results log results).
[[nodiscard]] check_outcome check(std::span<const report> reports, const spec_table& specs,
                                  const expectations& rules, const check_options& options = {});

/// One report.
[[nodiscard]] check_outcome check(const report& r, const spec_table& specs,
                                  const expectations& rules, const check_options& options = {});

} // namespace gpuspec::reports::judge
