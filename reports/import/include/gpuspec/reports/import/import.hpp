#pragma once
/// Another tool's log read into a report (docs/import.md): `gpuspec import`, and `check`, `diff`,
/// `compare` and `db ingest` given a log instead of a report. The tool is recognised from the
/// log's own lines unless the caller names it; the report's run.source names the tool, its
/// version, the file and its SHA-256, and each result's `source_line` observation the line its
/// figure came from. A log that is neither a known tool's nor readable is an input_error naming
/// the file and the line (exit code 3 in the CLI), never a crash.

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuspec/reports/model/outcome.hpp"
#include "gpuspec/reports/model/report.hpp"

namespace gpuspec::reports::inline import {

/// A tool whose logs gpuspec reads (one reader each, reports/import/src/readers.hpp): made by
/// tool_from_name or detect_tool, named by tool_name.
struct foreign_tool {
  std::size_t reader = 0; ///< its row in the readers' table
  friend bool operator==(const foreign_tool&, const foreign_tool&) = default;
};

/// "nccl-tests", "gpu-burn", "dcgm", "nvbandwidth", "p2pBandwidthLatencyTest", "bandwidthTest",
/// "babelstream": the names `--tool` takes and run.source.tool holds.
[[nodiscard]] std::string_view tool_name(foreign_tool tool);
[[nodiscard]] std::optional<foreign_tool> tool_from_name(std::string_view name);
/// Every name tool_from_name knows, for messages.
[[nodiscard]] std::vector<std::string_view> tool_names();

/// The tool whose lines the log holds, or nullopt when none is recognised.
[[nodiscard]] std::optional<foreign_tool> detect_tool(std::string_view text);

/// Reads a log's text. `file` is the name run.source and errors give; `tool` overrides
/// detection.
[[nodiscard]] outcome<report> import_log(std::string_view text, const std::string& file,
                                         std::optional<foreign_tool> tool = std::nullopt);

/// Reads the file, then import_log.
[[nodiscard]] outcome<report> load_log(const std::filesystem::path& file,
                                       std::optional<foreign_tool> tool = std::nullopt);

/// The inventory of `gpuspec info --json` taken on the node the log came from (its host and
/// devices) put into an imported report: each GPU of the log is matched by UUID, else PCI bus
/// id, else index, and takes the inventory's name, serial, clocks, spec row and counters; the
/// host takes its driver, topology and checks. An input_error naming `file` when it cannot be
/// read or a GPU of the log is another model in it.
[[nodiscard]] std::optional<input_error> apply_inventory(report& r,
                                                         const std::filesystem::path& file);

/// A gpuspec report (the file starts with '{' and is no tool's JSON log, such as dcgmi diag -j)
/// through load_report, else a foreign log through load_log: what check, diff, compare and db
/// ingest accept. `tool` reads the file as that tool's log, whatever it starts with.
[[nodiscard]] outcome<report> load_report_or_log(const std::filesystem::path& file,
                                                 std::optional<foreign_tool> tool = std::nullopt);

} // namespace gpuspec::reports::import
