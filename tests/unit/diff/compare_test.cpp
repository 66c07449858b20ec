// compare_reports: fractions of each GPU's own spec, and outliers among GPUs of one model.
// The spec rows here are built in code with made-up round figures, not datasheet values.

#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "diff_samples.hpp"
#include "gpuspec/reports/judge/compare.hpp"
#include "gpuspec/reports/model/host_names.hpp"
#include "gpuspec/reports/model/text_format.hpp"

namespace gr = gpuspec::reports;
namespace gt = gpuspec::reports::testing;

namespace {

gr::spec_table synthetic_specs() {
  gr::gpu_spec big;
  big.id = "synthetic-big";
  big.name = "Synthetic Big GPU";
  big.match_names = {"Synthetic Big GPU"};
  big.pci_device_ids = {0x1111};
  big.memory_bandwidth_gbs = 2000;
  big.peaks = {{"fp16_tc", 300.0}, {"fp32", 20.0}};
  gr::gpu_spec small;
  small.id = "synthetic-small";
  small.name = "Synthetic Small GPU";
  small.match_names = {"Synthetic Small GPU"};
  small.memory_bandwidth_gbs = 400;
  small.peaks = {{"fp16_tc", 60.0}};
  return {{big, small}};
}

gr::report node(const std::string& host, const std::string& gpu_name, double triad,
                std::uint64_t seed) {
  auto gpu = gt::synthetic_gpu(0, "S-" + host, "U-" + host, gpu_name);
  if (gpu_name == "Synthetic Big GPU")
    gpu.pci_device_id = 0x1111;
  return gt::synthetic_node(
      host, {gpu},
      {gt::synthetic_result("memory.stream.triad", 0, gt::noisy_samples(triad, 0.001, 20, seed))});
}

} // namespace

TEST(Compare, DifferentModelsReadAsFractionsOfTheirOwnSpec) {
  auto big = node("big-node", "Synthetic Big GPU", 1800, 1);
  auto small = node("small-node", "Synthetic Small GPU", 360, 2);
  auto gemm = gt::synthetic_result("gemm.cublas.fp16_tc", 0, {270, 271, 269, 270}, true,
                                   gr::metric_unit::teraflop_per_second);
  big.results.push_back(gemm);
  const auto c =
      gr::compare_reports({big, small}, {"big.json", "small.json"}, synthetic_specs(), {});
  ASSERT_EQ(c.columns.size(), 2U);
  EXPECT_EQ(c.columns[0].spec_id, "synthetic-big");
  EXPECT_EQ(c.columns[1].spec_id, "synthetic-small");
  EXPECT_EQ(c.columns[0].label, "big.json/GPU 0");
  ASSERT_EQ(c.rows.size(), 2U);
  const auto& triad = c.rows[0];
  ASSERT_TRUE(triad.cells[0] && triad.cells[1]);
  EXPECT_NEAR(*triad.cells[0]->fraction, triad.cells[0]->value / 2000, 1e-12);
  EXPECT_NEAR(*triad.cells[0]->fraction, 0.9, 0.005);
  EXPECT_NEAR(*triad.cells[1]->fraction, 0.9, 0.005);
  EXPECT_EQ(triad.cells[0]->reference, gr::reference_kind::datasheet);
  const auto& g = c.rows[1];
  ASSERT_TRUE(g.cells[0].has_value());
  EXPECT_FALSE(g.cells[1].has_value());
  EXPECT_EQ(g.cells[0]->reference, gr::reference_kind::datasheet);
  EXPECT_NEAR(*g.cells[0]->fraction, 270.0 / 300.0, 1e-12);
  EXPECT_EQ(c.outliers, 0U);
  const std::string text = gr::format_cell(triad.cells[1]);
  EXPECT_NE(text.find(" ("), std::string::npos) << text;
  EXPECT_NE(text.find("%)"), std::string::npos) << text;
}

