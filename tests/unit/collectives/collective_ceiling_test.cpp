// The link ceiling of a collective (host collective_ceiling.hpp) on the nodes an
// operator meets: 8 x H100 SXM with NVLink up, the same node with one GPU's links down, a
// PCIe-only L40S node, one rank. The rows are the shipped spec table's; the check's own
// recomputation of the figure (reports::resolve_reference) must agree with what is carried.

#include "gpuspec/host/collective_ceiling.hpp"

#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpuspec/host/pcie_link.hpp"
#include "gpuspec/reports/model/reference.hpp"
#include "test_text.hpp"

namespace gb = gpuspec::host;
namespace r = gpuspec::reports;

namespace {

const r::spec_table& shipped() {
  static const r::spec_table table = [] {
    auto t = r::load_spec_table(std::filesystem::path(GPUSPEC_SPECS_DIR) / "gpus.json");
    if (!t)
      throw std::runtime_error(t.error().to_string());
    return std::move(t).value();
  }();
  return table;
}

/// A GPU as the inventory records it: PCIe Gen5 x16 read at idle (Gen1), `links` NVLink links.
r::device_info gpu(int index, std::int64_t links, int gen_max = 5) {
  r::device_info d;
  d.index = index;
  d.pcie = {1, gen_max, 16, 16, std::nullopt};
  d.counters_before["nvlink.links_active"] = r::reading::of(links);
  return d;
}

struct node {
  std::vector<r::device_info> devices;
  const r::gpu_spec* row = nullptr;

  gb::collective_ceiling_inputs inputs(double factor = 1.0) const {
    gb::collective_ceiling_inputs in;
    for (const auto& d : devices)
      in.gpus.push_back({&d, row});
    in.in_switch_factor = factor;
    return in;
  }
};

node h100_node(int gpus = 8) {
  node n;
  n.row = shipped().find("h100-sxm5-80gb");
  for (int i = 0; i < gpus; ++i)
    n.devices.push_back(gpu(i, 18));
  return n;
}

node l40s_node() {
  node n;
  n.row = shipped().find("l40s");
  for (int i = 0; i < 4; ++i) {
    n.devices.push_back(gpu(i, 0, 4));
    // An L40S has no NVLink: NVML answers "not supported", never 0.
    n.devices.back().counters_before["nvlink.links_active"] = r::reading::not_supported();
  }
  return n;
}

using gpuspec::testing::contains;

/// The result the ceiling would judge, as the check sees it.
r::judged_reference judged(const r::ceiling& c, const r::gpu_spec* row) {
  r::result res;
  res.unit = r::metric_unit::gigabytes_per_second;
  res.ceiling_value = c;
  res.ceiling_value.reference = r::choose_reference(c);
  return r::resolve_reference(res, row, r::default_datasheet_tolerance);
}

} // namespace

TEST(CollectiveCeiling, EightH100SxmWithNvlinkUpAreHeldToOneDirectionOfNvlink) {
  ASSERT_NE(h100_node().row, nullptr);
  const auto n = h100_node();
  const auto out = gb::collective_link_ceiling(n.inputs());
  EXPECT_EQ(out.link, gb::collective_link::nvlink);
  // 900 GB/s both directions together (the row), 450 per direction.
  ASSERT_TRUE(out.ceiling.datasheet);
  EXPECT_DOUBLE_EQ(*out.ceiling.datasheet, 450.0);
  EXPECT_EQ(out.ceiling.spec_figure, "nvlink_gbs");
  EXPECT_TRUE(contains(out.ceiling.datasheet_source, "h100-sxm5-80gb"));
  EXPECT_TRUE(contains(out.ceiling.datasheet_source, "900 GB/s"));
  EXPECT_TRUE(contains(out.ceiling.datasheet_source, "per direction"));
  EXPECT_TRUE(contains(out.ceiling.datasheet_source, "datasheet")); // the row's source
  ASSERT_TRUE(out.ceiling.clock_adjusted);
  EXPECT_DOUBLE_EQ(*out.ceiling.clock_adjusted, 450.0);
  EXPECT_EQ(out.why, "NVLink: links active on 8 of 8 GPUs");

  // The datasheet judges, and the check's own table gives the same figure: not replaced.
  EXPECT_EQ(r::choose_reference(out.ceiling), r::reference_kind::datasheet);
  const auto j = judged(out.ceiling, n.row);
  EXPECT_EQ(j.kind, r::reference_kind::datasheet);
  EXPECT_FALSE(j.replaced) << j.note;
  ASSERT_TRUE(j.value);
  EXPECT_DOUBLE_EQ(*j.value, 450.0);
}

