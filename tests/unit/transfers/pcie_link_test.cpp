// The PCIe link table (generation x width x line encoding / 8), held to the reports' own table,
// and the transfer ceiling: which reading of the link it uses, and what its sources say.

#include "gpuspec/host/pcie_link.hpp"

#include <string>

#include <gtest/gtest.h>

#include "gpuspec/reports/judge/check.hpp" // reports::pcie_bandwidth_gbs
#include "gpuspec/reports/model/reference.hpp"
#include "test_text.hpp"

namespace gb = gpuspec::host;
namespace r = gpuspec::reports;

namespace {

r::gpu_spec h200_row() {
  r::gpu_spec s;
  s.id = "h200-sxm-141gb";
  s.pcie_gen = 5;
  s.pcie_width = 16;
  s.sources["peaks"] = "NVIDIA H200 Tensor Core GPU datasheet";
  return s;
}

using gpuspec::testing::contains;

} // namespace

TEST(PcieRates, PerLaneRatesFollowTheLineEncodings) {
  // 2.5 and 5 GT/s with 8b/10b; 8, 16, 32 GT/s with 128b/130b; 64 GT/s FLIT, 242 of 256 bytes.
  EXPECT_DOUBLE_EQ(gb::pcie_rate_of(1)->lane_gbs(), 0.25);
  EXPECT_DOUBLE_EQ(gb::pcie_rate_of(2)->lane_gbs(), 0.5);
  EXPECT_DOUBLE_EQ(gb::pcie_rate_of(3)->lane_gbs(), 8.0 * 128.0 / 130.0 / 8.0);
  EXPECT_DOUBLE_EQ(gb::pcie_rate_of(4)->lane_gbs(), 16.0 * 128.0 / 130.0 / 8.0);
  EXPECT_DOUBLE_EQ(gb::pcie_rate_of(5)->lane_gbs(), 32.0 * 128.0 / 130.0 / 8.0);
  EXPECT_DOUBLE_EQ(gb::pcie_rate_of(6)->lane_gbs(), 64.0 * 242.0 / 256.0 / 8.0);
  EXPECT_EQ(gb::pcie_rate_of(3)->encoding, "128b/130b");
  EXPECT_EQ(gb::pcie_rate_of(1)->encoding, "8b/10b");
  for (int gen = 1; gen <= 6; ++gen) {
    SCOPED_TRACE(gen);
    const auto rate = gb::pcie_rate_of(gen);
    ASSERT_TRUE(rate);
    EXPECT_EQ(rate->generation, gen);
    EXPECT_TRUE(contains(std::string(rate->specification), "PCI Express Base Specification"));
    EXPECT_TRUE(contains(std::string(rate->specification), "PCI-SIG"));
  }
  EXPECT_TRUE(contains(std::string(gb::pcie_rate_of(6)->specification), "Revision 6.0"));
}

TEST(PcieRates, LinkBandwidthIsLaneRateTimesWidth) {
  EXPECT_NEAR(*gb::pcie_link_gbs(5, 16), 63.015, 0.001); // H100/H200 PCIe, per direction
  EXPECT_NEAR(*gb::pcie_link_gbs(4, 16), 31.508, 0.001);
  EXPECT_NEAR(*gb::pcie_link_gbs(3, 16), 15.754, 0.001);
  EXPECT_NEAR(*gb::pcie_link_gbs(4, 8), 15.754, 0.001); // a riser at x8
  EXPECT_DOUBLE_EQ(*gb::pcie_link_gbs(1, 16), 4.0);     // idle Gen1
  EXPECT_DOUBLE_EQ(*gb::pcie_link_gbs(6, 16), 121.0);
  EXPECT_FALSE(gb::pcie_link_gbs(0, 16));
  EXPECT_FALSE(gb::pcie_link_gbs(7, 16)); // not in the table: unknown, never guessed
  EXPECT_FALSE(gb::pcie_link_gbs(-1, 16));
  EXPECT_FALSE(gb::pcie_link_gbs(5, 0));
  EXPECT_FALSE(gb::pcie_link_gbs(5, -4));
}

TEST(PcieRates, AgreesWithTheReportsTable) {
  // One table of figures, two users: the check's pcie_gbs and the transfer ceiling.
  for (int gen = 1; gen <= 6; ++gen)
    for (int width : {1, 2, 4, 8, 16, 32}) {
      SCOPED_TRACE(testing::Message() << "Gen" << gen << " x" << width);
      const auto ours = gb::pcie_link_gbs(gen, width);
      const auto theirs = r::pcie_bandwidth_gbs(gen, width);
      ASSERT_TRUE(ours && theirs);
      EXPECT_NEAR(*ours / *theirs, 1.0, 1e-12); // the same arithmetic, unrounded
    }
  EXPECT_EQ(gb::pcie_link_gbs(7, 16).has_value(), r::pcie_bandwidth_gbs(7, 16).has_value());
}

