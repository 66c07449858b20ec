// The per-architecture rates against datasheet figures: SM count × boost clock × rate must land
// within 2% of the vendor's printed dense peak. The figures below are typed in from the
// datasheets (not read from specs/gpus.json), so a wrong rate and a wrong table row both fail.

#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "gpuspec/reports/model/arch_rates.hpp"

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
  EXPECT_FALSE(gr::rate_per_sm_per_clock(7, 5, "bf16_tc"));  // Turing: no BF16
  EXPECT_FALSE(gr::rate_per_sm_per_clock(8, 0, "fp8_tc"));   // Ampere: no FP8
  EXPECT_FALSE(gr::rate_per_sm_per_clock(8, 9, "fp64_tc"));  // Ada: no FP64 Tensor Cores
  EXPECT_FALSE(gr::rate_per_sm_per_clock(9, 0, "fp4_tc"));   // Hopper: no FP4
  EXPECT_FALSE(gr::rate_per_sm_per_clock(9, 0, "no_tc"));    // not a key
  EXPECT_FALSE(gr::rate_per_sm_per_clock(12, 0, "fp64_tc")); // RTX Blackwell: no FP64 Tensor
  EXPECT_FALSE(gr::rate_per_sm_per_clock(10, 3, "fp64"));    // cut on Blackwell Ultra: unknown
  EXPECT_FALSE(gr::rate_per_sm_per_clock(11, 0, "fp32"));    // not in the table
  EXPECT_EQ(gr::find_arch_rates(12, 1), nullptr);
}

TEST(ArchRates, EveryRowNamesItsDocument) {
  for (const auto& row : gr::arch_rate_table()) {
    const bool named = row.source.find("whitepaper") != std::string_view::npos ||
                       row.source.find("Guide") != std::string_view::npos ||
                       row.source.find("Blog") != std::string_view::npos;
    EXPECT_TRUE(named) << row.sm;
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
    if (row.sm > 90) { // the guide's IMAD row as read covers 7.x to 9.0 only
      EXPECT_FALSE(row.int32.has_value()) << row.sm;
      continue;
    }
    ASSERT_TRUE(row.int32.has_value()) << row.sm;
    EXPECT_EQ(*row.int32, 128.0) << row.sm; // 64 IMAD per clock per SM, 2 operations each
    EXPECT_NE(gr::rate_source(row, "int32").find("Programming Guide"), std::string_view::npos);
    EXPECT_EQ(gr::rate_source(row, "fp32"), row.source);
  }
  EXPECT_EQ(gr::rate_per_sm_per_clock(9, 0, "int32"), 128.0);
}

// Blackwell: every rate inferred from totals / SMs / clock says so, and the datasheet and
// whitepaper figures it was inferred from recompute from it (docs/specs.md, "(i): inferred").
TEST(ArchRates, BlackwellInferredRatesSayWhatTheyRestOn) {
  for (const int sm : {100, 103, 120}) {
    const auto* row = gr::find_arch_rates(sm / 10, sm % 10);
    ASSERT_NE(row, nullptr) << sm;
    EXPECT_TRUE(gr::rate_is_inferred(*row, "fp4_tc")) << sm;
    EXPECT_TRUE(gr::rate_is_inferred(*row, "fp8_tc")) << sm;
    EXPECT_FALSE(gr::rate_is_inferred(*row, "fp32")) << sm;
    EXPECT_NE(gr::rate_source(*row, "fp4_tc").find("inferred"), std::string_view::npos) << sm;
    EXPECT_EQ(gr::rate_source(*row, "fp32"), row->source) << sm;
  }
  EXPECT_FALSE(gr::rate_is_inferred(*gr::find_arch_rates(9, 0), "fp16_tc"));
  EXPECT_FALSE(gr::rate_is_inferred(*gr::find_arch_rates(10, 0), "fp16")); // no partial match
}

TEST(ArchRates, BlackwellRatesReproduceTheDatasheetsAtOneClockPerProduct) {
  // Blackwell Datasheet, HGX B200 per GPU (sparse / 2): FP16 2250, FP8 4500, FP4 9000 (the
  // board's dense 72 PF / 8), TF32 1100 (printed 2.2 PF sparse). No clock is published: the
  // one that FP16 implies must give every other Tensor figure, within 2.5% for the rounded TF32.
  const double b200_clock = 2250.0e12 / (148 * 1e6 * *gr::rate_per_sm_per_clock(10, 0, "fp16_tc"));
  EXPECT_NEAR(b200_clock, 1856, 1); // below the 1965 MHz NVML max SM clock, as on Hopper
  for (const auto& [key, stated] : {std::pair{"fp8_tc", 4500.0},
                                    {"fp6_tc", 4500.0},
                                    {"int8_tc", 4500.0},
                                    {"fp4_tc", 9000.0},
                                    {"tf32_tc", 1100.0}}) {
    const double computed =
        gr::peak_from_clock(148, b200_clock, *gr::rate_per_sm_per_clock(10, 0, key));
    EXPECT_NEAR(stated / computed, 1.0, 0.025) << key;
  }
  // GB200 NVL72 per GPU: FP16 2500, FP4 10000 dense at 152 SMs.
  const double gb200_clock = 2500.0e12 / (152 * 1e6 * 8192);
  EXPECT_NEAR(gr::peak_from_clock(152, gb200_clock, *gr::rate_per_sm_per_clock(10, 0, "fp4_tc")),
              10000, 5);
  // RTX Blackwell whitepaper, RTX 5090 at 2407 MHz: FP4 1676; FP16 with FP32 accumulate 209.5
  // (the GeForce half of the table's 1024), FP8 with FP32 accumulate 419.
  EXPECT_NEAR(gr::peak_from_clock(170, 2407, *gr::rate_per_sm_per_clock(12, 0, "fp4_tc")), 1676, 1);
  EXPECT_TRUE(gr::geforce_halves_fp32_accumulate(12, 0, "fp16_tc"));
  EXPECT_TRUE(gr::geforce_halves_fp32_accumulate(12, 0, "fp8_tc"));
  EXPECT_FALSE(gr::geforce_halves_fp32_accumulate(12, 0, "fp4_tc"));
  EXPECT_FALSE(gr::geforce_halves_fp32_accumulate(10, 0, "fp16_tc"));
  EXPECT_NEAR(gr::peak_from_clock(170, 2407, *gr::rate_per_sm_per_clock(12, 0, "fp8_tc")) / 2, 419,
              1);
  // 10.3's FP4 is 1.5 times 10.0's (HGX/DGX B300 13.5 PF dense per GPU against B200's 9).
  EXPECT_EQ(*gr::rate_per_sm_per_clock(10, 3, "fp4_tc"),
            1.5 * *gr::rate_per_sm_per_clock(10, 0, "fp4_tc"));
}

TEST(ArchRates, GeForceIsTakenFromTheName) {
  EXPECT_TRUE(gr::is_geforce_name("NVIDIA GeForce RTX 5090"));
  EXPECT_FALSE(gr::is_geforce_name("NVIDIA RTX PRO 6000 Blackwell Server Edition"));
  EXPECT_FALSE(gr::is_geforce_name("NVIDIA L40"));
}
