// The HTML format (reports/src/render_html*.cpp): the golden SVG of each plot kind from fixed
// inputs, and the page of each document from the fixtures: verdict first, findings before the
// plots, nothing outside the page, the embedded JSON equal to the report, the size bound.
// The browser and HTML5-parser tests are browser_test.py and html5_test.py (CMakeLists.txt).
//
// Goldens: tests/fixtures/html/*.svg, written by this test when GPUSPEC_UPDATE_GOLDEN=1 is set
// (then read by a person before they are committed).

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "gpuspec/reports/health/health.hpp"
#include "gpuspec/reports/judge/check.hpp"
#include "gpuspec/reports/judge/compare.hpp"
#include "gpuspec/reports/judge/diff.hpp"
#include "gpuspec/reports/judge/expectations.hpp"
#include "gpuspec/reports/model/report_json.hpp"
#include "gpuspec/reports/model/spec_table.hpp"
#include "gpuspec/reports/render/render.hpp"
#include "render_html_detail.hpp"
#include "render_html_plots.hpp"
#include "svg_writer.hpp"
#include "test_text.hpp"

namespace gpuspec::reports {
namespace {

namespace fs = std::filesystem;
const fs::path fixtures = GPUSPEC_FIXTURES_DIR;

using gpuspec::testing::read_text;

void expect_golden(const std::string& name, const std::string& svg) {
  const fs::path golden = fixtures / "html" / (name + ".svg");
  const char* update = std::getenv("GPUSPEC_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::ofstream(golden, std::ios::binary) << svg;
    GTEST_SKIP() << "wrote " << golden;
  }
  ASSERT_TRUE(fs::exists(golden)) << golden;
  EXPECT_EQ(read_text(golden), svg) << "the " << name << " plot differs from " << golden;
}

TEST(html_plots, efficiency_golden) {
  std::vector<html::efficiency_case> cases = {
      {"memory.stream.triad dtype=fp32",
       0.8,
       0.7,
       {{"GPU 0", 0.906, 0.93, "pass"}, {"GPU 1", 0.72, 0.74, "warn"}}},
      {"gemm.cublas.fp16_tc shape=8192x8192x8192", 0.6, 0.5, {{"GPU 0", 0.45, 0.52, "fail"}}},
      {"collective.all_reduce size=1GiB",
       std::nullopt,
       std::nullopt,
       {{"8 GPUs", std::nullopt, 0.81, "pass"}}}};
  expect_golden("efficiency", html::efficiency_plot(cases));
}

TEST(html_plots, size_golden) {
  std::vector<html::size_series> series = {
      {"memory=pinned GPU 0", {{4096, 1.1}, {1048576, 18.0}, {268435456, 25.2}}, 31.5},
      {"memory=pageable GPU 0", {{4096, 0.4}, {1048576, 9.0}, {268435456, 12.1}}, 31.5}};
  expect_golden("size", html::size_plot("transfer.h2d", "GB/s", series));
}

TEST(html_plots, p2p_golden) {
  std::vector<html::p2p_cell> cells = {
      {0, 1, 370.0, 0.82, "NV18"}, {1, 0, 368.0, 0.81, "NV18"},
      {0, 2, 24.0, 0.45, "PHB"},   {2, 0, 25.0, 0.47, "PHB"},
      {1, 2, 23.5, 0.44, "PHB"},   {2, 1, std::nullopt, std::nullopt, "PHB"}};
  expect_golden("p2p", html::p2p_heatmap({0, 1, 2}, cells, "GB/s"));
}

TEST(html_plots, telemetry_golden) {
  html::telemetry_series s{"GPU 2",
                           {{1.0, 3.0, 1980, 71, 650, {}, "memory.stream.copy"},
                            {3.5, 6.0, 1650, 92, 690, {"hw_thermal", "sw_thermal"}, "gemm"},
                            {6.5, 8.0, 1755, 80, 700, {"sw_power_cap"}, "gemm fp8"}},
                           700.0,
                           {{4.2, "xid 79"}},
                           1980.0,
                           90.0,
                           std::nullopt};
  expect_golden("telemetry", html::telemetry_plot(s));
}

TEST(html_plots, diff_golden) {
  std::vector<html::diff_bar> bars = {{"memory.stream.triad GPU 0", -0.12, "regression"},
                                      {"memory.stream.copy GPU 0", 0.01, "unchanged"},
                                      {"gemm.cublas.fp16_tc GPU 0", 0.06, "improved"},
                                      {"transfer.h2d GPU 0", std::nullopt, "missing_in_new"}};
  expect_golden("diff", html::diff_plot(bars, 0.02));
}

TEST(html_plots, compare_golden) {
  std::vector<html::heat_row> rows = {
      {"node-2", "GPU 0", {{0.01, false, "a"}, {-0.05, false, "b"}}},
      {"node-2", "GPU 1", {{-0.45, true, "c"}, {std::nullopt, false, "d"}}},
      {"node-10", "GPU 0", {{0.02, false, "e"}, {0.3, false, "f"}}}};
  expect_golden("compare", html::compare_heatmap(
                               rows, {"memory.stream.triad fp32", "gemm.cublas.fp16_tc"}, 0.03));
}

TEST(html_plots, roofline_golden) {
  html::roofline_input r{
      "h100-sxm5-80gb",
      3.0e12,
      700e12,
      {{"gemm.cublas.fp16_tc 8192", 2730.0, 690e12}, {"gemm 1024", 341.0, 400e12}}};
  expect_golden("roofline", html::roofline_plot(r));
}

TEST(html_plots, heat_bins_are_the_stated_edges) {
  EXPECT_EQ(html::heat_bin(0.0), 0U);
  EXPECT_EQ(html::heat_bin(0.49), 0U);
  EXPECT_EQ(html::heat_bin(0.5), 1U);
  EXPECT_EQ(html::heat_bin(0.949), 6U);
  EXPECT_EQ(html::heat_bin(1.0), 8U);
  EXPECT_EQ(html::heat_bin(3.0), 8U);
}

TEST(html_plots, every_plot_has_a_text_alternative) {
  const std::string svg = html::diff_plot({{"x", 0.1, "improved"}}, 0.02);
  EXPECT_NE(svg.find("role=\"img\""), std::string::npos);
  EXPECT_NE(svg.find("<title>Change per metric</title>"), std::string::npos);
  EXPECT_NE(svg.find("<desc>1 metrics;"), std::string::npos);
}

TEST(svg_writer, escapes_text_and_writes_fixed_decimals) {
  EXPECT_EQ(svg::escape("a<b & \"c\"'"), "a&lt;b &amp; &quot;c&quot;&#39;");
  EXPECT_EQ(svg::num(-0.01), "0.0");
  EXPECT_EQ(svg::num(12.345), "12.3");
  const svg::scale log{1, 1000, 0, 300, true};
  EXPECT_DOUBLE_EQ(log.at(10), 100);
  EXPECT_EQ(log.ticks().size(), 4U);
  const svg::scale bytes{1024, 1048576, 0, 100, true, true};
  EXPECT_EQ(bytes.ticks().size(), 6U); // 2^10, 2^12, ... 2^20 (stride 2)
  EXPECT_EQ(svg::tick_label(268435456, true), "256 MiB");
}

// ---- pages ----------------------------------------------------------------------------------

struct judged {
  std::vector<report> reports;
  check_outcome outcome;
};

judged judge_report(const std::vector<std::string>& names) {
  judged j;
  for (const auto& n : names) {
    auto r = load_report(fixtures / "check" / (n + ".json"));
    EXPECT_TRUE(r) << n;
    j.reports.push_back(std::move(r).value());
  }
  const auto specs = load_spec_table(fs::path(GPUSPEC_SPECS_DIR) / "gpus.json").value();
  const auto rules = load_expectations(fs::path(GPUSPEC_SPECS_DIR) / "expect.json").value();
  j.outcome = check(j.reports, specs, rules);
  return j;
}

std::string check_html(const judged& j) {
  render_options o;
  o.reports = &j.reports;
  return make_renderer(output_format::html, o)->render(j.outcome);
}

/// The text of <script type="application/json" id="ID">, the \u003c escapes left as they are
/// (a JSON reader turns them back into '<').
std::string embedded(const std::string& page, const std::string& id) {
  const std::string open = "<script type=\"application/json\" id=\"" + id + "\">\n";
  const auto at = page.find(open);
  if (at == std::string::npos)
    return "";
  const auto from = at + open.size();
  return page.substr(from, page.find("</script>", from) - from);
}

/// Nothing that loads or links anything: no src or href attribute, no CSS url() or @import, no
/// form action (a datasheet's address may appear as text in the report: that is no link).
void expect_offline(const std::string& page) {
  for (const char* banned : {" src=", " href=", "url(", "@import", " action=", "xlink:", "xmlns"})
    EXPECT_EQ(page.find(banned), std::string::npos) << "the page names " << banned;
}

TEST(html_page, check_is_verdict_first_and_offline) {
  const auto j = judge_report({"degraded-thermal-throttle"});
  const std::string page = check_html(j);
  ASSERT_EQ(page.rfind("<!DOCTYPE html>", 0), 0U);
  const auto h1 = page.find("<h1>gpuspec check: <span class=\"badge warn\">WARN</span></h1>");
  const auto finding = page.find("GPUSPEC-THERMAL-THROTTLE");
  const auto plots = page.find("<h3>Plots</h3>");
  const auto results = page.find("<h3>Results (");
  ASSERT_NE(h1, std::string::npos);
  ASSERT_NE(finding, std::string::npos);
  ASSERT_NE(plots, std::string::npos);
  ASSERT_NE(results, std::string::npos);
  EXPECT_LT(h1, finding);
  EXPECT_LT(finding, plots);
  EXPECT_LT(plots, results);
  EXPECT_NE(page.find("Measured against ceiling"), std::string::npos);
  EXPECT_NE(page.find("Telemetry of GPU 2"), std::string::npos);
  expect_offline(page);
}

TEST(html_page, embedded_report_equals_the_report) {
  const auto j = judge_report({"degraded-burnin-checksum-mismatch"});
  const std::string page = check_html(j);
  const auto back = parse_report(embedded(page, "gpuspec-report-0"), "page");
  ASSERT_TRUE(back) << back.error().to_string();
  EXPECT_EQ(back.value(), j.reports[0]);
  const auto check_json = nlohmann::ordered_json::parse(embedded(page, "gpuspec-check"));
  EXPECT_EQ(check_json, to_json(j.outcome));
  EXPECT_NE(page.find("checksum mismatch at iteration"), std::string::npos); // a telemetry mark
}

TEST(html_page, script_text_cannot_close_its_element) {
  EXPECT_EQ(html::script_safe_json(R"({"a":"</script><!--"})"),
            R"({"a":"\u003c/script>\u003c!--"})");
}

TEST(html_page, each_degraded_fixture_shows_its_finding_before_the_plots) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"degraded-thermal-throttle", "GPUSPEC-THERMAL-THROTTLE"},
      {"degraded-sibling-outlier", "GPUSPEC-SIBLING-OUTLIER"},
      {"degraded-pcie-link-degraded", "GPUSPEC-PCIE-LINK-DEGRADED"},
      {"degraded-burnin-checksum-mismatch", "GPUSPEC-BURNIN-CHECKSUM-MISMATCH"}};
  for (const auto& [fixture, code] : cases) {
    const std::string page = check_html(judge_report({fixture}));
    const auto at = page.find(code);
    ASSERT_NE(at, std::string::npos) << fixture;
    EXPECT_LT(at, page.find("<h3>Plots</h3>")) << fixture;
  }
  // The healthy node has none.
  const std::string healthy = check_html(judge_report({"healthy"}));
  EXPECT_NE(healthy.find("<p>No findings.</p>"), std::string::npos);
}

