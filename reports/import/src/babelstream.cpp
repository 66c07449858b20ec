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

/// One run of BabelStream: its header, its table and its own errors. A log holds several when
/// a script ran it once per GPU (--device N), one after another.
struct stream_block {
  std::string version, implementation, precision, device, driver, array_size, iterations;
  std::string unit = "MBytes/sec"; ///< the table header's second column, as printed
  double unit_gbs = 1e-3;          ///< that unit in GB/s
  std::string init, read;          ///< 5.0's "Init:" and "Read:" lines, after the colon
  std::vector<stream_row> rows;
  bool table = false;
  std::vector<std::string> validation; ///< "Validation failed on a[]..." (6.0: "FAILED ...")
  std::string error;                   ///< "Error: ..." (CUDAStream's check_error), which exits
  std::size_t error_line = 0, first_line = 0;
  [[nodiscard]] bool empty() const {
    return version.empty() && implementation.empty() && device.empty() && rows.empty() && !table &&
           error.empty();
  }
};

std::string after_colon(std::string_view text) {
  return std::string(trim_blanks(text.substr(text.find(':') + 1)));
}

/// The table's unit in GB/s: 1.0 to 5.0 print MBytes/sec (MiBytes/sec with --mibibytes), the
/// development branch after 5.0 prints <unit>/s (src/Unit.h: MB, GB, TB, MiB, GiB, TiB).
std::optional<double> unit_in_gbs(std::string_view unit) {
  constexpr std::array<std::pair<std::string_view, double>, 8> units{{
      {"MBytes/sec", 1e-3},
      {"MiBytes/sec", 1048576.0 / 1e9},
      {"MB/s", 1e-3},
      {"GB/s", 1.0},
      {"TB/s", 1e3},
      {"MiB/s", 1048576.0 / 1e9},
      {"GiB/s", 1073741824.0 / 1e9},
      {"TiB/s", 1099511627776.0 / 1e9},
  }};
  for (const auto& [name, gbs] : units)
    if (unit == name)
      return gbs;
  return std::nullopt;
}

/// "Running kernels 100 times" (1.0 to 5.0) and "Running  All kernels 100 times in  Classic
/// order" (after 5.0): the count is the word before "times".
std::string iterations_of(const std::vector<std::string_view>& f) {
  for (std::size_t i = 1; i < f.size(); ++i)
    if (f[i] == "times")
      return std::string(f[i - 1]);
  return {};
}

/// A row of the table: one of BabelStream's kernel labels (main.cpp), however mangled, or
/// another capitalised name followed by four figures. Other lines after the table (a script's
/// "Running on device 1" before the next run) are not rows.
bool is_table_row(const std::vector<std::string_view>& f) {
  if (f.empty() || std::isupper(static_cast<unsigned char>(f[0][0])) == 0)
    return false;
  constexpr std::array<std::string_view, 6> labels{"Copy", "Mul", "Add", "Triad", "Dot", "Nstream"};
  return std::find(labels.begin(), labels.end(), f[0]) != labels.end() ||
         (f.size() == 5 && number_of(f[1]).has_value());
}

void read_table_row(stream_block& b, const log_line& l, const std::vector<std::string_view>& f) {
  if (f.size() != 5)
    throw log_error(l.number, fmt::format("a row of BabelStream's table with {} fields where "
                                          "its header names 5",
                                          f.size()));
  stream_row row;
  row.function = std::string(f[0]);
  const auto rate = number_of(f[1]);
  if (!rate || *rate < 0)
    throw log_error(l.number, fmt::format("{}'s {} is '{}', not a figure", f[0], b.unit, f[1]));
  row.rate = *rate;
  row.min_s = number_of(f[2]);
  row.max_s = number_of(f[3]);
  row.average_s = number_of(f[4]);
  row.line = l.number;
  b.rows.push_back(std::move(row));
}

/// The header's lines, each into its field of `b`; false for a line that is none of them.
bool read_header_line(stream_block& b, std::string_view text,
                      const std::vector<std::string_view>& f) {
  if (text.starts_with("Version:"))
    b.version = after_colon(text);
  else if (text.starts_with("Implementation:"))
    b.implementation = after_colon(text);
  else if (text.starts_with("Precision:"))
    b.precision = after_colon(text);
  else if (text.starts_with("Array size:"))
    b.array_size = after_colon(text);
  else if (text.starts_with("Driver:"))
    b.driver = after_colon(text);
  else if (text.starts_with("Init:"))
    b.init = after_colon(text);
  else if (text.starts_with("Read:"))
    b.read = after_colon(text);
  else if (text.starts_with("Running ") && text.find(" times") != std::string_view::npos)
    b.iterations = iterations_of(f);
  else if (text.starts_with("Using ") && text.find(" device ") != std::string_view::npos)
    b.device = std::string(trim_blanks(text.substr(text.find(" device ") + 8)));
  else
    return false;
  return true;
}

