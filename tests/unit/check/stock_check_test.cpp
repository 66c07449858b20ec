// Issue 17: a healthy stock card must pass. Each stock node of stock_fixtures.hpp, quick and
// standard suite, at the public healthy figures, passes the shipped rules (exit code 0), read
// back through the report writer and reader; and degraded variants of them still trip (STREAM
// at 0.6 of the datasheet, SGEMM at half its healthy figure, a PCIe collective at 0.2, a
// bidirectional host copy at 0.3). Then the rule matcher's selectors and overrides, and the
// rule file's version 3 keys read strictly.

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "check_fixtures.hpp"
#include "gpuspec/reports/judge/check.hpp"
#include "gpuspec/reports/judge/expectations.hpp"
#include "gpuspec/reports/judge/verdict.hpp"
#include "gpuspec/reports/model/report_json.hpp"
#include "shipped_tables.hpp"
#include "stock_fixtures.hpp"

namespace gpuspec::reports {
namespace {

using gpuspec::testing::shipped_rules;
using gpuspec::testing::shipped_specs;

using testing::stock_report;
using testing::stock_system;
using testing::stock_systems;

/// The results that did not pass, one line each, for a failure message.
std::string not_passing(const check_outcome& o, std::size_t limit = 12) {
  std::string out;
  std::size_t n = 0;
  std::map<std::string, int> more;
  for (const auto& node : o.nodes) {
    for (const auto& d : node.diagnoses)
      out += fmt::format("  node: {} {}\n", d.code, d.cause);
    for (const auto& g : node.gpus)
      for (const auto& d : g.diagnoses)
        out += fmt::format("  gpu {}: {} {}\n", g.index, d.code, d.cause);
    for (const auto& v : node.results) {
      if (v.status == verdict_status::pass || v.status == verdict_status::skipped)
        continue;
      if (n++ < limit)
        out += fmt::format("  {} [{}]: {} {}\n", v.name, to_string(v.status), v.message,
                           v.diagnoses.empty() ? "" : v.diagnoses.front().code);
      else
        ++more[v.bench_id];
    }
  }
  for (const auto& [id, count] : more)
    out += fmt::format("  ... and {} more of {}\n", count, id);
  return out;
}

struct stock_case {
  const stock_system* system;
  std::string suite;
};

void PrintTo(const stock_case& c, std::ostream* os) { *os << c.system->name << "-" << c.suite; }

std::vector<stock_case> all_cases() {
  std::vector<stock_case> out;
  for (const auto& s : stock_systems())
    for (const char* suite : {"quick", "standard"})
      out.push_back({&s, suite});
  return out;
}

class StockCard : public ::testing::TestWithParam<stock_case> {};

TEST_P(StockCard, AHealthyNodeAtThePublicFiguresPasses) {
  const auto& c = GetParam();
  const report built = stock_report(*c.system, c.suite);
  // As the harness leaves it: written by our writer and read back by our reader.
  const auto path = std::filesystem::temp_directory_path() /
                    fmt::format("gpuspec-stock-{}-{}.json", c.system->name, c.suite);
  save_report(path, built);
  const auto loaded = load_report(path);
  std::filesystem::remove(path);
  ASSERT_TRUE(loaded) << loaded.error().to_string();
  EXPECT_EQ(loaded.value(), built);
  const auto o = check(loaded.value(), shipped_specs(), shipped_rules());
  EXPECT_EQ(o.status, verdict_status::pass) << not_passing(o);
  EXPECT_EQ(exit_code_of(o.status), 0);
  // Every GPU was judged on evidence, and the families judged against a ceiling were judged.
  std::map<std::string, int> judged;
  for (const auto& v : o.nodes.at(0).results)
    if (v.status == verdict_status::pass)
      ++judged[v.group];
  for (const char* group : {"memory.stream", "gemm.cublas", "transfer", "collective"})
    EXPECT_GT(judged[group], 0) << group;
}

/// The verdict of the first result of `bench_id` with these axes on GPU `device`.
verdict_status verdict_of(const check_outcome& o, const std::string& bench_id,
                          const nlohmann::ordered_json& axes, int device = 0) {
  for (const auto& v : o.nodes.at(0).results) {
    if (v.bench_id != bench_id || v.devices.empty() || v.devices.front() != device)
      continue;
    bool match = true;
    for (const auto& [k, value] : axes.items())
      match = match &&
              v.axes.find(fmt::format("{}={}", k, value.get<std::string>())) != std::string::npos;
    if (match)
      return v.status;
  }
  ADD_FAILURE() << "no " << bench_id << " " << axes.dump();
  return verdict_status::skipped;
}

TEST_P(StockCard, DegradedVariantsStillTrip) {
  const auto& c = GetParam();
  const auto& s = *c.system;
  const report healthy = stock_report(s, c.suite);

  // STREAM at 0.6 of the datasheet on GPU 0: warns or fails, and so does the node.
  {
    report r = healthy;
    testing::set_fraction(r, "memory.stream.", {}, 0, 0.6);
    const auto o = check(r, shipped_specs(), shipped_rules());
    EXPECT_NE(verdict_of(o, "memory.stream.copy", {{"dtype", "fp32"}}), verdict_status::pass);
    EXPECT_NE(o.status, verdict_status::pass);
  }
  // SGEMM at half its healthy figure on GPU 0: fails.
  {
    report r = healthy;
    testing::set_fraction(r, "gemm.cublas.fp32", {{"shape", "4096x4096x4096"}}, 0,
                          s.figures.gemm_fp32.fraction / 2);
    const auto o = check(r, shipped_specs(), shipped_rules());
    EXPECT_EQ(verdict_of(o, "gemm.cublas.fp32", {{"shape", "4096x4096x4096"}}),
              verdict_status::fail);
  }
  // Both directions of the host link at 0.3: fails.
  {
    report r = healthy;
    testing::set_fraction(r, "transfer.bidir", {{"engine", "copy_engine"}, {"size", "256MiB"}}, 0,
                          0.3);
    const auto o = check(r, shipped_specs(), shipped_rules());
    EXPECT_EQ(verdict_of(o, "transfer.bidir",
                         {{"memory", "pinned"}, {"engine", "copy_engine"}, {"size", "256MiB"}}),
              verdict_status::fail);
  }
  // A collective at 0.2 of its link: fails, over NVLink and over PCIe alike.
  {
    report r = healthy;
    testing::set_fraction(r, "collective.all_reduce", {{"size", "1GiB"}}, -1, 0.2);
    const auto o = check(r, shipped_specs(), shipped_rules());
    EXPECT_EQ(verdict_of(o, "collective.all_reduce", {{"size", "1GiB"}}), verdict_status::fail);
    EXPECT_EQ(o.status, verdict_status::fail);
  }
  // A peer copy at 0.2 of its path: fails.
  {
    report r = healthy;
    testing::set_fraction(r, "transfer.p2p", {{"pair", "0->1"}, {"size", "256MiB"}}, 0, 0.2);
    const auto o = check(r, shipped_specs(), shipped_rules());
    EXPECT_EQ(verdict_of(o, "transfer.p2p", {{"pair", "0->1"}, {"size", "256MiB"}}),
              verdict_status::fail);
  }
}

INSTANTIATE_TEST_SUITE_P(Issue17, StockCard, ::testing::ValuesIn(all_cases()),
                         [](const auto& param_info) {
                           std::string name =
                               param_info.param.system->name + "_" + param_info.param.suite;
                           for (auto& ch : name)
                             if (ch == '-')
                               ch = '_';
                           return name;
                         });

// ---- the rule matcher ----------------------------------------------------------------------

TEST(RuleSelectors, ShapeClassesAreComputedInOnePlace) {
  EXPECT_EQ(gemm_shape_class(4096, 4096, 4096), "large");
  EXPECT_EQ(gemm_shape_class(16384, 4096, 4096), "large");
  EXPECT_EQ(gemm_shape_class(2048, 2048, 2048), "small");
  EXPECT_EQ(gemm_shape_class(1024, 1024, 1024), "small");
  EXPECT_EQ(gemm_shape_class(1, 8192, 8192), "skinny");
  EXPECT_EQ(gemm_shape_class(128, 8192, 8192), "skinny");
  EXPECT_EQ(gemm_shape_class(8192, 128, 8192), "skinny");
  EXPECT_EQ(gemm_shape_class(256, 8192, 8192), "small");
}

TEST(RuleSelectors, SmallAndSkinnyShapesAreReportedNotJudged) {
  const auto& s = stock_systems().front();
  report r = stock_report(s, "standard");
  // However slow, on every GPU alike (one slow GPU would be its siblings' outlier): not judged
  // by the big-GEMM rule.
  testing::set_fraction(r, "gemm.cublas.fp16_tc", {{"shape", "1024x1024x1024"}}, -1, 0.05);
  testing::set_fraction(r, "gemm.cublas.fp16_tc", {{"shape", "1x8192x8192"}}, -1, 0.05);
  const auto o = check(r, shipped_specs(), shipped_rules());
  EXPECT_EQ(verdict_of(o, "gemm.cublas.fp16_tc", {{"shape", "1024x1024x1024"}}),
            verdict_status::skipped);
  EXPECT_EQ(verdict_of(o, "gemm.cublas.fp16_tc", {{"shape", "1x8192x8192"}}),
            verdict_status::skipped);
  EXPECT_EQ(verdict_of(o, "gemm.cublas.fp16_tc", {{"shape", "8192x8192x8192"}}),
            verdict_status::pass);
}

TEST(RuleSelectors, TheSubjectCarriesPathAccumulationArchitectureAndRow) {
  const auto& systems = stock_systems();
  const auto find = [&](const std::string& name) {
    return *std::find_if(systems.begin(), systems.end(),
                         [&](const stock_system& s) { return s.name == name; });
  };
  const report nv = stock_report(find("8x-h100-sxm"), "standard");
  const report pcie = stock_report(find("4x-h100-pcie"), "standard");
  const auto subject = [](const report& r, const std::string& id,
                          const nlohmann::ordered_json& axes) {
    for (const auto& res : r.results) {
      bool match = res.bench_id == id;
      for (const auto& [k, v] : axes.items())
        match = match && res.axes.contains(k) && res.axes[k] == v;
      if (match)
        return subject_of(r, res, &r.devices.front(),
                          shipped_specs().find(r.devices.front().spec_id));
    }
    throw std::runtime_error("no " + id);
  };
  EXPECT_EQ(subject(nv, "transfer.p2p", {{"pair", "0->5"}}).path, "nvlink");
  EXPECT_EQ(subject(pcie, "transfer.p2p", {{"pair", "0->1"}}).path, "pcie");
  EXPECT_EQ(subject(pcie, "transfer.p2p", {{"pair", "0->3"}}).path, "cross_socket");
  EXPECT_EQ(subject(nv, "collective.all_reduce", {}).path, "nvlink");
  EXPECT_EQ(subject(pcie, "collective.all_reduce", {}).path, "cross_socket");
  EXPECT_EQ(subject(nv, "transfer.h2d", {}).path, "pcie");
  const auto fp8 = subject(nv, "gemm.cublas.fp8_tc", {{"shape", "8192x8192x8192"}});
  EXPECT_EQ(fp8.accumulation, "fp32");
  EXPECT_EQ(fp8.shape_class, "large");
  EXPECT_EQ(fp8.arch, "hopper");
  EXPECT_EQ(fp8.spec_id, "h100-sxm5-80gb");
  EXPECT_EQ(subject(nv, "gemm.cublas.fp16_tc_acc16", {}).accumulation, "fp16");
  EXPECT_EQ(subject(nv, "memory.stream.copy", {}).path, "");
}

expectations parse_v3(const std::string& rules) {
  auto e = parse_expectations(
      nlohmann::ordered_json::parse(R"({"schema": "gpuspec.expect.v3", "rules": [)" + rules + "]}"),
      "rules.json");
  if (!e)
    throw std::runtime_error(e.error().to_string());
  return std::move(e).value();
}

TEST(RuleSelectors, AnOverrideForTheRowWinsOverOneForTheArchitecture) {
  const auto e = parse_v3(R"({"pattern": "gemm.*", "shape_class": "large", "pass": 0.8,
    "warn": 0.6, "overrides": [
      {"arch": "hopper", "pass": 0.5, "warn": 0.4, "why": "arch"},
      {"spec": ["h100-pcie-80gb", "t4"], "pass": 0.3, "warn": 0.2, "why": "row"}]},
    {"pattern": "gemm.*", "informational": true, "why": "other shapes"})");
  rule_subject s;
  s.bench_id = "gemm.cublas.fp32";
  s.shape_class = "large";
  s.arch = "hopper";
  s.spec_id = "h100-sxm5-80gb";
  auto c = e.choose(s);
  ASSERT_TRUE(c);
  EXPECT_DOUBLE_EQ(c->pass, 0.5);
  EXPECT_EQ(c->why, "arch");
  s.spec_id = "h100-pcie-80gb";
  c = e.choose(s);
  EXPECT_DOUBLE_EQ(c->pass, 0.3);
  ASSERT_NE(c->applied, nullptr);
  s.arch = "ampere";
  s.spec_id = "a100-sxm4-80gb";
  c = e.choose(s);
  EXPECT_DOUBLE_EQ(c->pass, 0.8);
  EXPECT_EQ(c->applied, nullptr);
  // A selector counts as a condition; a subject that lacks the fact does not match it.
  s.shape_class = "small";
  EXPECT_TRUE(e.choose(s)->informational);
  s.shape_class = "";
  EXPECT_TRUE(e.choose(s)->informational);
}

TEST(RuleSelectors, ASiteFileReplacesOneOverrideAndKeepsTheOthers) {
  const auto base = parse_v3(R"({"pattern": "memory.stream.*", "pass": 0.7, "warn": 0.6,
    "overrides": [{"spec": "h200-sxm-141gb", "pass": 0.62, "warn": 0.52},
                  {"arch": "turing", "pass": 0.65, "warn": 0.55}]})");
  const auto merged = merge_expectations(base, nlohmann::ordered_json::parse(R"({
    "schema": "gpuspec.expect.v3", "rules": [{"pattern": "memory.stream.*",
      "overrides": [{"spec": "h200-sxm-141gb", "pass": 0.75, "warn": 0.65}]}]})"),
                                         "site.json");
  ASSERT_TRUE(merged) << merged.error().to_string();
  rule_subject s;
  s.bench_id = "memory.stream.triad";
  s.spec_id = "h200-sxm-141gb";
  EXPECT_DOUBLE_EQ(merged.value().choose(s)->pass, 0.75);
  s.spec_id = "t4";
  s.arch = "turing";
  EXPECT_DOUBLE_EQ(merged.value().choose(s)->pass, 0.65);
  // A version 2 site file still merges (no selectors, no overrides).
  const auto v2 = merge_expectations(base, nlohmann::ordered_json::parse(R"({
    "schema": "gpuspec.expect.v2", "rules": [{"pattern": "memory.stream.*", "pass": 0.9}]})"),
                                     "site.json");
  ASSERT_TRUE(v2) << v2.error().to_string();
  s.spec_id = "a100-sxm4-80gb";
  s.arch = "ampere";
  EXPECT_DOUBLE_EQ(v2.value().choose(s)->pass, 0.9);
}

