#include "gpuspec/reports/render/render.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

#include <fmt/format.h>

#include "gpuspec/reports/health/health.hpp"
#include "gpuspec/reports/judge/compare.hpp"
#include "gpuspec/reports/judge/diff.hpp"
#include "gpuspec/reports/model/units.hpp"
#include "gpuspec/reports/render/db_output.hpp"
#include "gpuspec/reports/render/health_render.hpp"
#include "render_detail.hpp"

namespace gpuspec::reports::inline render {

namespace detail {

std::string upper(std::string_view s) {
  std::string out(s);
  for (auto& c : out)
    if (c >= 'a' && c <= 'z')
      c = static_cast<char>(c - 'a' + 'A');
  return out;
}

std::string action_text(std::string_view action, remediation step) {
  if (step == remediation::none)
    return std::string(action);
  return fmt::format("{} (remediation: {})", action, to_string(step));
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

/// The check's and health's JSON replace bad UTF-8 (a name read from a GPU); diff and compare
/// have always written strictly.
std::string lenient_dump(const nlohmann::ordered_json& j) {
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

class json_renderer final : public renderer {
protected:
  [[nodiscard]] std::string render_check(const check_outcome& outcome) const override {
    return lenient_dump(to_json(outcome));
  }
  [[nodiscard]] std::string render_health(const health_document& h) const override {
    return lenient_dump(health_to_json(h.outcome, h.elapsed_s));
  }
  [[nodiscard]] std::string render_diff(const diff_output& d) const override {
    return to_json(d).dump(2) + "\n";
  }
  [[nodiscard]] std::string render_compare(const compare_output& c) const override {
    return to_json(c).dump(2) + "\n";
  }
  [[nodiscard]] std::string render_db(const db_output& d) const override {
    return lenient_dump(to_json(d));
  }
};

/// The drain reason alone (`gpuspec health --format reason`): a line, or nothing for none.
class reason_renderer final : public renderer {
protected:
  [[nodiscard]] std::string render_health(const health_document& h) const override {
    return h.outcome.drain_reason.empty() ? "" : h.outcome.drain_reason + "\n";
  }
};

[[noreturn]] void no_layout(std::string_view document) {
  throw std::logic_error(fmt::format("this output format has no layout for {}", document));
}

} // namespace

std::string renderer::render_check(const check_outcome& /*outcome*/) const {
  no_layout("a check outcome");
}
std::string renderer::render_health(const health_document& /*h*/) const {
  no_layout("a health outcome");
}
std::string renderer::render_diff(const diff_output& /*d*/) const { no_layout("a diff"); }
std::string renderer::render_compare(const compare_output& /*c*/) const {
  no_layout("a comparison");
}
std::string renderer::render_db(const db_output& /*d*/) const { no_layout("a database listing"); }

std::optional<output_format> output_format_from_string(std::string_view s) {
  if (s == "table" || s == "text")
    return output_format::table;
  if (s == "md" || s == "markdown")
    return output_format::markdown;
  if (s == "json")
    return output_format::json;
  if (s == "junit")
    return output_format::junit;
  if (s == "prom" || s == "prometheus")
    return output_format::prometheus;
  if (s == "nccl-tests")
    return output_format::nccl_tests;
  if (s == "reason")
    return output_format::reason;
  if (s == "kube")
    return output_format::kube;
  if (s == "html")
    return output_format::html;
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
  case output_format::reason:
    return std::make_unique<reason_renderer>();
  case output_format::kube:
    return detail::make_kube_renderer();
  case output_format::html:
    return detail::make_html_renderer(options);
  case output_format::nccl_tests:
    throw std::invalid_argument("the nccl-tests layout is made with the reports it lays out "
                                "(collectives' render_nccl_tests_table), not by make_renderer");
  }
  return std::make_unique<json_renderer>();
}

} // namespace gpuspec::reports::render
