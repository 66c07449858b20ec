// The per-architecture rates against datasheet figures: SM count × boost clock × rate must land
// within 2% of the vendor's printed dense peak. The figures below are typed in from the
// datasheets (not read from specs/gpus.json), so a wrong rate and a wrong table row both fail.

#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "gpuspec/reports/arch_rates.hpp"

namespace gr = gpuspec::reports;

namespace {

struct datasheet_case {
  const char* gpu;
  int cc_major, cc_minor, sms;
  double clock_mhz; ///< the clock the datasheet figure is stated at
  const char* key;
  double datasheet; ///< TFLOP/s, dense
};

// clang-format off
const datasheet_case cases[] = {
    {"T4",            7, 5, 40,  1590, "fp32",    8.1},
    {"T4",            7, 5, 40,  1590, "fp16_tc", 65},
    {"T4",            7, 5, 40,  1590, "int8_tc", 130},
    {"V100 SXM2",     7, 0, 80,  1530, "fp64",    7.8},
    {"V100 SXM2",     7, 0, 80,  1530, "fp32",    15.7},
    {"V100 SXM2",     7, 0, 80,  1530, "fp16_tc", 125},
    {"V100 PCIe",     7, 0, 80,  1380, "fp32",    14},
    {"A100",          8, 0, 108, 1410, "fp64",    9.7},
    {"A100",          8, 0, 108, 1410, "fp64_tc", 19.5},
    {"A100",          8, 0, 108, 1410, "fp32",    19.5},
    {"A100",          8, 0, 108, 1410, "tf32_tc", 156},
    {"A100",          8, 0, 108, 1410, "fp16_tc", 312},
    {"A100",          8, 0, 108, 1410, "bf16_tc", 312},
    {"A100",          8, 0, 108, 1410, "int8_tc", 624},
    {"A40",           8, 6, 84,  1740, "fp32",    37.4},
    {"A40",           8, 6, 84,  1740, "tf32_tc", 74.8},
    {"A40",           8, 6, 84,  1740, "fp16_tc", 149.7},
    {"A40",           8, 6, 84,  1740, "int8_tc", 299.3},
    {"RTX A6000",     8, 6, 84,  1800, "fp32",    38.7},
    {"RTX A6000",     8, 6, 84,  1800, "fp16_tc", 154.8},
    {"RTX 6000 Ada",  8, 9, 142, 2505, "fp32",    91.1},
    {"RTX 6000 Ada",  8, 9, 142, 2505, "fp16_tc", 364.2},
    {"RTX 6000 Ada",  8, 9, 142, 2505, "fp8_tc",  728.5},
    {"H100 SXM5",     9, 0, 132, 1980, "fp64",    34},
    {"H100 SXM5",     9, 0, 132, 1980, "fp64_tc", 67},
    {"H100 SXM5",     9, 0, 132, 1980, "fp32",    67},
    {"H100 SXM5",     9, 0, 132, 1830, "tf32_tc", 494.5},
    {"H100 SXM5",     9, 0, 132, 1830, "fp16_tc", 989.5},
    {"H100 SXM5",     9, 0, 132, 1830, "fp8_tc",  1979},
    {"H100 PCIe",     9, 0, 114, 1755, "fp32",    51},
    {"H100 PCIe",     9, 0, 114, 1620, "fp16_tc", 756.5},
};
// clang-format on

} // namespace

TEST(ArchRates, DatasheetPeaksOfNineGpusWithinTwoPercent) {
  for (const auto& c : cases) {
    const auto rate = gr::rate_per_sm_per_clock(c.cc_major, c.cc_minor, c.key);
    ASSERT_TRUE(rate.has_value()) << c.gpu << " " << c.key;
    const double computed = gr::peak_from_clock(c.sms, c.clock_mhz, *rate);
    EXPECT_NEAR(computed / c.datasheet, 1.0, 0.02)
        << c.gpu << " " << c.key << ": computed " << computed << ", datasheet " << c.datasheet;
  }
}

TEST(ArchRates, KnownRatesPerSmPerClock) {
  EXPECT_EQ(gr::rate_per_sm_per_clock(8, 0, "fp16_tc"), 2048.0);
  EXPECT_EQ(gr::rate_per_sm_per_clock(9, 0, "fp8_tc"), 8192.0);
  EXPECT_EQ(gr::rate_per_sm_per_clock(8, 6, "fp32"), 256.0);
  EXPECT_EQ(gr::rate_per_sm_per_clock(7, 5, "fp64"), 4.0);
}

TEST(ArchRates, UnitsAnArchitectureLacksAreAbsent) {
  EXPECT_FALSE(gr::rate_per_sm_per_clock(7, 5, "bf16_tc")); // Turing: no BF16
  EXPECT_FALSE(gr::rate_per_sm_per_clock(8, 0, "fp8_tc"));  // Ampere: no FP8
  EXPECT_FALSE(gr::rate_per_sm_per_clock(8, 9, "fp64_tc")); // Ada: no FP64 Tensor Cores
  EXPECT_FALSE(gr::rate_per_sm_per_clock(9, 0, "fp4_tc"));  // not a key
  EXPECT_FALSE(gr::rate_per_sm_per_clock(10, 0, "fp32"));   // not in the table
  EXPECT_EQ(gr::find_arch_rates(12, 0), nullptr);
}

