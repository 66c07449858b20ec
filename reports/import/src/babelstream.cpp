// BabelStream's output (UoB-HPC/BabelStream, versions 3 to 5: its header, then the
// "Function MBytes/sec Min (sec) Max Average" table) read into results shaped as our STREAM
// (benches/families/stream.cpp): memory.stream.<op> with the dtype axis, in GB/s, held to the
// GPU's memory bandwidth by the same rule (docs/import.md, "BabelStream"). BabelStream counts
// bytes as we do (no write-allocate: copy and mul 2 arrays, add and triad 3, dot 2) and its
// MBytes/sec is 1e6 bytes per second from the fastest run. An implementation that did not run on
// an NVIDIA GPU (OpenCL on a CPU, ...) is reported, never judged against a GPU's memory.
#include <algorithm>
#include <array>
#include <cctype>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "imported_report.hpp"
#include "readers.hpp"

namespace gpuspec::reports::inline import::detail {
namespace {

/// BabelStream's kernel names and ours (kernels/include/gpuspec/kernels/stream_math.hpp's rows:
/// that table is device-side, so the names are repeated here, and a test holds them together).
constexpr std::array<std::pair<std::string_view, std::string_view>, 5> k_babelstream_ops{
    {{"Copy", "copy"}, {"Mul", "scale"}, {"Add", "add"}, {"Triad", "triad"}, {"Dot", "dot"}}};

struct stream_row {
  std::string function;
  double rate = 0; ///< in the table's unit
  std::optional<double> min_s, max_s, average_s;
  std::size_t line = 0;
};

struct stream_log {
  std::string version, implementation, precision, device, driver, array_size, iterations;
  std::string unit = "MBytes/sec"; ///< "MiBytes/sec" with --mibibytes
  std::vector<stream_row> rows;
  bool table = false;
  std::vector<std::string> validation; ///< "Validation failed on a[]..." lines
};

std::string after_colon(std::string_view text) {
  return std::string(trim_blanks(text.substr(text.find(':') + 1)));
}

stream_log parse_babelstream(const std::vector<log_line>& lines) {
  stream_log p;
  for (const auto& l : lines) {
    const auto text = trim_blanks(l.text);
    const auto f = blank_fields(text);
    if (text.starts_with("Validation failed"))
      p.validation.emplace_back(text);
    else if (text.starts_with("Version:"))
      p.version = after_colon(text);
    else if (text.starts_with("Implementation:"))
      p.implementation = after_colon(text);
    else if (text.starts_with("Precision:"))
      p.precision = after_colon(text);
    else if (text.starts_with("Array size:"))
      p.array_size = after_colon(text);
    else if (text.starts_with("Driver:"))
      p.driver = after_colon(text);
    else if (text.starts_with("Running kernels ") && f.size() >= 3)
      p.iterations = std::string(f[2]);
    else if (text.starts_with("Using ") && text.find(" device ") != std::string_view::npos)
      p.device = std::string(trim_blanks(text.substr(text.find(" device ") + 8)));
    else if (!f.empty() && f[0] == "Function" && f.size() >= 2) {
      p.table = true;
      p.unit = std::string(f[1]);
    } else if (p.table && !f.empty() && std::isupper(static_cast<unsigned char>(f[0][0])) != 0) {
      if (f.size() != 5)
        throw log_error(l.number, fmt::format("a row of BabelStream's table with {} fields where "
                                              "its header names 5",
                                              f.size()));
      stream_row row;
      row.function = std::string(f[0]);
      const auto rate = number_of(f[1]);
      if (!rate || *rate < 0)
        throw log_error(l.number, fmt::format("{}'s {} is '{}', not a figure", f[0], p.unit, f[1]));
      row.rate = *rate;
      row.min_s = number_of(f[2]);
      row.max_s = number_of(f[3]);
      row.average_s = number_of(f[4]);
      row.line = l.number;
      p.rows.push_back(std::move(row));
    }
  }
  return p;
}

/// Whether the run was on an NVIDIA GPU, which our memory ceiling is for: CUDA always; another
/// implementation when the device it names is an NVIDIA part.
bool ran_on_nvidia_gpu(const stream_log& p) {
  if (p.implementation == "CUDA")
    return true;
  return p.device.find("NVIDIA") != std::string::npos ||
         p.device.find("Tesla") != std::string::npos ||
         p.device.find("GeForce") != std::string::npos ||
         p.device.find("Quadro") != std::string::npos;
}

std::string dtype_of_precision(const std::string& precision) {
  return precision == "double" ? "fp64" : precision == "float" ? "fp32" : precision;
}

std::string our_name(const std::string& function) {
  for (const auto& [theirs, ours] : k_babelstream_ops)
    if (theirs == function)
      return std::string(ours);
  return {};
}

bool looks_like_babelstream(const std::vector<log_line>& lines) {
  bool name = false, table = false;
  for (const auto& l : lines) {
    const auto text = trim_blanks(l.text);
    name = name || text == "BabelStream" || text.starts_with("BabelStream ");
    table =
        table || (text.starts_with("Function") && text.find("Bytes/sec") != std::string_view::npos);
  }
  return name || table;
}

report read_babelstream(const std::vector<log_line>& lines, run_source source) {
  const auto p = parse_babelstream(lines);
  if (p.rows.empty())
    throw log_error(lines.empty() ? 0 : lines.back().number,
                    "a BabelStream log with no row of its table: nothing to judge");
  source.version = p.version.empty() ? "" : "BabelStream " + p.version;
  if (p.version.empty())
    source.notes.push_back("the log does not state BabelStream's version");
  // A full run prints Copy, Mul, Add, Triad, Dot in that order (main.cpp's labels); a table that
  // starts with Copy and stops before Dot was cut (--triad-only and --nstream-only print one row).
  source.truncated = p.rows.front().function == "Copy" && p.rows.back().function != "Dot";
  const bool gpu = ran_on_nvidia_gpu(p);
  source.notes.push_back(fmt::format(
      "BabelStream's figure is its fastest run's rate ({} runs; min, max and average times are "
      "observations), not a median: a capability figure",
      p.iterations.empty() ? std::string("the number of") : p.iterations));
  if (!gpu)
    source.notes.push_back(fmt::format(
        "implementation {} on '{}': not an NVIDIA GPU that gpuspec knows, so the figures are "
        "reported and not judged against a GPU's memory",
        p.implementation.empty() ? std::string("not stated") : p.implementation, p.device));
  else if (p.implementation != "CUDA")
    source.notes.push_back("implementation " + p.implementation +
                           " on an NVIDIA GPU: judged as our STREAM, whose kernels are CUDA's");
  source.notes.push_back("the log has no telemetry: clocks, ECC and throttling are not known");
  report r = imported_report(std::move(source));
  device_info d;
  d.index = 0;
  d.name = p.device;
  if (gpu) {
    r.devices.push_back(d);
    r.run.devices.push_back(0);
  }
  // "Driver: 11040": cudaDriverGetVersion's 1000 x major + 10 x minor (CUDA only).
  if (const auto v = integer_of(p.driver); v && *v > 0 && p.implementation == "CUDA")
    r.host.cuda_driver_version = fmt::format("{}.{}", *v / 1000, *v % 1000 / 10);
  const double to_gbs = p.unit.starts_with("MiB") ? 1048576.0 / 1e9 : 1e6 / 1e9;
  for (const auto& row : p.rows) {
    const std::string ours = our_name(row.function);
    auto res = imported_result(
        ours.empty() ? "babelstream." + row.function : "memory.stream." + ours, "bandwidth",
        metric_unit::gigabytes_per_second, row.rate * to_gbs, row.line, "BabelStream");
    res.axes["dtype"] = dtype_of_precision(p.precision);
    res.cache_state = "cold";
    if (gpu)
      res.devices = {0};
    auto& o = res.observations;
    o["babelstream_function"] = row.function;
    o["babelstream_implementation"] = p.implementation;
    o["babelstream_rate"] = fmt::format("{} {}", row.rate, p.unit);
    if (!p.array_size.empty())
      o["array_size"] = p.array_size;
    if (row.min_s)
      o["min_s"] = *row.min_s;
    if (row.max_s)
      o["max_s"] = *row.max_s;
    if (row.average_s)
      o["average_s"] = *row.average_s;
    res.check.detail = "BabelStream checks its arrays after the runs and prints \"Validation "
                       "failed\" when they are wrong; the log has no such line";
    res.check.status = verification_status::passed;
    if (!p.validation.empty()) {
      res.check.status = verification_status::failed;
      res.check.detail = fmt::format("BabelStream: {}", fmt::join(p.validation, " | "));
      res.status = result_status::failed;
      res.failure = failure_kind::verification;
      res.reason = "BabelStream found wrong results: " + res.check.detail;
    }
    if (res.status == result_status::failed) {
    } else if (!gpu) {
      res.status = result_status::skipped;
      res.reason = fmt::format("BabelStream's {} implementation ran on '{}', not on an NVIDIA GPU: "
                               "reported, not judged against a GPU's memory",
                               p.implementation, p.device);
    } else if (ours.empty()) {
      res.status = result_status::skipped;
      res.reason =
          "no gpuspec STREAM op is BabelStream's " + row.function + ": reported, not judged";
    } else {
      res.ceiling_value.reference = reference_kind::datasheet;
      res.ceiling_value.spec_figure = "memory_bandwidth_gbs";
      res.ceiling_value.datasheet_source =
          "the spec table's memory bandwidth for the model the log names";
    }
    r.results.push_back(std::move(res));
  }
  finish_report(r);
  return r;
}

} // namespace

const log_reader babelstream_reader{"babelstream", looks_like_babelstream, read_babelstream};

} // namespace gpuspec::reports::import::detail
