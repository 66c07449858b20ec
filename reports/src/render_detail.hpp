#pragma once
/// Internal to the renderers: one factory per format, and helpers they share.

#include <memory>
#include <string>
#include <vector>

#include "gpuspec/reports/render.hpp"

namespace gpuspec::reports::detail {

std::unique_ptr<renderer> make_table_renderer(const render_options& options);
std::unique_ptr<renderer> make_markdown_renderer();
std::unique_ptr<renderer> make_junit_renderer();
std::unique_ptr<renderer> make_prometheus_renderer();

/// "2.91e+03 GB/s"-style: a value with significant figures that suit a rate, and its unit.
std::string format_quantity(const std::optional<double>& value, metric_unit unit);
std::string format_percent(const std::optional<double>& fraction);

/// The diagnoses of a node, its GPUs and its results, once each (same code, GPU and cause).
std::vector<const diagnosis*> unique_diagnoses(const node_verdict& node);

} // namespace gpuspec::reports::detail
