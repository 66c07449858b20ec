// `specs --check` as a pure function: the shipped table passes (or its exceptions are noted),
// and a wrong figure is caught.

#include <set>

#include <gtest/gtest.h>

#include "gpuspec/reports/spec_check.hpp"

namespace gr = gpuspec::reports;

namespace {

gr::spec_table shipped() {
  auto loaded = gr::load_spec_table(GPUSPEC_SPECS_FILE);
  if (!loaded) {
    throw std::runtime_error(loaded.error().to_string());
  }
  return std::move(loaded).value();
}

} // namespace

TEST(SpecCheck, ShippedTableHasNoUnexplainedDisagreement) {
  const auto findings = gr::check_spec_table(shipped());
  for (const auto& f : findings) {
    EXPECT_NE(f.status, gr::spec_finding_status::disagrees)
        << f.row_id << " " << f.field << ": " << f.detail;
    if (f.status == gr::spec_finding_status::not_checked) {
      EXPECT_FALSE(f.detail.empty()) << f.row_id << " " << f.field;
    }
  }
}

TEST(SpecCheck, AtLeastTwelveRowsHaveEveryPeakRecomputed) {
  const auto table = shipped();
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
  auto table = shipped();
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
  const auto table = shipped();
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
  const auto findings = gr::check_spec_table(shipped());
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
  row.cc_major = 10;
  row.cc_minor = 0;
  row.sm_count = 148;
  row.boost_clock_mhz = 1965;
  row.peaks["fp32"] = 80;
  const auto findings = gr::check_spec_table(gr::spec_table{{row}});
  ASSERT_EQ(findings.size(), 2U);
  EXPECT_EQ(findings[0].status, gr::spec_finding_status::not_checked);
  EXPECT_NE(findings[0].detail.find("10.0"), std::string::npos);
}
