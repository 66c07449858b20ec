// Issue 30, "What complete reports at public healthy figures still show", the class "Grace and
// this year's racks": a GB200 or GB300 tray whose report has no devices[].c2c (NVML gave no C2C
// answer: a driver before r550, or a harness that did not ask) is attached to Grace by its spec
// row's host_interconnect, so its coherent LPDDR5X does not warn, its PCIe host link is not
// judged and its C2C copies are never held to a PCIe ceiling; a B300 HGX whose GPUs train Gen6
// to their ConnectX-8 switch under a Gen5 Xeon 6 host has its host transfers held to the host's
// Gen5 (host_platforms.hpp), not failed against Gen6. Each healthy report passes; each real
// fault (a link trained below its reach, copies at a fraction of their siblings', copies at the
// Gen3 rate) trips.
//
// Every measured figure is synthetic (no GPU ran): the fractions of stock_fixtures.cpp, each
// with its public source there, or a figure named where it is set.

#include <algorithm>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "check_fixtures.hpp"
#include "gpuspec/reports/judge/check.hpp"
#include "gpuspec/reports/judge/host_platforms.hpp"
#include "gpuspec/reports/judge/host_rules.hpp"
#include "gpuspec/reports/model/reference.hpp"
#include "gpuspec/reports/model/report_json.hpp"
#include "gpuspec/reports/model/statistics.hpp"
#include "shipped_tables.hpp"
#include "stock_fixtures.hpp"

