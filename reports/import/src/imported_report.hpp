#pragma once
// What every importer builds its report from (import.cpp and each tool's file): the report's
// frame, a result holding one figure, and the numbers and sizes as every log writes them.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "gpuspec/reports/model/report.hpp"

namespace gpuspec::reports::inline import::detail {

/// An empty imported report: backend "imported", run.source set, complete unless truncated.
[[nodiscard]] report imported_report(run_source source);

/// A result of one figure read from line `line` of the log: one sample, no telemetry (the log
/// has none: the telemetry status says so), verification skipped until the importer knows.
[[nodiscard]] result imported_result(const std::string& bench_id, const std::string& metric,
                                     metric_unit unit, double figure, std::size_t line,
                                     const std::string& tool);

/// Ends the report: complete unless the source says truncated, with the reason.
void finish_report(report& r);

/// The whole of `s` as a number ("25.13", "1e3"), else nullopt ("N/A", "12GB", "").
[[nodiscard]] std::optional<double> number_of(std::string_view s);
/// The whole of `s` as a whole number, else nullopt.
[[nodiscard]] std::optional<long long> integer_of(std::string_view s);

/// "1GiB", "256MiB", "8B": a size axis as our benchmarks write it (the largest binary unit
/// that divides it whole).
[[nodiscard]] std::string size_text(long long bytes);

/// A peer copy one way (transfer.p2p) faster than the fastest PCIe link there is (Gen6 x16 per
/// direction, reference.hpp's PCI-SIG rates) crossed NVLink, which no log of a peer copy says:
/// then its path observation says so and it is held to the spec row's NVLink figure; otherwise
/// the path is not known and it is held to no ceiling. True when it was inferred.
bool infer_nvlink_path(result& res);

} // namespace gpuspec::reports::import::detail
