// The frame every importer fills (imported_report.hpp).
#include "imported_report.hpp"

#include <utility>

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

} // namespace gpuspec::reports::import::detail
