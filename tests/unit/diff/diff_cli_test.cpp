// `gpuspec diff` and `gpuspec compare` run as a user runs them: exit codes, output formats, and
// bad input (missing, empty, truncated, non-JSON, wrong schema, mistyped field) -> exit 3 with a
// message naming the file and the field, never a crash.

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include "diff_samples.hpp"
#include "gpuspec/reports/model/report_json.hpp"
#include "run_process.hpp"

namespace fs = std::filesystem;
namespace gr = gpuspec::reports;
namespace gt = gpuspec::reports::testing;

namespace {

using gpuspec::testing::process_result;
using gpuspec::testing::read_all;

void write_text(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
}

const std::string fixtures = GPUSPEC_DIFF_FIXTURES;

class DiffProcess : public gpuspec::testing::scratch_dir_test {
protected:
  process_result gpuspec(const std::string& args) {
    return gpuspec::testing::run_in(m_dir, "env -u GPUSPEC_SPECS '" GPUSPEC_BINARY "' " + args);
  }

  static std::string fixture(const std::string& name) { return "'" + fixtures + "/" + name + "'"; }
};

} // namespace

TEST_F(DiffProcess, ExitCodesFollowTheVerdict) {
  const auto fail = gpuspec("diff " + fixture("baseline.json") + " " + fixture("regressed.json"));
  EXPECT_EQ(fail.exit_code, 2) << fail.out << fail.err;
  EXPECT_NE(fail.out.find("Inventory differences"), std::string::npos);
  // The answer first and last, in check's words (issue 31).
  EXPECT_EQ(fail.out.rfind("Verdict: FAIL (exit code 2);", 0), 0U) << fail.out;
  EXPECT_NE(fail.out.find("\nVerdict: FAIL (exit code 2)\n"), std::string::npos) << fail.out;
  EXPECT_NE(fail.out.find("paired by serial"), std::string::npos);

  const auto warn =
      gpuspec("diff " + fixture("baseline.json") + " " + fixture("slightly-slower.json"));
  EXPECT_EQ(warn.exit_code, 1) << warn.out << warn.err;
  const auto pass = gpuspec("diff " + fixture("baseline.json") + " " + fixture("improved.json"));
  EXPECT_EQ(pass.exit_code, 0) << pass.out << pass.err;
  const auto same = gpuspec("diff " + fixture("baseline.json") + " " + fixture("baseline.json"));
  EXPECT_EQ(same.exit_code, 0) << same.out << same.err;
  // A looser fail threshold turns the failure into a warning.
  const auto loose = gpuspec("diff --fail-threshold 0.2 " + fixture("baseline.json") + " " +
                             fixture("regressed.json"));
  EXPECT_EQ(loose.exit_code, 1) << loose.out << loose.err;
  // A fail threshold under the minimum effect is bad usage.
  const auto usage = gpuspec("diff --fail-threshold 0.01 " + fixture("baseline.json") + " " +
                             fixture("regressed.json"));
  EXPECT_EQ(usage.exit_code, 3) << usage.out << usage.err;
  EXPECT_NE(usage.err.find("--fail-threshold"), std::string::npos) << usage.err;
}

TEST_F(DiffProcess, JsonAndMarkdownOutput) {
  const auto j =
      gpuspec("diff --json " + fixture("baseline.json") + " " + fixture("regressed.json"));
  EXPECT_EQ(j.exit_code, 2);
  const auto doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc.at("schema"), "gpuspec.diff.v2");
  EXPECT_EQ(doc.at("verdict"), "fail");
  const auto md =
      gpuspec("diff --format md " + fixture("baseline.json") + " " + fixture("regressed.json"));
  EXPECT_EQ(md.exit_code, 2);
  EXPECT_EQ(md.out.rfind("# gpuspec diff", 0), 0U) << md.out;
}

TEST_F(DiffProcess, BadInputIsExitThreeNamingFileAndField) {
  const std::string base = fixture("baseline.json");
  write_text(m_dir / "empty.json", "");
  write_text(m_dir / "notjson.json", "this is not JSON\n");
  const std::string good = read_all(fixtures + "/baseline.json");
  write_text(m_dir / "truncated.json", good.substr(0, good.size() / 2));
  auto j = nlohmann::ordered_json::parse(good);
  j["schema"] = "gpuspec.report.v0";
  write_text(m_dir / "schema.json", j.dump());
  j = nlohmann::ordered_json::parse(good);
  j["results"][1]["stats"]["median"] = "fast";
  write_text(m_dir / "mistyped.json", j.dump());
  j = nlohmann::ordered_json::parse(good);
  j["devices"][0].erase("serial");
  write_text(m_dir / "missing-field.json", j.dump());

  struct expectation {
    std::string file, field;
  };
  const expectation cases[] = {{"absent.json", ""},
                               {"empty.json", ""},
                               {"notjson.json", ""},
                               {"truncated.json", ""},
                               {"schema.json", "schema"},
                               {"mistyped.json", "results[1].stats.median"},
                               {"missing-field.json", "devices[0].serial"}};
  for (const auto& c : cases) {
    for (const bool as_new : {true, false}) {
      const std::string args = as_new ? base + " " + c.file : c.file + " " + base;
      const auto r = gpuspec("diff " + args);
      EXPECT_EQ(r.exit_code, 3) << c.file << ": " << r.out << r.err;
      EXPECT_NE(r.err.find(c.file), std::string::npos) << r.err;
      if (!c.field.empty()) {
        EXPECT_NE(r.err.find(c.field), std::string::npos) << r.err;
      }
    }
    const auto r = gpuspec("compare " + base + " " + c.file);
    EXPECT_EQ(r.exit_code, 3) << c.file << ": " << r.out << r.err;
    EXPECT_NE(r.err.find(c.file), std::string::npos) << r.err;
  }
  const auto usage = gpuspec("diff " + base);
  EXPECT_EQ(usage.exit_code, 3);
}

