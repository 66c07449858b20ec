#pragma once
/// Internal to the check: the ways a result can contradict itself (issue 10, point 3). A report
/// whose own numbers disagree is not judged as if fine: the field is named and the result is
/// inconclusive (GPUSPEC-REPORT-INCONSISTENT).

#include <cstddef>
#include <optional>
#include <string>

#include "gpuspec/reports/model/report.hpp"

namespace gpuspec::reports::inline judge::detail {

struct contradiction {
  std::string field; ///< "results[3].stats.median"
  std::string why;   ///< "905 is outside [min 880, max 900]"
};

/// The first contradiction within results[index] (its stats against its samples, times,
/// verification, efficiency, telemetry summary); nullopt when it holds together.
[[nodiscard]] std::optional<contradiction> result_contradiction(const result& r, std::size_t index);

} // namespace gpuspec::reports::judge::detail
