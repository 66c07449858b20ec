#pragma once
/// Small text helpers shared by the printers and the CLI's tables.

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace gpuspec::reports {

/// "n=1024 dtype=fp32": a result's parameters on one line, for tables. Strings unquoted, other
/// values as JSON; something other than an object is written as JSON.
[[nodiscard]] std::string format_parameters(const nlohmann::ordered_json& parameters);

/// "fp32 8192x8192x8192": the values alone, for a terminal's table (strings unquoted).
[[nodiscard]] std::string format_values(const nlohmann::ordered_json& parameters);

/// `text` as one Markdown table cell: '|' escaped, line breaks turned into spaces.
[[nodiscard]] std::string markdown_cell(std::string_view text);

} // namespace gpuspec::reports
