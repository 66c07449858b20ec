// transfer.p2p's host side: the pair axis, which pair a case measures (or why none: one GPU),
// the ceiling from the path (NVLink count x per-link rate, or the slower PCIe link), built from
// the topology the inventory really probes (fake NVML fixtures).

#include "gpuspec/host/p2p_plan.hpp"

#include <cstdlib>
#include <filesystem>

#include <gtest/gtest.h>

#include "gpuspec/host/device_probe.hpp"
#include "gpuspec/host/topology.hpp"

namespace gb = gpuspec::host;
namespace gr = gpuspec::reports;

namespace {

struct node {
  std::vector<gr::device_info> devices;
  gr::topology_info topology;
};

node probe(const std::string& config) {
  ::setenv("GPUSPEC_FAKE_NVML_CONFIG",
           (std::filesystem::path(GPUSPEC_FAKE_NVML_CONFIGS) / config).c_str(), 1);
  std::string why;
  auto nvml = gb::nvml_library::open(why, GPUSPEC_FAKE_NVML_PATH);
  if (!nvml)
    throw std::runtime_error(why);
  node n;
  n.devices = gb::probe_devices(*nvml);
  n.topology = gb::probe_topology(*nvml, n.devices, "/nonexistent");
  return n;
}

std::vector<int> first_gpus(int n) {
  std::vector<int> gpus;
  for (int i = 0; i < n; ++i)
    gpus.push_back(i);
  return gpus;
}

TEST(P2pPlan, StandardPlansEveryOrderedPairOfTheGpusPresentAtAnyCount) {
  for (const int n : {1, 2, 8, 10}) {
    const auto values = gb::p2p_planned_pairs(first_gpus(n), "standard");
    ASSERT_EQ(values.size(), static_cast<std::size_t>(n * (n - 1))) << n;
    for (const auto& v : values)
      EXPECT_TRUE(gb::parse_p2p_pair(v)) << v;
  }
  const auto ten = gb::p2p_planned_pairs(first_gpus(10), "standard");
  EXPECT_EQ(ten.front(), "0->1");
  EXPECT_EQ(ten[9], "1->0");
  EXPECT_EQ(ten.back(), "9->8"); // GPUs 8 and 9 are measured: no fixed cap of 8
  EXPECT_EQ(gb::p2p_planned_pairs(first_gpus(8), "full").size(), 56u);
  // The GPUs measured, not 0..N-1: a selection {1, 4, 6} gives its own 6 pairs.
  EXPECT_EQ(gb::p2p_planned_pairs({6, 1, 4}, "standard"),
            (std::vector<std::string>{"1->4", "1->6", "4->1", "4->6", "6->1", "6->4"}));
  EXPECT_EQ(gb::p2p_plan_text(10, "standard"), "every ordered pair of the 10 GPUs (90)");
}

TEST(P2pPlan, QuickPlansARingBothWaysCoveringEveryGpu) {
  EXPECT_TRUE(gb::p2p_planned_pairs({3}, "quick").empty()) << "one GPU: no pair, no case";
  EXPECT_TRUE(gb::p2p_planned_pairs({}, "quick").empty());
  EXPECT_EQ(gb::p2p_planned_pairs({0, 1}, "quick"), (std::vector<std::string>{"0->1", "1->0"}));
  for (const int n : {3, 8, 10}) {
    const auto values = gb::p2p_planned_pairs(first_gpus(n), "quick");
    ASSERT_EQ(values.size(), static_cast<std::size_t>(2 * n)) << n;
    std::vector<int> sends(n), receives(n);
    for (const auto& v : values) {
      const auto pair = gb::parse_p2p_pair(v);
      ASSERT_TRUE(pair) << v;
      ++sends[pair->first];
      ++receives[pair->second];
      // Neighbours on the ring only.
      EXPECT_TRUE((pair->first + 1) % n == pair->second || (pair->second + 1) % n == pair->first)
          << v;
    }
    for (int g = 0; g < n; ++g) {
      EXPECT_EQ(sends[g], 2) << n << " GPUs, GPU " << g;
      EXPECT_EQ(receives[g], 2) << n << " GPUs, GPU " << g;
    }
  }
  const auto eight = gb::p2p_planned_pairs(first_gpus(8), "quick");
  EXPECT_EQ(eight.front(), "0->1");
  EXPECT_EQ(eight[7], "7->0");
  EXPECT_EQ(eight[8], "1->0");
  EXPECT_EQ(eight.back(), "0->7");
  EXPECT_EQ(gb::p2p_plan_text(8, "quick"),
            "a ring over the 8 GPUs, each to the next and back: 16 of the 56 ordered pairs "
            "(quick suite)");
  EXPECT_EQ(gb::p2p_plan_text(2, "quick"),
            "a ring over the 2 GPUs, each to the next and back: 2 of the 2 ordered pairs "
            "(quick suite)");
}

TEST(P2pPlan, PairsParseAndNonsenseDoesNot) {
  EXPECT_EQ(gb::parse_p2p_pair("3->5"), (std::pair{3, 5}));
  for (const char* bad : {"", "3", "3->3", "->1", "1->", "a->b", "1->2x", "-1->2", "1-2"})
    EXPECT_FALSE(gb::parse_p2p_pair(bad)) << bad;
}

TEST(P2pPlan, OneGpuHasNoPair) {
  EXPECT_EQ(gb::p2p_pair_skip_reason({0}, 0, 1), "one GPU: no pair");
  EXPECT_EQ(gb::p2p_pair_skip_reason({}, 0, 1), "one GPU: no pair");
}

TEST(P2pPlan, APairOutsideTheSelectionIsSkippedAndNamed) {
  EXPECT_EQ(gb::p2p_pair_skip_reason({0, 1}, 0, 5),
            "GPU 5 is not among the selected GPUs (0, 1): no pair 0->5");
  EXPECT_EQ(gb::p2p_pair_skip_reason({0, 1, 2}, 2, 0), "");
}

TEST(P2pPlan, NvlinkCeilingIsLinksTimesTheSourcedRate) {
  const auto n = probe("hgx-h100-nvswitch.json");
  const auto one = gb::p2p_ceiling(n.topology, n.devices[0], n.devices[5], 1);
  ASSERT_TRUE(one.clock_adjusted);
  EXPECT_DOUBLE_EQ(*one.clock_adjusted, 18 * 25.0); // 450 GB/s one way
  EXPECT_EQ(one.reference, gr::reference_kind::clock_adjusted);
  EXPECT_NE(one.clock_adjusted_source.find("H100 Tensor Core GPU architecture whitepaper"),
            std::string::npos)
      << one.clock_adjusted_source;
  const auto both = gb::p2p_ceiling(n.topology, n.devices[0], n.devices[5], 2);
  EXPECT_DOUBLE_EQ(*both.clock_adjusted, 900.0);
  EXPECT_EQ(gb::p2p_path_text(n.topology, 0, 5), "NVLink 4.0 x18 (through NVSwitches)");
}

TEST(P2pPlan, WithoutNvlinkTheCeilingIsTheSlowerPcieLink) {
  auto n = probe("pcie-four-gpus-two-sockets.json");
  n.devices[1].pcie.width_current = 8; // GPU 1 trained at x8
  const auto c = gb::p2p_ceiling(n.topology, n.devices[0], n.devices[1], 1);
  ASSERT_TRUE(c.clock_adjusted);
  EXPECT_NEAR(*c.clock_adjusted, 31.51, 0.01); // Gen5 x8
  EXPECT_NE(c.clock_adjusted_source.find("GPU 1's"), std::string::npos) << c.clock_adjusted_source;
  EXPECT_EQ(gb::p2p_path_text(n.topology, 0, 1), "PCIe, single_switch (PIX)");
  EXPECT_EQ(gb::p2p_path_text(n.topology, 1, 2), "PCIe, system (SYS)");
}

TEST(P2pPlan, ThePcieCeilingTakesTheMaximumGenerationNotTheIdleDowntrainedOne) {
  // Degraded reading, healthy link: at idle the inventory read GPU 0 at Gen1 (power saving),
  // its maximum is Gen5. The ceiling is the Gen5 link, as the collective ceiling reads it.
  auto n = probe("pcie-four-gpus-two-sockets.json");
  n.devices[0].pcie.gen_current = 1;
  ASSERT_EQ(n.devices[0].pcie.gen_max, 5);
  const auto c = gb::p2p_ceiling(n.topology, n.devices[0], n.devices[1], 1);
  ASSERT_TRUE(c.clock_adjusted);
  EXPECT_NEAR(*c.clock_adjusted, 63.02, 0.01) << c.clock_adjusted_source; // Gen5 x16, not Gen1
  EXPECT_NE(c.clock_adjusted_source.find("maximum generation"), std::string::npos);
  // A width trained below the maximum is a real fault and still lowers the ceiling.
  n.devices[1].pcie.width_current = 4;
  const auto narrow = gb::p2p_ceiling(n.topology, n.devices[0], n.devices[1], 1);
  EXPECT_NEAR(*narrow.clock_adjusted, 15.75, 0.01); // Gen5 x4
  // Where NVML gave no maximum, the reading is all there is.
  n.devices[0].pcie.gen_max.reset();
  n.devices[0].pcie.gen_max_system.reset();
  n.devices[1].pcie.width_current = 16;
  EXPECT_NEAR(*gb::p2p_ceiling(n.topology, n.devices[0], n.devices[1], 1).clock_adjusted, 4.0,
              0.01);
}

TEST(P2pPlan, AGpuWithItsNvlinksDownFallsBackToPcie) {
  const auto n = probe("hgx-h100-nvlink-down.json");
  const auto c = gb::p2p_ceiling(n.topology, n.devices[2], n.devices[3], 1);
  ASSERT_TRUE(c.clock_adjusted);
  EXPECT_NEAR(*c.clock_adjusted, 63.02, 0.01); // Gen5 x16, not 450
  const auto healthy = gb::p2p_ceiling(n.topology, n.devices[1], n.devices[2], 1);
  EXPECT_DOUBLE_EQ(*healthy.clock_adjusted, 450.0);
}

TEST(P2pPlan, NoLinkKnownMeansNoCeiling) {
  gr::topology_info empty;
  gr::device_info a, b;
  a.index = 0;
  b.index = 1;
  const auto c = gb::p2p_ceiling(empty, a, b, 1);
  EXPECT_FALSE(c.clock_adjusted);
  EXPECT_EQ(c.reference, gr::reference_kind::none);
  EXPECT_EQ(gb::p2p_path_text(empty, 0, 1), "unknown");
}

} // namespace
