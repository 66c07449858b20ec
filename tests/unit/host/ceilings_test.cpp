// The ceilings the benchmarks attach to their results (host/ceilings.hpp): pure host
// functions, tested without a GPU. Spec rows here are built in code from the figures the
// spec table holds for the GPUs named.

#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "gpuspec/host/ceilings.hpp"
#include "gpuspec/reports/model/reference.hpp"

namespace b = gpuspec::host;

TEST(ceilings, memory_bandwidth_matches_vendor_figures) {
  EXPECT_NEAR(b::memory_bandwidth_gbps(1215, 5120), 1555.2, 0.1); // A100 40GB, HBM2
  EXPECT_NEAR(b::memory_bandwidth_gbps(2619, 5120), 3352.3, 0.1); // H100 SXM, HBM3
  EXPECT_NEAR(b::memory_bandwidth_gbps(10501, 384), 1008.1, 0.1); // RTX 4090, GDDR6X
  EXPECT_EQ(b::memory_bandwidth_gbps(0, 5120), 0.0);
  EXPECT_EQ(b::memory_bandwidth_gbps(2619, 0), 0.0);
}

TEST(ceilings, ceiling_says_where_its_figures_come_from) {
  const auto c = b::memory_bandwidth_ceiling(2619.0, "median during the run", 5120);
  EXPECT_FALSE(c.datasheet.has_value());
  EXPECT_EQ(c.datasheet_source, "no spec-table row matched this GPU");
  ASSERT_TRUE(c.clock_adjusted.has_value());
  EXPECT_NEAR(*c.clock_adjusted, 3352.3, 0.1);
  EXPECT_NE(c.clock_adjusted_source.find("2619 MHz"), std::string::npos);
  EXPECT_NE(c.clock_adjusted_source.find("5120-bit"), std::string::npos);
  EXPECT_NE(c.clock_adjusted_source.find("median during the run"), std::string::npos);

  const auto no_clock = b::memory_bandwidth_ceiling(std::nullopt, "", 5120);
  EXPECT_FALSE(no_clock.clock_adjusted.has_value());
  EXPECT_NE(no_clock.clock_adjusted_source.find("no memory clock"), std::string::npos);
  const auto no_width = b::memory_bandwidth_ceiling(2619.0, "x", std::nullopt);
  EXPECT_FALSE(no_width.clock_adjusted.has_value());
  EXPECT_NE(no_width.clock_adjusted_source.find("bus width"), std::string::npos);
}

TEST(ceilings, memory_datasheet_comes_from_the_spec_row) {
  gpuspec::reports::gpu_spec h100;
  h100.id = "h100-sxm5-80gb";
  h100.memory_bandwidth_gbs = 3350;
  h100.sources["memory"] = "NVIDIA H100 datasheet";
  const auto c = b::memory_bandwidth_ceiling(2619.0, "median", 5120, &h100);
  ASSERT_TRUE(c.datasheet.has_value());
  EXPECT_EQ(*c.datasheet, 3350);
  EXPECT_NE(c.datasheet_source.find("h100-sxm5-80gb"), std::string::npos);
  EXPECT_NE(c.datasheet_source.find("NVIDIA H100 datasheet"), std::string::npos);
}

namespace {
gpuspec::reports::gpu_spec a100_row() {
  gpuspec::reports::gpu_spec s;
  s.id = "a100-sxm4-80gb";
  s.sm_count = 108;
  s.boost_clock_mhz = 1410;
  s.peaks["fp16_tc"] = 312;
  s.sources["peaks"] = "NVIDIA A100 datasheet";
  return s;
}
} // namespace

