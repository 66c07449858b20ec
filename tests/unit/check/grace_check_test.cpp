// Issue 19: Grace-based nodes and unknown models.
//
// A GB200 compute tray (4 GPUs on 2 Grace CPUs, each GPU attached by NVLink-C2C, coherent
// memory): its host transfers are judged against the C2C link, not PCIe (a healthy 325 GB/s
// host-to-device copy passes, never "impossible"), its host RAM under twice its GPU memory
// does not warn, and it has no PCIe host link to judge; degraded trays (a slow C2C copy, low
// memory bandwidth) still trip. A GPU with no spec row is inconclusive against the datasheet
// and judged by its siblings instead.
//
// Every measured figure is synthetic (no GPU ran): 325 GB/s is the healthy figure, the
// others round fractions of the reference. The tray's figures that are not measured name their
// source where they are set.

#include <algorithm>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "check_fixtures.hpp"
#include "gpuspec/host/ceilings.hpp"
#include "gpuspec/reports/judge/check.hpp"
#include "gpuspec/reports/judge/expectations.hpp"
#include "gpuspec/reports/judge/host_rules.hpp"
#include "gpuspec/reports/model/reference.hpp"
#include "gpuspec/reports/model/report_json.hpp"
#include "gpuspec/reports/model/statistics.hpp"
#include "shipped_tables.hpp"