TEST(html_page, eight_gpu_quick_page_is_under_one_megabyte) {
  // healthy.json: a DGX H200's quick suite (8 GPUs), as check_fixtures builds it.
  const std::string page = check_html(judge_report({"healthy"}));
  EXPECT_LE(page.size(), 1'000'000U);
}

TEST(html_page, without_reports_the_page_still_has_verdicts_and_tables) {
  const auto j = judge_report({"degraded-thermal-throttle"});
  const std::string page = make_renderer(output_format::html)->render(j.outcome);
  EXPECT_NE(page.find("GPUSPEC-THERMAL-THROTTLE"), std::string::npos);
  EXPECT_EQ(embedded(page, "gpuspec-report-0"), "");
  EXPECT_NE(embedded(page, "gpuspec-check"), "");
}

TEST(html_page, diff_and_compare) {
  auto old_r = load_report(fixtures / "diff" / "baseline.json").value();
  auto new_r = load_report(fixtures / "diff" / "regressed.json").value();
  const auto d = diff_reports(old_r, new_r);
  const std::vector<report> both{old_r, new_r};
  render_options o;
  o.reports = &both;
  const std::string diff = make_renderer(output_format::html, o)->render(d);
  EXPECT_NE(diff.find("<h1>gpuspec diff: <span class=\"badge fail\">FAIL</span></h1>"),
            std::string::npos);
  EXPECT_NE(diff.find("Change per metric"), std::string::npos);
  EXPECT_EQ(nlohmann::ordered_json::parse(embedded(diff, "gpuspec-diff")), to_json(d));
  expect_offline(diff);

  const auto specs = load_spec_table(fs::path(GPUSPEC_SPECS_DIR) / "gpus.json").value();
  const auto j = judge_report({"healthy", "degraded-sibling-outlier", "degraded-thermal-throttle"});
  const auto c = compare_reports(j.reports, {"a", "b", "c"}, specs);
  const std::string page = make_renderer(output_format::html)->render(c);
  EXPECT_NE(page.find("OUTLIER"), std::string::npos);
  EXPECT_NE(page.find("Deviation from each model&#39;s median"), std::string::npos);
  EXPECT_EQ(nlohmann::ordered_json::parse(embedded(page, "gpuspec-compare")), to_json(c));
  expect_offline(page);
}

