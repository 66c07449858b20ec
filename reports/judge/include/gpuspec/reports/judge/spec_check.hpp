#pragma once
/// `gpuspec specs --check` as a pure function: recompute each row's peaks from SM count ×
/// clock × the architecture's rate per SM per clock (arch_rates.hpp), and its memory bandwidth
/// from memory clock × bus width × transfers per clock, and compare with the datasheet figures.

#include <optional>
#include <string>
#include <vector>

#include "gpuspec/reports/model/spec_table.hpp"

namespace gpuspec::reports::inline judge {

enum class spec_finding_status {
  agrees,      ///< within the tolerance
  explained,   ///< off by more than the tolerance, and the row's check_notes say why
  disagrees,   ///< off by more than the tolerance, unexplained: a data-quality warning
  not_checked, ///< nothing to recompute with (no rate for the architecture, no clock, ...)
};

[[nodiscard]] std::string_view to_string(spec_finding_status status);

struct spec_finding {
  std::string row_id;
  std::string field;               ///< "peaks.fp32", "memory.bandwidth_gbs"
  std::optional<double> stated;    ///< the datasheet figure
  std::optional<double> computed;  ///< the recomputed figure
  std::optional<double> deviation; ///< (stated - computed) / computed
  std::optional<double> clock_mhz; ///< the clock the recomputation used
  spec_finding_status status = spec_finding_status::not_checked;
  std::string detail; ///< the check note, or why it was not checked
};

/// Relative tolerance of the issue: 2%.
inline constexpr double spec_check_tolerance = 0.02;

/// One finding per peak key of each row and one for its memory bandwidth, in row order.
[[nodiscard]] std::vector<spec_finding> check_spec_table(const spec_table& table,
                                                         double tolerance = spec_check_tolerance);

/// The clock `specs --check` uses for `key` on `row`: tensor_clock_mhz for the non-FP64 Tensor
/// Core keys where the row states one, else the boost clock; nullopt when the row has neither.
[[nodiscard]] std::optional<double> datasheet_clock_mhz(const gpu_spec& row, std::string_view key);

/// The datasheet ceiling recomputed from the architecture table at the row's clock (nullopt
/// when the architecture or key is unknown). Same formula as the clock-adjusted ceiling; on a
/// GeForce row (by name) the keys its datasheet states with FP32 accumulate at half rate.
[[nodiscard]] std::optional<double> recomputed_peak(const gpu_spec& row, std::string_view key);

} // namespace gpuspec::reports::judge