TEST(PcieRates, FormulaSpellsOutTheArithmeticAndTheSource) {
  const std::string one = gb::pcie_link_formula(5, 16, 1);
  EXPECT_TRUE(contains(one, "PCIe Gen5 x16")) << one;
  EXPECT_TRUE(contains(one, "32 GT/s x 16 lanes x 128b/130b / 8 = 63.02 GB/s per direction"))
      << one;
  EXPECT_TRUE(contains(one, "Revision 5.0, PCI-SIG, 2019")) << one;
  EXPECT_FALSE(contains(one, "directions")) << one;
  const std::string two = gb::pcie_link_formula(5, 16, 2);
  EXPECT_TRUE(contains(two, "x 2 directions = 126.03 GB/s")) << two;
  EXPECT_TRUE(contains(gb::pcie_link_formula(6, 16, 1), "FLIT")) << gb::pcie_link_formula(6, 16, 1);
  EXPECT_EQ(gb::pcie_link_formula(9, 16, 1), "");
}

/// A device as the inventory reads it: idle at `gen_current`, NVML's GPU maximum `gpu_max`, the
/// maxima with this system `system_gen` x `system_width`.
r::device_info device(int gen_current, int gpu_max, int system_gen, int system_width) {
  r::device_info d;
  d.pcie = {gen_current, gpu_max, 16, system_width, system_gen};
  return d;
}

TEST(PcieCeiling, TheReachableLinkJudgesNotTheLinkAsTrained) {
  // A Gen5 x16 card in a Gen5 x16 slot that trained at Gen3 x16: the ceiling stays Gen5 x16,
  // so the transfer's efficiency shows the lost bandwidth.
  const r::gpu_spec row = h200_row();
  gb::pcie_ceiling_inputs in;
  in.under_load = gb::pcie_link_state{3, 16};
  in.under_load_samples = 12;
  in.inventory = {1, 16};
  in.reachable = r::pcie_reachable_link(device(1, 5, 5, 16), &row);
  in.spec = &row;
  const r::ceiling c = gb::pcie_transfer_ceiling(in);
  ASSERT_TRUE(c.clock_adjusted);
  EXPECT_NEAR(*c.clock_adjusted, 63.015, 0.001);
  EXPECT_TRUE(contains(c.clock_adjusted_source, "the card and its slot can reach"))
      << c.clock_adjusted_source;
  EXPECT_TRUE(contains(c.clock_adjusted_source, "the link as trained: Gen3 x16"))
      << c.clock_adjusted_source;
  EXPECT_TRUE(contains(c.clock_adjusted_source, "12 sample(s)")) << c.clock_adjusted_source;
  // Gen4 x8 trained: the same ceiling.
  in.under_load = gb::pcie_link_state{4, 8};
  EXPECT_NEAR(*gb::pcie_transfer_ceiling(in).clock_adjusted, 63.015, 0.001);
}

TEST(PcieCeiling, AGpuAttachedByNvlinkC2cIsJudgedAgainstTheC2cLink) {
  // A Grace-based GPU's host transfers cross NVLink-C2C: whatever PCIe link NVML reports, the
  // ceiling is half the row's c2c_gbs per direction (the figure here is a test row's).
  r::gpu_spec row = h200_row();
  row.c2c_gbs = 900;
  row.sources["c2c"] = "a test row";
  gb::pcie_ceiling_inputs in;
  in.under_load = gb::pcie_link_state{5, 16};
  in.reachable = r::pcie_reachable_link(device(1, 5, 5, 16), &row);
  in.spec = &row;
  in.c2c = true;
  const r::ceiling one = gb::pcie_transfer_ceiling(in);
  ASSERT_TRUE(one.datasheet);
  EXPECT_DOUBLE_EQ(*one.datasheet, 450);
  EXPECT_FALSE(one.clock_adjusted);
  EXPECT_EQ(one.reference, r::reference_kind::datasheet);
  EXPECT_TRUE(contains(one.datasheet_source, "NVLink-C2C")) << one.datasheet_source;
  in.directions = 2;
  EXPECT_DOUBLE_EQ(*gb::pcie_transfer_ceiling(in).datasheet, 900);
  // No C2C figure in the row: no ceiling, and the source says why.
  row.c2c_gbs.reset();
  const r::ceiling none = gb::pcie_transfer_ceiling(in);
  EXPECT_FALSE(none.datasheet);
  EXPECT_TRUE(contains(none.datasheet_source, "states no C2C link figure"))
      << none.datasheet_source;
}

