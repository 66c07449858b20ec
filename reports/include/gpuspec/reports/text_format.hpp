#pragma once
/// Small text helpers shared by the printers and the CLI's tables.

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpuspec/reports/report.hpp"

namespace gpuspec::reports {

/// "n=1024 dtype=fp32": a result's parameters on one line, for tables. Strings unquoted, other
/// values as JSON; something other than an object is written as JSON.
[[nodiscard]] std::string format_parameters(const nlohmann::ordered_json& parameters);

/// "fp32 8192x8192x8192": the values alone, for a terminal's table (strings unquoted).
[[nodiscard]] std::string format_values(const nlohmann::ordered_json& parameters);

/// "pid 4242 (python3, 20.0 GiB)": how messages name a process on a GPU.
[[nodiscard]] std::string process_text(const gpu_process& p);
/// Every process, comma-separated; "no process" for none.
[[nodiscard]] std::string processes_text(const std::vector<gpu_process>& processes);

/// `text` as one Markdown table cell: '|' escaped, line breaks turned into spaces.
[[nodiscard]] std::string markdown_cell(std::string_view text);

} // namespace gpuspec::reports
