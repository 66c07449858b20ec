#pragma once
// The readers of foreign logs, one file each, and the one table that registers them. A reader
// throws log_error naming the line it cannot read; import.cpp adds the file name. Adding a tool
// is its file, which defines `const log_reader <tool>_reader{...}`, and its line below.
#include <array>
#include <string_view>
#include <vector>

#include "gpuspec/reports/import/log_lines.hpp"
#include "gpuspec/reports/model/report.hpp"

namespace gpuspec::reports::inline import::detail {

struct log_reader {
  std::string_view tool; ///< the name `--tool` takes and run.source.tool holds
  /// Whether the log holds this tool's own lines (recognition, in the table's order).
  bool (*recognises)(const std::vector<log_line>&);
  report (*read)(const std::vector<log_line>&, run_source);
  /// Its logs can start as a JSON document does (dcgmi diag -j), so a file that starts with '{'
  /// is offered to it before the report loader (import.hpp, load_report_or_log).
  bool reads_json = false;
};

extern const log_reader nccl_tests_reader, gpu_burn_reader, dcgm_reader, nvbandwidth_reader,
    p2p_bandwidth_latency_reader, bandwidth_test_reader, babelstream_reader;

/// Recognition tries them in this order: the first whose lines the log holds reads it.
inline constexpr std::array k_readers{
    &nccl_tests_reader,
    &gpu_burn_reader,
    &dcgm_reader,
    &nvbandwidth_reader,
    &p2p_bandwidth_latency_reader,
    &bandwidth_test_reader,
    &babelstream_reader,
};

} // namespace gpuspec::reports::import::detail