TEST(html_page, p2p_matrix_and_size_sweeps_are_drawn_from_the_results) {
  // The PCIe-link fixture's host transfers, as a P2P pair and a size sweep (no fixture has
  // either): the page draws the matrix and the sweep from whatever results the report holds.
  auto j = judge_report({"degraded-pcie-link-capped"});
  auto& r = j.reports[0];
  const auto h2d = std::find_if(r.results.begin(), r.results.end(),
                                [](const result& x) { return x.bench_id == "transfer.h2d"; });
  ASSERT_NE(h2d, r.results.end());
  result p2p = *h2d;
  p2p.bench_id = "transfer.p2p";
  p2p.devices = {0, 1};
  p2p.axes = {{"pair", "0->1"}, {"engine", "ce"}, {"direction", "one_way"}, {"size", "256MiB"}};
  result small = *h2d;
  small.axes["size"] = "4KiB";
  r.results.push_back(p2p);
  r.results.push_back(small);
  const std::string page = check_html(j);
  EXPECT_NE(page.find("<title>Peer-to-peer bandwidth</title>"), std::string::npos);
  EXPECT_NE(page.find("GPU 0 to GPU 1: "), std::string::npos);
  EXPECT_NE(page.find("transfer.h2d: bandwidth against size"), std::string::npos);
  EXPECT_EQ(page.find("transfer.d2h: bandwidth against size"), std::string::npos); // one size
}