std::vector<stream_block> parse_babelstream(const std::vector<log_line>& lines) {
  std::vector<stream_block> blocks(1);
  for (const auto& l : lines) {
    const auto text = trim_blanks(l.text);
    const auto f = blank_fields(text);
    // A new run starts at BabelStream's banner, or at a second table with no banner before it.
    if ((text == "BabelStream" && !blocks.back().empty()) ||
        (!f.empty() && f[0] == "Function" && blocks.back().table))
      blocks.emplace_back();
    auto& b = blocks.back();
    if (b.first_line == 0 && !text.empty())
      b.first_line = l.number;
    if (text.starts_with("Validation failed") || text.starts_with("FAILED validation"))
      b.validation.emplace_back(text);
    else if (text.starts_with("Error: ") && b.error.empty()) {
      b.error = std::string(text);
      b.error_line = l.number;
    } else if (!b.table && read_header_line(b, text, f)) {
    } else if (!f.empty() && f[0] == "Function" && f.size() >= 2) {
      const auto gbs = unit_in_gbs(f[1]);
      if (!gbs)
        throw log_error(l.number, fmt::format("BabelStream's table header names the unit '{}', "
                                              "not one BabelStream prints",
                                              f[1]));
      b.table = true;
      b.unit = std::string(f[1]);
      b.unit_gbs = *gbs;
    } else if (b.table && is_table_row(f))
      read_table_row(b, l, f);
  }
  std::erase_if(blocks, [](const stream_block& b) { return b.empty(); });
  return blocks;
}

/// Whether the run was on an NVIDIA GPU, which our memory ceiling is for: CUDA always; another
/// implementation when the device it names is an NVIDIA part.
bool ran_on_nvidia_gpu(const stream_block& b) {
  if (b.implementation == "CUDA")
    return true;
  return b.device.find("NVIDIA") != std::string::npos ||
         b.device.find("Tesla") != std::string::npos ||
         b.device.find("GeForce") != std::string::npos ||
         b.device.find("Quadro") != std::string::npos;
}

/// Why a run's figures are reported and not judged against a GPU's memory; "" when they are.
std::string why_not_judged(const stream_block& b) {
  if (ran_on_nvidia_gpu(b))
    return {};
  if (b.implementation.empty() && b.device.empty())
    return "the log has no BabelStream header before this table: its implementation and device "
           "are not stated, so the figures are reported and not judged against a GPU's memory";
  if (b.device.empty())
    return fmt::format("BabelStream's {} implementation names no device in the log: the figures "
                       "are reported and not judged against a GPU's memory",
                       b.implementation);
  return fmt::format("BabelStream's {} implementation ran on '{}', not on an NVIDIA GPU: "
                     "reported, not judged against a GPU's memory",
                     b.implementation.empty() ? std::string("(not stated)") : b.implementation,
                     b.device);
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
    const auto f = blank_fields(text);
    name = name || text == "BabelStream" || text.starts_with("BabelStream ");
    // Any "<unit>/s" or "<unit>/sec" column, so that a unit BabelStream never printed is named
    // by the reader (parse_babelstream) rather than left unrecognised.
    table = table || (f.size() >= 2 && f[0] == "Function" &&
                      (f[1].ends_with("/s") || f[1].ends_with("/sec")));
  }
  return name || table;
}

/// The observations every result of run `b` carries.
void observe_block(const stream_block& b, result& res) {
  auto& o = res.observations;
  o["babelstream_implementation"] = b.implementation;
  if (!b.array_size.empty())
    o["array_size"] = b.array_size;
  if (!b.init.empty())
    o["babelstream_init"] = b.init;
  if (!b.read.empty())
    o["babelstream_read"] = b.read;
}

/// BabelStream stopped before its table ("Error: no kernel image is available ..."): one failed
/// result with its words, so that the run is not mistaken for one that measured nothing wrong.
result stopped_run(const stream_block& b, std::optional<int> gpu) {
  auto res = imported_result("babelstream.run", "bandwidth", metric_unit::gigabytes_per_second, 0,
                             b.error_line, "BabelStream");
  observe_block(b, res);
  if (gpu)
    res.devices = {*gpu};
  res.status = result_status::failed;
  res.failure = failure_kind::benchmark;
  res.reason = fmt::format("BabelStream stopped before its table with \"{}\": nothing was "
                           "measured",
                           b.error);
  return res;
}

