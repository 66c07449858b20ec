// An nccl-tests log across nodes held to the network with the node's inventory (issue 30,
// lesson 3): the real two-node A3 Mega all_reduce log
// (tests/fixtures/import/nccl-tests/h100x16-2node-all_reduce-a3mega-tcpxo.log, eight ranks on
// each of two hosts). Its own NICs are GPUDirect-TCPXO, which sysfs does not list as RDMA ports:
// with its true inventory (no port) it stays inconclusive, saying why. The inventory with eight
// 400 Gb/s NDR ports is a variant made here (a DGX H100's rails), to hold the same figures to
// one port per rank.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "import_judged.hpp"

namespace gpuspec::reports {
namespace {

constexpr const char* a3mega_log = "nccl-tests/h100x16-2node-all_reduce-a3mega-tcpxo.log";

/// `gpuspec info --json` of the log's first host, made from the check fixtures' DGX H200: its
/// GPUs the log's H100s at the bus ids the log names, with `ports` NDR ports (none: no port).
/// `nvml_form`: the bus ids as NVML writes them ("00000000:04:00.0" for the log's "0000:04:00").
std::filesystem::path h100_node_inventory(const report& log, int ports, const std::string& file,
                                          bool nvml_form = false) {
  std::ifstream in(std::string(GPUSPEC_SOURCE_DIR) + "/tests/fixtures/check/healthy.json");
  auto node = nlohmann::ordered_json::parse(in);
  nlohmann::ordered_json info;
  info["host"] = node["host"];
  info["host"]["hostname"] = log.host.hostname;
  info["devices"] = node["devices"];
  for (std::size_t i = 0; i < info["devices"].size(); ++i) {
    auto& d = info["devices"][i];
    d["name"] = "NVIDIA H100 80GB HBM3";
    d["spec_id"] = "";
    d["pci_device_id"] = 0x2330;
    d["uuid"] = "";
    const std::string bus = log.devices.at(i).pci_bus_id;
    d["pci_bus_id"] = nvml_form ? "0000" + bus + ".0" : bus;
  }
  auto list = nlohmann::ordered_json::array();
  for (int p = 0; p < ports; ++p)
    list.push_back({{"device", "mlx5_" + std::to_string(p)},
                    {"port", 1},
                    {"state", "ACTIVE"},
                    {"rate", "400 Gb/sec (4X NDR)"},
                    {"rate_gbps", 400.0},
                    {"link_layer", "InfiniBand"}});
  info["host"]["network_ports"] = list;
  const auto path = std::filesystem::temp_directory_path() / file;
  std::ofstream(path) << info.dump(1);
  return path;
}

const result& eight_gib(const report& r) {
  for (const auto& x : r.results)
    if (x.axes.value("size", "") == "8GiB" && x.axes.value("placement", "") == "out_of_place")
      return x;
  throw std::runtime_error("no 8GiB row");
}

bool noted(const report& r, const std::string& words) {
  for (const auto& n : r.run.source->notes)
    if (n.find(words) != std::string::npos)
      return true;
  return false;
}

// The log writes a bus id as nccl-tests does ("0000:04:00"), the inventory as NVML does
// ("00000000:04:00.0"): the same GPUs, matched, not "not in this inventory".
TEST(NcclTestsAcrossNodes, NvmlsFormOfABusIdMatchesTheLogsForm) {
  auto r = test::imported_fixture(a3mega_log);
  ASSERT_EQ(r.devices.at(0).pci_bus_id, "0000:04:00");
  const auto info = h100_node_inventory(r, 8, "gpuspec-h100-ndr8-nvml.json", true);
  const auto error = apply_inventory(r, info);
  ASSERT_FALSE(error.has_value()) << error->to_string();
  EXPECT_EQ(r.devices.at(0).name, "NVIDIA H100 80GB HBM3");
}

// A bus id on another bus is another GPU, in any form.
TEST(NcclTestsAcrossNodes, ABusIdOnAnotherBusIsNotMatched) {
  auto r = test::imported_fixture(a3mega_log);
  const auto info = h100_node_inventory(r, 8, "gpuspec-h100-ndr8-other.json", true);
  nlohmann::ordered_json j;
  std::ifstream(info) >> j;
  j["devices"][0]["pci_bus_id"] = "00000000:05:00.0";
  std::ofstream(info) << j.dump(1);
  const auto error = apply_inventory(r, info);
  ASSERT_TRUE(error.has_value());
  EXPECT_NE(error->to_string().find("is not in this inventory"), std::string::npos);
}

TEST(NcclTestsAcrossNodes, TheInventorysPortsHoldEachNodesRanksOnePortEach) {
  auto r = test::imported_fixture(a3mega_log);
  const auto info = h100_node_inventory(r, 8, "gpuspec-h100-ndr8.json");
  const auto error = apply_inventory(r, info);
  ASSERT_FALSE(error.has_value()) << error->to_string();
  const auto& big = eight_gib(r);
  // Eight ranks on each node, eight 400 Gb/s ports: 3200 Gb/s = 400 GB/s.
  ASSERT_TRUE(big.ceiling_value.clock_adjusted);
  EXPECT_DOUBLE_EQ(*big.ceiling_value.clock_adjusted, 400.0);
  EXPECT_NE(big.ceiling_value.clock_adjusted_source.find(info.string()), std::string::npos);
  EXPECT_EQ(big.observations.at("ceiling_link"), "network");
  EXPECT_TRUE(noted(r, "busbw is held to the network"));
  const auto o = check(r, testing::shipped_specs(), testing::shipped_rules());
  bool judged = false;
  for (const auto& v : o.nodes.at(0).results)
    if (&r.results.at(v.result_index) == &big) {
      judged = true;
      EXPECT_TRUE(v.expected.has_value()) << v.message;
      EXPECT_EQ(v.status, verdict_status::pass) << v.message; // 338.82 of 400 GB/s
    }
  EXPECT_TRUE(judged);
}

TEST(NcclTestsAcrossNodes, WithoutAnActivePortTheNetworkHasNoCeilingAndSaysWhy) {
  auto r = test::imported_fixture(a3mega_log);
  const auto info = h100_node_inventory(r, 0, "gpuspec-h100-tcpxo.json");
  const auto error = apply_inventory(r, info);
  ASSERT_FALSE(error.has_value()) << error->to_string();
  EXPECT_EQ(eight_gib(r).ceiling_value.reference, reference_kind::none);
  EXPECT_TRUE(noted(r, "lists no active InfiniBand or RoCE port"));
  // Without an inventory: no ceiling either, and the note says the log states no rate.
  const auto bare = test::imported_fixture(a3mega_log);
  EXPECT_EQ(eight_gib(bare).ceiling_value.reference, reference_kind::none);
  EXPECT_TRUE(noted(bare, "whose rate the log does not state"));
}

} // namespace
} // namespace gpuspec::reports