TEST(ceilings, compute_ceiling_at_the_sampled_clock_and_from_the_datasheet) {
  const auto spec = a100_row();
  b::compute_ceiling_inputs in;
  in.key = "fp16_tc";
  in.cc_major = 8;
  in.cc_minor = 0;
  in.sm_count = 108;
  in.sm_clock_mhz = 1200.0;
  in.clock_origin = "median during the run";
  in.device_name = "NVIDIA A100-SXM4-80GB";
  in.spec = &spec;
  const auto c = b::compute_ceiling(in);
  ASSERT_TRUE(c.datasheet && c.clock_adjusted);
  EXPECT_EQ(*c.datasheet, 312);
  EXPECT_NEAR(*c.clock_adjusted, 265.42, 0.01); // 108 x 1200 MHz x 2048
  EXPECT_NE(c.clock_adjusted_source.find("1200 MHz"), std::string::npos);
  EXPECT_NE(c.clock_adjusted_source.find("whitepaper"), std::string::npos);

  // No datasheet figure for the int32 pipe: computed at the row's boost clock, and said so.
  in.key = "int32";
  const auto i = b::compute_ceiling(in);
  ASSERT_TRUE(i.datasheet);
  EXPECT_NEAR(*i.datasheet, 108 * 1410e6 * 128 / 1e12, 1e-9);
  EXPECT_NE(i.datasheet_source.find("computed"), std::string::npos);
  EXPECT_NE(i.clock_adjusted_source.find("TOPS"), std::string::npos);
}

TEST(ceilings, compute_ceiling_halves_geforce_fp32_accumulate_and_names_what_is_missing) {
  b::compute_ceiling_inputs in;
  in.key = "fp16_tc";
  in.cc_major = 8;
  in.cc_minor = 9;
  in.sm_count = 128;
  in.sm_clock_mhz = 2520.0;
  in.device_name = "NVIDIA GeForce RTX 4090";
  const auto geforce = b::compute_ceiling(in);
  ASSERT_TRUE(geforce.clock_adjusted);
  EXPECT_NEAR(*geforce.clock_adjusted, 165.2, 0.2);
  EXPECT_NE(geforce.clock_adjusted_source.find("halved"), std::string::npos);
  EXPECT_EQ(geforce.datasheet_source, "no spec-table row matched this GPU");
  in.fp32_accumulate = false;
  EXPECT_NEAR(*b::compute_ceiling(in).clock_adjusted, 330.3, 0.3);

  in.cc_major = 11; // no rates for this architecture
  in.cc_minor = 0;
  const auto unknown = b::compute_ceiling(in);
  EXPECT_FALSE(unknown.clock_adjusted);
  EXPECT_NE(unknown.clock_adjusted_source.find("11.0"), std::string::npos);
  in.cc_major = 8;
  in.cc_minor = 9;
  in.sm_clock_mhz.reset();
  EXPECT_FALSE(b::compute_ceiling(in).clock_adjusted);
  in.sm_clock_mhz = 2520.0;
  in.key = "fp64_tc"; // Ada has no FP64 Tensor Cores
  EXPECT_FALSE(b::compute_ceiling(in).clock_adjusted);
}

TEST(ceilings, roofline_caps_a_memory_bound_shape_and_leaves_a_compute_bound_one) {
  gpuspec::reports::ceiling compute;
  compute.datasheet = 989.5;
  compute.datasheet_source = "spec";
  compute.clock_adjusted = 900.0;
  compute.clock_adjusted_source = "clock";
  gpuspec::reports::ceiling memory;
  memory.datasheet = 4800.0;
  memory.datasheet_source = "HBM3e";
  memory.clock_adjusted = 4700.0;
  memory.clock_adjusted_source = "memory clock";
  // M=1, N=K=8192 fp16: 2*8192*8192 flops over 2 bytes x (8192*8192 + 2*8192): about 1 flop per
  // byte, so 4.8 TFLOP/s at most.
  const double flops = 2.0 * 8192 * 8192;
  const double bytes = 2.0 * (8192.0 * 8192 + 8192 + 8192);
  const auto small = b::apply_roofline(compute, flops, bytes, memory);
  ASSERT_TRUE(small.datasheet && small.clock_adjusted);
  EXPECT_NEAR(*small.datasheet, 4800.0 * 1e9 * flops / bytes / 1e12, 1e-9);
  EXPECT_NEAR(*small.clock_adjusted, 4700.0 * 1e9 * flops / bytes / 1e12, 1e-9);
  EXPECT_NE(small.datasheet_source.find("memory-bound"), std::string::npos);
  EXPECT_NE(small.datasheet_source.find("HBM3e"), std::string::npos);
  // 8192^3: thousands of flops per byte, compute-bound: the values unchanged, the roofline
  // recorded (so check can hold the result to the same cap).
  const double big_flops = 2.0 * 8192 * 8192 * 8192;
  const double big_bytes = 2.0 * 3 * 8192 * 8192;
  auto capped = compute;
  capped.roofline_bytes = big_bytes;
  EXPECT_EQ(b::apply_roofline(compute, big_flops, big_bytes, memory), capped);
  // No bandwidth known: unchanged values.
  capped.roofline_bytes = bytes;
  EXPECT_EQ(b::apply_roofline(compute, flops, bytes, gpuspec::reports::ceiling{}), capped);
}

