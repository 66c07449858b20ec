// The terminal output of `gpuspec check` gives the answer first (issue 31): the verdict on the
// first line, then every node that is not passing, worst first, with its GPUs, codes and one
// action per code; the details after, passing rows only when verbose; the verdict again last.
// Many reports: 50 copies of the healthy fixture with a few made slow, as a fleet gives them.

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "check_fixtures.hpp"
#include "gpuspec/reports/judge/check.hpp"
#include "gpuspec/reports/judge/diagnosis.hpp"
#include "gpuspec/reports/judge/expectations.hpp"
#include "gpuspec/reports/judge/node_wide.hpp"
#include "gpuspec/reports/model/report_json.hpp"
#include "gpuspec/reports/model/text_table.hpp"
#include "gpuspec/reports/render/render.hpp"

namespace gpuspec::reports {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    out.push_back(line);
  return out;
}

check_outcome judged(const std::vector<report>& reports) {
  auto rules = load_expectations(std::filesystem::path(GPUSPEC_SPECS_DIR) / "expect.json");
  return check(reports, testing::synthetic_specs(), rules.value());
}

std::string table_of(const check_outcome& o, std::size_t width, bool verbose = false) {
  render_options options;
  options.width = width;
  options.verbose = verbose;
  return make_renderer(output_format::table, options)->render(o);
}

/// The healthy fixture 50 times, node-00 to node-49; nodes 7, 23 and 41 with one GPU slowed.
std::vector<report> fleet_of_fifty() {
  auto healthy =
      load_report(std::filesystem::path(GPUSPEC_SOURCE_DIR) / "tests/fixtures/check/healthy.json");
  EXPECT_TRUE(healthy.has_value());
  std::vector<report> out;
  for (int k = 0; k < 50; ++k) {
    report r = healthy.value();
    r.host.hostname = "node-" + std::string(k < 10 ? "0" : "") + std::to_string(k);
    if (k == 7 || k == 23 || k == 41)
      testing::scale_device_results(r, k % 8, k == 23 ? 0.8 : 0.5);
    out.push_back(std::move(r));
  }
  return out;
}

TEST(AnswerFirst, OneReportVerdictThenWhatIsNotPassingThenDetailsThenVerdict) {
  auto r = testing::build(testing::degraded_variants()[0].degrade); // PCIe link on GPU 2
  testing::scale_device_results(r, 3, 0.5);                         // GPU 3 fails
  const auto o = judged({r});
  const auto lines = lines_of(table_of(o, 0));
  ASSERT_GT(lines.size(), 8U);
  EXPECT_EQ(lines.front().rfind("Verdict: FAIL (exit code 2); 1 node, 1 not passing", 0), 0U)
      << lines.front();
  EXPECT_EQ(lines.back(), "Verdict: FAIL (exit code 2)");
  const auto text = table_of(o, 0);
  const auto summary = text.find("Not passing, worst first");
  const auto actions = text.find("\nActions\n");
  const auto details = text.find("\nNode ");
  ASSERT_NE(summary, std::string::npos) << text;
  ASSERT_NE(actions, std::string::npos) << text;
  EXPECT_LT(summary, actions);
  EXPECT_LT(actions, details);
  // The node's row: its bad GPUs and its codes without the prefix, before the details.
  const std::string head = text.substr(0, details);
  EXPECT_NE(head.find("2,3"), std::string::npos) << head;
  EXPECT_NE(head.find("PCIE-LINK-DEGRADED"), std::string::npos) << head;
  EXPECT_EQ(head.find("GPUSPEC-"), std::string::npos) << head;
  EXPECT_NE(head.find("  PCIE-LINK-DEGRADED on gpu 2: reseat the GPU"), std::string::npos) << head;
  // Passing rows are counted, not listed; -v lists them.
  EXPECT_EQ(text.find("memory.stream.copy fp32                0 "), std::string::npos) << text;
  EXPECT_NE(text.find("passing results and 6 passing GPUs not listed (-v lists them)"),
            std::string::npos)
      << text;
  const auto verbose = table_of(o, 0, true);
  EXPECT_EQ(verbose.find("not listed"), std::string::npos);
  EXPECT_GT(lines_of(verbose).size(), lines.size() + 20);
}