struct bad_v3 {
  const char* schema;
  const char* rule;
  const char* field;
};

void PrintTo(const bad_v3& b, std::ostream* os) { *os << b.field; }

class BadVersion3Rules : public ::testing::TestWithParam<bad_v3> {};

TEST_P(BadVersion3Rules, NameTheFileAndTheField) {
  const auto& b = GetParam();
  const auto e = parse_expectations(nlohmann::ordered_json::parse(fmt::format(
                                        R"({{"schema": "{}", "rules": [{}]}})", b.schema, b.rule)),
                                    "expect.json");
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error().file, "expect.json");
  EXPECT_EQ(e.error().field, b.field) << e.error().to_string();
}

INSTANTIATE_TEST_SUITE_P(
    Expectations, BadVersion3Rules,
    ::testing::Values(
        // A version 2 file that uses a version 3 key is told to say so.
        bad_v3{"gpuspec.expect.v2", R"({"pattern": "a", "path": "pcie", "pass": 0.8, "warn": 0.5})",
               "rules[0].path"},
        bad_v3{"gpuspec.expect.v3",
               R"({"pattern": "a", "shape_class": "huge", "pass": 0.8, "warn": 0.5})",
               "rules[0].shape_class"},
        bad_v3{"gpuspec.expect.v3", R"({"pattern": "a", "path": [], "pass": 0.8, "warn": 0.5})",
               "rules[0].path"},
        bad_v3{"gpuspec.expect.v3",
               R"({"pattern": "a", "accumulation": 16, "pass": 0.8, "warn": 0.5})",
               "rules[0].accumulation"},
        bad_v3{"gpuspec.expect.v3",
               R"({"pattern": "a", "pass": 0.8, "warn": 0.5, "overrides": {}})",
               "rules[0].overrides"},
        bad_v3{"gpuspec.expect.v3",
               R"({"pattern": "a", "pass": 0.8, "warn": 0.5, "overrides": [{"pass": 0.5,
               "warn": 0.4}]})",
               "rules[0].overrides[0]"},
        bad_v3{"gpuspec.expect.v3",
               R"({"pattern": "a", "pass": 0.8, "warn": 0.5, "overrides": [{"arch": "kepler",
               "pass": 0.5, "warn": 0.4}]})",
               "rules[0].overrides[0].arch"},
        bad_v3{"gpuspec.expect.v3",
               R"({"pattern": "a", "pass": 0.8, "warn": 0.5, "overrides": [{"spec": "t4",
               "pass": 0.5}]})",
               "rules[0].overrides[0].warn"},
        bad_v3{"gpuspec.expect.v3",
               R"({"pattern": "a", "pass": 0.8, "warn": 0.5, "overrides": [{"spec": "t4",
               "pass": 0.5, "warn": 0.6}]})",
               "rules[0].overrides[0].warn"},
        bad_v3{"gpuspec.expect.v3",
               R"({"pattern": "a", "pass": 0.8, "warn": 0.5, "overrides": [{"spec": "t4",
               "pass": 0.5, "warn": 0.4, "colour": 1}]})",
               "rules[0].overrides[0].colour"},
        bad_v3{"gpuspec.expect.v3",
               R"({"pattern": "a", "pass": 0.8, "warn": 0.5, "overrides": [
               {"spec": "t4", "pass": 0.5, "warn": 0.4}, {"spec": "t4", "pass": 0.6,
               "warn": 0.4}]})",
               "rules[0].overrides[1]"}),
    [](const auto& param_info) { return "case_" + std::to_string(param_info.index); });

} // namespace
} // namespace gpuspec::reports