TEST(CollectiveCeiling, AllReduceThroughTheSwitchMayShowMoreThanTheLinkButIsJudgedByIt) {
  const auto n = h100_node();
  const double factor = 2.0 * 7 / 8; // nccl-tests' all-reduce factor at 8 ranks
  const auto out = gb::collective_link_ceiling(n.inputs(factor));
  EXPECT_DOUBLE_EQ(*out.ceiling.datasheet, 450.0);
  EXPECT_DOUBLE_EQ(*out.ceiling.clock_adjusted, 450.0 * factor);
  EXPECT_TRUE(contains(out.ceiling.clock_adjusted_source, "NVLink SHARP"));
  EXPECT_EQ(r::choose_reference(out.ceiling), r::reference_kind::datasheet);
}

TEST(CollectiveCeiling, OneGpuWithItsLinksDownKeepsTheNvlinkBarAndNamesTheGpu) {
  auto n = h100_node();
  n.devices[3].counters_before["nvlink.links_active"] = r::reading::of(0);
  const auto out = gb::collective_link_ceiling(n.inputs());
  EXPECT_EQ(out.link, gb::collective_link::nvlink);
  EXPECT_DOUBLE_EQ(*out.ceiling.datasheet, 450.0);
  EXPECT_TRUE(contains(out.why, "7 of 8 GPUs")) << out.why;
  EXPECT_TRUE(contains(out.why, "GPU 3")) << out.why;
  EXPECT_TRUE(contains(out.why, "GPUSPEC-NVLINK-DOWN")) << out.why;
}

TEST(CollectiveCeiling, EveryLinkDownFallsToPcie) {
  auto n = h100_node(2);
  for (auto& d : n.devices)
    d.counters_before["nvlink.links_active"] = r::reading::of(0);
  const auto out = gb::collective_link_ceiling(n.inputs());
  EXPECT_EQ(out.link, gb::collective_link::pcie);
  EXPECT_NEAR(*out.ceiling.datasheet, *gb::pcie_link_gbs(5, 16), 1e-9);
}

TEST(CollectiveCeiling, PcieOnlyL40sNodeIsHeldToTheCardsLinkAndShowsTheTrainedOne) {
  auto n = l40s_node();
  ASSERT_NE(n.row, nullptr);
  // One GPU in a slot whose system allows Gen3 only (NVML's maximum with this system, under
  // the GPU's own Gen4): the trained figure is the slowest link.
  n.devices[2].pcie.gen_max_system = 3;
  const auto out = gb::collective_link_ceiling(n.inputs(2.0 * 3 / 4));
  EXPECT_EQ(out.link, gb::collective_link::pcie);
  EXPECT_EQ(out.ceiling.spec_figure, "pcie_gbs");
  // The card's own Gen4 x16 judges (31.5 GB/s per direction) ...
  ASSERT_TRUE(out.ceiling.datasheet);
  EXPECT_NEAR(*out.ceiling.datasheet, *gb::pcie_link_gbs(4, 16), 1e-9);
  EXPECT_TRUE(contains(out.ceiling.datasheet_source, "l40s"));
  EXPECT_TRUE(contains(out.ceiling.datasheet_source, "Gen4 x16"));
  // ... beside the slowest link as trained, at the generation the card and its slot can reach,
  // not the idle Gen1;
  // no in-switch factor on PCIe.
  ASSERT_TRUE(out.ceiling.clock_adjusted);
  EXPECT_NEAR(*out.ceiling.clock_adjusted, *gb::pcie_link_gbs(3, 16), 1e-9);
  EXPECT_TRUE(contains(out.ceiling.clock_adjusted_source, "GPU 2"));
  EXPECT_EQ(r::choose_reference(out.ceiling), r::reference_kind::datasheet);
  const auto j = judged(out.ceiling, n.row);
  EXPECT_FALSE(j.replaced) << j.note;
}

