// The partitioned stock node (mig_fixtures.hpp).

#include "mig_fixtures.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "gpuspec/reports/model/reference.hpp"
#include "gpuspec/reports/model/report_json.hpp"
#include "gpuspec/reports/model/statistics.hpp"
#include "stock_fixtures.hpp"

namespace gpuspec::reports::testing {

mig_instance one_g(int g, int k) {
  mig_instance m;
  m.mig_index = k;
  m.uuid = fmt::format("MIG-5e7e71c0-{:04d}-4000-8000-{:012d}", g, k);
  m.profile = "1g.10gb";
  m.gpu_instance_id = 7 + k;
  m.compute_instance_id = 0;
  m.sm_count = 14;
  m.memory_bytes = std::int64_t{9728} << 20;
  m.copy_engines = 1;
  m.gpu_slices = m.compute_slices = m.memory_slices = 1;
  return m;
}

namespace {

/// `r` measured on a MIG device holding `fraction` of the GPU: its ceilings and samples scaled,
/// its efficiency settled again, as the MIG worker leaves it.
result on_instance(result r, const mig_instance& m, double fraction) {
  r.mig = ref_of(m);
  auto& c = r.ceiling_value;
  for (auto* v : {&c.datasheet, &c.clock_adjusted})
    if (*v)
      **v *= fraction;
  c.mig_fraction = fraction;
  for (double& s : r.samples)
    s *= fraction;
  r.stats = summarize(r.samples);
  settle_efficiency(r);
  return r;
}

bool on_partitioned(const result& r) {
  return std::any_of(r.devices.begin(), r.devices.end(),
                     [](int d) { return d < partitioned_gpus; });
}

} // namespace

report partitioned_node() {
  const auto& systems = stock_systems();
  const auto a100 = std::find_if(systems.begin(), systems.end(),
                                 [](const auto& s) { return s.spec_id == "a100-sxm4-80gb"; });
  report whole = stock_report(*a100, "quick");
  report r = whole;
  r.schema = report_schema_version_mig;
  r.results.clear();
  for (int g = 0; g < partitioned_gpus; ++g) {
    device_info& d = r.devices.at(static_cast<std::size_t>(g));
    d.mig_mode = "enabled";
    d.mig_memory_slices = 8;
    for (int k = 0; k < instances_per_gpu; ++k)
      d.mig_instances.push_back(one_g(g, k));
  }
  bool node_wide_said = false;
  for (const result& x : whole.results) {
    if (!on_partitioned(x)) {
      r.results.push_back(x);
      continue;
    }
    if (x.devices.size() > 1) { // a node-wide case: not run on the partitioned GPUs
      if (node_wide_said)
        continue;
      result n = x;
      n.devices = {0, 1, 2, 3};
      n.status = result_status::not_supported;
      n.reason = "not run on GPUs 0,1,2,3: MIG is on (docs/mig.md)";
      n.samples.clear();
      n.stats = {};
      n.efficiency.reset();
      r.results.push_back(n);
      node_wide_said = true;
      continue;
    }
    // The families a MIG device's share scales (mig_ceilings.hpp); the roofline-capped GEMM
    // shapes and the transfers are left out of this node.
    const auto& figure = x.ceiling_value.spec_figure;
    const bool memory = figure == "memory_bandwidth_gbs";
    const bool compute = figure.starts_with("peaks.") && !x.ceiling_value.roofline_bytes;
    if (x.status != result_status::ok || (!memory && !compute))
      continue;
    const auto& d = r.devices.at(static_cast<std::size_t>(x.devices.front()));
    for (const auto& m : d.mig_instances)
      r.results.push_back(on_instance(x, m, memory ? 1.0 / 8 : 14.0 / 108));
  }
  return r;
}

} // namespace gpuspec::reports::testing