TEST(Compare, UnknownGpuUsesTheClockAdjustedCeiling) {
  auto r = node("odd-node", "Unlisted GPU", 500, 3);
  r.results[0].ceiling_value.clock_adjusted = r.results[0].stats.median / 0.8;
  r.results[0].efficiency = 0.8;
  const auto c = gr::compare_reports({r}, {"odd.json"}, synthetic_specs(), {});
  EXPECT_EQ(c.columns[0].spec_id, "");
  ASSERT_TRUE(c.rows[0].cells[0].has_value());
  EXPECT_EQ(c.rows[0].cells[0]->reference, gr::reference_kind::clock_adjusted);
  EXPECT_DOUBLE_EQ(*c.rows[0].cells[0]->fraction, 0.8);
  r.results[0].ceiling_value.clock_adjusted.reset();
  r.results[0].efficiency.reset();
  const auto none = gr::compare_reports({r}, {}, gr::spec_table{}, {});
  EXPECT_FALSE(none.rows[0].cells[0]->fraction.has_value());
  EXPECT_EQ(none.columns[0].label, "#1/GPU 0");
}

TEST(Compare, JudgesByTheSameReferenceAsCheck) {
  // An A100 DGEMM: the harness attaches the FP64 Tensor Core peak (19.5) as its datasheet
  // ceiling; compare divides by that, not by the plain FP64 figure (9.7), as check does.
  gr::gpu_spec a100;
  a100.id = "synthetic-a100";
  a100.match_names = {"Synthetic A100"};
  a100.memory_bandwidth_gbs = 1555;
  a100.peaks = {{"fp64", 9.7}, {"fp64_tc", 19.5}};
  auto r = node("a100-node", "Synthetic A100", 1400, 4);
  auto dgemm = gt::synthetic_result("gemm.cublas.fp64", 0, {17.0, 17.1, 16.9}, true,
                                    gr::metric_unit::teraflop_per_second);
  dgemm.ceiling_value.spec_figure = "peaks.fp64_tc";
  dgemm.ceiling_value.datasheet = 19.5;
  r.results = {dgemm};
  auto c = gr::compare_reports({r}, {}, gr::spec_table{{a100}}, {});
  EXPECT_NEAR(*c.rows[0].cells[0]->fraction, 17.0 / 19.5, 1e-12);
  EXPECT_FALSE(c.rows[0].cells[0]->reference_replaced);
  // A report that lowered its own bar is held to the spec table, as in check.
  r.results[0].ceiling_value.datasheet = 9.7;
  c = gr::compare_reports({r}, {}, gr::spec_table{{a100}}, {});
  EXPECT_NEAR(*c.rows[0].cells[0]->fraction, 17.0 / 19.5, 1e-12);
  EXPECT_TRUE(c.rows[0].cells[0]->reference_replaced);
}

TEST(Compare, RowsPairByAxesNotByWhatTheHarnessFound) {
  // An A100 and a T4 on the same case: the harness's observations (GEMMs per sample, L2 size)
  // differ, the axes do not, so they share a row.
  auto a = node("a", "Synthetic Big GPU", 1800, 1);
  auto b = node("b", "Synthetic Small GPU", 360, 2);
  b.results[0].observations["array_bytes"] = 268435456;
  b.results[0].observations["l2_bytes"] = 4194304;
  const auto c = gr::compare_reports({a, b}, {"a", "b"}, synthetic_specs(), {});
  ASSERT_EQ(c.rows.size(), 1U);
  EXPECT_TRUE(c.rows[0].cells[0] && c.rows[0].cells[1]);
}

TEST(Compare, NotSupportedIsShownAsSuchUnlikeACaseNotRun) {
  auto a = node("a", "Synthetic Big GPU", 1800, 1);
  auto b = node("b", "Synthetic Big GPU", 1800, 2);
  auto c3 = node("c", "Synthetic Big GPU", 1800, 3);
  b.results[0].status = gr::result_status::not_supported;
  b.results[0].reason = "no FP8 Tensor Cores";
  c3.results.clear();
  const auto c = gr::compare_reports({a, b, c3}, {"a", "b", "c"}, synthetic_specs(), {});
  ASSERT_EQ(c.rows.size(), 1U);
  EXPECT_EQ(c.rows[0].cells[1]->state, gr::cell_state::not_supported);
  EXPECT_EQ(gr::format_cell(c.rows[0].cells[1]), "not supported");
  EXPECT_FALSE(c.rows[0].cells[2].has_value());
  EXPECT_EQ(gr::format_cell(c.rows[0].cells[2]), "—");
  EXPECT_EQ(gr::to_json(c)["rows"][0]["cells"][1]["state"], "not_supported");
}

