// The check of NCCL collectives (docs/check.md, "Collectives"): for each rule the degraded
// report that trips it beside the healthy one that must not, every collective written the way
// benches/families/collective.cpp writes it (check_fixtures.hpp's collective_result). The
// busbw figures are synthetic fractions of the datasheet, not measurements.

#include <algorithm>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "check_fixtures.hpp"
#include "gpuspec/reports/judge/check.hpp"
#include "gpuspec/reports/judge/expectations.hpp"
#include "gpuspec/reports/model/statistics.hpp"

namespace gpuspec::reports {
namespace {

using testing::collective_case;
using testing::collective_result;
using testing::healthy_report;
using testing::synthetic_specs;

expectations collective_rules() {
  auto e = load_expectations(std::filesystem::path(GPUSPEC_SPECS_DIR) / "expect.json");
  if (!e)
    throw std::runtime_error(e.error().to_string());
  return e.value();
}

check_outcome judge_report(const report& r) {
  return check(r, synthetic_specs(), collective_rules());
}

/// The verdict of the last result (the collective a test added).
const result_verdict& last(const check_outcome& o) { return o.nodes.at(0).results.back(); }

bool has_code(const result_verdict& v, const std::string& code) {
  return std::any_of(v.diagnoses.begin(), v.diagnoses.end(),
                     [&](const diagnosis& d) { return d.code == code; });
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

void links_down(report& r, int gpu) {
  for (auto* set : {&r.devices[gpu].counters_before, &r.devices[gpu].counters_after})
    (*set)["nvlink.links_active"] = reading::of(0);
}

/// Eight H100 SXM, as NVML names them, with only collectives in the report (the fixture's STREAM
/// and GEMM figures are an H200's).
report h100_node() {
  report r = healthy_report("hgx-h100-synthetic");
  for (auto& d : r.devices) {
    d.name = "NVIDIA H100 80GB HBM3";
    d.pci_device_id = 0x2330;
    d.spec_id = "h100-sxm5-80gb";
  }
  r.results.clear();
  return r;
}

} // namespace

TEST(Collectives, StockH100SxmNodeWithNvlinkNearTheCeilingPasses) {
  report r = h100_node();
  const auto specs = synthetic_specs();
  const gpu_spec* row = specs.find("h100-sxm5-80gb");
  ASSERT_NE(row, nullptr);
  for (const char* kind : {"all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce",
                           "alltoall", "sendrecv"}) {
    collective_case c;
    c.kind = kind;
    c.row = row;
    c.transports = {"P2P"};
    c.busbw_gbs = 0.8 * 450; // 80% of one direction of NVLink (synthetic)
    r.results.push_back(collective_result(r, c));
    c.size = "1MiB"; // below the plateau: reported
    c.busbw_gbs = 0.3 * 450;
    r.results.push_back(collective_result(r, c));
  }
  // NVLink SHARP's all-reduce above one direction of the link: not impossible.
  collective_case nvls;
  nvls.row = row;
  nvls.transports = {"P2P", "NVLS"};
  nvls.busbw_gbs = 1.07 * 450;
  r.results.push_back(collective_result(r, nvls));

  const auto o = judge_report(r);
  EXPECT_EQ(o.status, verdict_status::pass) << to_string(o.status);
  for (const auto& v : o.nodes[0].results) {
    EXPECT_TRUE(v.diagnoses.empty()) << v.name << ": " << v.message;
    if (v.axes_values.find("1GiB") != std::string::npos) {
      EXPECT_EQ(v.status, verdict_status::pass) << v.name << ": " << v.message;
      EXPECT_EQ(v.frame, "spec") << v.name;
      ASSERT_TRUE(v.expected) << v.name;
      EXPECT_DOUBLE_EQ(*v.expected, 450.0) << v.name;
    } else {
      EXPECT_EQ(v.status, verdict_status::skipped) << v.name;
      EXPECT_TRUE(contains(v.message, "reported, not judged")) << v.message;
    }
  }
  for (const auto& g : o.nodes[0].gpus)
    EXPECT_EQ(g.status, verdict_status::pass) << g.index;
}

TEST(Collectives, TheSameNodeSlowAt1GiBFails) {
  report r = h100_node();
  const auto specs = synthetic_specs();
  collective_case c;
  c.row = specs.find("h100-sxm5-80gb");
  c.busbw_gbs = 0.4 * 450;
  r.results.push_back(collective_result(r, c));
  const auto o = judge_report(r);
  EXPECT_EQ(last(o).status, verdict_status::fail) << last(o).message;
  EXPECT_TRUE(has_code(last(o), "GPUSPEC-BELOW-SPEC"));
  // The verdict counts for every GPU of the collective.
  for (const auto& g : o.nodes[0].gpus)
    EXPECT_EQ(g.status, verdict_status::fail) << g.index;
}

TEST(Collectives, FallbackToShmOnNvlinkIsAFindingAndP2pIsNot) {
  report healthy = healthy_report();
  healthy.results.push_back(collective_result(healthy, collective_case{}));
  const auto ok = judge_report(healthy);
  EXPECT_EQ(ok.status, verdict_status::pass) << last(ok).message;
  EXPECT_FALSE(has_code(last(ok), "GPUSPEC-NCCL-TRANSPORT-FALLBACK"));

  // The bandwidth still passes, but NCCL went through host memory: warn, naming the transport.
  report degraded = healthy_report();
  collective_case c;
  c.transports = {"P2P", "SHM"};
  degraded.results.push_back(collective_result(degraded, c));
  const auto o = judge_report(degraded);
  EXPECT_EQ(last(o).status, verdict_status::warn);
  ASSERT_TRUE(has_code(last(o), "GPUSPEC-NCCL-TRANSPORT-FALLBACK"));
  const auto& d =
      *std::find_if(last(o).diagnoses.begin(), last(o).diagnoses.end(),
                    [](const diagnosis& x) { return x.code == "GPUSPEC-NCCL-TRANSPORT-FALLBACK"; });
  EXPECT_TRUE(contains(d.cause, "SHM")) << d.cause;
  EXPECT_FALSE(contains(d.cause, "P2P,")) << d.cause;
  EXPECT_TRUE(contains(d.cause, "GPU 7: 18")) << d.cause;
  EXPECT_TRUE(contains(d.action, "NCCL_P2P_DISABLE"));
  EXPECT_TRUE(contains(d.action, "nvidia-smi nvlink -s"));
  EXPECT_EQ(d.evidence.at("nccl_transports"), R"(["P2P","SHM"])");
}

TEST(Collectives, ShmIsNotAFallbackWhereAGpuHasNoNvlink) {
  // GPU 3's links are down: NCCL must route around it, and NVLINK-DOWN says why; SHM is not
  // called a fallback from a topology that no longer offers NVLink to every GPU.
  report r = healthy_report();
  links_down(r, 3);
  collective_case c;
  c.transports = {"P2P", "SHM"};
  c.busbw_gbs = 0.3 * 450;
  r.results.push_back(collective_result(r, c));
  const auto o = judge_report(r);
  EXPECT_FALSE(has_code(last(o), "GPUSPEC-NCCL-TRANSPORT-FALLBACK"));
  // The slow collective is explained by the GPU whose links are down, not only GPU 0's state.
  EXPECT_EQ(last(o).status, verdict_status::fail);
  const auto down =
      std::find_if(last(o).diagnoses.begin(), last(o).diagnoses.end(),
                   [](const diagnosis& d) { return d.code == "GPUSPEC-NVLINK-DOWN"; });
  ASSERT_NE(down, last(o).diagnoses.end()) << last(o).message;
  EXPECT_EQ(down->device, 3);
  EXPECT_FALSE(has_code(last(o), "GPUSPEC-BELOW-SPEC"));
}

TEST(Collectives, OneRankIsReportedNotJudged) {
  // One GPU: an all-reduce's busbw is 0 by nccl-tests' factor; that is not "no work".
  report r = healthy_report();
  collective_case c;
  c.ranks = 1;
  r.results.push_back(collective_result(r, c));
  EXPECT_DOUBLE_EQ(r.results.back().stats.median, 0.0);
  const auto o = judge_report(r);
  EXPECT_EQ(last(o).status, verdict_status::skipped) << last(o).message;
  EXPECT_TRUE(contains(last(o).message, "one rank"));
  EXPECT_TRUE(last(o).diagnoses.empty());
  EXPECT_EQ(o.status, verdict_status::pass);

  // Over two ranks a zero busbw is no work.
  report two = healthy_report();
  c.ranks = 2;
  two.results.push_back(collective_result(two, c));
  two.results.back().samples.assign(10, 0.0);
  two.results.back().stats = summarize(two.results.back().samples);
  two.results.back().efficiency = 0.0;
  EXPECT_EQ(last(judge_report(two)).status, verdict_status::inconclusive);
}

TEST(Collectives, TimeoutNamesTheSizeAndTheRanksOnTheFirstGpuNotArrived) {
  report r = healthy_report();
  collective_case c;
  c.timed_out_ranks = std::vector<int>{5, 6};
  r.results.push_back(collective_result(r, c));
  const auto o = judge_report(r);
  const auto& v = last(o);
  EXPECT_EQ(v.status, verdict_status::fail);
  ASSERT_EQ(v.diagnoses.size(), 1u);
  const auto& d = v.diagnoses[0];
  EXPECT_EQ(d.code, "GPUSPEC-COLLECTIVE-TIMEOUT");
  EXPECT_EQ(d.device, 5);
  EXPECT_TRUE(contains(d.cause, "all_reduce of 1GiB")) << d.cause;
  EXPECT_TRUE(contains(d.cause, "rank 5 (GPU 5), rank 6 (GPU 6)")) << d.cause;
  EXPECT_EQ(d.evidence.at("gpus_not_finished"), "5,6");
  EXPECT_EQ(d.evidence.at("size"), "1GiB");
  EXPECT_EQ(o.nodes[0].gpus[0].status, verdict_status::fail); // every GPU of the collective

  // A collective that failed otherwise (NCCL refused a call) is a failed benchmark.
  report other = healthy_report();
  other.results.push_back(collective_result(other, c));
  other.results.back().observations.erase("ranks_not_finished");
  other.results.back().reason = "ncclAllReduce: unhandled cuda error";
  EXPECT_TRUE(has_code(last(judge_report(other)), "GPUSPEC-RESULT-FAILED"));
  EXPECT_FALSE(has_code(last(judge_report(other)), "GPUSPEC-COLLECTIVE-TIMEOUT"));
}

TEST(Collectives, WrongElementsFailAsAWrongAnswer) {
  report r = healthy_report();
  collective_case c;
  c.wrong_per_rank = {0, 0, 0, 12};
  r.results.push_back(collective_result(r, c));
  const auto o = judge_report(r);
  const auto& v = last(o);
  EXPECT_EQ(v.status, verdict_status::fail);
  ASSERT_TRUE(has_code(v, "GPUSPEC-VERIFICATION-FAILED"));
  EXPECT_TRUE(contains(v.message, "#wrong 12 (per rank: 0, 0, 0, 12")) << v.message;
}

TEST(Collectives, PcieOnlyNodeIsJudgedAgainstTheCardsLink) {
  // The H200s with no NVLink active: the ceiling is the card's Gen5 x16, per direction.
  report r = healthy_report();
  for (int i = 0; i < 8; ++i)
    links_down(r, i);
  collective_case c;
  c.transports = {"P2P", "SHM"}; // SHM between sockets is NCCL's choice on PCIe: no finding
  c.busbw_gbs = 0.8 * 63.0;
  r.results.push_back(collective_result(r, c));
  EXPECT_EQ(r.results.back().observations.at("ceiling_link"), "PCIe");
  const auto o = judge_report(r);
  const auto& v = last(o);
  EXPECT_EQ(v.status, verdict_status::pass) << v.message;
  ASSERT_TRUE(v.expected);
  EXPECT_NEAR(*v.expected, 63.0, 0.1);
  EXPECT_FALSE(has_code(v, "GPUSPEC-NCCL-TRANSPORT-FALLBACK"));
}

} // namespace gpuspec::reports

namespace gpuspec::reports {

TEST(Collectives, NvswitchNodeLinesSitBelowTheLowestHealthyFigureAndCatchAFifthLost) {
  // The lowest healthy NVSwitch figure: 8 A100 SXM all-reduce 232.5 of 300 GB/s, 0.78
  // (NVIDIA/nccl-tests#175), written on the H100 row as the same fraction of its 450 GB/s.
  const auto specs = synthetic_specs();
  const auto judged_at = [&](double fraction) {
    report r = h100_node();
    collective_case c;
    c.row = specs.find("h100-sxm5-80gb");
    c.kind = "all_gather"; // a ring: nothing reduces in the switch
    c.transports = {"P2P"};
    c.busbw_gbs = fraction * 450;
    r.results.push_back(collective_result(r, c));
    return judge_report(r);
  };
  const auto healthy = judged_at(232.5 / 300);
  EXPECT_EQ(last(healthy).status, verdict_status::pass) << last(healthy).message;
  ASSERT_TRUE(last(healthy).pass_fraction);
  EXPECT_DOUBLE_EQ(*last(healthy).pass_fraction, 0.70);
  // 20% lost (0.62): under 0.65 it passed; now it warns.
  const auto fifth = judged_at(0.8 * 232.5 / 300);
  EXPECT_EQ(last(fifth).status, verdict_status::warn) << last(fifth).message;
  // 35% lost (0.50), as a transport fallback gives: under the 0.55 warn line.
  const auto fallback = judged_at(0.65 * 232.5 / 300);
  EXPECT_EQ(last(fallback).status, verdict_status::fail) << last(fallback).message;
}

} // namespace gpuspec::reports