TEST(CollectiveCeiling, OneRankHasNoCeilingAndSaysWhy) {
  const auto n = h100_node(1);
  const auto out = gb::collective_link_ceiling(n.inputs());
  EXPECT_EQ(out.link, gb::collective_link::none);
  EXPECT_FALSE(out.ceiling.datasheet);
  EXPECT_FALSE(out.ceiling.clock_adjusted);
  EXPECT_EQ(r::choose_reference(out.ceiling), r::reference_kind::none);
  EXPECT_TRUE(contains(out.ceiling.datasheet_source, "one rank"));
}

TEST(CollectiveCeiling, NvlinkUpWithoutAnNvlinkFigureHasNoCeilingRatherThanAPcieOne) {
  auto n = h100_node(2);
  n.row = shipped().find("l40s"); // a row with no NVLink figure
  const auto out = gb::collective_link_ceiling(n.inputs());
  EXPECT_EQ(out.link, gb::collective_link::none);
  EXPECT_FALSE(out.ceiling.datasheet);
  EXPECT_FALSE(out.ceiling.clock_adjusted);
  EXPECT_TRUE(contains(out.why, "no spec-table row stating its NVLink bandwidth")) << out.why;

  n.row = nullptr; // no row at all: the same
  EXPECT_EQ(gb::collective_link_ceiling(n.inputs()).link, gb::collective_link::none);
}

TEST(CollectiveCeiling, PcieWithoutASpecRowIsJudgedByTheTrainedLink) {
  auto n = l40s_node();
  n.row = nullptr;
  const auto out = gb::collective_link_ceiling(n.inputs());
  EXPECT_EQ(out.link, gb::collective_link::pcie);
  EXPECT_FALSE(out.ceiling.datasheet);
  ASSERT_TRUE(out.ceiling.clock_adjusted);
  EXPECT_NEAR(*out.ceiling.clock_adjusted, *gb::pcie_link_gbs(4, 16), 1e-9);
  EXPECT_EQ(r::choose_reference(out.ceiling), r::reference_kind::clock_adjusted);
}

TEST(CollectiveCeiling, TheSlowestRowSetsTheNvlinkFigure) {
  // An H100 SXM beside an A100 SXM (600 GB/s both ways): 300 per direction.
  auto n = h100_node(2);
  gb::collective_ceiling_inputs in = n.inputs();
  in.gpus[1].spec = shipped().find("a100-sxm4-80gb");
  const auto out = gb::collective_link_ceiling(in);
  EXPECT_DOUBLE_EQ(*out.ceiling.datasheet, 300.0);
  EXPECT_TRUE(contains(out.ceiling.datasheet_source, "a100-sxm4-80gb"));
}

TEST(CollectiveCeiling, NamesTheLinks) {
  EXPECT_EQ(gb::to_string(gb::collective_link::nvlink), "NVLink");
  EXPECT_EQ(gb::to_string(gb::collective_link::pcie), "PCIe");
  EXPECT_EQ(gb::to_string(gb::collective_link::none), "none");
}

namespace {

/// `n` active 400 Gb/s NDR ports and one that is down, as network_ports.hpp reads them.
std::vector<r::network_port> ndr_ports(int n) {
  std::vector<r::network_port> out;
  for (int i = 0; i < n; ++i)
    out.push_back(
        {"mlx5_" + std::to_string(i), 1, "ACTIVE", "400 Gb/sec (4X NDR)", 400.0, "InfiniBand"});
  out.push_back({"mlx5_9", 1, "DOWN", "10 Gb/sec (4X SDR)", 10.0, "InfiniBand"});
  return out;
}

/// Two H100 nodes of `gpus` GPUs each, their ports as given.
gb::collective_ceiling_inputs two_nodes(const node& a, const node& b,
                                        std::vector<r::network_port> ports_a,
                                        std::vector<r::network_port> ports_b) {
  gb::collective_ceiling_inputs in = a.inputs();
  for (const auto& d : b.devices)
    in.gpus.push_back({&d, b.row});
  in.node_ports = {std::move(ports_a), std::move(ports_b)};
  in.node_names = {"node-a", "node-b"};
  return in;
}

} // namespace

