// The frame every importer fills (imported_report.hpp).
#include "imported_report.hpp"

#include <array>
#include <charconv>
#include <utility>

#include "gpuspec/reports/model/reference.hpp"

#include <fmt/format.h>

namespace gpuspec::reports::inline import::detail {

report imported_report(run_source source) {
  report r;
  r.run.tool_version = source.version;
  r.run.backend = "imported";
  r.run.suite = source.tool;
  r.run.command_line = {"gpuspec", "import", source.file};
  r.run.source = std::move(source);
  r.host.gpu_status = "not known: imported from a log, which holds no inventory";
  return r;
}

result imported_result(const std::string& bench_id, const std::string& metric, metric_unit unit,
                       double figure, std::size_t line, const std::string& tool) {
  result res;
  res.bench_id = bench_id;
  res.metric = metric;
  res.unit = unit;
  res.samples = {figure};
  res.stats = sample_stats{1, figure, figure, figure, figure, 0, 0, figure, figure};
  res.observations["source_line"] = line;
  res.check.status = verification_status::skipped;
  res.check.detail = "not checked by " + tool;
  res.telemetry.status = "not sampled: imported from " + tool + "'s log, which has no telemetry";
  res.stop_reason = "";
  return res;
}

void finish_report(report& r) {
  r.complete = !r.run.source->truncated;
  if (!r.complete)
    r.incomplete_reason = "the " + r.run.source->tool +
                          " log is truncated: " + "read up to its end, its last lines are missing";
}

std::optional<double> number_of(std::string_view s) {
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size())
    return std::nullopt;
  return v;
}

std::optional<long long> integer_of(std::string_view s) {
  long long v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size())
    return std::nullopt;
  return v;
}

bool infer_nvlink_path(result& res) {
  const double fastest_pcie = pcie_bandwidth_gbs(6, 16).value_or(0);
  if (res.samples.empty() || !(res.stats.median > fastest_pcie))
    return false;
  res.observations["path"] = "NVLink (inferred: faster than any PCIe link)";
  res.ceiling_value.reference = reference_kind::datasheet;
  res.ceiling_value.spec_figure = "nvlink_gbs";
  res.ceiling_value.datasheet_source =
      "the spec table's NVLink figure per direction for the model the log names (the log does "
      "not say how many links were up)";
  return true;
}

std::string size_text(long long bytes) {
  constexpr std::array<std::string_view, 4> units{"B", "KiB", "MiB", "GiB"};
  std::size_t u = 0;
  while (u + 1 < units.size() && bytes >= 1024 && bytes % 1024 == 0) {
    bytes /= 1024;
    ++u;
  }
  return fmt::format("{}{}", bytes, units[u]);
}

} // namespace gpuspec::reports::import::detail
