// The HTML pages open on the answer (issue 31): the verdict, then each node and GPU not passing
// with its codes and one action, worst first; a fleet's page names its bad nodes first, stays
// small and lists hosts in natural order; compare colours by deviation from the model's median;
// plots only where they say something about a finding.

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "check_fixtures.hpp"
#include "gpuspec/reports/judge/check.hpp"
#include "gpuspec/reports/judge/compare.hpp"
#include "gpuspec/reports/judge/diagnosis.hpp"
#include "gpuspec/reports/judge/diff.hpp"
#include "gpuspec/reports/judge/expectations.hpp"
#include "gpuspec/reports/model/host_names.hpp"
#include "gpuspec/reports/model/report_json.hpp"
#include "gpuspec/reports/render/render.hpp"
#include "render_html_plots.hpp"
#include "svg_writer.hpp"

namespace gpuspec::reports {
namespace {

namespace fs = std::filesystem;

check_outcome judge_all(const std::vector<report>& reports) {
  const auto rules = load_expectations(fs::path(GPUSPEC_SPECS_DIR) / "expect.json");
  return check(reports, testing::synthetic_specs(), rules.value());
}

std::string page_of(const check_outcome& o, const std::vector<report>& reports) {
  render_options options;
  options.reports = &reports;
  return make_renderer(output_format::html, options)->render(o);
}

/// The page's opening: everything before <main>.
std::string opening(const std::string& page) { return page.substr(0, page.find("<main>")); }

/// The healthy fixture 50 times in the order a shell's glob gives the files (node-0, node-1,
/// node-10, ...); nodes 7 and 41 with one GPU at half speed, node 23 with one at 80%.
std::vector<report> fleet_of_fifty() {
  auto healthy = load_report(fs::path(GPUSPEC_FIXTURES_DIR) / "check" / "healthy.json");
  EXPECT_TRUE(healthy.has_value());
  std::vector<std::string> names;
  for (int k = 0; k < 50; ++k)
    names.push_back("node-" + std::to_string(k));
  std::sort(names.begin(), names.end());
  std::vector<report> out;
  for (const auto& name : names) {
    report r = healthy.value();
    r.host.hostname = name;
    const int k = std::stoi(name.substr(5));
    if (k == 7 || k == 23 || k == 41)
      testing::scale_device_results(r, k % 8, k == 23 ? 0.8 : 0.5);
    out.push_back(std::move(r));
  }
  return out;
}

TEST(html_answer, check_page_opens_on_each_gpu_not_passing_with_its_codes_and_action) {
  auto r = testing::build(testing::degraded_variants()[0].degrade); // PCIe link on GPU 2
  ASSERT_EQ(testing::degraded_variants()[0].code, "GPUSPEC-PCIE-LINK-DEGRADED");
  testing::scale_device_results(r, 3, 0.5); // GPU 3 fails
  const std::vector<report> reports{r};
  const auto head = opening(page_of(judge_all(reports), reports));
  const auto gpu3 = head.find("<td>GPU 3</td><td><span class=\"badge fail\">FAIL</span>");
  const auto gpu2 = head.find("<td>GPU 2</td>");
  ASSERT_NE(gpu3, std::string::npos) << head;
  ASSERT_NE(gpu2, std::string::npos) << head;
  EXPECT_LT(gpu3, gpu2); // worst first
  // Each row: its codes and the one action of its worst finding, from the reason-code table.
  const auto row2 = head.substr(gpu2, head.find("</tr>", gpu2) - gpu2);
  EXPECT_NE(row2.find("GPUSPEC-PCIE-LINK-DEGRADED"), std::string::npos) << row2;
  EXPECT_NE(row2.find(std::string(find_reason("GPUSPEC-PCIE-LINK-DEGRADED").action)),
            std::string::npos)
      << row2;
  const auto row3 = head.substr(gpu3, head.find("</tr>", gpu3) - gpu3);
  EXPECT_NE(row3.find("GPUSPEC-BELOW-SPEC"), std::string::npos) << row3;
  // The gravest finding's action (graver_finding: at one severity, the costlier rung): the
  // sibling outlier's (reseat_or_service) over below-spec's (rerun).
  EXPECT_LT(row3.find("GPUSPEC-SIBLING-OUTLIER"), row3.find("GPUSPEC-BELOW-SPEC")) << row3;
  EXPECT_NE(row3.find("swap slots to see whether the fault follows the GPU"), std::string::npos)
      << row3;
}

TEST(html_answer, one_cause_on_every_gpu_is_one_row_naming_the_gpus) {
  auto r = testing::healthy_report();
  for (int d = 0; d < 8; ++d)
    testing::scale_device_results(r, d, 0.5);
  const std::vector<report> reports{r};
  const auto head = opening(page_of(judge_all(reports), reports));
  EXPECT_NE(head.find("<td>GPUs 0-7</td>"), std::string::npos) << head;
  EXPECT_EQ(head.find("<td>GPU 1</td>"), std::string::npos) << head;
}

TEST(html_answer, fifty_node_check_page_opens_on_the_bad_nodes_and_stays_under_2_mb) {
  const auto reports = fleet_of_fifty();
  const auto o = judge_all(reports);
  const std::string page = page_of(o, reports);
  EXPECT_LT(page.size(), 2'000'000U); // issue 31: 10 MB
  const auto head = opening(page);
  for (const char* host : {"<td>node-7</td>", "<td>node-23</td>", "<td>node-41</td>"})
    EXPECT_NE(head.find(host), std::string::npos) << host;
  // Worst first, then natural order: node-7 and node-41 fail (node-7 first), node-23 warns.
  EXPECT_LT(head.find("<td>node-7</td>"), head.find("<td>node-41</td>"));
  EXPECT_LT(head.find("<td>node-41</td>"), head.find("<td>node-23</td>"));
  // The passing nodes in one line, as hostlist groups.
  EXPECT_NE(head.find("node-[0-6,8-22,24-40,42-49]"), std::string::npos) << head;
  // Their table in natural order; the reports of the bad nodes alone embedded.
  EXPECT_LT(page.find("<td>node-2</td>"), page.find("<td>node-10</td>"));
  std::size_t embedded = 0;
  for (auto at = page.find("id=\"gpuspec-report-"); at != std::string::npos;
       at = page.find("id=\"gpuspec-report-", at + 1))
    ++embedded;
  EXPECT_EQ(embedded, 3U);
  // The first node section is a bad node's; the verdict again at the end.
  EXPECT_LT(page.find("<section id=\"node-"), page.find("Passing nodes ("));
  EXPECT_NE(page.find("<footer>\n<p>Verdict: <span class=\"badge fail\">FAIL</span>"),
            std::string::npos);
}

TEST(html_answer, fifty_node_compare_page_opens_on_the_nodes_with_outliers) {
  const auto reports = fleet_of_fifty();
  std::vector<std::string> labels;
  for (const auto& r : reports)
    labels.push_back(r.host.hostname + ".json");
  const auto c = compare_reports(reports, labels, testing::synthetic_specs());
  const std::string page = make_renderer(output_format::html)->render(c);
  EXPECT_LT(page.size(), 2'000'000U);
  const auto head = opening(page);
  EXPECT_NE(head.find("<span class=\"badge warn\">WARN</span>"), std::string::npos);
  for (const char* host : {"<td>node-7</td>", "<td>node-23</td>", "<td>node-41</td>"})
    EXPECT_NE(head.find(host), std::string::npos) << host;
  EXPECT_LT(head.find("<td>node-41</td>"), head.find("<td>node-23</td>")); // -50% before -20%
  EXPECT_NE(head.find("GPU 7 memory.stream.copy fp32 -50.0%"), std::string::npos) << head;
  EXPECT_NE(head.find(svg::escape(find_reason("GPUSPEC-FLEET-OUTLIER").action)), std::string::npos);
  // The heatmap: its key above its rows, nodes in natural order, each node's name once.
  const auto key = page.find("deviation from the median of the GPU&#39;s model");
  const auto first_row = page.find(">node-0</text>");
  ASSERT_NE(key, std::string::npos);
  EXPECT_LT(key, first_row);
  EXPECT_LT(page.find(">node-2</text>"), page.find(">node-10</text>"));
  // A healthy GEMM (71% of its datasheet) is at its model's median: the scale's middle, not
  // the alarm the fraction of datasheet made of it.
  const auto gemm = page.find("node-0.json/GPU 0 gemm.cublas.fp16_tc");
  ASSERT_NE(gemm, std::string::npos);
  const auto cell = page.rfind("<rect", gemm);
  EXPECT_NE(page.substr(cell, gemm - cell).find(std::string("fill=\"") + svg::tol_burd[4]),
            std::string::npos)
      << page.substr(cell, gemm - cell);
}

TEST(html_answer, diff_page_opens_on_the_regression_with_its_gpu_and_action) {
  const auto old_r = load_report(fs::path(GPUSPEC_FIXTURES_DIR) / "diff" / "baseline.json");
  const auto new_r = load_report(fs::path(GPUSPEC_FIXTURES_DIR) / "diff" / "regressed.json");
  ASSERT_TRUE(old_r.has_value() && new_r.has_value());
  const auto d = diff_reports(old_r.value(), new_r.value());
  const std::string page = make_renderer(output_format::html)->render(d);
  const auto head = opening(page);
  const auto row = head.find("<tr><td>memory.stream.triad fp32</td><td>serial SYN0000000002</td>"
                             "<td><span class=\"badge fail\">FAIL</span>");
  ASSERT_NE(row, std::string::npos) << head;
  EXPECT_NE(head.find(svg::escape(find_reason("GPUSPEC-BELOW-BASELINE").action), row),
            std::string::npos);
  EXPECT_NE(page.find("<footer>\n<p>Verdict: <span class=\"badge fail\">FAIL</span> (exit code 2)"),
            std::string::npos);
}

TEST(html_answer, telemetry_only_for_gpus_with_a_finding_with_their_limits) {
  auto r = load_report(fs::path(GPUSPEC_FIXTURES_DIR) / "check" / "degraded-thermal-throttle.json");
  ASSERT_TRUE(r.has_value());
  const std::vector<report> reports{r.value()};
  const std::string page = page_of(judge_all(reports), reports);
  EXPECT_NE(page.find("<title>Telemetry of GPU 2</title>"), std::string::npos);
  EXPECT_EQ(page.find("<title>Telemetry of GPU 0</title>"), std::string::npos);
  EXPECT_NE(page.find(">max 1980.0</text>"), std::string::npos); // the SM clock's limit
  const std::vector<report> healthy{testing::healthy_report()};
  EXPECT_EQ(page_of(judge_all(healthy), healthy).find("Telemetry of GPU"), std::string::npos);
}

// NVML gives no slowdown temperature on some GPUs (the report's temperature_slowdown_c is null):
// their plot draws the site's limit (the rules' temperature_limit_c, 85 in specs/expect.json),
// labelled as the site's; one that gives it keeps its own.
TEST(html_answer, telemetry_draws_the_sites_temperature_limit_where_nvml_gives_none) {
  auto r = load_report(fs::path(GPUSPEC_FIXTURES_DIR) / "check" / "degraded-thermal-throttle.json");
  ASSERT_TRUE(r.has_value());
  const auto rules = load_expectations(fs::path(GPUSPEC_SPECS_DIR) / "expect.json");
  ASSERT_TRUE(rules.has_value());
  render_options options;
  options.site_temperature_limit_c = rules.value().settings.temperature_limit_c;
  EXPECT_EQ(*options.site_temperature_limit_c, 85.0);
  for (const bool reported : {true, false}) {
    std::vector<report> reports{r.value()};
    for (auto& d : reports[0].devices)
      d.temperature_slowdown_c = reported ? std::optional<int>(90) : std::nullopt;
    options.reports = &reports;
    const std::string page =
        make_renderer(output_format::html, options)->render(judge_all(reports));
    ASSERT_NE(page.find("<title>Telemetry of GPU 2</title>"), std::string::npos);
    EXPECT_EQ(page.find(">slowdown 90.00</text>") != std::string::npos, reported) << reported;
    EXPECT_EQ(page.find(">site limit 85.00</text>") != std::string::npos, !reported) << reported;
  }
}

TEST(html_answer, a_power_cap_alone_is_not_shaded_as_a_warning) {
  html::telemetry_series gemm{
      "GPU 0",     {{1.0, 3.0, 1755, 60, 700, {"sw_power_cap"}, "gemm.cublas"}},
      700.0,       {},
      1980.0,      std::nullopt,
      std::nullopt};
  const std::string capped = html::telemetry_plot(gemm);
  EXPECT_EQ(capped.find("#F7D4C0"), std::string::npos); // the slowdown shade
  EXPECT_EQ(capped.find("#FAF3C0"), std::string::npos); // the old yellow warning shade
  EXPECT_NE(capped.find("at its power cap (sw_power_cap)"), std::string::npos);
  gemm.windows[0].throttle_reasons = {"hw_thermal"};
  EXPECT_NE(html::telemetry_plot(gemm).find("#F7D4C0"), std::string::npos);
}

TEST(html_answer, a_roofline_is_drawn_only_with_points) {
  // The healthy fixture has STREAM (bandwidth, no FLOPs) and a GEMM that declares no bytes: a
  // roof, and no point on it.
  const std::vector<report> healthy{testing::healthy_report()};
  EXPECT_EQ(page_of(judge_all(healthy), healthy).find("Roofline of"), std::string::npos);
}

TEST(html_answer, gpus_on_one_pixel_are_one_mark_with_their_count) {
  html::efficiency_case k{"gemm.cublas.fp16_tc", 0.6, 0.5, {}};
  for (int d = 0; d < 8; ++d)
    k.points.push_back({"GPU " + std::to_string(d), 0.707, std::nullopt, "pass"});
  const std::string svg = html::efficiency_plot({k});
  std::size_t circles = 0;
  for (auto at = svg.find("<circle"); at != std::string::npos; at = svg.find("<circle", at + 1))
    ++circles;
  EXPECT_EQ(circles, 2U); // the legend's and the eight GPUs'
  EXPECT_NE(svg.find(">×8</text>"), std::string::npos);
  EXPECT_NE(svg.find("GPU 0, GPU 1, GPU 2"), std::string::npos); // named in its tooltip
}

TEST(host_names, natural_order_and_hostlist_groups) {
  EXPECT_TRUE(natural_less("node-2", "node-10"));
  EXPECT_FALSE(natural_less("node-10", "node-2"));
  EXPECT_TRUE(natural_less("a9b", "a10a"));
  EXPECT_FALSE(natural_less("x", "x"));
  EXPECT_EQ(host_groups({"node-10", "node-2", "node-3", "node-4", "gpu", "node-12"}),
            (std::vector<std::string>{"gpu", "node-[2-4,10,12]"}));
  EXPECT_EQ(host_groups({"gpu009", "gpu007", "gpu008", "gpu010"}),
            (std::vector<std::string>{"gpu[007-010]"}));
  EXPECT_EQ(host_groups({"dgx-a", "dgx-a"}), (std::vector<std::string>{"dgx-a"}));
}

} // namespace
} // namespace gpuspec::reports
