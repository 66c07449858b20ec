// The printers: terminal table, Markdown, JSON, JUnit XML, Prometheus text, behind the one
// renderer interface for every command's document.

#include <limits>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>

#include <gtest/gtest.h>

#include "check_fixtures.hpp"
#include "gpuspec/reports/health/health.hpp"
#include "gpuspec/reports/judge/check.hpp"
#include "gpuspec/reports/judge/compare.hpp"
#include "gpuspec/reports/judge/diff.hpp"
#include "gpuspec/reports/model/text_format.hpp"
#include "gpuspec/reports/model/text_table.hpp"
#include "gpuspec/reports/render/health_render.hpp"
#include "gpuspec/reports/render/kubernetes.hpp"
#include "gpuspec/reports/render/render.hpp"

namespace gpuspec::reports {
namespace {

check_outcome degraded_outcome() {
  auto rules = load_expectations(std::filesystem::path(GPUSPEC_SPECS_DIR) / "expect.json");
  auto r = testing::build(testing::degraded_variants()[0].degrade); // PCIe link on GPU 2
  testing::scale_device_results(r, 3, 0.5);                         // GPU 3 fails
  r.host.hostname = "node \"a\" <&>";
  auto o = check(r, testing::synthetic_specs(), rules.value());
  o.nodes[0].source = "synthetic.json";
  return o;
}

std::string render_as(output_format f, bool colour = false) {
  return make_renderer(f, {colour})->render(degraded_outcome());
}

TEST(Render, FormatNames) {
  EXPECT_EQ(output_format_from_string("table"), output_format::table);
  EXPECT_EQ(output_format_from_string("md"), output_format::markdown);
  EXPECT_EQ(output_format_from_string("json"), output_format::json);
  EXPECT_EQ(output_format_from_string("junit"), output_format::junit);
  EXPECT_EQ(output_format_from_string("prom"), output_format::prometheus);
  EXPECT_EQ(output_format_from_string("xml"), std::nullopt);
  // health's name for the table, and the two formats of one command each.
  EXPECT_EQ(output_format_from_string("text"), output_format::table);
  EXPECT_EQ(output_format_from_string("nccl-tests"), output_format::nccl_tests);
  EXPECT_EQ(output_format_from_string("reason"), output_format::reason);
  EXPECT_EQ(output_format_from_string("kube"), output_format::kube);
}

// Kubernetes' label values (kubernetes.hpp): what the Node's labels may hold, checked against the
// API server's own rule over every short string of a small alphabet.
TEST(Render, KubeLabelValuesFollowTheApiServersRule) {
  const std::regex rule("^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$");
  const std::string alphabet = "a0-_.:/ ";
  std::vector<std::string> values{""};
  for (int length = 1; length <= 3; ++length) {
    std::vector<std::string> longer;
    for (const auto& v : values)
      if (v.size() == static_cast<std::size_t>(length - 1))
        for (char c : alphabet)
          longer.push_back(v + c);
    values.insert(values.end(), longer.begin(), longer.end());
  }
  for (const auto& v : values)
    EXPECT_EQ(is_kube_label_value(v), std::regex_match(v, rule)) << "'" << v << "'";
  EXPECT_TRUE(is_kube_label_value("GPUSPEC-XID-HARDWARE"));
  EXPECT_TRUE(is_kube_label_value(std::string(63, 'a')));
  EXPECT_FALSE(is_kube_label_value(std::string(64, 'a')));
}

// A fail taints with the first worst finding's code; a warn labels it and leaves the taint; a
// node without a verdict is "unknown" with no reason label.
TEST(Render, KubePublicationOfEachVerdict) {
  health_outcome h;
  h.check.status = verdict_status::fail;
  h.drain_reason = "gpuspec:GPUSPEC-XID-HARDWARE:gpu3";
  auto p = kube_publication_of(h, "2026-12-02T04:00:00Z");
  const auto& labels = p.merge_patch["metadata"]["labels"];
  EXPECT_EQ(labels["gpuspec.io/health"], "fail");
  EXPECT_EQ(labels["gpuspec.io/health-reason"], "GPUSPEC-XID-HARDWARE");
  EXPECT_EQ(p.taint_argument, "gpuspec.io/unhealthy=GPUSPEC-XID-HARDWARE:NoSchedule");
  const auto summary = nlohmann::json::parse(
      p.merge_patch["metadata"]["annotations"]["gpuspec.io/health-summary"].get<std::string>());
  EXPECT_EQ(summary["checked_utc"], "2026-12-02T04:00:00Z");
  EXPECT_EQ(summary["exit_code"], 2);

  h.check.status = verdict_status::warn;
  h.drain_reason = "gpuspec:GPUSPEC-HOST-MEMORY-LOW:node";
  p = kube_publication_of(h, "");
  EXPECT_EQ(p.merge_patch["metadata"]["labels"]["gpuspec.io/health-reason"],
            "GPUSPEC-HOST-MEMORY-LOW");
  EXPECT_EQ(p.taint_argument, "");

  h.check.status = verdict_status::inconclusive;
  h.drain_reason.clear();
  p = kube_publication_of(h, "");
  EXPECT_EQ(p.merge_patch["metadata"]["labels"]["gpuspec.io/health"], "unknown");
  EXPECT_TRUE(p.merge_patch["metadata"]["labels"]["gpuspec.io/health-reason"].is_null());
  EXPECT_EQ(p.taint_argument, "");

  h.check.status = verdict_status::pass;
  p = kube_publication_of(h, "");
  EXPECT_EQ(p.taint_argument, "gpuspec.io/unhealthy:NoSchedule-");
  // A fail without a reason still taints, without a value.
  h.check.status = verdict_status::fail;
  EXPECT_EQ(kube_publication_of(h, "").taint_argument, "gpuspec.io/unhealthy:NoSchedule");
}

// One interface for every document: a format prints the documents it has a layout for, and
// asking it for another is a bug, not an empty page.
TEST(Render, AFormatWithoutALayoutForADocumentThrows) {
  const auto o = degraded_outcome();
  diff_output d;
  compare_output c;
  health_outcome h;
  h.check = o;
  const health_document hd{h, 0.5, ""};
  for (const auto f : {output_format::table, output_format::markdown, output_format::json,
                       output_format::junit, output_format::prometheus})
    EXPECT_FALSE(make_renderer(f)->render(o).empty()) << static_cast<int>(f);
  EXPECT_THROW((void)make_renderer(output_format::reason)->render(o), std::logic_error);
  EXPECT_THROW((void)make_renderer(output_format::junit)->render(hd), std::logic_error);
  EXPECT_THROW((void)make_renderer(output_format::markdown)->render(hd), std::logic_error);
  EXPECT_THROW((void)make_renderer(output_format::prometheus)->render(d), std::logic_error);
  EXPECT_THROW((void)make_renderer(output_format::junit)->render(c), std::logic_error);
  // The nccl-tests layout is of the reports themselves: the CLI makes it with them.
  EXPECT_THROW((void)make_renderer(output_format::nccl_tests), std::invalid_argument);
}

TEST(Render, HealthGoesThroughTheSameRenderersAsItsOwnPrinters) {
  health_outcome h;
  h.check = degraded_outcome();
  h.drain_reason = "GPUSPEC-PCIE-LINK-DEGRADED gpu 2";
  const health_document hd{h, 0.25, ""};
  EXPECT_EQ(make_renderer(output_format::table, {false, 100})->render(hd),
            render_health_text(h, 0.25, {false, 100}));
  EXPECT_EQ(make_renderer(output_format::json)->render(hd),
            health_to_json(h, 0.25).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) +
                "\n");
  EXPECT_EQ(make_renderer(output_format::prometheus)->render(hd),
            render_health_prometheus(h, 0.25));
  EXPECT_EQ(make_renderer(output_format::reason)->render(hd), "GPUSPEC-PCIE-LINK-DEGRADED gpu 2\n");
  h.drain_reason.clear();
  EXPECT_EQ(make_renderer(output_format::reason)->render(health_document{h, 0.25, ""}), "");
}

TEST(Render, DiffAndCompareGoThroughTheSameRenderers) {
  diff_output d;
  d.old_label = "old.json";
  d.new_label = "new.json";
  const auto table = make_renderer(output_format::table)->render(d);
  EXPECT_EQ(table.rfind("Verdict: PASS (exit code 0); 0 metrics, all passing\n\nOld: old.json\n"
                        "New: new.json\n\nInventory differences\n  none\n",
                        0),
            0u)
      << table;
  EXPECT_NE(table.find("\nVerdict: PASS (exit code 0)\n"), std::string::npos) << table;
  EXPECT_EQ(make_renderer(output_format::markdown)->render(d), to_markdown(d));
  EXPECT_EQ(make_renderer(output_format::json)->render(d), to_json(d).dump(2) + "\n");
  compare_output c;
  EXPECT_EQ(make_renderer(output_format::markdown)->render(c), to_markdown(c));
  EXPECT_EQ(make_renderer(output_format::json)->render(c), to_json(c).dump(2) + "\n");
  EXPECT_EQ(make_renderer(output_format::table)
                ->render(c)
                .rfind("Verdict: PASS (exit code 0); 0 GPUs", 0),
            0u);
}

TEST(Render, TableHasVerdictsDiagnosesAndColourOnlyWhenAsked) {
  const auto plain = render_as(output_format::table);
  EXPECT_NE(plain.find("GPUSPEC-PCIE-LINK-DEGRADED"), std::string::npos);
  EXPECT_NE(plain.find("Verdict: FAIL (exit code 2)"), std::string::npos);
  EXPECT_EQ(plain.find("\033["), std::string::npos);
  EXPECT_NE(render_as(output_format::table, true).find("\033[31m"), std::string::npos);
}

TEST(Render, MarkdownTables) {
  const auto md = render_as(output_format::markdown);
  EXPECT_NE(md.find("| check | gpu | measured |"), std::string::npos);
  EXPECT_NE(md.find("`GPUSPEC-PCIE-LINK-DEGRADED`"), std::string::npos);
}

/// The variant's outcome (check_fixtures.cpp).
check_outcome variant_outcome(const std::string& name) {
  auto rules = load_expectations(std::filesystem::path(GPUSPEC_SPECS_DIR) / "expect.json");
  for (const auto& v : testing::degraded_variants())
    if (v.name == name)
      return check(testing::build(v.degrade), testing::synthetic_specs(), rules.value());
  throw std::out_of_range(name);
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

TEST(Render, TheSameDiagnosisOnEveryResultOfAGpuIsSaidOnce) {
  // Thermal throttling on each of GPU 2's three results: three findings, one GPU, one code.
  const auto o = variant_outcome("thermal-throttle");
  std::size_t per_result = 0;
  for (const auto& v : o.nodes[0].results)
    for (const auto& d : v.diagnoses)
      per_result += d.code == "GPUSPEC-THERMAL-THROTTLE" ? 1 : 0;
  ASSERT_GE(per_result, 3U);
  const auto table = make_renderer(output_format::table)->render(o);
  const auto diagnosis = table.substr(table.find("\nDiagnosis\n"));
  EXPECT_EQ(count_of(diagnosis, "GPUSPEC-THERMAL-THROTTLE gpu 2:"), 1U) << diagnosis;
  EXPECT_NE(diagnosis.find("in 3 results: memory.stream.copy, memory.stream.triad, "
                           "gemm.cublas.fp16_tc"),
            std::string::npos)
      << diagnosis;
  const auto md = make_renderer(output_format::markdown)->render(o);
  EXPECT_EQ(count_of(md, "`GPUSPEC-THERMAL-THROTTLE` (gpu 2)"), 1U) << md;
  EXPECT_NE(md.find("in 3 results: memory.stream.copy"), std::string::npos) << md;
  // The JSON keeps every result's own diagnosis.
  const auto j = nlohmann::ordered_json::parse(make_renderer(output_format::json)->render(o));
  std::size_t in_json = 0;
  for (const auto& r : j["nodes"][0]["results"])
    for (const auto& d : r["diagnoses"])
      in_json += d["code"] == "GPUSPEC-THERMAL-THROTTLE" ? 1 : 0;
  EXPECT_EQ(in_json, per_result);
  // A diagnosis found once is said as before, with no count.
  const auto single = make_renderer(output_format::table)->render(variant_outcome("ecc-disabled"));
  EXPECT_NE(single.find("GPUSPEC-ECC-DISABLED gpu 2: "), std::string::npos) << single;
  EXPECT_EQ(single.find(" results: "), std::string::npos) << single;
}

TEST(Render, FiguresAreNeverWiderThanTenCharacters) {
  EXPECT_EQ(format_figure(4350.0), "4350.0");
  EXPECT_EQ(format_figure(1.5), "1.50");
  EXPECT_EQ(format_figure(0.0125), "0.0125");
  EXPECT_EQ(format_figure(999999.0), "999999.0");
  EXPECT_EQ(format_figure(1.5e90), "1.5e+90");
  EXPECT_EQ(format_figure(-1.5e90), "-1.5e+90");
  EXPECT_EQ(format_figure(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(format_percent(0.906), "90.6%");
  EXPECT_EQ(format_percent(1.5e88), "1.5e+90%");
  EXPECT_EQ(format_quantity(std::optional<double>(4.8e90), metric_unit::gigabytes_per_second),
            "4.8e+90 GB/s");
  EXPECT_EQ(format_quantity(std::nullopt, metric_unit::gigabytes_per_second), "");
  for (double v : {1e-300, 1e-9, 0.5, 7.0, 123.456, 1e5, 1e6, 1e12, 1e90, 1e308, -1e308})
    EXPECT_LE(format_figure(v).size(), 10U) << v;
}

TEST(Render, TheTableFitsTheTerminalWhereverTheReportLives) {
  auto o = degraded_outcome();
  // A checkout 200 characters deep.
  o.nodes[0].source = "/" + std::string(190, 'd') + "/tests/fixtures/check/degraded-x.json";
  const auto table = make_renderer(output_format::table, {false, 100})->render(o);
  std::istringstream in(table);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("  ", 0) != 0 && line.rfind("note:", 0) != 0) {
      EXPECT_LE(text_table::display_width(line), 100U) << line;
    }
  EXPECT_NE(table.find("(…/tests/fixtures/check/degraded-x.json): FAIL"), std::string::npos)
      << table.substr(0, 300);
  // Without a width, or where it fits, the path is whole.
  EXPECT_NE(make_renderer(output_format::table)->render(o).find(o.nodes[0].source),
            std::string::npos);
  EXPECT_EQ(elide_path("/a/b/report.json", 16), "/a/b/report.json");
  EXPECT_EQ(elide_path("/a/bbbbbbbb/report.json", 16), "…/report.json");
  EXPECT_EQ(elide_path("/a/b/a-very-long-report-name.json", 10), "…name.json");
  EXPECT_EQ(text_table::display_width(elide_path(std::string(300, 'x'), 40)), 40U);
}

TEST(Render, JsonCarriesStatusExitCodeAndDiagnoses) {
  const auto j = nlohmann::ordered_json::parse(render_as(output_format::json));
  EXPECT_EQ(j["schema"], "gpuspec.check.v1");
  EXPECT_EQ(j["status"], "fail");
  EXPECT_EQ(j["exit_code"], 2);
  const auto& gpu2 = j["nodes"][0]["gpus"][2];
  EXPECT_EQ(gpu2["status"], "warn");
  EXPECT_EQ(gpu2["diagnoses"][0]["code"], "GPUSPEC-PCIE-LINK-DEGRADED");
  EXPECT_EQ(gpu2["diagnoses"][0]["remediation"], "reseat_or_service");
  EXPECT_EQ(gpu2["diagnoses"][0]["evidence"]["serial"], "SYNTHETIC-0002");
}

TEST(Render, JunitOneCasePerCheckAndGpuWithUniqueNames) {
  const auto xml = render_as(output_format::junit);
  EXPECT_EQ(xml.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>", 0), 0u);
  const std::regex testcase("<testcase name=\"([^\"]*)\" classname=\"([^\"]*)\"");
  std::set<std::string> names;
  std::map<std::string, int> classes;
  for (auto it = std::sregex_iterator(xml.begin(), xml.end(), testcase);
       it != std::sregex_iterator(); ++it) {
    EXPECT_TRUE(names.insert((*it)[1]).second) << (*it)[1];
    ++classes[(*it)[2]];
  }
  // 24 results, 8 GPUs, 1 host.
  EXPECT_EQ(names.size(), 33u);
  EXPECT_EQ(classes["memory.stream"], 16);
  EXPECT_EQ(classes["gemm.cublas"], 8);
  EXPECT_EQ(classes["gpu.health"], 8);
  EXPECT_NE(xml.find("<property name=\"host\" value=\"node &quot;a&quot; &lt;&amp;&gt;\"/>"),
            std::string::npos);
  EXPECT_NE(xml.find("<property name=\"driver\" value=\"550.54.15\"/>"), std::string::npos);
  // A failure says what was measured and what was expected: GPU 3's copy at 50% of 4297.9,
  // against the H200 row's override of the STREAM rule.
  EXPECT_NE(xml.find("<failure message=\"fail: measured 2148.9 GB/s (44.8% efficiency), "
                     "expected &gt;= 2976.0 GB/s (62% of 4800.0 GB/s)\" type=\"fail\">"),
            std::string::npos)
      << xml;
}

TEST(Render, PrometheusFamiliesHelpTypeAndDcgmLabels) {
  const auto text = render_as(output_format::prometheus);
  EXPECT_NE(text.find("# HELP gpuspec_gpu_status "), std::string::npos);
  EXPECT_NE(text.find("# TYPE gpuspec_gpu_status gauge"), std::string::npos);
  EXPECT_NE(text.find("gpuspec_gpu_status{gpu=\"2\",UUID=\"GPU-5e5e5e5e-0000-0000-0000-"
                      "000000000002\",pci_bus_id=\"00000000:12:00.0\",modelName=\"NVIDIA "
                      "H200\",Hostname=\"node \\\"a\\\" <&>\"} 1"),
            std::string::npos)
      << text;
  // Results are labelled by their axes, what was asked (stable across runs), not by what the
  // harness found.
  EXPECT_NE(text.find(",check=\"memory.stream.copy\",axes=\"dtype=fp32\"}"), std::string::npos);
  // Base units: GB/s written as bytes per second.
  const auto at = text.find("gpuspec_result_bytes_per_second{gpu=\"0\"");
  ASSERT_NE(at, std::string::npos);
  const auto sample = text.substr(at, text.find('\n', at) - at);
  EXPECT_NEAR(std::stod(sample.substr(sample.rfind(' ') + 1)), 4297.85e9, 1e9) << sample;
  // Each family's samples follow its HELP and TYPE lines, and each family appears once.
  std::set<std::string> seen;
  std::string current;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("# TYPE ", 0) == 0) {
      current = line.substr(7, line.find(' ', 7) - 7);
      EXPECT_TRUE(seen.insert(current).second) << current;
    } else if (line[0] != '#') {
      EXPECT_EQ(line.rfind(current, 0), 0u) << line;
      EXPECT_EQ(line.rfind("gpuspec_", 0), 0u) << line;
    }
  }
}

// The one label builder: a result over a GPU the node does not list names that GPU by index
// alone, and leaves the labels of the node's own GPUs as they are for every later sample.
TEST(Render, PrometheusLabelsOfAResultOverAnUnlistedGpu) {
  auto o = degraded_outcome();
  auto& node = o.nodes[0];
  ASSERT_FALSE(node.results.empty());
  auto shared = node.results.front();
  shared.devices = {0, 99};
  shared.status = verdict_status::pass;
  node.results.insert(node.results.begin(), shared);
  auto lone = node.results[1];
  lone.devices = {99};
  lone.status = verdict_status::pass;
  node.results.insert(node.results.begin() + 1, lone);
  const auto text = make_renderer(output_format::prometheus)->render(o);
  EXPECT_NE(text.find("gpuspec_result_status{gpu=\"0,99\",UUID=\"GPU-5e5e5e5e-0000-0000-0000-"
                      "000000000000\",pci_bus_id=\"00000000:10:00.0\",modelName=\"NVIDIA H200\","),
            std::string::npos)
      << text;
  // GPU 99 alone: its index, no UUID, the host.
  EXPECT_NE(text.find("gpuspec_result_status{gpu=\"99\",UUID=\"\",pci_bus_id=\"\",modelName=\"\","
                      "Hostname=\"node \\\"a\\\" <&>\",check="),
            std::string::npos)
      << text;
}

TEST(EscapeControl, ControlCharactersAreWrittenVisiblyAndTheRestKept) {
  EXPECT_EQ(escape_control("H100 \xc2\xb0"
                           "C \xe2\x80\xa6"),
            "H100 \xc2\xb0"
            "C \xe2\x80\xa6");
  EXPECT_EQ(escape_control("a\nb\tc\rd"), "a\\nb\\tc\\rd");
  EXPECT_EQ(escape_control("\x1b[31mred\x7f\x01"), "\\x1b[31mred\\x7f\\x01");
  EXPECT_EQ(escape_control("\xc2\x85\xc2\x9b"), "\\u0085\\u009b"); // C1, as UTF-8
  EXPECT_EQ(escape_control("\x9b"
                           "2J\xff"),
            "\\x9b2J\\xff"); // bytes that are not UTF-8
  EXPECT_EQ(escape_control(std::string_view("a\0b", 3)), "a\\x00b");
  // A table's cells the same way.
  text_table t({"name"});
  t.add_row({"x\ndrain reason: forged"});
  EXPECT_EQ(t.render().find("\ndrain reason"), std::string::npos);
}

} // namespace
} // namespace gpuspec::reports