/// The SVG number attributes of a page: never "nan", "-nan" or "inf" (an SVG reader rejects
/// the element, a browser draws it anywhere).
void expect_finite_numbers(const std::string& page) {
  for (const char* bad :
       {"=\"nan", "=\"-nan", "=\"inf", "=\"-inf", " nan", " -nan", ",nan", ",-nan", " inf", ",inf"})
    EXPECT_EQ(page.find(bad), std::string::npos)
        << "the page holds " << bad << ": "
        << page.substr(page.find(bad) - std::min<std::size_t>(page.find(bad), 120), 160);
}

TEST(html_page, samples_near_the_largest_double_draw_no_non_finite_number) {
  // Samples of 1.8e308 (a report anyone can write) put "-nan" into the SVG: the span of the
  // axes overflowed to infinity.
  auto j = judge_report({"healthy"});
  for (auto& r : j.reports.front().results) {
    for (auto& v : r.samples)
      v = 1.79e308;
    r.stats.median = r.stats.mean = r.stats.max = r.stats.q3 = 1.79e308;
    r.stats.min = r.stats.q1 = -1.79e308;
  }
  expect_finite_numbers(check_html(j));
  std::vector<html::size_series> series = {
      {"huge", {{4096, 1.79e308}, {1048576, -1.79e308}, {268435456, 1e-300}}, 1.79e308}};
  expect_finite_numbers(html::size_plot("transfer.h2d", "GB/s", series));
  EXPECT_EQ(svg::num(std::numeric_limits<double>::quiet_NaN()), "0.0");
  EXPECT_EQ(svg::num(-std::numeric_limits<double>::infinity()), "0.0");
}

TEST(html_page, format_name_is_html_and_health_has_no_page) {
  EXPECT_EQ(output_format_from_string("html"), output_format::html);
  health_outcome h;
  EXPECT_THROW((void)make_renderer(output_format::html)->render(health_document{h, 0.1, ""}),
               std::logic_error);
}

} // namespace
} // namespace gpuspec::reports
