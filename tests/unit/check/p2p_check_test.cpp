// The check of peer paths and transfer.p2p (docs/check.md, "Peer paths"): reports whose GPUs
// and topology are taken the way `gpuspec run` takes them (the spine's inventory through the
// fake NVML, tests/fakes, on a fixture host root, rows matched from the shipped spec table), and
// transfer.p2p results with the ceiling host/p2p_plan.hpp attaches. For every rule the
// degraded report that trips it and the healthy one that must not. The bandwidth figures are
// synthetic fractions of the attached ceiling, not measurements.

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpuspec/host/p2p_plan.hpp"
#include "gpuspec/reports/health/health.hpp"
#include "gpuspec/reports/judge/check.hpp"
#include "gpuspec/reports/judge/expectations.hpp"
#include "gpuspec/reports/model/reference.hpp"
#include "gpuspec/reports/model/statistics.hpp"
#include "gpuspec/spine/inventory.hpp"
#include "shipped_tables.hpp"
#include "test_text.hpp"

namespace gpuspec::reports {
namespace {

using gpuspec::testing::shipped_rules;
using gpuspec::testing::shipped_specs;

/// A finished run's report of the node the fake NVML configuration describes, with no results
/// yet: host, GPUs and host.topology from the inventory, every GPU selected.
report inventory_report(const std::string& nvml_config, const std::string& host) {
  ::setenv("GPUSPEC_NVML_LIBRARY", GPUSPEC_FAKE_NVML_PATH, 1);
  ::setenv("GPUSPEC_FAKE_NVML_CONFIG", (GPUSPEC_FAKE_NVML_CONFIGS "/" + nvml_config).c_str(), 1);
  auto inv = spine::take_inventory(GPUSPEC_FIXTURES_DIR "/hosts/" + host, {});
  spine::match_spec_rows(shipped_specs(), inv.devices);
  report r;
  r.run.tool_version = "test";
  r.run.suite = "quick";
  r.run.backend = "cuda";
  r.host = inv.host;
  r.devices = inv.devices;
  for (const auto& d : r.devices)
    r.run.devices.push_back(d.index);
  r.complete = true;
  return r;
}

const device_info& device(const report& r, int index) {
  return *std::find_if(r.devices.begin(), r.devices.end(),
                       [&](const device_info& d) { return d.index == index; });
}

/// One transfer.p2p case as benches/families/transfer_p2p.cpp writes it, its median at
/// `fraction` of the ceiling p2p_ceiling attaches for the pair.
result p2p_result(const report& r, int src, int dst, double fraction,
                  const std::string& engine = "ce", const std::string& size = "256MiB") {
  result res;
  res.bench_id = "transfer.p2p";
  res.devices = {src, dst};
  res.axes = {{"pair", std::to_string(src) + "->" + std::to_string(dst)},
              {"engine", engine},
              {"direction", "one_way"},
              {"size", size}};
  res.observations["path"] = host::p2p_path_text(*r.host.topology, src, dst);
  const auto* pair = find_pair(*r.host.topology, src, dst);
  res.observations["nvlink_links"] = pair != nullptr ? pair->nvlink_links : 0;
  res.metric = "bandwidth";
  res.unit = metric_unit::gigabytes_per_second;
  res.ceiling_value = host::p2p_ceiling(*r.host.topology, device(r, src), device(r, dst), 1);
  const double gbs = fraction * res.ceiling_value.clock_adjusted.value();
  const double bytes = 4.0 * (256 << 20);
  for (int k = 0; k < 10; ++k) {
    const double v = gbs * (1.0 + 0.001 * (k - 5));
    res.samples.push_back(v);
    res.sample_seconds.push_back(bytes / (v * 1e9));
  }
  res.stats = summarize(res.samples);
  res.bytes_per_iteration = bytes;
  settle_efficiency(res); // the path is the reference
  res.check.status = verification_status::passed;
  res.check.max_rel_error = 0.0;
  res.check.detail = "all bytes equal";
  auto& t = res.telemetry;
  t.samples = 50;
  t.period_ms = 20;
  t.sm_clock_mhz_min = 1965;
  t.sm_clock_mhz_median = t.sm_clock_mhz_max = 1980;
  t.mem_clock_mhz_min = t.mem_clock_mhz_median = 2619;
  t.temperature_c_max = 45;
  t.power_w_mean = 180;
  t.power_w_max = 200;
  t.low_clock_fraction = 0.0;
  t.status = "ok";
  t.window_start_s = 1.0;
  t.window_end_s = 1.6;
  res.gpus_busy = 2;
  return res;
}

/// A ring of healthy copies (0->1, 1->2, ..., n-1->0) at 80% of each pair's ceiling, so every
/// GPU has judged results.
void add_ring(report& r, double fraction = 0.8) {
  const int n = static_cast<int>(r.devices.size());
  for (int i = 0; i < n; ++i)
    r.results.push_back(p2p_result(r, i, (i + 1) % n, fraction));
}

check_outcome judge_report(const report& r) { return check(r, shipped_specs(), shipped_rules()); }

const gpu_verdict& gpu(const check_outcome& o, int index) {
  const auto& gpus = o.nodes.at(0).gpus;
  return *std::find_if(gpus.begin(), gpus.end(),
                       [&](const gpu_verdict& g) { return g.index == index; });
}

const diagnosis* find_code(const gpu_verdict& g, const std::string& code) {
  const auto it = std::find_if(g.diagnoses.begin(), g.diagnoses.end(),
                               [&](const diagnosis& d) { return d.code == code; });
  return it == g.diagnoses.end() ? nullptr : &*it;
}

using gpuspec::testing::contains;

std::string all_codes(const check_outcome& o) {
  std::string out;
  for (const auto& d : o.nodes.at(0).diagnoses)
    out += d.code + ": " + d.cause + "\n";
  for (const auto& g : o.nodes.at(0).gpus)
    for (const auto& d : g.diagnoses)
      out += "GPU " + std::to_string(g.index) + " " + d.code + ": " + d.cause + "\n";
  for (const auto& v : o.nodes.at(0).results)
    if (v.status != verdict_status::pass)
      out += v.name + " " + std::string(to_string(v.status)) + " " + v.message + "\n";
  return out;
}

report hgx() { return inventory_report("hgx-h100-nvswitch.json", "hgx-two-socket"); }
report hgx_nvlink_down() { return inventory_report("hgx-h100-nvlink-down.json", "hgx-two-socket"); }
report pcie_node() {
  return inventory_report("pcie-four-gpus-two-sockets.json", "pcie-two-socket");
}

TEST(PeerPaths, AStockHgxH100Passes) {
  report r = hgx();
  ASSERT_EQ(r.devices.size(), 8u);
  ASSERT_TRUE(r.host.topology.has_value());
  add_ring(r);
  const auto o = judge_report(r);
  EXPECT_EQ(o.nodes.at(0).status, verdict_status::pass) << all_codes(o);
  for (const auto& g : o.nodes.at(0).gpus) {
    EXPECT_EQ(find_code(g, "GPUSPEC-P2P-NOT-NVLINK"), nullptr) << g.index;
    EXPECT_EQ(find_code(g, "GPUSPEC-P2P-UNAVAILABLE"), nullptr) << g.index;
  }
  // The copies were judged (the ce, 256 MiB rule), not merely reported.
  for (const auto& v : o.nodes.at(0).results) {
    EXPECT_EQ(v.status, verdict_status::pass) << v.name;
    EXPECT_EQ(v.pass_fraction, 0.7) << v.name;
  }
}

TEST(PeerPaths, AGpuWithItsNvlinksDownFailsForItsPairsOverPcie) {
  report r = hgx_nvlink_down();
  add_ring(r);
  const auto o = judge_report(r);
  EXPECT_EQ(o.nodes.at(0).status, verdict_status::fail);
  const auto* d = find_code(gpu(o, 3), "GPUSPEC-P2P-NOT-NVLINK");
  ASSERT_NE(d, nullptr) << all_codes(o);
  EXPECT_EQ(d->severity, verdict_status::fail);
  EXPECT_EQ(gpu(o, 3).status, verdict_status::fail);
  // Both GPUs of each pair and the path are named; all seven peers.
  EXPECT_TRUE(contains(d->cause, "GPU 3 reaches 7 peer(s) over PCIe")) << d->cause;
  EXPECT_TRUE(contains(d->cause, "GPU 3 -> GPU 0: PCIe NODE")) << d->cause;
  EXPECT_TRUE(contains(d->cause, "GPU 3 -> GPU 7: PCIe SYS")) << d->cause;
  EXPECT_EQ(d->evidence.at("pairs"), "3->0,3->1,3->2,3->4,3->5,3->6,3->7");
  // Its peers, whose own links are up, are not blamed for it.
  for (int i : {0, 1, 2, 4, 5, 6, 7})
    EXPECT_EQ(find_code(gpu(o, i), "GPUSPEC-P2P-NOT-NVLINK"), nullptr) << i;
  // The copy 2->3 went over PCIe and meets its PCIe ceiling: the fraction alone cannot see the
  // missing NVLink, which is why the finding exists.
  const auto& copy = o.nodes.at(0).results.at(2);
  EXPECT_EQ(copy.devices, (std::vector<int>{2, 3}));
  EXPECT_EQ(copy.status, verdict_status::pass);
  const auto& why = r.results.at(2).ceiling_value.clock_adjusted_source;
  EXPECT_TRUE(contains(why, "no NVLink between GPU 2 and GPU 3")) << why;
}

TEST(PeerPaths, OnePairOverPcieIsGivenToBothItsGpus) {
  report r = hgx();
  for (auto& p : r.host.topology->pairs)
    if ((p.src == 1 && p.dst == 6) || (p.src == 6 && p.dst == 1)) {
      p.nvlink_links = 0;
      p.transport = "pcie";
    }
  add_ring(r);
  const auto o = judge_report(r);
  for (int i = 0; i < 8; ++i) {
    const auto* d = find_code(gpu(o, i), "GPUSPEC-P2P-NOT-NVLINK");
    EXPECT_EQ(d != nullptr, i == 1 || i == 6) << i << "\n" << all_codes(o);
  }
  EXPECT_TRUE(
      contains(find_code(gpu(o, 6), "GPUSPEC-P2P-NOT-NVLINK")->cause, "GPU 6 -> GPU 1: PCIe SYS"));
}

TEST(PeerPaths, APcieNodeIsNeverAskedForNvlinkNorForP2pAcrossSockets) {
  report r = pcie_node();
  ASSERT_EQ(r.devices.size(), 4u);
  add_ring(r);
  const auto o = judge_report(r);
  for (const auto& g : o.nodes.at(0).gpus) {
    EXPECT_EQ(find_code(g, "GPUSPEC-P2P-NOT-NVLINK"), nullptr) << g.index;
    EXPECT_EQ(find_code(g, "GPUSPEC-P2P-UNAVAILABLE"), nullptr) << g.index << all_codes(o);
  }
}

TEST(PeerPaths, NoP2pOnAPairWhoseSiblingsOnTheSamePathHaveItWarns) {
  report r = pcie_node();
  // GPUs 0 and 1 share a PCIe switch (PIX), as GPUs 2 and 3 do; only 2 and 3 keep P2P.
  for (auto& p : r.host.topology->pairs)
    if ((p.src == 0 && p.dst == 1) || (p.src == 1 && p.dst == 0))
      p.p2p_read = p.p2p_write = "disabled by regkey";
  add_ring(r);
  const auto o = judge_report(r);
  for (int i = 0; i < 4; ++i) {
    const auto* d = find_code(gpu(o, i), "GPUSPEC-P2P-UNAVAILABLE");
    ASSERT_EQ(d != nullptr, i <= 1) << i << "\n" << all_codes(o);
    if (d == nullptr)
      continue;
    EXPECT_EQ(d->severity, verdict_status::warn);
    EXPECT_TRUE(contains(d->cause, "PCIe PIX (P2P read: disabled by regkey")) << d->cause;
  }
  EXPECT_EQ(o.nodes.at(0).status, verdict_status::warn) << all_codes(o);
}

TEST(PeerPaths, AnNvlinkPairWithoutP2pWarnsOnBothGpus) {
  report r = hgx();
  for (auto& p : r.host.topology->pairs)
    if ((p.src == 2 && p.dst == 5) || (p.src == 5 && p.dst == 2))
      p.p2p_read = "not supported";
  add_ring(r);
  const auto o = judge_report(r);
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(find_code(gpu(o, i), "GPUSPEC-P2P-UNAVAILABLE") != nullptr, i == 2 || i == 5) << i;
}

TEST(PeerPaths, AOneGpuNodeHasNoPairToFlag) {
  report r = hgx();
  r.devices.resize(1);
  r.run.devices = {0};
  r.host.topology->gpus.resize(1);
  r.host.topology->pairs.clear();
  result memory = p2p_result(hgx(), 0, 1, 0.8); // any judged result on GPU 0
  memory.devices = {0};
  r.results.push_back(memory);
  const auto o = judge_report(r);
  EXPECT_EQ(find_code(gpu(o, 0), "GPUSPEC-P2P-NOT-NVLINK"), nullptr);
  EXPECT_EQ(find_code(gpu(o, 0), "GPUSPEC-P2P-UNAVAILABLE"), nullptr);
}

TEST(PeerPaths, GpuspecHealthSaysItFromTheInventoryAlone) {
  // `gpuspec health` judges the inventory, no results: the topology is enough.
  for (const bool down : {false, true}) {
    health_input in;
    in.inventory = down ? hgx_nvlink_down() : hgx();
    in.kernel_log.state = kernel_log_state::read;
    in.kernel_log.source = "test";
    const auto h = judge_health(in, shipped_specs(), shipped_rules().settings);
    for (int i = 0; i < 8; ++i)
      EXPECT_EQ(find_code(gpu(h.check, i), "GPUSPEC-P2P-NOT-NVLINK") != nullptr, down && i == 3)
          << down << " " << i;
  }
}

TEST(PeerTransfers, LargeCopyEngineCopiesAreJudgedAgainstThePath) {
  report r = hgx();
  r.results.push_back(p2p_result(r, 0, 1, 0.75));              // pass at 70%
  r.results.push_back(p2p_result(r, 1, 2, 0.6));               // warn at 50%
  r.results.push_back(p2p_result(r, 2, 3, 0.4, "ce", "1GiB")); // fail
  r.results.push_back(p2p_result(r, 3, 4, 0.55, "sm"));        // sm: pass at 60%, warn at 45%
  r.results.push_back(p2p_result(r, 4, 5, 0.4, "sm", "64MiB"));
  r.results.push_back(p2p_result(r, 5, 6, 0.1, "ce", "4KiB")); // latency-bound: reported
  r.results.push_back(p2p_result(r, 6, 7, 0.1, "ce", "16MiB"));
  const auto o = judge_report(r);
  const auto& v = o.nodes.at(0).results;
  ASSERT_EQ(v.size(), 7u);
  EXPECT_EQ(v[0].status, verdict_status::pass);
  EXPECT_EQ(v[1].status, verdict_status::warn);
  EXPECT_EQ(v[2].status, verdict_status::fail);
  EXPECT_TRUE(std::any_of(v[2].diagnoses.begin(), v[2].diagnoses.end(), [](const diagnosis& d) {
    return d.code == "GPUSPEC-BELOW-SPEC";
  })) << all_codes(o);
  EXPECT_EQ(v[3].status, verdict_status::warn);
  EXPECT_EQ(v[3].pass_fraction, 0.6);
  EXPECT_EQ(v[4].status, verdict_status::fail);
  EXPECT_EQ(v[5].status, verdict_status::skipped);
  EXPECT_EQ(v[6].status, verdict_status::skipped);
  // The NVLink ceiling of an HGX H100 pair: 18 links x the NVLink 4 per-link rate.
  const auto& why = r.results.at(0).ceiling_value.clock_adjusted_source;
  EXPECT_TRUE(contains(why, "18 active link(s) between GPU 0 and GPU 1")) << why;
}

} // namespace
} // namespace gpuspec::reports
