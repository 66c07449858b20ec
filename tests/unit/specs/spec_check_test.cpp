// `specs --check` as a pure function: the shipped table passes (or its exceptions are noted),
// and a wrong figure is caught.

#include <set>

#include <gtest/gtest.h>

#include "gpuspec/reports/judge/spec_check.hpp"

namespace gr = gpuspec::reports;

namespace {

gr::spec_table shipped_table() {
  auto loaded = gr::load_spec_table(GPUSPEC_SPECS_FILE);
  if (!loaded) {
    throw std::runtime_error(loaded.error().to_string());
  }
  return std::move(loaded).value();
}

} // namespace

TEST(SpecCheck, ShippedTableHasNoUnexplainedDisagreement) {
  const auto findings = gr::check_spec_table(shipped_table());
  for (const auto& f : findings) {
    EXPECT_NE(f.status, gr::spec_finding_status::disagrees)
        << f.row_id << " " << f.field << ": " << f.detail;
    if (f.status == gr::spec_finding_status::not_checked) {
      EXPECT_FALSE(f.detail.empty()) << f.row_id << " " << f.field;
    }
  }
}

TEST(SpecCheck, AtLeastTwelveRowsHaveEveryPeakRecomputed) {
  const auto table = shipped_table();
  const auto findings = gr::check_spec_table(table);
  std::set<std::string> rows_with_unchecked_peaks, rows;
  for (const auto& f : findings) {
    if (!f.field.starts_with("peaks.")) {
      continue;
    }
    rows.insert(f.row_id);
    if (f.status != gr::spec_finding_status::agrees) {
      rows_with_unchecked_peaks.insert(f.row_id);
    }
  }
  EXPECT_GE(rows.size() - rows_with_unchecked_peaks.size(), 12U);
}

TEST(SpecCheck, AWrongFigureDisagreesAndACheckNoteExplainsIt) {
  auto table = shipped_table();
  auto* row = const_cast<gr::gpu_spec*>(table.find("a100-sxm4-80gb"));
  ASSERT_NE(row, nullptr);
  row->peaks["fp16_tc"] = 624; // the sparsity figure, a typical mistake
  gr::spec_table one{{*row}};
  auto findings = gr::check_spec_table(one);
  const auto it = std::find_if(findings.begin(), findings.end(),
                               [](const auto& f) { return f.field == "peaks.fp16_tc"; });
  ASSERT_NE(it, findings.end());
  EXPECT_EQ(it->status, gr::spec_finding_status::disagrees);
  EXPECT_NEAR(*it->deviation, 1.0, 0.01);

  one.rows[0].check_notes["peaks.fp16_tc"] = "explained for the test";
  findings = gr::check_spec_table(one);
  const auto again = std::find_if(findings.begin(), findings.end(),
                                  [](const auto& f) { return f.field == "peaks.fp16_tc"; });
  EXPECT_EQ(again->status, gr::spec_finding_status::explained);
  EXPECT_EQ(again->detail, "explained for the test");
}

TEST(SpecCheck, HopperTensorFiguresUseTheTensorClock) {
  const auto table = shipped_table();
  const auto* h100 = table.find("h100-sxm5-80gb");
  ASSERT_NE(h100, nullptr);
  EXPECT_EQ(gr::datasheet_clock_mhz(*h100, "fp16_tc"), 1830.0);
  EXPECT_EQ(gr::datasheet_clock_mhz(*h100, "fp64_tc"), 1980.0);
  EXPECT_EQ(gr::datasheet_clock_mhz(*h100, "fp32"), 1980.0);
  // Without the tensor clock, the boost clock overstates the FP16 Tensor peak by 8%.
  auto copy = *h100;
  copy.tensor_clock_mhz.reset();
  const auto findings = gr::check_spec_table(gr::spec_table{{copy}});
  const auto it = std::find_if(findings.begin(), findings.end(),
                               [](const auto& f) { return f.field == "peaks.fp16_tc"; });
  EXPECT_EQ(it->status, gr::spec_finding_status::disagrees);
}

TEST(SpecCheck, MemoryBandwidthIsRecomputedWhereTheClockIsKnown) {
  const auto findings = gr::check_spec_table(shipped_table());
  int checked = 0;
  for (const auto& f : findings) {
    if (f.field == "memory.bandwidth_gbs" && f.status == gr::spec_finding_status::agrees) {
      ++checked;
    }
  }
  EXPECT_GE(checked, 8);
}

TEST(SpecCheck, UnknownArchitectureIsNotCheckedAndSaysWhy) {
  gr::gpu_spec row;
  row.id = "future";
  row.cc_major = 11;
  row.cc_minor = 0;
  row.sm_count = 148;
  row.boost_clock_mhz = 1965;
  row.peaks["fp32"] = 80;
  const auto findings = gr::check_spec_table(gr::spec_table{{row}});
  ASSERT_EQ(findings.size(), 2U);
  EXPECT_EQ(findings[0].status, gr::spec_finding_status::not_checked);
  EXPECT_NE(findings[0].detail.find("11.0"), std::string::npos);
}

// A GeForce row holds the FP32-accumulate figures its whitepaper prints; --check halves the rate
// for them (RTX 5090: 170 x 2407 x 1024 / 2 = 209.5) and not for FP4 or on a non-GeForce row.
TEST(SpecCheck, GeForceRowsAreRecomputedAtTheFp32AccumulateRate) {
  const auto table = shipped_table();
  const auto* rtx5090 = table.find("geforce-rtx-5090");
  ASSERT_NE(rtx5090, nullptr);
  EXPECT_NEAR(*gr::recomputed_peak(*rtx5090, "fp16_tc"), 209.5, 0.1);
  EXPECT_NEAR(*gr::recomputed_peak(*rtx5090, "fp8_tc"), 419.0, 0.1);
  EXPECT_NEAR(*gr::recomputed_peak(*rtx5090, "fp4_tc"), 1676.0, 0.1);
  const auto* rtx4090 = table.find("geforce-rtx-4090");
  ASSERT_NE(rtx4090, nullptr);
  EXPECT_NEAR(*gr::recomputed_peak(*rtx4090, "fp16_tc"), 165.2, 0.1);
  auto pro = *rtx5090;
  pro.name = "NVIDIA RTX PRO 5090"; // not GeForce: the full rate
  EXPECT_NEAR(*gr::recomputed_peak(pro, "fp16_tc"), 419.0, 0.1);
  for (const auto& f : gr::check_spec_table(gr::spec_table{{*rtx5090, *rtx4090}})) {
    if (f.field.starts_with("peaks.")) {
      EXPECT_EQ(f.status, gr::spec_finding_status::agrees) << f.row_id << " " << f.field;
    }
  }
}

// The Blackwell datacenter rows state no clock (the datasheet gives none): every peak is
// not_checked with that reason, never judged against a guessed clock.
TEST(SpecCheck, BlackwellRowsWithoutAPublishedClockSayWhy) {
  const auto table = shipped_table();
  for (const char* id : {"b200-sxm-180gb", "gb200-nvl72", "rtx-pro-6000-bw-server"}) {
    const auto* row = table.find(id);
    ASSERT_NE(row, nullptr) << id;
    for (const auto& f : gr::check_spec_table(gr::spec_table{{*row}})) {
      EXPECT_EQ(f.status, gr::spec_finding_status::not_checked) << id << " " << f.field;
      EXPECT_NE(f.detail.find("vendor document"), std::string::npos) << id << " " << f.field;
    }
  }
}
