#pragma once
/// The comparator (STYLE.md 10): a pure function from reports, the spec table and the
/// expectation rules to verdicts. No I/O.

#include <optional>
#include <span>

#include "gpuspec/reports/expectations.hpp"
#include "gpuspec/reports/report.hpp"
#include "gpuspec/reports/spec_table.hpp"
#include "gpuspec/reports/verdict.hpp"

namespace gpuspec::reports {

struct check_options {
  /// When set, each result is judged against the matching result of this report (same bench
  /// id and parameters, same GPU by serial, else UUID, else index) instead of the datasheet.
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

} // namespace gpuspec::reports

namespace gpuspec::reports {

/// A rate unit in base units: "GB/s" is {"bytes_per_second", 1e9}, "TFLOP/s" is
/// {"flop_per_second", 1e12}, "TOPS" is {"ops_per_second", 1e12}. nullopt for other units.
struct unit_info {
  std::string_view base;
  double scale = 1;
};
[[nodiscard]] std::optional<unit_info> unit_info_of(std::string_view unit);

/// Per-direction PCIe bandwidth in GB/s of a link (gen 1-6, width lanes); nullopt if unknown.
[[nodiscard]] std::optional<double> pcie_bandwidth_gbs(int gen, int width);

} // namespace gpuspec::reports