TEST(ArchRates, EveryRowNamesItsWhitepaper) {
  for (const auto& row : gr::arch_rate_table()) {
    EXPECT_NE(row.source.find("whitepaper"), std::string_view::npos) << row.sm;
    EXPECT_NE(row.source.find("https://"), std::string_view::npos) << row.sm;
    EXPECT_TRUE(row.fp32.has_value()) << row.sm;
  }
}

TEST(ArchRates, ClockAdjustedCeilingScalesWithTheSampledClock) {
  // An A100 held at 1200 MHz: 108 × 1200 MHz × 2048 = 265.4 TFLOP/s FP16 Tensor.
  const auto at_1200 = gr::clock_adjusted_peak(8, 0, 108, 1200, "fp16_tc");
  ASSERT_TRUE(at_1200);
  EXPECT_NEAR(*at_1200, 265.42, 0.01);
  EXPECT_FALSE(gr::clock_adjusted_peak(8, 0, 108, 0, "fp16_tc"));
  EXPECT_FALSE(gr::clock_adjusted_peak(8, 0, 0, 1200, "fp16_tc"));
  EXPECT_FALSE(gr::clock_adjusted_peak(99, 0, 108, 1200, "fp16_tc"));
}

TEST(ArchRates, MemoryBandwidthFromClockBusAndDataRate) {
  EXPECT_NEAR(gr::memory_bandwidth_gbs(877.5, 4096, 2), 898.56, 0.01); // V100
  EXPECT_NEAR(gr::memory_bandwidth_gbs(1215, 5120, 2), 1555.2, 0.01);  // A100 40GB
  EXPECT_NEAR(gr::memory_bandwidth_gbs(5000, 256, 2), 320, 0.01);      // T4, 10 Gbps
}

TEST(ArchRates, HopperTensorClockAppliesToLowPrecisionTensorKeysOnly) {
  EXPECT_TRUE(gr::is_low_precision_tensor_key("fp16_tc"));
  EXPECT_TRUE(gr::is_low_precision_tensor_key("int8_tc"));
  EXPECT_FALSE(gr::is_low_precision_tensor_key("fp64_tc"));
  EXPECT_FALSE(gr::is_low_precision_tensor_key("fp32"));
}

TEST(ArchRates, GeForceHalvesFp32AccumulateTensorRates) {
  // Ada whitepaper, appendix: GeForce RTX 4090 (128 SMs, 2520 MHz boost) peak FP16 Tensor
  // TFLOPS with FP32 accumulate 165.2, with FP16 accumulate 330.3. GA102 whitepaper: RTX 3090
  // (82 SMs, 1695 MHz) 71 and 142.
  const double ada = gr::peak_from_clock(128, 2520, *gr::rate_per_sm_per_clock(8, 9, "fp16_tc"));
  EXPECT_NEAR(ada / 330.3, 1.0, 0.02);
  EXPECT_TRUE(gr::geforce_halves_fp32_accumulate(8, 9, "fp16_tc"));
  EXPECT_NEAR(ada / 2 / 165.2, 1.0, 0.02);
  const double ga102 = gr::peak_from_clock(82, 1695, *gr::rate_per_sm_per_clock(8, 6, "fp16_tc"));
  EXPECT_NEAR(ga102 / 2 / 71.0, 1.0, 0.02);
  EXPECT_TRUE(gr::geforce_halves_fp32_accumulate(8, 6, "tf32_tc"));
  EXPECT_TRUE(gr::geforce_halves_fp32_accumulate(7, 5, "fp16_tc"));
  // Data-centre architectures and non-tensor keys are never halved.
  EXPECT_FALSE(gr::geforce_halves_fp32_accumulate(8, 0, "fp16_tc"));
  EXPECT_FALSE(gr::geforce_halves_fp32_accumulate(9, 0, "fp16_tc"));
  EXPECT_FALSE(gr::geforce_halves_fp32_accumulate(8, 9, "fp32"));
  EXPECT_FALSE(gr::geforce_halves_fp32_accumulate(8, 9, "int8_tc"));
}

TEST(ArchRates, Int32MultiplyAddRateHasItsOwnSource) {
  for (const auto& row : gr::arch_rate_table()) {
    ASSERT_TRUE(row.int32.has_value()) << row.sm;
    EXPECT_EQ(*row.int32, 128.0) << row.sm; // 64 IMAD per clock per SM, 2 operations each
    EXPECT_NE(gr::rate_source(row, "int32").find("Programming Guide"), std::string_view::npos);
    EXPECT_EQ(gr::rate_source(row, "fp32"), row.source);
  }
  EXPECT_EQ(gr::rate_per_sm_per_clock(9, 0, "int32"), 128.0);
}