TEST(AnswerFirst, MarkdownAndHtmlOpenWithWhatIsNotPassingAndEndWithTheVerdict) {
  const auto o = judged(fleet_of_fifty());
  const auto md = make_renderer(output_format::markdown)->render(o);
  const auto table = md.find("## Not passing, worst first");
  ASSERT_NE(table, std::string::npos) << md.substr(0, 400);
  EXPECT_LT(table, md.find("## node-00"));
  for (const char* host : {"| node-07 |", "| node-23 |", "| node-41 |"})
    EXPECT_LT(md.find(host), md.find("## node-00")) << host;
  EXPECT_EQ(lines_of(md).back(), "**Verdict: FAIL (exit code 2)**");
  EXPECT_NE(md.find("node-00"), std::string::npos); // md lists the passing nodes too
  const auto html = make_renderer(output_format::html)->render(o);
  const auto opening = html.find("<h2>Not passing, worst first</h2>");
  ASSERT_NE(opening, std::string::npos);
  EXPECT_LT(opening, html.find("<section id=\"node-0\">"));
  EXPECT_LT(html.find("<td>node-41</td>"), html.find("<section id=\"node-0\">"));
  const auto footer = html.find("<footer>\n<p>Verdict: <span class=\"badge fail\">FAIL</span>");
  EXPECT_GT(footer, html.rfind("</section>"));
  EXPECT_NE(footer, std::string::npos);
}

TEST(AnswerFirst, AHealthyReportSaysSoOnItsFirstLine) {
  const auto o = judged({testing::healthy_report()});
  const auto lines = lines_of(table_of(o, 0));
  EXPECT_EQ(lines.front(), "Verdict: PASS (exit code 0); 1 node, passing");
  EXPECT_EQ(lines.back(), "Verdict: PASS (exit code 0)");
  EXPECT_LT(lines.size(), 8U) << table_of(o, 0);
}

TEST(AnswerFirst, FiftyReportsNameEveryNodeNotPassingInTheFirstFifteenLines) {
  const auto o = judged(fleet_of_fifty());
  std::vector<std::string> bad;
  for (const auto& n : o.nodes)
    if (n.status != verdict_status::pass)
      bad.push_back(n.hostname);
  ASSERT_GE(bad.size(), 3U);
  ASSERT_LT(bad.size(), 10U);
  for (const std::size_t width : {std::size_t{0}, std::size_t{80}}) {
    const auto text = table_of(o, width);
    const auto lines = lines_of(text);
    std::string first;
    for (std::size_t k = 0; k < 15 && k < lines.size(); ++k)
      first += lines[k] + "\n";
    for (const auto& host : bad)
      EXPECT_NE(first.find(host + " "), std::string::npos) << host << "\n" << first;
    EXPECT_EQ(lines.front().rfind("Verdict: ", 0), 0U);
    EXPECT_EQ(lines.back().rfind("Verdict: ", 0), 0U);
    // Worst first: a fail's row before a warn's.
    const auto fail_row = first.find(" fail ");
    const auto warn_row = first.find(" warn ");
    if (fail_row != std::string::npos && warn_row != std::string::npos) {
      EXPECT_LT(fail_row, warn_row) << first;
    }
    if (width > 0) {
      for (const auto& line : lines)
        EXPECT_LE(text_table::display_width(line), width) << line;
    }
  }
}

} // namespace
} // namespace gpuspec::reports

