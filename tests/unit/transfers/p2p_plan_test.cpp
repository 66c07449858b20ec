// transfer.p2p's host side: the pair axis, which pair a case measures (or why none: one GPU),
// the ceiling from the path (NVLink count x per-link rate, or the slower PCIe link), built from
// the topology the inventory really probes (fake NVML fixtures).

#include "gpuspec/benches/p2p_plan.hpp"

#include <cstdlib>
#include <filesystem>

#include <gtest/gtest.h>

#include "gpuspec/benches/device_probe.hpp"
#include "gpuspec/benches/topology.hpp"

namespace gb = gpuspec::benches;
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

TEST(P2pPlan, ThePairAxisHoldsEveryOrderedPairOfEightGpus) {
  const auto values = gb::p2p_pair_axis_values();
  ASSERT_EQ(values.size(), 56u);
  EXPECT_EQ(values.front(), "0->1");
  EXPECT_EQ(values[7], "1->0");
  EXPECT_EQ(values.back(), "7->6");
  for (const auto& v : values)
    EXPECT_TRUE(gb::parse_p2p_pair(v)) << v;
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
