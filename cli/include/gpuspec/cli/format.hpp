#pragma once
/// Small formatting helpers shared by the subcommands' terminal output.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "gpuspec/reports/model/report.hpp"
#include "gpuspec/reports/render/render.hpp"

namespace gpuspec::cli {

inline constexpr const char* unknown_text = "n/a";

template <class T> std::string or_unknown(const std::optional<T>& v, const char* spec = "{}") {
  return v ? fmt::format(fmt::runtime(spec), *v) : std::string(unknown_text);
}
inline std::string or_unknown(const std::string& s) { return s.empty() ? unknown_text : s; }

/// 85899345920 -> "80.0 GiB"
std::string format_bytes(std::optional<std::int64_t> bytes);
/// "Gen4 x16 (max Gen4 x16)"
std::string format_pcie(const reports::pcie_link& link);
/// A reading: its value, or its status ("not supported").
std::string format_reading(const reports::reading& r);
/// Significant figures that suit a rate: 3012.4, 45.21, 0.8123.
std::string format_value(double v);

/// The width a table printed on stdout should fit: the terminal's when stdout is one, else
/// $COLUMNS when set, else 0 (no limit: a file or a pipe gets whole lines).
std::size_t stdout_table_width();

/// The output format a report command was asked for (`--json` wins over `--format`); nullopt,
/// after "gpuspec <command>: --format X: unknown format" on stderr, when it names none.
std::optional<reports::output_format> chosen_format(const char* command, bool json,
                                                    const std::string& format);

} // namespace gpuspec::cli
