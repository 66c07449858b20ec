#include "gpuspec/reports/render.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "gpuspec/reports/units.hpp"
#include "render_detail.hpp"

namespace gpuspec::reports {

namespace detail {

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

std::vector<diagnosis_group> grouped_diagnoses(const node_verdict& node) {
  std::vector<diagnosis_group> out;
  std::map<std::pair<std::string, int>, std::size_t> at;
  std::set<std::tuple<std::string, int, std::string>> seen;
  auto add = [&](const diagnosis& d, const result_verdict* from) {
    const auto key = std::make_pair(d.code, d.device.value_or(-1));
    auto [it, fresh] = at.try_emplace(key, out.size());
    if (fresh)
      out.push_back({&d, d.severity, 0, 0, {}});
    auto& g = out[it->second];
    if (seen.emplace(d.code, d.device.value_or(-1), d.cause).second)
      ++g.findings;
    if (worst(g.severity, d.severity) != g.severity) {
      g.severity = d.severity;
      g.shown = &d;
    }
    if (from != nullptr) {
      ++g.results;
      if (std::find(g.benches.begin(), g.benches.end(), from->bench_id) == g.benches.end())
        g.benches.push_back(from->bench_id);
    }
  };
  for (const auto& d : node.diagnoses)
    add(d, nullptr);
  for (const auto& g : node.gpus)
    for (const auto& d : g.diagnoses)
      add(d, nullptr);
  for (const auto& r : node.results) {
    // A result counts once per group, however many of the group's diagnoses it carries.
    std::set<std::pair<std::string, int>> counted;
    for (const auto& d : r.diagnoses)
      add(d, counted.emplace(d.code, d.device.value_or(-1)).second ? &r : nullptr);
  }
  return out;
}

std::string group_summary(const diagnosis_group& g, std::size_t max_benches) {
  if (g.findings <= 1 && g.results <= 1)
    return "";
  std::string names;
  for (std::size_t k = 0; k < g.benches.size() && k < max_benches; ++k)
    names += (k == 0 ? "" : ", ") + g.benches[k];
  if (g.benches.size() > max_benches)
    names += fmt::format(" and {} more", g.benches.size() - max_benches);
  std::string out = g.findings > 1 ? fmt::format("{} findings", g.findings) : "";
  if (g.results > 0)
    out += fmt::format("{}in {} result{}: {}", out.empty() ? "" : ", ", g.results,
                       g.results == 1 ? "" : "s", names);
  if (g.findings > 1)
    out += " (the worst shown)";
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
