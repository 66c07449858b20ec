// The CUDA samples' bandwidthTest (NVIDIA/cuda-samples, Samples/1_Utilities/bandwidthTest):
// "Host to Device", "Device to Host" and "Device to Device Bandwidth" sections, each with its
// memory (PINNED or PAGEABLE) and rows of "Transfer Size (Bytes)  Bandwidth(GB/s)", read into
// results shaped as our transfers: transfer.h2d and .d2h (copy engine, that memory, that size)
// held to the GPU's PCIe link per direction; its bandwidth is bytes x copies / 1e9 / s
// (bandwidthTest.cu). Device to device is a cudaMemcpy inside the GPU counted twice (read and
// write), small enough to stay in a recent GPU's L2: reported, not judged (docs/import.md).
#include <map>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "imported_report.hpp"
#include "readers.hpp"

namespace gpuspec::reports::inline import::detail {
namespace {

struct bt_row {
  std::string direction, memory, unit;
  int devices = 1;
  long long bytes = 0;
  double figure = 0;
  std::size_t line = 0;
};

struct bt_log {
  std::map<int, std::string> devices;
  std::vector<bt_row> rows;
  std::string verdict, mode;
  std::size_t verdict_line = 0;
};

bt_log parse_bandwidth_test(const std::vector<log_line>& lines) {
  bt_log p;
  std::string direction, memory, unit;
  int devices = 1;
  for (const auto& l : lines) {
    const auto text = trim_blanks(l.text);
    const auto f = blank_fields(text);
    if (text.starts_with("Device ") && text.find(':') != std::string_view::npos &&
        text.find("Bandwidth") == std::string_view::npos) {
      const auto colon = text.find(':');
      if (const auto index = integer_of(trim_blanks(text.substr(7, colon - 7)));
          index && *index >= 0 && *index < 4096)
        p.devices[static_cast<int>(*index)] = std::string(trim_blanks(text.substr(colon + 1)));
    } else if (text.ends_with(" Mode") && f.size() == 2) {
      p.mode = std::string(f[0]);
    } else if (text.find(" Bandwidth, ") != std::string_view::npos) {
      direction = std::string(text.substr(0, text.find(" Bandwidth, ")));
      const auto n = integer_of(blank_fields(text.substr(text.find(", ") + 2)).front());
      devices = n && *n > 0 && *n < 4096 ? static_cast<int>(*n) : 1;
    } else if (text.ends_with("Memory Transfers") && !f.empty()) {
      memory = std::string(f[0]);
    } else if (text.starts_with("Transfer Size")) {
      const auto open = text.rfind('(');
      unit = open == std::string_view::npos
                 ? std::string()
                 : std::string(text.substr(open + 1, text.size() - open - 2));
    } else if (text.starts_with("Result = ")) {
      p.verdict = std::string(trim_blanks(text.substr(9)));
      p.verdict_line = l.number;
    } else if (!unit.empty() && f.size() == 2 && integer_of(f[0])) {
      const auto bytes = integer_of(f[0]);
      const auto figure = number_of(f[1]);
      if (!figure || *bytes <= 0)
        throw log_error(l.number, fmt::format("a bandwidthTest row '{}' that is not a size and a "
                                              "bandwidth",
                                              text));
      p.rows.push_back({direction, memory, unit, devices, *bytes, *figure, l.number});
    }
  }
  return p;
}

std::string bench_of(const std::string& direction) {
  if (direction == "Host to Device")
    return "transfer.h2d";
  if (direction == "Device to Host")
    return "transfer.d2h";
  return {};
}

bool looks_like_bandwidth_test(const std::vector<log_line>& lines) {
  for (const auto& l : lines) {
    const auto text = trim_blanks(l.text);
    if (text.starts_with("[CUDA Bandwidth Test]") ||
        (text.starts_with("Host to Device Bandwidth, ") ||
         text.starts_with("Device to Host Bandwidth, ")))
      return true;
  }
  return false;
}

report read_bandwidth_test(const std::vector<log_line>& lines, run_source source) {
  const auto p = parse_bandwidth_test(lines);
  if (p.rows.empty())
    throw log_error(lines.empty() ? 0 : lines.back().number,
                    "a bandwidthTest log with no row of figures: nothing to judge");
  source.notes.push_back("bandwidthTest states no version, and prints one figure per size (the "
                         "average over its copies): no spread");
  source.notes.push_back("the log has no telemetry and no PCIe link state: whether the GPU "
                         "throttled and how its link trained cannot be told");
  source.truncated = p.verdict.empty();
  report r = imported_report(std::move(source));
  for (const auto& [index, name] : p.devices) {
    device_info d;
    d.index = index;
    d.name = name;
    r.devices.push_back(std::move(d));
    r.run.devices.push_back(index);
  }
  for (const auto& row : p.rows) {
    const std::string bench = bench_of(row.direction);
    const std::string id =
        bench.empty()
            ? "bandwidthTest." +
                  std::string(row.direction == "Device to Device" ? "device_to_device" : "unknown")
            : bench;
    const bool gbs = row.unit == "GB/s";
    auto res =
        imported_result(id, "bandwidth",
                        gbs ? metric_unit::gigabytes_per_second : metric_unit::megabytes_per_second,
                        row.figure, row.line, "bandwidthTest");
    res.axes["memory"] = row.memory == "PAGEABLE" ? "pageable" : "pinned";
    res.axes["engine"] = "copy_engine";
    res.axes["size"] = size_text(row.bytes);
    res.cache_state = "hot";
    res.observations["bytes_per_copy"] = row.bytes;
    res.observations["bandwidthTest_section"] = row.direction;
    if (!p.mode.empty())
      res.observations["bandwidthTest_mode"] = p.mode;
    for (const auto& d : r.devices)
      res.devices.push_back(d.index);
    if (p.verdict == "PASS") {
      res.check.status = verification_status::passed;
      res.check.detail = "bandwidthTest: Result = PASS";
    } else if (!p.verdict.empty()) {
      res.check.status = verification_status::failed;
      res.check.detail =
          fmt::format("bandwidthTest: Result = {} (line {})", p.verdict, p.verdict_line);
      res.status = result_status::failed;
      res.failure = failure_kind::verification;
      res.reason = res.check.detail;
    }
    if (res.status == result_status::failed) {
    } else if (bench.empty()) {
      res.status = result_status::skipped;
      res.reason = "a copy inside the GPU (read and write counted), small enough to be served "
                   "from a recent GPU's L2: reported, not judged";
    } else if (row.devices != 1 || r.devices.size() != 1) {
      res.status = result_status::skipped;
      res.reason = fmt::format("the figure of {} GPUs together (--device=all): no one GPU's link "
                               "to hold it to; reported, not judged",
                               row.devices);
    } else {
      res.ceiling_value.reference = reference_kind::datasheet;
      res.ceiling_value.spec_figure = "pcie_gbs";
      res.ceiling_value.datasheet_source =
          "the spec table's PCIe generation and width for the model the log names, per "
          "direction (the log does not say how the link trained)";
    }
    r.results.push_back(std::move(res));
  }
  finish_report(r);
  return r;
}

} // namespace

const log_reader bandwidth_test_reader{"bandwidthTest", looks_like_bandwidth_test,
                                       read_bandwidth_test};

} // namespace gpuspec::reports::import::detail
