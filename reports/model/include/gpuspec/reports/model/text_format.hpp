#pragma once
/// Small text helpers shared by the printers and the CLI's tables.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpuspec/reports/model/report.hpp"

namespace gpuspec::reports::inline model {

/// "n=1024 dtype=fp32": a result's parameters on one line, for tables. Strings unquoted, other
/// values as JSON; something other than an object is written as JSON.
[[nodiscard]] std::string format_parameters(const nlohmann::ordered_json& parameters);

/// "fp32 8192x8192x8192": the values alone, for a terminal's table (strings unquoted).
[[nodiscard]] std::string format_values(const nlohmann::ordered_json& parameters);

/// "pid 4242 (python3, 20.0 GiB)": how messages name a process on a GPU.
[[nodiscard]] std::string process_text(const gpu_process& p);
/// Every process, comma-separated; "no process" for none.
[[nodiscard]] std::string processes_text(const std::vector<gpu_process>& processes);

/// The one formatter of figures in tables and messages (a value read from a report can be
/// anything, and a message must stay a line): below 10^6 in magnitude as before, one decimal
/// from 100 ("4350.0"), two from 1 ("1.50"), else 4 significant figures ("0.0123"); from 10^6 on
/// 4 significant figures with an exponent ("1.235e+90"), so no figure is wider than 10
/// characters; "nan", "inf" and "-inf" as such.
[[nodiscard]] std::string format_figure(double value);
/// A fraction as a percentage: one decimal ("90.6%") below 10^5 %, else 3 significant figures
/// with an exponent ("1.5e+90%").
[[nodiscard]] std::string format_percent(double fraction);
/// format_figure and the unit ("4350.0 GB/s"); "" for no value or one that is not finite.
[[nodiscard]] std::string format_quantity(const std::optional<double>& value, metric_unit unit);
/// format_percent; "" for no value or one that is not finite.
[[nodiscard]] std::string format_percent(const std::optional<double>& fraction);

/// `path` in at most `width` code points: whole when it fits, else "…" and its end, cut at a
/// '/' where one is near ("…/check/degraded-thermal-throttle.json"), so the file's name stays.
/// A terminal line that names a report fits the terminal wherever the report lives.
[[nodiscard]] std::string elide_path(std::string_view path, std::size_t width);

/// `text` made safe for a terminal line: a string gpuspec did not write (an NVML string, a
/// report's field, a database's row, a kernel log's text) could hold a newline that forges a
/// line a script reads ("drain reason: ..."), or an escape sequence the terminal obeys. C0
/// controls (newline and tab included), DEL, C1 controls (U+0080-U+009F) and bytes that are
/// not UTF-8 are written as visible escapes ("\n", "\t", "\x1b", "\u0085", "\x9b"); the rest,
/// other UTF-8 included, as it is. The one escaping of every text output's foreign strings.
[[nodiscard]] std::string escape_control(std::string_view text);

/// GPUs by NVML index as a terminal writes them: runs of three or more consecutive indices as a
/// range ("0-7", "1,3", "0-3,6"), so that eight GPUs fit a narrow terminal whole.
[[nodiscard]] std::string format_gpu_ranges(const std::vector<int>& devices);

/// `text` as one Markdown table cell: '|' escaped, line breaks turned into spaces.
[[nodiscard]] std::string markdown_cell(std::string_view text);

} // namespace gpuspec::reports::model