TEST(ceilings, shared_memory_is_32_banks_of_4_bytes_per_sm_per_clock) {
  const auto c = b::shared_memory_ceiling(132, 1980.0, "median");
  ASSERT_TRUE(c.clock_adjusted);
  EXPECT_NEAR(*c.clock_adjusted, 132 * 1980e6 * 128 / 1e9, 1e-6);
  EXPECT_FALSE(c.datasheet);
  EXPECT_FALSE(b::shared_memory_ceiling(std::nullopt, 1980.0, "").clock_adjusted);
  EXPECT_FALSE(b::shared_memory_ceiling(132, std::nullopt, "").clock_adjusted);
}

TEST(ceilings, each_names_the_spec_figure_it_stands_for_and_the_roofline_it_applied) {
  EXPECT_EQ(b::memory_bandwidth_ceiling(2619.0, "median", 5120).spec_figure,
            "memory_bandwidth_gbs");
  b::compute_ceiling_inputs in;
  in.key = "fp16_tc";
  EXPECT_EQ(b::compute_ceiling(in).spec_figure, "peaks.fp16_tc");
  in.key = "int32"; // no spec-table figure
  EXPECT_EQ(b::compute_ceiling(in).spec_figure, "");
  gpuspec::reports::ceiling compute;
  compute.datasheet = 100.0;
  EXPECT_EQ(b::apply_roofline(compute, 1e9, 4e6, gpuspec::reports::ceiling{}).roofline_bytes, 4e6);
  EXPECT_FALSE(b::shared_memory_ceiling(132, 1980.0, "median").roofline_bytes);
}

TEST(ceilings, the_reference_is_the_datasheet_for_memory_and_library_gemms_else_the_clock) {
  using gpuspec::reports::choose_reference;
  using gpuspec::reports::reference_kind;
  gpuspec::reports::ceiling c;
  c.datasheet = 4800;
  c.clock_adjusted = 4917;
  c.spec_figure = "memory_bandwidth_gbs";
  EXPECT_EQ(choose_reference(c), reference_kind::datasheet);
  c.spec_figure = "peaks.fp16_tc"; // an instruction-level peak: judged at the clock seen
  EXPECT_EQ(choose_reference(c), reference_kind::clock_adjusted);
  c.roofline_bytes = 1e9; // a library GEMM, capped by the roofline: what the card was sold as
  EXPECT_EQ(choose_reference(c), reference_kind::datasheet);
  c.datasheet.reset(); // no spec row: the clock-adjusted one
  EXPECT_EQ(choose_reference(c), reference_kind::clock_adjusted);
  c.clock_adjusted.reset();
  EXPECT_EQ(choose_reference(c), reference_kind::none);
}

// Issue 19: an H20 (compute capability 9.0, 78 SMs) must never get the Hopper Tensor Core
// ceiling: its row says the architecture's rates do not hold, so no clock-adjusted ceiling is
// derived, and the source says why. Without the row (or with a row where they hold) it is.
TEST(ceilings, a_row_whose_architecture_rates_do_not_hold_gets_no_clock_adjusted_ceiling) {
  gpuspec::reports::gpu_spec h20;
  h20.id = "h20";
  h20.cc_major = 9;
  h20.sm_count = 78;
  h20.arch_rates_apply = false;
  b::compute_ceiling_inputs in;
  in.key = "bf16_tc";
  in.cc_major = 9;
  in.cc_minor = 0;
  in.sm_count = 78;
  in.sm_clock_mhz = 1755.0;
  in.spec = &h20;
  const auto c = b::compute_ceiling(in);
  EXPECT_FALSE(c.clock_adjusted);
  EXPECT_FALSE(c.datasheet);
  EXPECT_NE(c.clock_adjusted_source.find("arch_rates_apply"), std::string::npos)
      << c.clock_adjusted_source;
  h20.arch_rates_apply = true;
  EXPECT_TRUE(b::compute_ceiling(in).clock_adjusted);
}
