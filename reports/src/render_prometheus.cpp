// The Prometheus text format for node_exporter's textfile collector: `gpuspec_` prefix, base
// units, HELP and TYPE lines, and the labels dcgm-exporter uses (gpu, UUID, pci_bus_id,
// modelName, Hostname) so dashboards can join the two. Status gauges use the exit-code scale:
// 0 pass, 1 warn, 2 fail, 3 inconclusive; skipped results are not exported.

#include <cmath>
#include <map>

#include <fmt/format.h>

#include "gpuspec/reports/check.hpp"
#include "gpuspec/reports/units.hpp"
#include "prometheus_text.hpp"
#include "render_detail.hpp"

namespace gpuspec::reports::detail {

namespace {

using labels = std::vector<std::pair<std::string, std::string>>;

class prometheus_renderer final : public renderer {
public:
  [[nodiscard]] std::string render(const check_outcome& outcome) const override {
    families f;
    f.declare("gpuspec_check_status",
              "Overall gpuspec check verdict (0 pass, 1 warn, 2 fail, 3 inconclusive)");
    f.declare("gpuspec_node_status",
              "Verdict of one node (0 pass, 1 warn, 2 fail, 3 inconclusive)");
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

    f.add("gpuspec_check_status", {}, exit_code_of(outcome.status));
    for (const auto& node : outcome.nodes) {
      f.add("gpuspec_node_status", {{"Hostname", node.hostname}}, exit_code_of(node.status));
      std::map<int, labels> gpu_labels;
      for (const auto& g : node.gpus) {
        labels l = {{"gpu", std::to_string(g.index)},
                    {"UUID", g.uuid},
                    {"pci_bus_id", g.pci_bus_id},
                    {"modelName", g.name},
                    {"Hostname", node.hostname}};
        gpu_labels[g.index] = l;
        f.add("gpuspec_gpu_status", l, exit_code_of(g.status));
      }
      for (const auto& r : node.results) {
        if (r.status == verdict_status::skipped)
          continue;
        labels l;
        if (r.devices.size() == 1 && gpu_labels.contains(r.devices.front())) {
          l = gpu_labels[r.devices.front()];
        } else {
          std::string gpus, uuids, buses, model;
          for (int d : r.devices) {
            const auto& gl = gpu_labels[d];
            gpus += gpus.empty() ? "" : ",";
            gpus += std::to_string(d);
            if (!gl.empty()) {
              uuids += uuids.empty() ? "" : ",";
              uuids += gl[1].second;
              buses += buses.empty() ? "" : ",";
              buses += gl[2].second;
              model = gl[3].second;
            }
          }
          l = {{"gpu", gpus},
               {"UUID", uuids},
               {"pci_bus_id", buses},
               {"modelName", model},
               {"Hostname", node.hostname}};
        }
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
      for (const auto* d : unique_diagnoses(node)) {
        labels l;
        if (d->device && gpu_labels.contains(*d->device))
          l = gpu_labels[*d->device];
        else
          l = {{"Hostname", node.hostname}};
        l.emplace_back("code", d->code);
        l.emplace_back("remediation", std::string(to_string(d->step)));
        l.emplace_back("cause", d->cause);
        f.add("gpuspec_diagnosis", l, exit_code_of(d->severity));
      }
    }
    return f.text();
  }
};

} // namespace

std::unique_ptr<renderer> make_prometheus_renderer() {
  return std::make_unique<prometheus_renderer>();
}

} // namespace gpuspec::reports::detail