TEST(CollectiveCeiling, AcrossNodesTheSlowerNodesPortsBoundWhenBelowNvlink) {
  const auto a = h100_node(), b = h100_node();
  // Node a: 8 x 400 Gb/s = 400 GB/s; node b: 4 x 400 Gb/s = 200 GB/s (four cables out), both
  // below the 450 GB/s of NVLink per direction.
  const auto out = gb::collective_link_ceiling(two_nodes(a, b, ndr_ports(8), ndr_ports(4)));
  EXPECT_EQ(out.link, gb::collective_link::network);
  EXPECT_FALSE(out.ceiling.datasheet);
  ASSERT_TRUE(out.ceiling.clock_adjusted);
  EXPECT_DOUBLE_EQ(*out.ceiling.clock_adjusted, 200.0);
  EXPECT_TRUE(contains(out.ceiling.clock_adjusted_source, "node-b: 4 active port(s)"));
  EXPECT_TRUE(contains(out.why, "network"));
  // The rate as found judges: the check holds the result to it.
  EXPECT_EQ(r::choose_reference(out.ceiling), r::reference_kind::clock_adjusted);
  const auto j = judged(out.ceiling, b.row);
  ASSERT_TRUE(j.value);
  EXPECT_DOUBLE_EQ(*j.value, 200.0);
}

TEST(CollectiveCeiling, AcrossNodesNvlinkStaysTheBarWhenTheNetworkIsFaster) {
  const auto a = h100_node(), b = h100_node();
  // 16 x 400 Gb/s = 800 GB/s per node: NVLink's 450 is the slowest link on the path.
  const auto out = gb::collective_link_ceiling(two_nodes(a, b, ndr_ports(16), ndr_ports(16)));
  EXPECT_EQ(out.link, gb::collective_link::nvlink);
  EXPECT_DOUBLE_EQ(*out.ceiling.datasheet, 450.0);
  EXPECT_TRUE(contains(out.why, "across 2 nodes"));
}

TEST(CollectiveCeiling, AcrossNodesANodeWithoutAnActivePortHasNoCeiling) {
  const auto a = h100_node(), b = h100_node();
  const auto out = gb::collective_link_ceiling(two_nodes(a, b, ndr_ports(8), ndr_ports(0)));
  EXPECT_EQ(out.link, gb::collective_link::none);
  EXPECT_FALSE(out.ceiling.datasheet);
  EXPECT_FALSE(out.ceiling.clock_adjusted);
  EXPECT_TRUE(contains(out.why, "node-b has no active InfiniBand or RoCE port"));
}

namespace {

/// `n`'s GPUs registered with the NVLink fabric in one domain (NVL72's trays: one cluster UUID
/// and clique across nodes), as the inventory's devices[].fabric records it.
node in_domain(node n, std::int64_t clique = 32766) {
  for (auto& d : n.devices)
    d.fabric = r::gpu_fabric{"completed", "success", "5e7e71c0-0000-4000-8000-000000072072",
                             clique,      0x1aa,     "healthy"};
  return n;
}

} // namespace

TEST(CollectiveCeiling, AcrossTraysOfOneNvlinkDomainNvlinkIsTheBarNotTheNetwork) {
  // Two trays of four GPUs, four 400 Gb/s ports each (200 GB/s): held to the network they would
  // be 200 GB/s; in one NVLink domain the fabric carries the traffic, so NVLink judges. (The
  // H100 SXM row stands in for the GB200's, which the spec helper adds.)
  const auto a = in_domain(h100_node(4)), b = in_domain(h100_node(4));
  const auto out = gb::collective_link_ceiling(two_nodes(a, b, ndr_ports(4), ndr_ports(4)));
  EXPECT_EQ(out.link, gb::collective_link::nvlink);
  ASSERT_TRUE(out.ceiling.datasheet);
  EXPECT_DOUBLE_EQ(*out.ceiling.datasheet, 450.0);
  EXPECT_TRUE(contains(out.why, "one NVLink domain (cluster 5e7e71c0-0000-4000-8000-000000072072 "
                                "clique 32766)"))
      << out.why;
}