namespace gpuspec::reports {
namespace {

using gpuspec::testing::shipped_rules;
using gpuspec::testing::shipped_specs;
using testing::stock_report;
using testing::stock_system;

constexpr double gib_bytes = 1024.0 * 1024.0 * 1024.0;

const stock_system& rack_node(const std::string& name) {
  for (const auto& s : testing::issue19_systems())
    if (s.name == name)
      return s;
  throw std::runtime_error("no node " + name);
}

check_outcome judge_rack(const report& r) { return check(r, shipped_specs(), shipped_rules()); }

report through_disk(const report& r) {
  const auto back = report_from_json(to_json(r), "issue30-racks.json");
  if (!back)
    throw std::runtime_error(back.error().to_string());
  return back.value();
}

/// Sets every ok host transfer (h2d, d2h, bidir) of GPU `dev` (-1: every GPU) to `gbs` per
/// direction, as the harness would have measured it (samples, times, stats, efficiency).
void set_host_copies(report& r, int dev, double gbs) {
  for (auto& x : r.results) {
    if (x.status != result_status::ok || x.devices.size() != 1 || (dev >= 0 && x.devices[0] != dev))
      continue;
    if (x.bench_id != "transfer.h2d" && x.bench_id != "transfer.d2h" &&
        x.bench_id != "transfer.bidir")
      continue;
    const double value = gbs * (x.bench_id == "transfer.bidir" ? 2 : 1);
    const double bytes = x.bytes_per_iteration.value_or(1e9);
    for (std::size_t k = 0; k < x.samples.size(); ++k) {
      x.samples[k] = value * (1.0 + 0.001 * (static_cast<double>(k) - 5));
      x.sample_seconds[k] = bytes / (x.samples[k] * 1e9);
    }
    x.stats = summarize(x.samples);
    x.host_seconds_median = bytes / (x.stats.median * 1e9) * 1.01;
    settle_efficiency(x);
  }
}

// ---- a Grace tray whose report has no devices[].c2c -----------------------------------------

/// A healthy tray of `name` (a stock GB200 tray, or the GB300 tray below) as a harness writes it
/// when NVML gives no C2C answer: no devices[].c2c, NVML's PCIe maximum Gen6 with the GPUs'
/// links to Grace trained Gen5 under load (the issue's reading), every host transfer carrying
/// the PCIe Gen5 x16 ceiling pcie_transfer_ceiling gave it, and pinned copies at 325 GB/s
/// host-to-device and 300 GB/s device-to-host (the issue's healthy NVLink-C2C figures, "300+
/// GB/s"; no public log of a GB200 copy was found).
report tray_without_nvml_c2c(const stock_system& s) {
  stock_system without = s;
  without.c2c = false;
  report r = stock_report(without, "standard");
  for (auto& d : r.devices) {
    d.pcie.gen_max = 6;
    d.pcie.gen_max_system = 6;
  }
  r.host.checks = evaluate_host_checks(r.host, r.devices);
  for (int dev = 0; dev < s.gpus; ++dev) {
    set_host_copies(r, dev, 325);
    for (auto& x : r.results)
      if (x.devices == std::vector<int>{dev} && x.bench_id == "transfer.d2h")
        x.samples.assign(x.samples.size(), 300.0);
  }
  for (auto& x : r.results)
    if (x.bench_id == "transfer.d2h" && x.status == result_status::ok) {
      x.stats = summarize(x.samples);
      settle_efficiency(x);
    }
  return r;
}

/// A GB300 NVL72 compute tray: the GB200 tray's builder with the GB300's identity (its row) and
/// the figures MLPerf Inference v5.1's NVIDIA GB300 system states
/// (closed/NVIDIA/systems/GB300-NVL72_GB300-288GB_aarch64x72_TRT.json: 4 GPUs of 288 GB and 2
/// Grace CPUs per node, host_memory_capacity "960 GB"). Below twice, and below the GPUs' own
/// memory: by design on a coherent tray.
stock_system gb300_tray() {
  stock_system s = rack_node("gb200-tray");
  s.name = "gb300-tray";
  s.spec_id = "gb300-nvl72";
  s.gpu_name = "NVIDIA GB300"; // the row's match name (open-gpu-kernel-modules README)
  s.pci_device_id = 0x31C2;
  s.cc_major = 10;
  s.cc_minor = 3;
  s.sm_count = 152;
  s.memory_mib = 274658;   // 288 GB, in MiB
  s.host_memory_gib = 894; // 960 GB, in GiB
  s.power_limit_w = 1400;  // the system's hw_notes: "GB300 TGP 1400W"
  return s;
}

class GraceTrayWithoutNvmlC2c : public ::testing::TestWithParam<const char*> {};

stock_system tray_of(const std::string& name) {
  return name == "gb300-tray" ? gb300_tray() : rack_node(name);
}

TEST_P(GraceTrayWithoutNvmlC2c, AHealthyTrayPassesWithNoFinding) {
  const report r = through_disk(tray_without_nvml_c2c(tray_of(GetParam())));
  ASSERT_FALSE(r.devices.front().c2c);
  const auto o = judge_rack(r);
  EXPECT_EQ(o.status, verdict_status::pass) << testing::findings_summary(o);
  EXPECT_EQ(testing::diagnosis_codes(o), std::set<std::string>{}) << testing::findings_summary(o);
  // Host memory: coherent by the rows' NVLink-C2C, so the PCIe nodes' ratio does not apply.
  const auto memory = memory_ratio_check(r.host, r.devices, &shipped_specs());
  EXPECT_EQ(memory.status, check_status::pass) << memory.message;
  EXPECT_NE(memory.message.find("coherent-memory system"), std::string::npos) << memory.message;
  // PCIe: no host link to judge, whatever NVML's maximum says.
  for (const auto& d : r.devices) {
    const gpu_spec* row = spec_of(shipped_specs(), d);
    EXPECT_TRUE(is_c2c_attached(d, row));
    const auto link = pcie_link_check(d, row, nullptr, {});
    EXPECT_EQ(link.status, check_status::skipped) << link.message;
    EXPECT_NE(link.message.find("host_interconnect"), std::string::npos) << link.message;
    EXPECT_EQ(pcie_slot_check(d, row).status, check_status::skipped);
  }
  // The C2C copies: never held to the PCIe ceiling the report carried, never "impossible".
  std::size_t copies = 0;
  for (const auto& v : o.nodes.at(0).results)
    if (v.bench_id == "transfer.h2d") {
      ++copies;
      EXPECT_NE(v.status, verdict_status::fail) << v.name << ": " << v.message;
      if (v.expected) {
        EXPECT_GT(*v.expected, 100.0) << v.name << ": " << v.message;
      }
    }
  EXPECT_GT(copies, 0U);
}

TEST_P(GraceTrayWithoutNvmlC2c, TheSameTrayWithoutTheRowsC2cWouldWarnFailAndCallItImpossible) {
  // What the issue saw: with a spec table whose row does not say NVLink-C2C, the same report
  // is judged as a PCIe node. This holds the test to the fault it fixes.
  spec_table plain = shipped_specs();
  for (auto& row : plain.rows)
    row.host_interconnect.clear();
  const report r = tray_without_nvml_c2c(tray_of(GetParam()));
  const auto o = check(r, plain, shipped_rules());
  EXPECT_EQ(o.status, verdict_status::fail) << testing::findings_summary(o);
  EXPECT_TRUE(testing::diagnosis_codes(o).contains("GPUSPEC-IMPOSSIBLE-RESULT@0"))
      << testing::findings_summary(o);
  EXPECT_TRUE(testing::diagnosis_codes(o).contains("GPUSPEC-HOST-MEMORY-LOW@node"))
      << testing::findings_summary(o);
}

TEST_P(GraceTrayWithoutNvmlC2c, CopiesOfOneGpuAtPcieRatesFail) {
  // GPU 2's copies at 50 GB/s, a PCIe Gen5 x16 rate (80% of 63.02 GB/s), its siblings at 325.
  report r = tray_without_nvml_c2c(tray_of(GetParam()));
  set_host_copies(r, 2, 50);
  const auto o = judge_rack(through_disk(r));
  EXPECT_EQ(o.status, verdict_status::fail) << testing::findings_summary(o);
  EXPECT_TRUE(testing::diagnosis_codes(o).contains("GPUSPEC-SIBLING-OUTLIER@2"))
      << testing::findings_summary(o);
  EXPECT_FALSE(testing::diagnosis_codes(o).contains("GPUSPEC-SIBLING-OUTLIER@0"))
      << testing::findings_summary(o);
}

TEST_P(GraceTrayWithoutNvmlC2c, NvmlSayingC2cDisabledStillWinsOverTheRow) {
  // NVML's answer is the evidence: a GPU whose C2C mode reads disabled is not attached, and its
  // tray is not one coherent pool (GPUSPEC-C2C-DOWN needs a sibling NVML calls enabled).
  report r = tray_without_nvml_c2c(tray_of(GetParam()));
  for (auto& d : r.devices)
    d.c2c = c2c_link{"enabled", "ats"};
  r.devices[1].c2c = c2c_link{"disabled", "hmm"};
  const gpu_spec* row = spec_of(shipped_specs(), r.devices[1]);
  EXPECT_FALSE(is_c2c_attached(r.devices[1], row));
  EXPECT_EQ(memory_ratio_check(r.host, r.devices, &shipped_specs()).status, check_status::warn);
  const auto o = judge_rack(r);
  EXPECT_EQ(o.status, verdict_status::fail) << testing::findings_summary(o);
  EXPECT_TRUE(testing::diagnosis_codes(o).contains("GPUSPEC-C2C-DOWN@1"))
      << testing::findings_summary(o);
}

INSTANTIATE_TEST_SUITE_P(Issue30, GraceTrayWithoutNvmlC2c,
                         ::testing::Values("gb200-tray", "gb300-tray"), [](const auto& param_info) {
                           return std::string(param_info.param) == "gb300-tray" ? "gb300" : "gb200";
                         });

TEST(GraceTrayWithoutNvmlC2c, APcieGpuIsNeverTakenForC2cByTheRow) {
  // The row's host_interconnect is read only for the rows that state it: an H100 SXM without
  // devices[].c2c is a PCIe GPU, its links judged as ever.
  const report r = stock_report(testing::stock_systems().front(), "quick");
  for (const auto& d : r.devices)
    EXPECT_FALSE(is_c2c_attached(d, spec_of(shipped_specs(), d)));
  EXPECT_FALSE(is_coherent_memory_system(r.devices, &shipped_specs()));
}

// ---- a B300 HGX under a Gen5 Xeon 6 host ------------------------------------------------------

/// 8x B300 (HGX B300) as a harness writes it: each GPU trains PCIe Gen6 x16 to the ConnectX-8
/// switch it sits behind (NVML's GPU and system maxima Gen6), the host is a Gen5 Xeon 6, and
/// every host transfer carries the Gen6 ceiling (the harness does not know the host's hop) with
/// its copies at the B200's healthy fractions of the Gen5 link the host allows.
stock_system b300_hgx() {
  stock_system s = rack_node("8x-b200");
  s.name = "8x-b300-hgx";
  s.spec_id = "b300-sxm6";
  s.gpu_name = "NVIDIA B300 SXM6 AC"; // the row's match name (open-gpu-kernel-modules README)
  s.pci_device_id = 0x3182;
  s.cc_major = 10;
  s.cc_minor = 3;
  s.sm_count = 148;
  // IBM Cloud, "Accelerated (GPU) instance profiles - Gen 4", profile gx4d-232x3840x8b300:
  // 8x NVIDIA B300 SXM6 (288 GB), 3840 GiB of memory, Intel Xeon 6776P
  // (https://cloud.ibm.com/docs/vpc?topic=vpc-accelerated-profile-family-gen4). The DGX B300
  // datasheet names the same CPU ("Intel Xeon 6776P Processors") and ConnectX-8 per GPU.
  s.memory_mib = 274658; // 288 GB, in MiB
  s.host_memory_gib = 3840;
  s.cpu_model = "Intel(R) Xeon(R) 6776P"; // as lscpu names a Xeon 6 (no "Gold"/"Platinum")
  s.pcie_gen = 6;
  return s;
}

report b300_report() {
  const stock_system s = b300_hgx();
  report r = stock_report(s, "standard");
  const double gen5_of_gen6 = *pcie_bandwidth_gbs(5, 16) / *pcie_bandwidth_gbs(6, 16);
  const stock_system& b200 = rack_node("8x-b200");
  const auto& f = b200.figures;
  for (const auto& [kind, engine, fraction] :
       {std::tuple{"transfer.h2d", "copy_engine", f.h2d_ce.fraction},
        std::tuple{"transfer.d2h", "copy_engine", f.d2h_ce.fraction},
        std::tuple{"transfer.bidir", "copy_engine", f.bidir_ce.fraction},
        std::tuple{"transfer.h2d", "sm", f.h2d_sm.fraction},
        std::tuple{"transfer.d2h", "sm", f.d2h_sm.fraction},
        std::tuple{"transfer.bidir", "sm", f.bidir_sm.fraction}})
    testing::set_fraction(r, kind, {{"engine", engine}}, -1, fraction * gen5_of_gen6);
  return r;
}

TEST(B300UnderXeon6, TheHostTableKnowsXeon6AndNothingElse) {
  for (const char* model :
       {"Intel(R) Xeon(R) 6776P", "INTEL(R) XEON(R) 6980P", "Intel(R) Xeon(R) 6960E+"}) {
    const auto p = host_pcie_platform_of(model);
    ASSERT_TRUE(p) << model;
    EXPECT_EQ(p->pcie_gen, 5) << model;
    EXPECT_NE(p->source.find("intel.com"), std::string_view::npos);
  }
  for (const char* model :
       {"Intel(R) Xeon(R) Gold 6126 CPU @ 2.60GHz", "Intel(R) Xeon(R) Platinum 8480C",
        "AMD EPYC 9654 96-Core Processor", "Neoverse-V2", ""})
    EXPECT_FALSE(host_pcie_platform_of(model)) << model;
}

TEST(B300UnderXeon6, AHealthyB300HgxPassesHeldToTheHostsGen5) {
  const report r = through_disk(b300_report());
  const auto o = judge_rack(r);
  EXPECT_EQ(o.status, verdict_status::pass) << testing::findings_summary(o);
  EXPECT_EQ(testing::diagnosis_codes(o), std::set<std::string>{}) << testing::findings_summary(o);
  std::size_t judged = 0;
  for (const auto& v : o.nodes.at(0).results)
    if (v.bench_id == "transfer.h2d" && v.expected && v.frame == "clock_adjusted") {
      ++judged;
      EXPECT_NEAR(*v.expected, *pcie_bandwidth_gbs(5, 16), 0.01) << v.message;
      EXPECT_NE(v.message.find("root ports"), std::string::npos) << v.message;
    }
  EXPECT_GT(judged, 0U) << testing::findings_summary(o);
  // The GPU's own link at Gen6 is at its reach: not failed for training above the host.
  const gpu_spec* row = spec_of(shipped_specs(), r.devices[0]);
  pcie_under_load gen6{6, 16, "transfer.h2d"};
  EXPECT_EQ(pcie_link_check(r.devices[0], row, &gen6, {}).status, check_status::pass);
}

TEST(B300UnderXeon6, WithoutTheHostTableEveryGpuFailsAgainstGen6) {
  // The issue's finding, kept as the contrast: a host the table does not know gives no host
  // hop, so the same copies are held to Gen6 and fail.
  report r = b300_report();
  r.host.cpu_model = "Synthetic CPU the table does not hold";
  const auto o = judge_rack(r);
  EXPECT_EQ(o.status, verdict_status::fail) << testing::findings_summary(o);
}

TEST(B300UnderXeon6, AGpuTrainedGen4ToItsSwitchFails) {
  // GPU 3's link trained Gen4 x16 under load, below the Gen6 its switch offers; its copies at
  // the Gen4 link's rate (the healthy fraction of 31.51 GB/s).
  report r = b300_report();
  const double gen4_of_gen6 = *pcie_bandwidth_gbs(4, 16) / *pcie_bandwidth_gbs(6, 16);
  for (auto& x : r.results)
    if (x.devices == std::vector<int>{3} && x.bench_id.starts_with("transfer.") &&
        x.bench_id != "transfer.p2p") {
      x.observations["pcie_gen_under_load"] = 4;
      x.telemetry.pcie_gen_min = 4;
    }
  testing::set_fraction(r, "transfer.h2d", {}, 3,
                        rack_node("8x-b200").figures.h2d_ce.fraction * gen4_of_gen6);
  const auto o = judge_rack(through_disk(r));
  EXPECT_EQ(o.status, verdict_status::fail) << testing::findings_summary(o);
  EXPECT_TRUE(testing::diagnosis_codes(o).contains("GPUSPEC-PCIE-LINK-DEGRADED@3"))
      << testing::findings_summary(o);
  EXPECT_FALSE(testing::diagnosis_codes(o).contains("GPUSPEC-PCIE-LINK-DEGRADED@2"))
      << testing::findings_summary(o);
}

TEST(B300UnderXeon6, EveryGpusCopiesAtTheGen3RateFailAgainstTheHostsGen5) {
  // Every GPU alike, so only the host-capped ceiling judges (siblings would catch one GPU):
  // copies at the healthy fraction of a Gen3 x16 link, half of what the Gen5 host allows.
  report r = b300_report();
  const double gen3_of_gen6 = *pcie_bandwidth_gbs(3, 16) / *pcie_bandwidth_gbs(6, 16);
  testing::set_fraction(r, "transfer.h2d", {{"engine", "copy_engine"}}, -1,
                        rack_node("8x-b200").figures.h2d_ce.fraction * gen3_of_gen6);
  const auto o = judge_rack(through_disk(r));
  EXPECT_EQ(o.status, verdict_status::fail) << testing::findings_summary(o);
  for (int dev = 0; dev < 8; ++dev)
    EXPECT_TRUE(testing::diagnosis_codes(o).contains(fmt::format("GPUSPEC-BELOW-SPEC@{}", dev)))
        << testing::findings_summary(o);
}

} // namespace
} // namespace gpuspec::reports