TEST(Compare, OutlierAmongFiveNodesOfOneModel) {
  std::vector<gr::report> reports;
  const double triads[] = {1800, 1805, 1795, 1802, 1500};
  for (int i = 0; i < 5; ++i)
    reports.push_back(node("n" + std::to_string(i), "Synthetic Big GPU", triads[i], 10 + i));
  reports.push_back(node("small", "Synthetic Small GPU", 100, 20)); // alone in its model
  const auto c = gr::compare_reports(reports, {}, synthetic_specs(), {});
  ASSERT_EQ(c.rows.size(), 1U);
  const auto& cells = c.rows[0].cells;
  for (int i = 0; i < 4; ++i) {
    EXPECT_FALSE(cells[i]->outlier) << i;
    ASSERT_TRUE(cells[i]->modified_z.has_value());
    EXPECT_LT(std::abs(*cells[i]->modified_z), 3.5);
  }
  EXPECT_TRUE(cells[4]->outlier);
  EXPECT_LT(*cells[4]->modified_z, -3.5);
  EXPECT_FALSE(cells[5]->outlier);
  EXPECT_FALSE(cells[5]->modified_z.has_value()); // a group of one is not tested
  EXPECT_EQ(c.outliers, 1U);
  EXPECT_NE(gr::format_cell(cells[4]).find("OUTLIER"), std::string::npos);
  EXPECT_NE(gr::to_markdown(c).find("**"), std::string::npos);
  EXPECT_EQ(gr::to_json(c).at("outliers"), 1);
}

TEST(Compare, ModifiedZOnKnownValues) {
  // values 10, 11, 12, 13, 30: median 12, deviations 2, 1, 0, 1, 18 -> MAD 1;
  // z(30) = 0.6745 * 18 = 12.141, z(10) = -1.349.
  std::vector<gr::report> reports;
  const double v[] = {10, 11, 12, 13, 30};
  for (int i = 0; i < 5; ++i) {
    auto r = node("n" + std::to_string(i), "Synthetic Big GPU", 1, 0);
    r.results[0] = gt::synthetic_result("memory.stream.triad", 0, {v[i], v[i], v[i]});
    reports.push_back(r);
  }
  const auto c = gr::compare_reports(reports, {}, synthetic_specs(), {});
  EXPECT_NEAR(*c.rows[0].cells[4]->modified_z, 0.6745 * 18, 1e-12);
  EXPECT_NEAR(*c.rows[0].cells[0]->modified_z, -0.6745 * 2, 1e-12);
  EXPECT_TRUE(c.rows[0].cells[4]->outlier);
  EXPECT_EQ(c.outliers, 1U);
  // The deviation from the model's median the HTML page colours by: (30 - 12) / 12, (10 - 12) / 12.
  EXPECT_NEAR(*c.rows[0].cells[4]->deviation, 1.5, 1e-12);
  EXPECT_NEAR(*c.rows[0].cells[0]->deviation, -2.0 / 12, 1e-12);
  EXPECT_NEAR(gr::to_json(c).at("rows")[0].at("cells")[4].at("deviation").get<double>(), 1.5,
              1e-12);
}

TEST(Compare, ZeroMadFallsBackToRelativeDeviation) {
  std::vector<gr::report> reports;
  const double v[] = {1800, 1800, 1800, 1800, 1700, 1790};
  for (int i = 0; i < 6; ++i) {
    auto r = node("n" + std::to_string(i), "Synthetic Big GPU", 1, 0);
    r.results[0] = gt::synthetic_result("memory.stream.triad", 0, {v[i], v[i], v[i]});
    reports.push_back(r);
  }
  const auto c = gr::compare_reports(reports, {}, synthetic_specs(), {});
  EXPECT_TRUE(c.rows[0].cells[4]->outlier);  // 5.6% below the median
  EXPECT_FALSE(c.rows[0].cells[5]->outlier); // 0.6% below
  EXPECT_EQ(c.outliers, 1U);
}

