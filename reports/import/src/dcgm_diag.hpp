#pragma once
// dcgmi diag's results as its two outputs give them, the text table (dcgm_diag.cpp) and the -j
// JSON document (dcgm_diag_json.cpp), read into the same tests and made into one report.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "gpuspec/reports/import/log_lines.hpp"
#include "gpuspec/reports/model/report.hpp"

namespace gpuspec::reports::inline import::detail {

/// One test: DCGM's result per GPU, and the Warning and Info texts under it.
struct dcgm_test {
  std::string section, name;
  std::size_t line = 0;
  /// DCGM's result per GPU index; -1 for every GPU ("Pass", "Fail - All").
  std::map<int, std::string> result;
  std::vector<std::string> warnings, info;
  /// DCGM's error codes (error_id: dcgmError_t, DCGM_FR_*) per GPU index; JSON only.
  std::map<int, std::vector<long long>> error_ids;
};

struct parsed_diag {
  std::string version, driver;
  std::vector<std::uint32_t> device_ids;
  std::map<int, std::string> link_states; ///< gpuId -> "DDDD..." (dcgmi nvlink --link-status)
  std::vector<dcgm_test> tests;
  bool table = false, closed = false;
  bool json = false; ///< read from dcgmi diag -j
};

/// Whether DCGM's text names a GPU by index ("GPU 0", "GPU 12"): "GPU to Host bandwidth" and
/// "Host to GPU bandwidth" (its PCIe test's Info lines, 4.x) name none and belong to every GPU
/// the result is for.
[[nodiscard]] bool names_a_gpu(std::string_view text);

[[nodiscard]] bool looks_like_dcgm_diag(const std::vector<log_line>& lines);
/// A log holding dcgmi diag -j's document ("DCGM GPU Diagnostic", 4.x "DCGM Diagnostic").
[[nodiscard]] bool looks_like_dcgm_json(const std::vector<log_line>& lines);
[[nodiscard]] parsed_diag parse_dcgm_json(const std::vector<log_line>& lines);

/// One result per test per GPU, with DCGM's words and codes (docs/import.md, "DCGM").
[[nodiscard]] report dcgm_report(const parsed_diag& p, const std::vector<log_line>& lines,
                                 run_source source);

} // namespace gpuspec::reports::import::detail
