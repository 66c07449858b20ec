#pragma once
// What every importer builds its report from (import.cpp and each tool's file): the report's
// frame, a result holding one figure, and a GPU as the log names it.
#include <cstddef>
#include <string>

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

} // namespace gpuspec::reports::import::detail