result row_result(const stream_block& b, const stream_row& row, std::optional<int> gpu) {
  const std::string ours = our_name(row.function);
  auto res = imported_result(ours.empty() ? "babelstream." + row.function : "memory.stream." + ours,
                             "bandwidth", metric_unit::gigabytes_per_second, row.rate * b.unit_gbs,
                             row.line, "BabelStream");
  if (!b.precision.empty()) // a table posted without its header states none
    res.axes["dtype"] = dtype_of_precision(b.precision);
  res.cache_state = "cold";
  if (gpu)
    res.devices = {*gpu};
  observe_block(b, res);
  auto& o = res.observations;
  o["babelstream_function"] = row.function;
  o["babelstream_rate"] = fmt::format("{} {}", row.rate, b.unit);
  if (row.min_s)
    o["min_s"] = *row.min_s;
  if (row.max_s)
    o["max_s"] = *row.max_s;
  if (row.average_s)
    o["average_s"] = *row.average_s;
  res.check.detail = "BabelStream checks its arrays after the runs and prints \"Validation "
                     "failed\" when they are wrong; the log has no such line";
  res.check.status = verification_status::passed;
  if (!b.validation.empty()) {
    res.check.status = verification_status::failed;
    res.check.detail = fmt::format("BabelStream: {}", fmt::join(b.validation, " | "));
    res.status = result_status::failed;
    res.failure = failure_kind::verification;
    res.reason = "BabelStream found wrong results: " + res.check.detail;
    return res;
  }
  if (const auto why = why_not_judged(b); !why.empty()) {
    res.status = result_status::skipped;
    res.reason = why;
  } else if (ours.empty()) {
    res.status = result_status::skipped;
    res.reason = "no gpuspec STREAM op is BabelStream's " + row.function + ": reported, not judged";
  } else {
    res.ceiling_value.reference = reference_kind::datasheet;
    res.ceiling_value.spec_figure = "memory_bandwidth_gbs";
    res.ceiling_value.datasheet_source =
        "the spec table's memory bandwidth for the model the log names";
  }
  return res;
}

/// The notes of run.source: what the log states and cannot tell.
void note_source(const std::vector<stream_block>& blocks, run_source& source) {
  const auto& first = blocks.front();
  source.version = first.version.empty() ? "" : "BabelStream " + first.version;
  if (first.version.empty())
    source.notes.push_back("the log does not state BabelStream's version");
  // A full run prints Copy, Mul, Add, Triad, Dot in that order (main.cpp's labels); a table that
  // starts with Copy and stops before Dot was cut (--triad-only and --nstream-only print one row),
  // and a run whose header ends with neither a table nor an error was cut before its table.
  const auto& last = blocks.back();
  source.truncated = last.rows.empty() ? last.error.empty()
                                       : last.rows.front().function == "Copy" &&
                                             last.rows.back().function != "Dot";
  source.notes.push_back(fmt::format(
      "BabelStream's figure is its fastest run's rate ({} runs; min, max and average times are "
      "observations), not a median: a capability figure",
      first.iterations.empty() ? std::string("the number of") : first.iterations));
  if (blocks.size() > 1)
    source.notes.push_back(fmt::format(
        "the log holds {} runs of BabelStream, one after another; BabelStream prints no device "
        "index, so the k-th run is taken to be GPU k-1 (a script running it with --device k-1)",
        blocks.size()));
  else
    source.notes.push_back("BabelStream prints no device index: its GPU is taken to be GPU 0");
  for (const auto& b : blocks)
    if (ran_on_nvidia_gpu(b) && b.implementation != "CUDA") {
      source.notes.push_back("implementation " + b.implementation +
                             " on an NVIDIA GPU: judged as our STREAM, whose kernels are CUDA's");
      break;
    }
  source.notes.push_back("the log has no telemetry: clocks, ECC and throttling are not known");
}

report read_babelstream(const std::vector<log_line>& lines, run_source source) {
  const auto blocks = parse_babelstream(lines);
  const bool anything = std::any_of(blocks.begin(), blocks.end(), [](const stream_block& b) {
    return !b.rows.empty() || !b.error.empty();
  });
  if (!anything)
    throw log_error(lines.empty() ? 0 : lines.back().number,
                    "a BabelStream log with no row of its table: nothing to judge");
  note_source(blocks, source);
  report r = imported_report(std::move(source));
  // "Driver: 11040": cudaDriverGetVersion's 1000 x major + 10 x minor (CUDA only).
  for (const auto& b : blocks)
    if (const auto v = integer_of(b.driver); v && *v > 0 && b.implementation == "CUDA") {
      r.host.cuda_driver_version = fmt::format("{}.{}", *v / 1000, *v % 1000 / 10);
      break;
    }
  int next_gpu = 0;
  for (const auto& b : blocks) {
    std::optional<int> gpu;
    if (ran_on_nvidia_gpu(b)) {
      gpu = next_gpu++;
      device_info d;
      d.index = *gpu;
      d.name = b.device;
      r.devices.push_back(d);
      r.run.devices.push_back(*gpu);
    }
    if (b.rows.empty() && !b.error.empty())
      r.results.push_back(stopped_run(b, gpu));
    for (const auto& row : b.rows)
      r.results.push_back(row_result(b, row, gpu));
  }
  finish_report(r);
  return r;
}

} // namespace

const log_reader babelstream_reader{"babelstream", looks_like_babelstream, read_babelstream};

} // namespace gpuspec::reports::import::detail