namespace gpuspec::reports {
namespace {

using gpuspec::testing::shipped_rules;

/// The name CUDA and NVML give the GPU of a GB200 tray ("NVIDIA GB200": coreweave/nccl-tests
/// pull request 48, an NCCL run on GB200 nodes).
constexpr const char* gb200_name = "NVIDIA GB200";

/// The shipped table with a GB200 row carrying its C2C figure: the shipped row where there is
/// one (its c2c_gbs added here if it lacks it), else a row of this test with the datasheet
/// figures the tray's results need.
const spec_table& tray_specs() {
  static const spec_table t = [] {
    spec_table table = testing::synthetic_specs();
    device_info probe;
    probe.name = gb200_name;
    const gpu_spec* shipped = match_device(table, probe);
    gpu_spec* row = nullptr;
    if (shipped != nullptr) {
      row = &*std::find_if(table.rows.begin(), table.rows.end(),
                           [&](const gpu_spec& g) { return g.id == shipped->id; });
    } else {
      gpu_spec g;
      g.id = "gb200-test-row";
      g.name = "NVIDIA GB200 (the GPU of GB200 NVL72), a row of this test";
      g.match_names = {gb200_name};
      g.architecture = "blackwell";
      g.cc_major = 10;
      g.memory_gib = 186;
      g.memory_type = "HBM3e";
      g.memory_bandwidth_gbs = 8000;
      g.sources["memory"] = "NVIDIA GB200 NVL72 datasheet: 13.4 TB HBM3e and 576 TB/s for 72 "
                            "GPUs, up to 186 GB and 8 TB/s each";
      table.rows.push_back(g);
      row = &table.rows.back();
    }
    if (!row->c2c_gbs) {
      row->c2c_gbs = 900;
      row->sources["c2c"] = "NVIDIA GB200 NVL72 datasheet: NVLink-C2C 900 GB/s";
    }
    return table;
  }();
  return t;
}

const gpu_spec& tray_row() {
  device_info probe;
  probe.name = gb200_name;
  return *match_device(tray_specs(), probe);
}

/// `r`'s samples at `value` (its unit), the sample times matching its bytes, and its
/// efficiency settled against its reference, as bench_state leaves a result.
void set_value(result& r, double value) {
  r.samples.clear();
  r.sample_seconds.clear();
  for (int k = 0; k < 10; ++k) {
    const double v = value * (1.0 + 0.001 * (k - 5));
    r.samples.push_back(v);
    r.sample_seconds.push_back(r.bytes_per_iteration.value_or(1e9) / (v * 1e9));
  }
  r.stats = summarize(r.samples);
  r.host_seconds_median = r.bytes_per_iteration.value_or(1e9) / (r.stats.median * 1e9) * 1.01;
  r.ceiling_value.reference = choose_reference(r.ceiling_value);
  settle_efficiency(r);
}

/// A GB200 tray: the healthy DGX H200 report's host and results reshaped as the harness writes
/// a tray's (4 GPUs, 2 Grace CPUs, C2C-attached, coherent), with STREAM triad at 0.9 of the
/// datasheet and host transfers at 325 (h2d) and 300 GB/s (d2h) against the C2C ceiling the
/// harness attaches.
report gb200_tray() {
  const gpu_spec& row = tray_row();
  report r = testing::healthy_report("gb200-tray-synthetic");
  r.devices.resize(4);
  if (!r.run.devices.empty())
    r.run.devices = {0, 1, 2, 3};
  r.host.topology.reset();
  for (auto& d : r.devices) {
    d.name = gb200_name;
    d.pci_device_id.reset();
    d.spec_id = row.id;
    d.cc_major = 10;
    d.cc_minor = 0;
    d.memory_bytes = std::int64_t{186'000'000'000}; // 186 GB, the datasheet's (above)
    d.c2c = c2c_link{"enabled", "ats"};
  }
  // Two Grace CPUs of up to 480 GB LPDDR5X each (NVIDIA GB200 NVL72 datasheet: up to 17 TB
  // LPDDR5X for 36 Grace CPUs), less what the firmware keeps: 1.24 x the GPUs' 744 GB.
  r.host.cpu_model = "Neoverse-V2";
  r.host.cpu_sockets = 2;
  r.host.memory_bytes = std::int64_t{921'600'000'000};
  r.host.checks = evaluate_host_checks(r.host, r.devices, {}, &tray_specs());

  const auto triad = *std::find_if(r.results.begin(), r.results.end(), [](const result& x) {
    return x.bench_id == "memory.stream.triad";
  });
  r.results.clear();
  for (int dev = 0; dev < 4; ++dev) {
    result s = triad;
    s.devices = {dev};
    s.gpus_busy = 4;
    s.ceiling_value = host::memory_bandwidth_ceiling(std::nullopt, "not read", std::nullopt, &row);
    set_value(s, 0.9 * row.memory_bandwidth_gbs);
    r.results.push_back(s);
    testing::add_transfers(r, dev, 325, 300, 5, 16);
  }
  for (auto& x : r.results)
    if (x.bench_id.starts_with("transfer.")) {
      const double value = x.stats.median;
      x.ceiling_value = c2c_transfer_ceiling(&row, 1);
      x.telemetry.pcie_gen_min.reset();
      x.telemetry.pcie_width_min.reset();
      set_value(x, value);
    }
  return r;
}

void set_transfer(report& r, int dev, const std::string& kind, double value) {
  for (auto& x : r.results)
    if (x.bench_id == "transfer." + kind && x.devices.front() == dev)
      set_value(x, value);
}

std::string tray_summary(const check_outcome& o) {
  std::string out;
  for (const auto& n : o.nodes) {
    for (const auto& d : n.diagnoses)
      out += fmt::format("node {} {}: {}\n", d.code, to_string(d.severity), d.cause);
    for (const auto& g : n.gpus)
      for (const auto& d : g.diagnoses)
        out += fmt::format("gpu {} {} {}: {}\n", g.index, d.code, to_string(d.severity), d.cause);
    for (const auto& v : n.results)
      if (v.status != verdict_status::pass)
        out += fmt::format("{} [{}]: {}\n", v.name, to_string(v.status), v.message);
  }
  return out;
}

bool has(const check_outcome& o, std::string_view code, std::optional<int> device) {
  for (const auto& n : o.nodes) {
    for (const auto& g : n.gpus)
      for (const auto& d : g.diagnoses)
        if (d.code == code && d.device == device)
          return true;
    for (const auto& v : n.results)
      for (const auto& d : v.diagnoses)
        if (d.code == code && d.device == device)
          return true;
  }
  return false;
}

const host_check& host_check_of(const report& r, std::string_view id, std::optional<int> dev) {
  return *std::find_if(r.host.checks.begin(), r.host.checks.end(),
                       [&](const host_check& c) { return c.id == id && c.device == dev; });
}

TEST(GraceTray, AHealthyGb200TrayPasses) {
  const report r = gb200_tray();
  // Through the writer and reader, as a file on disk would be.
  const auto back = report_from_json(to_json(r), "gb200.json");
  ASSERT_TRUE(back) << back.error().to_string();
  ASSERT_EQ(back.value(), r);
  const auto o = check(back.value(), tray_specs(), shipped_rules());
  EXPECT_EQ(o.status, verdict_status::pass) << tray_summary(o);
  for (const auto& v : o.nodes.front().results)
    if (v.bench_id == "transfer.h2d") {
      EXPECT_EQ(v.frame, "spec");
      EXPECT_NEAR(*v.expected, 450, 1e-9) << "per direction, half the row's 900 GB/s";
    }
}

TEST(GraceTray, TheHostMemoryRuleKnowsCoherentMemoryAndAPcieNodeStillWarns) {
  const report r = gb200_tray();
  const auto& c2c = host_check_of(r, "host.memory_ratio", std::nullopt);
  EXPECT_EQ(c2c.status, check_status::pass) << c2c.message;
  EXPECT_NE(c2c.message.find("coherent-memory system"), std::string::npos) << c2c.message;
  // The same RAM beside the same GPUs on PCIe: too little, and it warns.
  auto devices = r.devices;
  for (auto& d : devices)
    d.c2c.reset();
  EXPECT_EQ(memory_ratio_check(r.host, devices).status, check_status::warn);
  // C2C without ATS (no coherent addressing) is not a coherent-memory system either.
  for (auto& d : devices)
    d.c2c = c2c_link{"enabled", "hmm"};
  EXPECT_EQ(memory_ratio_check(r.host, devices).status, check_status::warn);
}

TEST(GraceTray, AC2cGpuHasNoPcieHostLinkToJudge) {
  report r = gb200_tray();
  // Whatever NVML says of a PCIe link, a C2C GPU's host link is not PCIe.
  r.devices[1].pcie = {1, 5, 2, 16, 3};
  const auto link = pcie_link_check(r.devices[1], &tray_row(), nullptr, {});
  const auto slot = pcie_slot_check(r.devices[1], &tray_row());
  EXPECT_EQ(link.status, check_status::skipped) << link.message;
  EXPECT_EQ(slot.status, check_status::skipped) << slot.message;
  EXPECT_FALSE(has(check(r, tray_specs(), shipped_rules()), "GPUSPEC-PCIE-LINK-DEGRADED", 1));
  // The same GPU on PCIe (NVML answers that it has no C2C link; without an answer its row's
  // host_interconnect would still say NVLink-C2C): the x2 link is found.
  r.devices[1].c2c = c2c_link{"not supported", ""};
  EXPECT_NE(pcie_link_check(r.devices[1], &tray_row(), nullptr, {}).status, check_status::skipped);
}

TEST(GraceTray, APcieCeilingCarriedByAnOlderHarnessIsReplacedByTheC2cLink) {
  report r = gb200_tray();
  r.results.erase(
      std::remove_if(r.results.begin(), r.results.end(),
                     [](const result& x) { return x.bench_id.starts_with("transfer."); }),
      r.results.end());
  for (int dev = 0; dev < 4; ++dev)
    testing::add_transfers(r, dev, 325, 300, 5, 16); // the PCIe Gen5 x16 ceiling, 63 GB/s
  const auto o = check(r, tray_specs(), shipped_rules());
  EXPECT_FALSE(has(o, "GPUSPEC-IMPOSSIBLE-RESULT", 0)) << tray_summary(o);
  EXPECT_EQ(o.status, verdict_status::pass) << tray_summary(o);
  EXPECT_TRUE(std::any_of(o.notes.begin(), o.notes.end(), [](const std::string& n) {
    return n.find("NVLink-C2C") != std::string::npos;
  }));
}

TEST(GraceTray, ASlowC2cCopyFails) {
  report r = gb200_tray();
  set_transfer(r, 2, "h2d", 0.3 * 450);
  const auto o = check(r, tray_specs(), shipped_rules());
  EXPECT_EQ(o.status, verdict_status::fail) << tray_summary(o);
  EXPECT_TRUE(has(o, "GPUSPEC-BELOW-SPEC", 2)) << tray_summary(o);
  EXPECT_FALSE(has(o, "GPUSPEC-BELOW-SPEC", 0)) << tray_summary(o);
}

TEST(GraceTray, LowMemoryBandwidthFails) {
  report r = gb200_tray();
  for (auto& x : r.results)
    if (x.bench_id == "memory.stream.triad" && x.devices.front() == 3)
      set_value(x, 0.5 * tray_row().memory_bandwidth_gbs);
  const auto o = check(r, tray_specs(), shipped_rules());
  EXPECT_EQ(o.status, verdict_status::fail) << tray_summary(o);
  EXPECT_TRUE(has(o, "GPUSPEC-BELOW-SPEC", 3)) << tray_summary(o);
}

TEST(PlatformPcie, AStockPlatformBelowTheGpusOwnGenerationIsNotACap) {
  // A GPU whose NVML maximum is Gen6 in the Gen5 platform its spec row states: stock, passes;
  // the same GPU in a Gen4 slot is capped and warns. The row is the shipped H200's (Gen5 x16).
  const spec_table table = testing::synthetic_specs();
  const gpu_spec* row = table.find("h200-sxm-141gb");
  ASSERT_NE(row, nullptr);
  ASSERT_EQ(row->pcie_gen, 5);
  device_info d = testing::healthy_report().devices.front();
  d.pcie = {1, 6, 16, 16, 5}; // idle Gen1; GPU maximum Gen6; x16; system maximum Gen5
  const auto stock = pcie_slot_check(d, row);
  EXPECT_EQ(stock.status, check_status::pass) << stock.message;
  EXPECT_NE(stock.message.find("stock platform"), std::string::npos) << stock.message;
  d.pcie.gen_max_system = 4;
  EXPECT_EQ(pcie_slot_check(d, row).status, check_status::warn);
  // Without a row the GPU's own maximum is all there is: Gen5 under Gen6 is a cap.
  d.pcie.gen_max_system = 5;
  EXPECT_EQ(pcie_slot_check(d, nullptr).status, check_status::warn);
  // The link itself is judged against the lower of the two: Gen5 under load passes.
  pcie_under_load load{5, 16, "transfer.h2d"};
  EXPECT_EQ(pcie_link_check(d, row, &load, {}).status, check_status::pass);
  load.gen = 4;
  EXPECT_EQ(pcie_link_check(d, row, &load, {}).status, check_status::fail);
}

// ---- 19.7: a model with no spec row ---------------------------------------------------------

/// The healthy H200 node renamed to a model no row matches, its STREAM results without the
/// memory clock (so no clock-adjusted ceiling): only the datasheet could judge them.
report unknown_model_node(int gpus) {
  report r = testing::healthy_report("unknown-model-synthetic");
  r.devices.resize(gpus);
  if (!r.run.devices.empty())
    r.run.devices.resize(gpus);
  r.host.topology.reset();
  for (auto& d : r.devices) {
    d.name = "NVIDIA Synthetic Unlisted GPU";
    d.spec_id = "";
    d.pci_device_id = 0x0FFE;
  }
  r.host.checks = evaluate_host_checks(r.host, r.devices);
  std::erase_if(r.results, [&](const result& x) { return x.devices.front() >= gpus; });
  for (auto& x : r.results)
    if (x.bench_id.starts_with("memory.stream.")) {
      const double value = x.stats.median;
      x.ceiling_value.clock_adjusted.reset();
      x.ceiling_value.clock_adjusted_source = "no memory clock read";
      set_value(x, value);
    }
  return r;
}

TEST(UnknownModel, SiblingsJudgeWhatTheDatasheetCannot) {
  const auto o = check(unknown_model_node(8), testing::synthetic_specs(), shipped_rules());
  EXPECT_EQ(o.status, verdict_status::warn) << tray_summary(o); // GPUSPEC-NO-SPEC-ROW, per GPU
  for (const auto& v : o.nodes.front().results)
    if (v.bench_id.starts_with("memory.stream.")) {
      EXPECT_EQ(v.status, verdict_status::pass) << v.name << ": " << v.message;
      EXPECT_EQ(v.frame, "siblings") << v.name;
      EXPECT_NE(v.message.find("inconclusive against the datasheet"), std::string::npos);
    }
}

TEST(UnknownModel, ASlowGpuAmongEightUnknownSiblingsIsFound) {
  report r = unknown_model_node(8);
  for (auto& x : r.results)
    if (x.bench_id.starts_with("memory.stream.") && x.devices.front() == 5)
      set_value(x, 0.7 * x.stats.median);
  const auto o = check(r, testing::synthetic_specs(), shipped_rules());
  EXPECT_TRUE(has(o, "GPUSPEC-SIBLING-OUTLIER", 5)) << tray_summary(o);
  EXPECT_FALSE(has(o, "GPUSPEC-SIBLING-OUTLIER", 4)) << tray_summary(o);
}

TEST(UnknownModel, ALoneUnknownGpuIsInconclusiveAgainstTheDatasheetWithTheReason) {
  const auto o = check(unknown_model_node(1), testing::synthetic_specs(), shipped_rules());
  EXPECT_EQ(o.status, verdict_status::inconclusive) << tray_summary(o);
  bool seen = false;
  for (const auto& v : o.nodes.front().results)
    if (v.bench_id.starts_with("memory.stream.")) {
      seen = true;
      EXPECT_EQ(v.status, verdict_status::inconclusive) << v.name;
      EXPECT_EQ(v.frame, "spec");
      EXPECT_NE(v.message.find("no spec-table row matches"), std::string::npos) << v.message;
    }
  EXPECT_TRUE(seen);
}

} // namespace
} // namespace gpuspec::reports
