// probe_topology against the fake NVML (tests/fakes) and sysfs trees (tests/fixtures/hosts):
// an HGX-like NVSwitch node, four PCIe GPUs over two sockets, and one GPU with its NVLinks down.

#include "gpuspec/host/topology.hpp"

#include <cstdlib>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "gpuspec/host/device_probe.hpp"

namespace gb = gpuspec::host;
namespace gr = gpuspec::reports;

namespace {

const std::string fake_path = GPUSPEC_FAKE_NVML_PATH;
const std::filesystem::path configs = GPUSPEC_FAKE_NVML_CONFIGS;
const std::filesystem::path hosts = std::filesystem::path(GPUSPEC_FIXTURES_DIR) / "hosts";

struct probed {
  gr::topology_info topology;
  std::vector<gr::device_info> devices;
};

probed probe(const std::string& config, const std::string& host) {
  ::setenv("GPUSPEC_FAKE_NVML_CONFIG", (configs / config).c_str(), 1);
  std::string why;
  auto nvml = gb::nvml_library::open(why, fake_path);
  if (!nvml)
    throw std::runtime_error(why);
  probed p;
  p.devices = gb::probe_devices(*nvml);
  p.topology = gb::probe_topology(*nvml, p.devices, hosts / host);
  return p;
}

TEST(Topology, HgxEveryPairHasEighteenNvlinksThroughTheSwitches) {
  const auto p = probe("hgx-h100-nvswitch.json", "hgx-two-socket");
  ASSERT_EQ(p.topology.gpus.size(), 8u);
  ASSERT_EQ(p.topology.pairs.size(), 56u);
  EXPECT_TRUE(p.topology.problems.empty()) << p.topology.problems.front();
  for (const auto& g : p.topology.gpus) {
    SCOPED_TRACE(g.device);
    EXPECT_EQ(g.nvlink_version, "4.0");
    ASSERT_TRUE(g.nvlink_link_gbs);
    EXPECT_DOUBLE_EQ(*g.nvlink_link_gbs, 25.0);
    EXPECT_NE(g.nvlink_link_source.find("H100"), std::string::npos);
    ASSERT_EQ(g.nvlinks.size(), 18u);
    EXPECT_EQ(g.nvlinks[0].remote_type, "switch");
    EXPECT_EQ(g.numa_node, g.device < 4 ? 0 : 1);
    EXPECT_EQ(g.cpu_list, g.device < 4 ? "0-55,112-167" : "56-111,168-223");
  }
  for (const auto& pair : p.topology.pairs) {
    SCOPED_TRACE(std::to_string(pair.src) + "->" + std::to_string(pair.dst));
    EXPECT_EQ(pair.nvlink_links, 18);
    EXPECT_EQ(pair.transport, "nvlink");
    EXPECT_EQ(pair.p2p_nvlink, "ok");
    EXPECT_EQ(pair.pcie_path, (pair.src < 4) == (pair.dst < 4) ? "numa_node" : "system");
    EXPECT_EQ(gr::topology_matrix_cell(pair), "NV18");
  }
  // Src-major order, every ordered pair once.
  EXPECT_EQ(p.topology.pairs[0].src, 0);
  EXPECT_EQ(p.topology.pairs[0].dst, 1);
  EXPECT_EQ(p.topology.pairs[7].src, 1);
  EXPECT_EQ(p.topology.pairs[7].dst, 0);
}

TEST(Topology, PcieNodeHasSwitchesAndSocketsAndNoNvlink) {
  const auto p = probe("pcie-four-gpus-two-sockets.json", "pcie-two-socket");
  ASSERT_EQ(p.topology.pairs.size(), 12u);
  for (const auto& g : p.topology.gpus) {
    EXPECT_TRUE(g.nvlinks.empty());
    EXPECT_EQ(g.nvlink_version, "");
    EXPECT_FALSE(g.nvlink_link_gbs);
    EXPECT_EQ(g.numa_node, g.device / 2);
  }
  const auto* same_switch = gr::find_pair(p.topology, 0, 1);
  ASSERT_NE(same_switch, nullptr);
  EXPECT_EQ(same_switch->pcie_path, "single_switch");
  EXPECT_EQ(same_switch->transport, "pcie");
  EXPECT_EQ(same_switch->nvlink_links, 0);
  EXPECT_EQ(same_switch->p2p_read, "ok");
  EXPECT_EQ(same_switch->p2p_nvlink, "not supported");
  EXPECT_EQ(gr::topology_matrix_cell(*same_switch), "PIX");
  const auto* across = gr::find_pair(p.topology, 1, 2);
  ASSERT_NE(across, nullptr);
  EXPECT_EQ(across->pcie_path, "system");
  EXPECT_EQ(across->p2p_read, "topology not supported");
  EXPECT_EQ(gr::topology_matrix_cell(*across), "SYS");
}

TEST(Topology, AGpuWithItsNvlinksDownReachesItsPeersOverPcie) {
  const auto p = probe("hgx-h100-nvlink-down.json", "hgx-two-socket");
  for (const auto& pair : p.topology.pairs) {
    SCOPED_TRACE(std::to_string(pair.src) + "->" + std::to_string(pair.dst));
    const bool with_3 = pair.src == 3 || pair.dst == 3;
    EXPECT_EQ(pair.nvlink_links, with_3 ? 0 : 18);
    EXPECT_EQ(pair.transport, with_3 ? "pcie" : "nvlink");
    EXPECT_EQ(pair.p2p_nvlink, with_3 ? "not supported" : "ok");
  }
  const auto* g3 = gr::find_gpu(p.topology, 3);
  ASSERT_NE(g3, nullptr);
  EXPECT_EQ(g3->nvlinks.size(), 18u);
  EXPECT_FALSE(g3->nvlinks[0].active);
  EXPECT_EQ(g3->nvlink_version, ""); // no active link to ask
}

TEST(Topology, WithoutSysfsTheNumaNodeIsMissingAndSaid) {
  const auto p = probe("pcie-four-gpus-two-sockets.json", "minimal-broken");
  for (const auto& g : p.topology.gpus)
    EXPECT_FALSE(g.numa_node);
  ASSERT_FALSE(p.topology.problems.empty());
  EXPECT_NE(p.topology.problems.front().find("GPU 0: no NUMA node"), std::string::npos)
      << p.topology.problems.front();
}

TEST(Topology, TheDriverThreadRunsOnTheSourceGpusNode) {
  gr::topology_info t;
  t.gpus = {{0, 0, "0-3", "", {}, "", {}},
            {1, 1, "4-7", "", {}, "", {}},
            {2, std::nullopt, "", "", {}, "", {}}};
  EXPECT_EQ(gb::driver_numa_node(t, 0, 1), 0);
  EXPECT_EQ(gb::driver_numa_node(t, 1, 0), 1);
  EXPECT_EQ(gb::driver_numa_node(t, 2, 1), 1); // the source has none: the destination's
  EXPECT_EQ(gb::driver_numa_node(t, 2, 5), std::nullopt);
}

TEST(Topology, DirectNvlinksCountOnlyTheLinksToThatPeer) {
  gr::gpu_topology a;
  a.nvlinks = {{0, true, "gpu", "00000000:02:00.0"},
               {1, true, "gpu", "00000000:02:00.0"},
               {2, true, "gpu", "00000000:03:00.0"},
               {3, false, "gpu", "00000000:02:00.0"}};
  gr::gpu_topology b;
  EXPECT_EQ(gb::nvlink_links_between(a, b, "0000:02:00.0"), 2); // CUDA's spelling matches
  EXPECT_EQ(gb::nvlink_links_between(a, b, "00000000:03:00.0"), 1);
  EXPECT_EQ(gb::nvlink_links_between(a, b, "00000000:04:00.0"), 0);
}

TEST(Topology, EveryNvlinkGenerationHasASourcedRate) {
  for (unsigned v = NVML_NVLINK_VERSION_1_0; v <= NVML_NVLINK_VERSION_5_0; ++v) {
    const auto gen = gb::nvlink_generation_of(v);
    ASSERT_TRUE(gen) << v;
    EXPECT_GT(gen->link_gbs, 0);
    EXPECT_FALSE(gen->source.empty());
  }
  EXPECT_FALSE(gb::nvlink_generation_of(NVML_NVLINK_VERSION_INVALID));
  EXPECT_FALSE(gb::nvlink_generation_of(99));
}

} // namespace