TEST(CollectiveCeiling, RanksAcrossNvlinkDomainsOrUnregisteredAreHeldToTheNetwork) {
  const auto a = in_domain(h100_node(4));
  // Another clique: another NVLink domain.
  const auto other = in_domain(h100_node(4), 32767);
  auto out = gb::collective_link_ceiling(two_nodes(a, other, ndr_ports(4), ndr_ports(4)));
  EXPECT_EQ(out.link, gb::collective_link::network);
  EXPECT_DOUBLE_EQ(*out.ceiling.clock_adjusted, 200.0);
  // One GPU whose registration has not completed is not in the domain.
  auto pending = in_domain(h100_node(4));
  pending.devices[2].fabric->state = "in_progress";
  pending.devices[2].fabric->status = "";
  out = gb::collective_link_ceiling(two_nodes(a, pending, ndr_ports(4), ndr_ports(4)));
  EXPECT_EQ(out.link, gb::collective_link::network);
  // No fabric at all (HGX nodes joined by InfiniBand): the network, as before.
  out = gb::collective_link_ceiling(
      two_nodes(h100_node(4), h100_node(4), ndr_ports(4), ndr_ports(4)));
  EXPECT_EQ(out.link, gb::collective_link::network);
}

namespace {

/// Two H100 nodes of eight NDR ports each (a rail-optimised node: one 400 Gb/s NIC per GPU),
/// each node's GPUs one rank of the collective.
gb::collective_ceiling_inputs rails(const node& a, const node& b) {
  auto in = two_nodes(a, b, ndr_ports(8), ndr_ports(8));
  in.node_ranks = {static_cast<int>(a.devices.size()), static_cast<int>(b.devices.size())};
  return in;
}

} // namespace

TEST(CollectiveCeiling, AOneGpuPathAcrossNodesIsHeldToOneRailNotToEveryPort) {
  // A sendrecv between one GPU on each node uses the NIC nearest each GPU: one 400 Gb/s rail,
  // 50 GB/s. NCCL's maintainer: "For NDR @ 400Gbps you should see 46-48GB/s per NIC"
  // (NVIDIA/nccl-tests#290), 0.92-0.96 of it; held to the eight ports' 400 GB/s it would read
  // 12% and fail.
  const auto a = h100_node(1), b = h100_node(1);
  const auto out = gb::collective_link_ceiling(rails(a, b));
  EXPECT_EQ(out.link, gb::collective_link::network);
  ASSERT_TRUE(out.ceiling.clock_adjusted);
  EXPECT_DOUBLE_EQ(*out.ceiling.clock_adjusted, 50.0);
  EXPECT_TRUE(contains(out.why, "1 of its 8 active ports (one per rank there)"));
  EXPECT_TRUE(contains(out.ceiling.clock_adjusted_source, "inferred"));
  EXPECT_EQ(out.network_transport, "InfiniBand");
}

TEST(CollectiveCeiling, EightRanksPerNodeUseEveryRail) {
  const auto a = h100_node(), b = h100_node();
  const auto out = gb::collective_link_ceiling(rails(a, b));
  EXPECT_EQ(out.link, gb::collective_link::network);
  EXPECT_DOUBLE_EQ(*out.ceiling.clock_adjusted, 400.0);
  EXPECT_TRUE(contains(out.why, "8 active port(s)"));
  EXPECT_FALSE(contains(out.ceiling.clock_adjusted_source, "inferred"));
}

TEST(CollectiveCeiling, RoceOnEthernetPortsIsNamedAsSuch) {
  auto ports = ndr_ports(8);
  for (auto& p : ports)
    p.link_layer = "Ethernet";
  const auto a = h100_node(), b = h100_node();
  const auto out = gb::collective_link_ceiling(two_nodes(a, b, ports, ports));
  EXPECT_EQ(out.network_transport, "RoCE");
}
