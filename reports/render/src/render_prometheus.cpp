// The Prometheus text format for node_exporter's textfile collector: `gpuspec_` prefix, base
// units, HELP and TYPE lines, and the labels dcgm-exporter uses (gpu, UUID, pci_bus_id,
// modelName, Hostname) so dashboards can join the two. Status gauges use the exit-code scale:
// 0 pass, 1 warn, 2 fail, 3 inconclusive; skipped results are not exported.

#include <cmath>
#include <map>

#include <fmt/format.h>

#include "gpuspec/reports/health/health.hpp"
#include "gpuspec/reports/judge/check.hpp"
#include "gpuspec/reports/model/units.hpp"
#include "gpuspec/reports/render/health_render.hpp"
#include "prometheus_text.hpp"
#include "render_detail.hpp"

namespace gpuspec::reports::inline render::detail {

namespace {

void declare_check_families(families& f) {
  f.declare("gpuspec_check_status",
            "Overall gpuspec check verdict (0 pass, 1 warn, 2 fail, 3 inconclusive)");
  f.declare("gpuspec_node_status", "Verdict of one node (0 pass, 1 warn, 2 fail, 3 inconclusive)");
  f.declare("gpuspec_gpu_status", "Verdict of one GPU (0 pass, 1 warn, 2 fail, 3 inconclusive)");
  f.declare("gpuspec_result_status",
            "Verdict of one benchmark result (0 pass, 1 warn, 2 fail, 3 inconclusive)");
  f.declare("gpuspec_result_efficiency_ratio",
            "Measured median over the ceiling it is judged against");
  f.declare("gpuspec_result_bytes_per_second", "Measured median bandwidth in bytes per second");
  f.declare("gpuspec_result_expected_bytes_per_second",
            "Ceiling bandwidth the result is judged against, bytes per second");
  f.declare("gpuspec_result_flop_per_second",
            "Measured median rate in floating-point ops per second");
  f.declare("gpuspec_result_expected_flop_per_second",
            "Ceiling rate the result is judged against, floating-point ops per second");
  f.declare("gpuspec_result_ops_per_second", "Measured median rate in integer ops per second");
  f.declare("gpuspec_result_expected_ops_per_second",
            "Ceiling rate the result is judged against, integer ops per second");
  f.declare("gpuspec_result_seconds", "Measured median time in seconds");
  f.declare("gpuspec_result_expected_seconds", "Ceiling time the result is judged against");
  f.declare("gpuspec_diagnosis",
            "A diagnosis by reason code (1 warn, 2 fail, 3 inconclusive); remediation names the "
            "ladder step");
}

/// The GPU labels of a result: its GPU's, or for several GPUs each one's comma-separated (a
/// GPU the node does not list adds its index alone).
labels result_labels(const result_verdict& r, const std::map<int, labels>& gpus,
                     const std::string& hostname) {
  if (r.devices.size() == 1 && gpus.contains(r.devices.front()))
    return gpus.at(r.devices.front());
  std::string indices, uuids, buses, model;
  for (int d : r.devices) {
    indices += indices.empty() ? "" : ",";
    indices += std::to_string(d);
    if (const auto it = gpus.find(d); it != gpus.end()) {
      const labels& gl = it->second;
      uuids += uuids.empty() ? "" : ",";
      uuids += gl[1].second;
      buses += buses.empty() ? "" : ",";
      buses += gl[2].second;
      model = gl[3].second;
    }
  }
  return gpu_labels(indices, uuids, buses, model, hostname);
}

void add_result(families& f, const result_verdict& r, labels l) {
  l.emplace_back("check", r.bench_id);
  l.emplace_back("axes", r.axes);
  f.add("gpuspec_result_status", l, exit_code_of(r.status));
  if (r.efficiency && std::isfinite(*r.efficiency))
    f.add("gpuspec_result_efficiency_ratio", l, *r.efficiency);
  if (const auto& u = info_of(r.unit); u.measures != quantity::none) {
    const std::string base(to_string(u.measures));
    if (r.measured)
      f.add("gpuspec_result_" + base, l, *r.measured * u.scale);
    if (r.expected)
      f.add("gpuspec_result_expected_" + base, l, *r.expected * u.scale);
  }
}

void add_node(families& f, const node_verdict& node) {
  f.add("gpuspec_node_status", {{"Hostname", node.hostname}}, exit_code_of(node.status));
  const auto gpus = node_gpu_labels(node);
  for (const auto& g : node.gpus)
    f.add("gpuspec_gpu_status",
          gpu_labels(std::to_string(g.index), g.uuid, g.pci_bus_id, g.name, node.hostname),
          exit_code_of(g.status));
  for (const auto& r : node.results) {
    if (r.status != verdict_status::skipped)
      add_result(f, r, result_labels(r, gpus, node.hostname));
  }
  for (const auto* d : unique_diagnoses(node)) {
    labels l = labels_of(gpus, d->device, {{"Hostname", node.hostname}});
    l.emplace_back("code", d->code);
    l.emplace_back("remediation", std::string(to_string(d->step)));
    l.emplace_back("cause", d->cause);
    f.add("gpuspec_diagnosis", l, exit_code_of(d->severity));
  }
}

class prometheus_renderer final : public renderer {
protected:
  [[nodiscard]] std::string render_check(const check_outcome& outcome) const override {
    families f;
    declare_check_families(f);
    f.add("gpuspec_check_status", {}, exit_code_of(outcome.status));
    for (const auto& node : outcome.nodes)
      add_node(f, node);
    return f.text();
  }
  [[nodiscard]] std::string render_health(const health_document& h) const override {
    return render_health_prometheus(h.outcome, h.elapsed_s);
  }
};

} // namespace

std::unique_ptr<renderer> make_prometheus_renderer() {
  return std::make_unique<prometheus_renderer>();
}

} // namespace gpuspec::reports::render::detail