namespace gpuspec::reports {
namespace {

std::size_t widest_line(const std::string& text) {
  std::size_t w = 0;
  for (const auto& line : lines_of(text))
    w = std::max(w, text_table::display_width(line));
  return w;
}

TEST(TextTableWrap, ShrinkableColumnsWrapAtSpacesAndNeverCutAWord) {
  text_table t({"check", "note"});
  t.set_shrinkable({1, 0}, 4);
  t.set_wrap();
  t.add_row({"gemm.cublas.fp16_tc 8192x8192x8192 NN", "THERMAL-THROTTLE, GPU-TEMPERATURE-HIGH"});
  const auto text = t.render(50);
  EXPECT_LE(widest_line(text), 50U) << text;
  for (const char* word : {"gemm.cublas.fp16_tc", "8192x8192x8192", "GPU-TEMPERATURE-HIGH"})
    EXPECT_NE(text.find(word), std::string::npos) << word << "\n" << text;
  EXPECT_EQ(text.find("…"), std::string::npos) << text;
  // The continuation hangs two columns in.
  EXPECT_NE(text.find("\n  8192x8192x8192 NN"), std::string::npos) << text;
}

TEST(TextTableWrap, AColumnGoesUnderItsRowWhereWrappingIsNotEnough) {
  text_table t({"check", "gpu", "note"});
  t.set_shrinkable({2, 0}, 4);
  t.set_wrap();
  t.set_below(2);
  t.add_row({"memory.stream.copy fp32", "0-7", "THERMAL-THROTTLE, GPU-TEMPERATURE-HIGH"});
  const auto text = t.render(30);
  EXPECT_LE(widest_line(text), 30U) << text;
  EXPECT_NE(text.find("\n    THERMAL-THROTTLE,\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("note"), std::string::npos) << text;
  // Wide enough: the column stays in its place.
  EXPECT_NE(t.render(0).find("note"), std::string::npos);
}

// p2pBandwidthLatencyTest's matrices keep their 73-character names (an imported log's, as
// tests/fixtures/import/cuda-samples/ has them): no column is that wide at 80 columns.
TEST(TextTableWrap, AnIdentifierLongerThanItsRoomGoesWholeAboveItsRow) {
  text_table t({"check", "gpu", "measured", "verdict", "note"});
  t.set_shrinkable({4, 0}, 8);
  t.set_wrap();
  t.set_below(4);
  t.set_own_line(0);
  const std::string matrix =
      "p2pBandwidthLatencyTest.unidirectional_p2p_disabled_bandwidth_matrix_gb_s";
  t.add_row({matrix, "0-7", "", "skipped", "copies staged through host memory"});
  t.add_row({"transfer.p2p 0->1 ce both_ways 40000000B", "0,1", "416.3 GB/s", "skipped", ""});
  const auto text = t.render(80);
  EXPECT_LE(widest_line(text), 80U) << text;
  EXPECT_EQ(text.find("…"), std::string::npos) << text;
  // The name whole on its own line, its row under it with the column blank.
  EXPECT_NE(text.find("\n" + matrix + "\n    "), std::string::npos) << text;
  const auto row = text.find(matrix + "\n") + matrix.size() + 1;
  EXPECT_EQ(text.substr(row, text.find('\n', row) - row).find_first_not_of(' '), text.find("gpu"))
      << text;
  // A name that fits keeps its place beside its values.
  EXPECT_NE(text.find("\ntransfer.p2p 0->1 ce both_ways"), std::string::npos) << text;
  EXPECT_NE(text.find("0,1"), std::string::npos) << text;
  // Where the table fits, nothing moves.
  EXPECT_NE(t.render(0).find(matrix + "  0-7"), std::string::npos) << t.render(0);
}

} // namespace
} // namespace gpuspec::reports

namespace gpuspec::reports {
namespace {

/// The healthy node with every GPU's power limit at 500 W of its 700 W default: one cause (a
/// node-wide cap) on all eight GPUs, as `nvidia-smi -pl 500` over the node leaves it.
report capped_node(const std::string& hostname) {
  auto r = testing::healthy_report(hostname);
  for (auto& d : r.devices)
    d.power_limit_w = 500.0;
  return r;
}

std::size_t count_of(const std::string& text, const std::string& word) {
  std::size_t n = 0;
  for (auto at = text.find(word); at != std::string::npos; at = text.find(word, at + 1))
    ++n;
  return n;
}

TEST(NodeFindings, OneCauseOnEveryGpuIsOneFindingNamingTheGpusWithTheNodesAction) {
  const auto o = judged({capped_node("dgx-a")});
  ASSERT_EQ(o.status, verdict_status::warn);
  const std::string node_action(node_wide_action("GPUSPEC-POWER-LIMIT-LOW"));
  ASSERT_FALSE(node_action.empty());
  const auto text = table_of(o, 0);
  EXPECT_EQ(count_of(text, "WARN GPUSPEC-POWER-LIMIT-LOW"), 1U) << text;
  EXPECT_NE(text.find("WARN GPUSPEC-POWER-LIMIT-LOW gpu 0-7 (every GPU): power limit 500 W"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("action: " + node_action), std::string::npos) << text;
  EXPECT_NE(text.find("  POWER-LIMIT-LOW on gpu 0-7 (every GPU): " + node_action),
            std::string::npos)
      << text;
  const auto md = make_renderer(output_format::markdown)->render(o);
  EXPECT_EQ(count_of(md, "`GPUSPEC-POWER-LIMIT-LOW` (gpu"), 1U) << md;
  EXPECT_NE(md.find("`GPUSPEC-POWER-LIMIT-LOW` (gpu 0-7, every GPU)"), std::string::npos) << md;
  EXPECT_NE(md.find("Action: " + node_action), std::string::npos) << md;
  const auto html = make_renderer(output_format::html)->render(o);
  EXPECT_EQ(count_of(html, "<span class=\"code\">GPUSPEC-POWER-LIMIT-LOW</span> gpu"), 1U);
  EXPECT_NE(html.find("GPUSPEC-POWER-LIMIT-LOW</span> gpu 0-7 (every GPU)"), std::string::npos);
}

// The not-passing table names a node's GPUs as the findings do ("0-7"), not "0,1,2,...,7".
TEST(NodeFindings, TheNotPassingTableNamesTheGpusAsRanges) {
  const auto o = judged({capped_node("dgx-a"), capped_node("dgx-b")});
  const auto text = table_of(o, 0);
  const auto table = text.find("Not passing, worst first");
  ASSERT_NE(table, std::string::npos) << text;
  const auto row = text.find("\ndgx-a ", table);
  ASSERT_NE(row, std::string::npos) << text;
  const auto line = text.substr(row + 1, text.find('\n', row + 1) - row - 1);
  EXPECT_NE(line.find(" 0-7 "), std::string::npos) << line;
  EXPECT_EQ(line.find("0,1"), std::string::npos) << line;
}

TEST(NodeFindings, ACauseOnSomeGpusStaysPerGpuWithTheCodesOwnAction) {
  auto r = testing::healthy_report();
  for (int d : {2, 5})
    r.devices[static_cast<std::size_t>(d)].power_limit_w = 500.0;
  const auto text = table_of(judged({r}), 0);
  EXPECT_NE(text.find("WARN GPUSPEC-POWER-LIMIT-LOW gpu 2: "), std::string::npos) << text;
  EXPECT_NE(text.find("WARN GPUSPEC-POWER-LIMIT-LOW gpu 5: "), std::string::npos) << text;
  EXPECT_EQ(text.find("every GPU"), std::string::npos) << text;
  EXPECT_NE(text.find(std::string(find_reason("GPUSPEC-POWER-LIMIT-LOW").action)),
            std::string::npos);
}

TEST(NodeFindings, TheSameCodeOnSeveralNodesIsOneActionNamingThem) {
  const auto o =
      judged({capped_node("node-1"), testing::healthy_report("node-2"), capped_node("node-3")});
  const auto text = table_of(o, 0);
  const auto details = text.find("\nNode ");
  const std::string head = text.substr(0, details);
  EXPECT_EQ(count_of(head, "  POWER-LIMIT-LOW on "), 1U) << head;
  EXPECT_NE(head.find("  POWER-LIMIT-LOW on node-1 gpu 0-7 (every GPU), node-3 gpu 0-7 (every "
                      "GPU) (2 nodes): "),
            std::string::npos)
      << head;
  const auto md = make_renderer(output_format::markdown)->render(o);
  EXPECT_NE(md.find("- **warn** `GPUSPEC-POWER-LIMIT-LOW` on node-1 gpu 0-7 (every GPU), node-3"),
            std::string::npos)
      << md.substr(0, 800);
}

TEST(NodeFindings, DiagnosesAreWorstFirstInEveryLayout) {
  // The judge writes the power limit (a GPU's inventory) before GPU 3's slow results (fail).
  auto r = testing::healthy_report();
  r.devices[2].power_limit_w = 500.0;
  testing::scale_device_results(r, 3, 0.5);
  const auto o = judged({r});
  ASSERT_EQ(o.status, verdict_status::fail);
  const auto text = table_of(o, 0);
  const auto diagnosis = text.find("\nDiagnosis\n");
  ASSERT_NE(diagnosis, std::string::npos) << text;
  EXPECT_LT(text.find("FAIL GPUSPEC-BELOW-SPEC gpu 3", diagnosis),
            text.find("WARN GPUSPEC-POWER-LIMIT-LOW gpu 2", diagnosis))
      << text;
  const auto actions = text.find("\nActions\n");
  EXPECT_LT(text.find("  BELOW-SPEC on gpu 3", actions),
            text.find("  POWER-LIMIT-LOW on gpu 2", actions));
  const auto md = make_renderer(output_format::markdown)->render(o);
  const auto md_diagnosis = md.find("### Diagnosis");
  EXPECT_LT(md.find("`GPUSPEC-BELOW-SPEC` (gpu 3)", md_diagnosis),
            md.find("`GPUSPEC-POWER-LIMIT-LOW` (gpu 2)", md_diagnosis))
      << md;
  const auto html = make_renderer(output_format::html)->render(o);
  const auto findings = html.find("<h3>Findings");
  EXPECT_LT(html.find("GPUSPEC-BELOW-SPEC</span> gpu 3", findings),
            html.find("GPUSPEC-POWER-LIMIT-LOW</span> gpu 2", findings));
}

TEST(NodeFindings, EveryNodeWideCodeIsAReasonCodeAndDocumented) {
  std::ifstream in(std::filesystem::path(GPUSPEC_SOURCE_DIR) / "docs" / "check.md");
  const std::string docs((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto section = docs.find("### One cause on every GPU");
  ASSERT_NE(section, std::string::npos);
  std::size_t at = section;
  for (const auto code : node_wide_codes()) {
    EXPECT_NO_THROW((void)find_reason(code)) << code;
    const auto here = docs.find("`" + std::string(code) + "`", at);
    EXPECT_NE(here, std::string::npos) << code << " not in docs/check.md's list, in this order";
    if (here != std::string::npos)
      at = here;
  }
}

} // namespace
} // namespace gpuspec::reports