TEST(Compare, FailedResultsAreShownAsFailedAndNotCompared) {
  auto a = node("a", "Synthetic Big GPU", 1800, 1);
  auto b = node("b", "Synthetic Big GPU", 1800, 2);
  b.results[0].status = gr::result_status::failed;
  b.results[0].failure = gr::failure_kind::verification;
  b.results[0].reason = "verification failed";
  const auto c = gr::compare_reports({a, b}, {"a", "b"}, synthetic_specs(), {});
  ASSERT_EQ(c.rows.size(), 1U);
  EXPECT_TRUE(c.rows[0].cells[0].has_value());
  ASSERT_TRUE(c.rows[0].cells[1].has_value());
  EXPECT_EQ(c.rows[0].cells[1]->state, gr::cell_state::failed);
  EXPECT_EQ(gr::format_cell(c.rows[0].cells[1]), "failed");
}

TEST(Compare, TinyDeviationAmongTightSiblingsIsNotAnOutlier) {
  // MAD 0.1 here: 1001 has a modified z of 10 but is 0.15% off; a measurement, not a part,
  // differs by that much.
  std::vector<gr::report> reports;
  const double v[] = {999.7, 999.5, 1001.0, 999.5, 999.6};
  for (int i = 0; i < 5; ++i) {
    auto r = node("n" + std::to_string(i), "Synthetic Big GPU", 1, 0);
    r.results[0] = gt::synthetic_result("memory.stream.triad", 0, {v[i], v[i], v[i]});
    reports.push_back(r);
  }
  const auto c = gr::compare_reports(reports, {}, synthetic_specs(), {});
  EXPECT_GT(*c.rows[0].cells[2]->modified_z, 3.5);
  EXPECT_FALSE(c.rows[0].cells[2]->outlier);
  EXPECT_EQ(c.outliers, 0U);
  gr::compare_options strict;
  strict.min_relative_deviation = 0.001;
  EXPECT_EQ(gr::compare_reports(reports, {}, synthetic_specs(), strict).outliers, 1U);
}

// Issue 31: a fleet is read in the order its hosts are counted, and its outliers are named.
TEST(Compare, HostsInNaturalOrderAndOutliersNamedWithTheirDeviation) {
  EXPECT_TRUE(gr::natural_less("node2", "node10"));
  EXPECT_FALSE(gr::natural_less("node10", "node2"));
  EXPECT_TRUE(gr::natural_less("node02", "node3"));
  EXPECT_TRUE(gr::natural_less("a", "ab"));
  EXPECT_FALSE(gr::natural_less("node7", "node7"));
  // As a shell's glob gives the files: sorted as text.
  const std::vector<std::string> hosts = {"node1", "node10", "node11", "node2", "node3"};
  std::vector<gr::report> reports;
  for (std::size_t i = 0; i < hosts.size(); ++i)
    reports.push_back(
        node(hosts[i], "Synthetic Big GPU", hosts[i] == "node10" ? 1500 : 1800 + i, 30 + i));
  const auto c = gr::compare_reports(reports, {}, synthetic_specs(), {});
  std::vector<std::string> order;
  for (const auto& col : c.columns)
    order.push_back(col.hostname);
  EXPECT_EQ(order, (std::vector<std::string>{"node1", "node2", "node3", "node10", "node11"}));
  const auto findings = gr::compare_findings(c);
  ASSERT_EQ(findings.size(), 1U);
  EXPECT_EQ(findings[0].hostname, "node10");
  EXPECT_EQ(findings[0].gpus, std::vector<int>{0});
  EXPECT_EQ(findings[0].row->bench_id, "memory.stream.triad");
  EXPECT_NEAR(findings[0].deviation, 1500.0 / 1802.0 - 1, 0.01);
  EXPECT_EQ(gr::exit_code_of(c), 1);
  // A healthy fleet has nothing to name.
  reports[1] = node("node10", "Synthetic Big GPU", 1801, 99);
  EXPECT_TRUE(
      gr::compare_findings(gr::compare_reports(reports, {}, synthetic_specs(), {})).empty());
}
