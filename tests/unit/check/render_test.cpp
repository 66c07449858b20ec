// The printers: terminal table, Markdown, JSON, JUnit XML, Prometheus text.

#include <map>
#include <regex>
#include <set>

#include <gtest/gtest.h>

#include "check_fixtures.hpp"
#include "gpuspec/reports/check.hpp"
#include "gpuspec/reports/render.hpp"

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

std::string render(output_format f, bool colour = false) {
  return make_renderer(f, {colour})->render(degraded_outcome());
}

TEST(Render, FormatNames) {
  EXPECT_EQ(output_format_from_string("table"), output_format::table);
  EXPECT_EQ(output_format_from_string("md"), output_format::markdown);
  EXPECT_EQ(output_format_from_string("json"), output_format::json);
  EXPECT_EQ(output_format_from_string("junit"), output_format::junit);
  EXPECT_EQ(output_format_from_string("prom"), output_format::prometheus);
  EXPECT_EQ(output_format_from_string("xml"), std::nullopt);
}

TEST(Render, TableHasVerdictsDiagnosesAndColourOnlyWhenAsked) {
  const auto plain = render(output_format::table);
  EXPECT_NE(plain.find("GPUSPEC-PCIE-LINK-DEGRADED"), std::string::npos);
  EXPECT_NE(plain.find("Verdict: FAIL (exit code 2)"), std::string::npos);
  EXPECT_EQ(plain.find("\033["), std::string::npos);
  EXPECT_NE(render(output_format::table, true).find("\033[31m"), std::string::npos);
}

TEST(Render, MarkdownTables) {
  const auto md = render(output_format::markdown);
  EXPECT_NE(md.find("| check | gpu | measured |"), std::string::npos);
  EXPECT_NE(md.find("`GPUSPEC-PCIE-LINK-DEGRADED`"), std::string::npos);
}

TEST(Render, JsonCarriesStatusExitCodeAndDiagnoses) {
  const auto j = nlohmann::ordered_json::parse(render(output_format::json));
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
  const auto xml = render(output_format::junit);
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
  const auto text = render(output_format::prometheus);
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

} // namespace
} // namespace gpuspec::reports
