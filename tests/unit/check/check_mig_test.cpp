// Partitioned GPUs in `check` (docs/mig.md): the 8x A100 SXM4 80 GB stock node with GPUs 0-3
// as 7 x 1g.10gb each and 4-7 whole, built the way the harness and the MIG worker write it:
// each MIG device's results carry it, their ceilings and medians are the instance's share of the
// GPU's (1 of 8 memory slices, 14 of 108 SMs), and the node-wide cases are not run on the
// partitioned GPUs. A healthy one passes; one slow instance is named; a whole GPU's fault still
// fails its GPU.

#include <algorithm>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "gpuspec/reports/judge/check.hpp"
#include "gpuspec/reports/judge/verdict.hpp"
#include "gpuspec/reports/model/reference.hpp"
#include "gpuspec/reports/model/report_json.hpp"
#include "gpuspec/reports/model/statistics.hpp"
#include "shipped_tables.hpp"
#include "stock_fixtures.hpp"

namespace gpuspec::reports {
namespace {

using gpuspec::testing::shipped_rules;
using gpuspec::testing::shipped_specs;

constexpr int partitioned_gpus = 4;
constexpr int instances_per_gpu = 7;

/// GPU `g`'s 1g.10gb MIG device `k` as NVML lists it (GPU instances 7-13, as on an A100).
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

report partitioned_node() {
  const auto& systems = testing::stock_systems();
  const auto a100 = std::find_if(systems.begin(), systems.end(),
                                 [](const auto& s) { return s.spec_id == "a100-sxm4-80gb"; });
  report whole = testing::stock_report(*a100, "quick");
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

std::string mig_not_passing(const check_outcome& o) {
  std::string out;
  for (const auto& node : o.nodes) {
    for (const auto& g : node.gpus)
      for (const auto& d : g.diagnoses)
        out += fmt::format("  gpu {}: {} {}\n", g.index, d.code, d.cause);
    for (const auto& v : node.results)
      if (v.status != verdict_status::pass && v.status != verdict_status::skipped)
        out += fmt::format("  {} [{}]: {}\n", v.name, to_string(v.status), v.message);
  }
  return out;
}

TEST(CheckMig, AHealthyPartitionedNodePasses) {
  const report built = partitioned_node();
  // As written and read back.
  const auto loaded = report_from_json(to_json(built), "mig.json");
  ASSERT_TRUE(loaded) << loaded.error().to_string();
  EXPECT_EQ(loaded.value(), built);
  const auto o = check(loaded.value(), shipped_specs(), shipped_rules());
  EXPECT_EQ(o.status, verdict_status::pass) << mig_not_passing(o);
  EXPECT_EQ(exit_code_of(o.status), 0);
  // Each instance's STREAM result is judged on its own, named by its instance.
  int instances_judged = 0;
  for (const auto& v : o.nodes.at(0).results)
    if (v.bench_id.starts_with("memory.stream.") && v.devices == std::vector<int>{2} &&
        v.status == verdict_status::pass && v.name.find("MIG 1g.10gb, GI") != std::string::npos)
      ++instances_judged;
  EXPECT_GE(instances_judged, instances_per_gpu);
}

TEST(CheckMig, OneSlowInstanceIsNamed) {
  report r = partitioned_node();
  // GPU 1's MIG device 2 (GI 9) at 0.6 of its share on every STREAM case.
  for (auto& x : r.results)
    if (x.mig && x.devices.front() == 1 && x.mig->gpu_instance_id == 9 &&
        x.bench_id.starts_with("memory.stream.")) {
      for (double& s : x.samples)
        s *= 0.6;
      x.stats = summarize(x.samples);
      settle_efficiency(x);
    }
  const auto o = check(r, shipped_specs(), shipped_rules());
  EXPECT_NE(o.status, verdict_status::pass);
  const std::string name = "GPU 1 MIG 1g.10gb, GI 9 CI 0, MIG-5e7e71c0-0001-4000-8000-000000000002";
  bool named = false;
  for (const auto& v : o.nodes.at(0).results) {
    if (v.status == verdict_status::pass || v.status == verdict_status::skipped)
      continue;
    // Only that instance's results fall: its siblings of the same profile still pass.
    const result& x = r.results.at(v.result_index);
    ASSERT_TRUE(x.mig) << v.name << ": " << v.message;
    EXPECT_EQ(x.mig->gpu_instance_id, 9) << v.name;
    for (const auto& d : v.diagnoses)
      named = named || d.cause.find(name) != std::string::npos;
    named = named || v.message.find(name) != std::string::npos;
  }
  EXPECT_TRUE(named) << mig_not_passing(o);
}

TEST(CheckMig, AWholeGpusFaultStillFailsItsGpu) {
  report r = partitioned_node();
  r.devices.at(5).counters_delta["ecc.volatile.uncorrected"] = reading::of(2);
  r.devices.at(5).counters_after["ecc.volatile.uncorrected"] = reading::of(2);
  const auto o = check(r, shipped_specs(), shipped_rules());
  EXPECT_EQ(o.status, verdict_status::fail);
  for (const auto& g : o.nodes.at(0).gpus)
    EXPECT_EQ(g.status, g.index == 5 ? verdict_status::fail : verdict_status::pass)
        << "GPU " << g.index << ": " << g.message;
}

} // namespace
} // namespace gpuspec::reports