TEST(PcieCeiling, ASlotThatCapsTheLinkLowersTheCeilingToWhatItAllows) {
  // Behind a Gen4 riser (NVML: GPU maximum Gen5, with this system Gen4): judged against Gen4
  // x16, what the card can reach there; the cap itself is gpu.pcie_slot's finding.
  const r::gpu_spec row = h200_row();
  gb::pcie_ceiling_inputs in;
  in.under_load = gb::pcie_link_state{4, 16};
  in.under_load_samples = 5;
  in.reachable = r::pcie_reachable_link(device(1, 5, 4, 16), &row);
  in.spec = &row;
  const r::ceiling c = gb::pcie_transfer_ceiling(in);
  EXPECT_NEAR(*c.clock_adjusted, 31.508, 0.001);
  EXPECT_TRUE(contains(c.clock_adjusted_source, "system Gen4 x16 (NVML)"))
      << c.clock_adjusted_source;
  EXPECT_NEAR(*c.datasheet, 63.015, 0.001); // the card's own, beside it
  // An x8 slot under the x16 card: x8.
  in.reachable = r::pcie_reachable_link(device(1, 5, 5, 8), &row);
  EXPECT_NEAR(*gb::pcie_transfer_ceiling(in).clock_adjusted, 31.508, 0.001);
}

TEST(PcieCeiling, UnderLoadReadingJudgesWhereNoMaximumIsKnown) {
  const r::gpu_spec row = h200_row();
  gb::pcie_ceiling_inputs in;
  in.directions = 1;
  in.under_load = gb::pcie_link_state{5, 16};
  in.under_load_samples = 12;
  in.inventory = {1, 16}; // idle Gen1 before the run: not used
  in.spec = &row;
  const r::ceiling c = gb::pcie_transfer_ceiling(in);
  ASSERT_TRUE(c.clock_adjusted);
  EXPECT_NEAR(*c.clock_adjusted, 63.015, 0.001);
  EXPECT_TRUE(contains(c.clock_adjusted_source, "under load")) << c.clock_adjusted_source;
  EXPECT_TRUE(contains(c.clock_adjusted_source, "12 sample(s)")) << c.clock_adjusted_source;
  EXPECT_TRUE(contains(c.clock_adjusted_source, "PCIe Gen5 x16")) << c.clock_adjusted_source;
  ASSERT_TRUE(c.datasheet);
  EXPECT_NEAR(*c.datasheet, 63.015, 0.001);
  EXPECT_TRUE(contains(c.datasheet_source, "spec row h200-sxm-141gb")) << c.datasheet_source;
  EXPECT_TRUE(contains(c.datasheet_source, "the card's own maximum")) << c.datasheet_source;
  EXPECT_TRUE(contains(c.datasheet_source, "H200 Tensor Core GPU datasheet")) << c.datasheet_source;
}

TEST(PcieCeiling, BidirCountsBothDirections) {
  const r::gpu_spec row = h200_row();
  gb::pcie_ceiling_inputs in;
  in.directions = 2;
  in.under_load = gb::pcie_link_state{4, 16};
  in.under_load_samples = 3;
  in.spec = &row;
  const r::ceiling c = gb::pcie_transfer_ceiling(in);
  EXPECT_NEAR(*c.clock_adjusted, 2 * 31.508, 0.002);
  EXPECT_NEAR(*c.datasheet, 2 * 63.015, 0.002);
  EXPECT_TRUE(contains(c.clock_adjusted_source, "x 2 directions")) << c.clock_adjusted_source;
  EXPECT_TRUE(contains(c.datasheet_source, "x 2 directions")) << c.datasheet_source;
}

TEST(PcieCeiling, WithoutAReadingUnderLoadTheInventorysIsUsedAndSaidToBeIdle) {
  gb::pcie_ceiling_inputs in;
  in.inventory = {1, 16};
  in.under_load = gb::pcie_link_state{std::nullopt, 16}; // a generation NVML did not give
  const r::ceiling c = gb::pcie_transfer_ceiling(in);
  ASSERT_TRUE(c.clock_adjusted);
  EXPECT_DOUBLE_EQ(*c.clock_adjusted, 4.0);
  EXPECT_TRUE(contains(c.clock_adjusted_source, "before the run, not under load"))
      << c.clock_adjusted_source;
  EXPECT_TRUE(contains(c.clock_adjusted_source, "down-trained")) << c.clock_adjusted_source;
  EXPECT_FALSE(c.datasheet);
  EXPECT_EQ(c.datasheet_source, "no spec-table row matched this GPU");
}

TEST(PcieCeiling, NoReadingAtAllGivesNoCeilingAndSaysSo) {
  r::gpu_spec row = h200_row();
  row.pcie_gen = 0; // a row that states no PCIe link
  gb::pcie_ceiling_inputs in;
  in.spec = &row;
  const r::ceiling c = gb::pcie_transfer_ceiling(in);
  EXPECT_FALSE(c.clock_adjusted);
  EXPECT_TRUE(contains(c.clock_adjusted_source, "no PCIe link")) << c.clock_adjusted_source;
  EXPECT_FALSE(c.datasheet);
  EXPECT_TRUE(contains(c.datasheet_source, "states no PCIe")) << c.datasheet_source;
}
