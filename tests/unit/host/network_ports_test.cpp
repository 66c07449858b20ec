// The InfiniBand / RoCE port inventory (host network_ports.hpp) on a fixture sysfs tree
// (tests/fixtures/hosts/ib-two-ports: the kernel's file formats, synthetic values).

#include "gpuspec/host/network_ports.hpp"

#include <filesystem>

#include <gtest/gtest.h>

namespace gpuspec::host {
namespace {

const std::filesystem::path hosts = std::filesystem::path(GPUSPEC_FIXTURES_DIR) / "hosts";

TEST(NetworkPorts, ParsesTheKernelsStateAndRate) {
  EXPECT_EQ(parse_port_state("4: ACTIVE\n"), "ACTIVE");
  EXPECT_EQ(parse_port_state("1: DOWN"), "DOWN");
  EXPECT_EQ(parse_port_state(""), "");
  EXPECT_EQ(parse_port_rate_gbps("400 Gb/sec (4X NDR)\n"), 400.0);
  EXPECT_EQ(parse_port_rate_gbps("2.5 Gb/sec (1X SDR)"), 2.5);
  EXPECT_EQ(parse_port_rate_gbps("Gb/sec"), std::nullopt);
  EXPECT_EQ(parse_port_rate_gbps("400 Mb/sec"), std::nullopt);
  EXPECT_EQ(parse_port_rate_gbps(""), std::nullopt);
}

TEST(NetworkPorts, ReadsEveryPortOfTheFixtureTree) {
  const auto ports = read_network_ports(hosts / "ib-two-ports");
  ASSERT_EQ(ports.size(), 3u);
  EXPECT_EQ(ports[0], (reports::network_port{"mlx5_0", 1, "ACTIVE", "400 Gb/sec (4X NDR)", 400.0,
                                             "InfiniBand"}));
  EXPECT_EQ(ports[1].device, "mlx5_1");
  EXPECT_EQ(ports[1].state, "DOWN");
  EXPECT_EQ(ports[2].link_layer, "Ethernet");
  EXPECT_EQ(ports[2].rate_gbps, 2.5);
  // The down port carries nothing: 400 + 2.5 Gb/s over two active ports.
  const auto active = active_network_ports(ports);
  EXPECT_EQ(active.count, 2);
  EXPECT_DOUBLE_EQ(active.gbps, 402.5);
}

TEST(NetworkPorts, AHostWithoutRdmaHasNoPorts) {
  EXPECT_TRUE(read_network_ports(hosts / "minimal-broken").empty());
  EXPECT_TRUE(read_network_ports(hosts / "no-such-host").empty());
}

} // namespace
} // namespace gpuspec::host
