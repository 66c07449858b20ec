#include "gpuspec/reports/render.hpp"

#include <cmath>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "gpuspec/reports/units.hpp"
#include "render_detail.hpp"

namespace gpuspec::reports {

namespace detail {

std::string format_quantity(const std::optional<double>& value, metric_unit unit_of) {
  const std::string unit(to_string(unit_of));
  if (!value || !std::isfinite(*value))
    return "";
  const double a = std::abs(*value);
  const std::string number = a >= 100 ? fmt::format("{:.1f}", *value)
                             : a >= 1 ? fmt::format("{:.2f}", *value)
                                      : fmt::format("{:.4g}", *value);
  return unit.empty() ? number : number + " " + unit;
}

std::string format_percent(const std::optional<double>& fraction) {
  return fraction && std::isfinite(*fraction) ? fmt::format("{:.1f}%", 100 * *fraction) : "";
}

std::vector<const diagnosis*> unique_diagnoses(const node_verdict& node) {
  std::vector<const diagnosis*> out;
  std::set<std::tuple<std::string, int, std::string>> seen;
  auto add = [&](const diagnosis& d) {
    if (seen.emplace(d.code, d.device.value_or(-1), d.cause).second)
      out.push_back(&d);
  };
  for (const auto& d : node.diagnoses)
    add(d);
  for (const auto& g : node.gpus)
    for (const auto& d : g.diagnoses)
      add(d);
  for (const auto& r : node.results)
    for (const auto& d : r.diagnoses)
      add(d);
  return out;
}

} // namespace detail

namespace {

nlohmann::ordered_json number_or_null(const std::optional<double>& v) {
  if (v && std::isfinite(*v))
    return *v;
  return nullptr;
}

nlohmann::ordered_json diagnoses_json(const std::vector<diagnosis>& list) {
  auto out = nlohmann::ordered_json::array();
  for (const auto& d : list) {
    nlohmann::ordered_json j;
    j["code"] = d.code;
    j["severity"] = to_string(d.severity);
    j["cause"] = d.cause;
    j["action"] = d.action;
    j["remediation"] = to_string(d.step);
    j["device"] = d.device ? nlohmann::ordered_json(*d.device) : nlohmann::ordered_json(nullptr);
    j["evidence"] = nlohmann::ordered_json::object();
    for (const auto& [k, v] : d.evidence)
      j["evidence"][k] = v;
    out.push_back(std::move(j));
  }
  return out;
}

class json_renderer final : public renderer {
public:
  [[nodiscard]] std::string render(const check_outcome& outcome) const override {
    return to_json(outcome).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  }
};

} // namespace

std::optional<output_format> output_format_from_string(std::string_view s) {
  if (s == "table")
    return output_format::table;
  if (s == "md" || s == "markdown")
    return output_format::markdown;
  if (s == "json")
    return output_format::json;
  if (s == "junit")
    return output_format::junit;
  if (s == "prom" || s == "prometheus")
    return output_format::prometheus;
  return std::nullopt;
}

nlohmann::ordered_json to_json(const check_outcome& outcome) {
  nlohmann::ordered_json j;
  j["schema"] = "gpuspec.check.v1";
  j["status"] = to_string(outcome.status);
  j["exit_code"] = exit_code_of(outcome.status);
  j["notes"] = outcome.notes;
  j["nodes"] = nlohmann::ordered_json::array();
  for (const auto& n : outcome.nodes) {
    nlohmann::ordered_json node;
    node["source"] = n.source;
    node["hostname"] = n.hostname;
    node["driver_version"] = n.driver_version;
    node["cuda_driver_version"] = n.cuda_driver_version;
    node["complete"] = n.complete;
    node["status"] = to_string(n.status);
    node["message"] = n.message;
    node["diagnoses"] = diagnoses_json(n.diagnoses);
    node["gpus"] = nlohmann::ordered_json::array();
    for (const auto& g : n.gpus) {
      nlohmann::ordered_json gj;
      gj["index"] = g.index;
      gj["name"] = g.name;
      gj["uuid"] = g.uuid;
      gj["serial"] = g.serial;
      gj["pci_bus_id"] = g.pci_bus_id;
      gj["spec_id"] = g.spec_id;
      gj["selected"] = g.selected;
      gj["status"] = to_string(g.status);
      gj["message"] = g.message;
      gj["diagnoses"] = diagnoses_json(g.diagnoses);
      node["gpus"].push_back(std::move(gj));
    }
    node["results"] = nlohmann::ordered_json::array();
    for (const auto& r : n.results) {
      nlohmann::ordered_json rj;
      rj["name"] = r.name;
      rj["bench_id"] = r.bench_id;
      rj["group"] = r.group;
      rj["axes"] = r.axes;
      rj["parameters"] = r.parameters;
      rj["devices"] = r.devices;
      rj["status"] = to_string(r.status);
      rj["unit"] = std::string(to_string(r.unit));
      rj["measured"] = number_or_null(r.measured);
      rj["expected"] = number_or_null(r.expected);
      rj["efficiency"] = number_or_null(r.efficiency);
      rj["pass_fraction"] = number_or_null(r.pass_fraction);
      rj["warn_fraction"] = number_or_null(r.warn_fraction);
      rj["frame"] = r.frame;
      rj["message"] = r.message;
      rj["diagnoses"] = diagnoses_json(r.diagnoses);
      node["results"].push_back(std::move(rj));
    }
    j["nodes"].push_back(std::move(node));
  }
  return j;
}

std::unique_ptr<renderer> make_renderer(output_format format, const render_options& options) {
  switch (format) {
  case output_format::table:
    return detail::make_table_renderer(options);
  case output_format::markdown:
    return detail::make_markdown_renderer();
  case output_format::json:
    return std::make_unique<json_renderer>();
  case output_format::junit:
    return detail::make_junit_renderer();
  case output_format::prometheus:
    return detail::make_prometheus_renderer();
  }
  return std::make_unique<json_renderer>();
}

} // namespace gpuspec::reports