TEST_F(DiffProcess, CompareWithSpecTableAndOutlier) {
  // Five one-GPU nodes of one (unlisted) model, the fifth 30% slower.
  // (Names built by append: GCC 12 warns falsely on `"n" + std::to_string(i)` at -O3.)
  for (int i = 0; i < 5; ++i) {
    const double triad = i == 4 ? 700.0 : 1000.0 + i;
    const std::string number = std::to_string(i);
    std::string file("n");
    file.append(number).append(".json");
    auto r = gt::synthetic_node(
        std::string("node").append(number),
        {gt::synthetic_gpu(0, std::string("SER").append(number),
                           std::string("UUID").append(number))},
        {gt::synthetic_result("memory.stream.triad", 0,
                              gt::noisy_samples(triad, 0.001, 20, 40 + static_cast<unsigned>(i)))});
    gr::save_report(m_dir / file, r);
  }
  const std::string files = "n0.json n1.json n2.json n3.json n4.json";
  const auto table = gpuspec("compare --specs /nonexistent/gpus.json " + files);
  EXPECT_EQ(table.exit_code, 3) << table.out << table.err;
  EXPECT_NE(table.err.find("/nonexistent/gpus.json"), std::string::npos) << table.err;

  write_text(m_dir / "bad-specs.json", "{");
  const auto bad = gpuspec("compare --specs bad-specs.json " + files);
  EXPECT_EQ(bad.exit_code, 3) << bad.out << bad.err;
  EXPECT_NE(bad.err.find("bad-specs.json"), std::string::npos) << bad.err;

  const auto out = gpuspec("compare --json " + files);
  EXPECT_EQ(out.exit_code, 1) << out.out << out.err; // one outlier
  const auto doc = nlohmann::json::parse(out.out);
  EXPECT_EQ(doc.at("outliers"), 1);
  EXPECT_EQ(doc.at("columns").size(), 5U);
  EXPECT_TRUE(doc.at("rows").at(0).at("cells").at(4).at("outlier").get<bool>());
  const auto text = gpuspec("compare n0.json n1.json");
  EXPECT_EQ(text.exit_code, 0) << text.out << text.err;
  EXPECT_NE(text.out.find("memory.stream.triad"), std::string::npos) << text.out;
}

TEST_F(DiffProcess, CompareNormalisesEachGpuByItsOwnSpecRow) {
  // Two nodes of different models, named as NVML names them, against the source tree's spec
  // table (the default). The figures are synthetic; the test asks only that each cell is read
  // against its own row's memory bandwidth.
  const std::pair<const char*, double> nodes[] = {{"NVIDIA A100-SXM4-80GB", 1800.0},
                                                  {"Tesla T4", 280.0}};
  std::string files;
  int i = 0;
  for (const auto& [name, triad] : nodes) {
    std::string file("model");
    file.append(std::to_string(i)).append(".json");
    gr::save_report(
        m_dir / file,
        gt::synthetic_node(file, {gt::synthetic_gpu(0, "S", "U", name)},
                           {gt::synthetic_result("memory.stream.triad", 0,
                                                 gt::noisy_samples(triad, 0.001, 20, 60U + i))}));
    files.append(" ").append(file);
    ++i;
  }
  const auto out = gpuspec("compare --json" + files);
  ASSERT_EQ(out.exit_code, 0) << out.out << out.err;
  const auto doc = nlohmann::json::parse(out.out);
  const auto& cells = doc.at("rows").at(0).at("cells");
  ASSERT_EQ(cells.size(), 2U);
  for (std::size_t c = 0; c < 2; ++c) {
    EXPECT_NE(doc.at("columns").at(c).at("spec_id"), "") << out.out;
    EXPECT_EQ(cells.at(c).at("reference"), "datasheet") << out.out;
    const double fraction = cells.at(c).at("fraction").get<double>();
    EXPECT_GT(fraction, 0.5);
    EXPECT_LT(fraction, 1.2);
  }
  // The A100 figure is six times the T4's, the fractions are close.
  EXPECT_NEAR(cells.at(0).at("fraction").get<double>(), cells.at(1).at("fraction").get<double>(),
              0.2);
}
