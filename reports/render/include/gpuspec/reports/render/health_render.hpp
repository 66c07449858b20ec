#pragma once
/// The layouts of a health outcome (health.hpp), which the table, json and prom renderers print.

#include <string>

#include <nlohmann/json.hpp>

#include "gpuspec/reports/health/health.hpp"
#include "gpuspec/reports/render/render.hpp"

namespace gpuspec::reports::inline render {

/// Printers of a health outcome; `elapsed_s` is how long the whole command took.
/// The terminal's: GPUs, Xids since boot, diagnoses, verdict, drain reason, time taken.
[[nodiscard]] std::string render_health_text(const health_outcome& h, double elapsed_s,
                                             const render_options& options = {});
/// "gpuspec.health.v1": status, exit code, drain reason, kernel log, Xids, and the node's
/// verdicts as `gpuspec check --json` writes them.
[[nodiscard]] nlohmann::ordered_json health_to_json(const health_outcome& h, double elapsed_s);
/// The Prometheus text format for node_exporter's textfile collector, `gpuspec_health_`
/// metrics with dcgm-exporter's GPU labels (so they never collide with `gpuspec check`'s).
[[nodiscard]] std::string render_health_prometheus(const health_outcome& h, double elapsed_s);

} // namespace gpuspec::reports::render
