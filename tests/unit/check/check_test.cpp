// The comparator, the diagnosis rules and the expectation rules, without a GPU (STYLE.md 10).

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "check_fixtures.hpp"
#include "gpuspec/reports/check.hpp"
#include "gpuspec/reports/diagnosis.hpp"
#include "gpuspec/reports/expectations.hpp"
#include "gpuspec/reports/report_json.hpp"

namespace gpuspec::reports {
namespace {

using testing::build;
using testing::healthy_report;
using testing::scale_device_results;
using testing::synthetic_specs;

const std::filesystem::path fixtures = std::filesystem::path(GPUSPEC_FIXTURES_DIR) / "check";
const std::filesystem::path expect_file = std::filesystem::path(GPUSPEC_SPECS_DIR) / "expect.json";

expectations default_rules() {
  auto e = load_expectations(expect_file);
  if (!e)
    throw std::runtime_error(e.error().to_string());
  return e.value();
}

/// Every diagnosis in an outcome, with the device it names.
std::vector<const diagnosis*> all_diagnoses(const check_outcome& o) {
  std::vector<const diagnosis*> out;
  for (const auto& n : o.nodes) {
    for (const auto& d : n.diagnoses)
      out.push_back(&d);
    for (const auto& g : n.gpus)
      for (const auto& d : g.diagnoses)
        out.push_back(&d);
    for (const auto& r : n.results)
      for (const auto& d : r.diagnoses)
        out.push_back(&d);
  }
  return out;
}

bool has(const check_outcome& o, const std::string& code, std::optional<int> device) {
  const auto all = all_diagnoses(o);
  return std::any_of(all.begin(), all.end(),
                     [&](const diagnosis* d) { return d->code == code && d->device == device; });
}

TEST(Check, HealthyReportPassesWithNoDiagnosis) {
  const auto o = check(healthy_report(), synthetic_specs(), default_rules());
  EXPECT_EQ(o.status, verdict_status::pass);
  EXPECT_EQ(exit_code_of(o.status), 0);
  ASSERT_EQ(o.nodes.size(), 1u);
  EXPECT_TRUE(all_diagnoses(o).empty());
  for (const auto& r : o.nodes[0].results) {
    EXPECT_EQ(r.status, verdict_status::pass) << r.name << ": " << r.message;
    EXPECT_EQ(r.frame, "spec");
  }
  // STREAM triad: 905 GB/s of 1000; SGEMM 8.5 of 10 TFLOP/s, units converted.
  const auto& triad = o.nodes[0].results[1];
  EXPECT_EQ(triad.bench_id, "memory.stream.triad");
  EXPECT_DOUBLE_EQ(*triad.expected, 1000);
  EXPECT_NEAR(*triad.efficiency, 0.905, 1e-3);
  const auto& gemm = o.nodes[0].results[2];
  EXPECT_DOUBLE_EQ(*gemm.expected, 10);
  EXPECT_NEAR(*gemm.efficiency, 0.85, 1e-3);
  for (const auto& g : o.nodes[0].gpus)
    EXPECT_EQ(g.status, verdict_status::pass);
}

TEST(Check, NamesAreUniqueAndGroupsAreTheBenchFamily) {
  const auto o = check(healthy_report(), synthetic_specs(), default_rules());
  std::set<std::string> names;
  for (const auto& r : o.nodes[0].results) {
    EXPECT_TRUE(names.insert(r.name).second) << r.name;
    EXPECT_EQ(r.group, r.bench_id.substr(0, r.bench_id.rfind('.')));
  }
}

class DegradedVariant : public ::testing::TestWithParam<testing::degraded_variant> {};

TEST_P(DegradedVariant, IsDiagnosedWithItsReasonCode) {
  const auto& v = GetParam();
  const auto o = check(build(v.degrade), synthetic_specs(), default_rules());
  EXPECT_TRUE(has(o, v.code, v.device)) << v.code << " not given";
  EXPECT_EQ(o.nodes[0].status, v.node_status) << to_string(o.nodes[0].status);
  EXPECT_EQ(o.status, v.node_status);
  // Every diagnosis has an action, a documented code and the evidence an RMA ticket needs.
  for (const auto* d : all_diagnoses(o)) {
    EXPECT_FALSE(d->action.empty());
    EXPECT_FALSE(d->cause.empty());
    EXPECT_NO_THROW((void)find_reason(d->code));
    EXPECT_TRUE(d->severity == verdict_status::warn || d->severity == verdict_status::fail);
    if (d->device) {
      for (const char* key : {"serial", "uuid", "pci_bus_id", "vbios", "driver"})
        EXPECT_TRUE(d->evidence.contains(key)) << d->code << " lacks " << key;
    }
  }
  // Every warn or fail result has a probable cause.
  for (const auto& r : o.nodes[0].results) {
    if (r.status == verdict_status::warn || r.status == verdict_status::fail) {
      EXPECT_FALSE(r.diagnoses.empty()) << r.name;
    }
  }
  // Healthy GPUs stay healthy: GPU 1 is never touched by a device-level variant.
  if (v.device && *v.device == 2) {
    EXPECT_EQ(o.nodes[0].gpus[1].status, verdict_status::pass) << v.name;
  }
}

INSTANTIATE_TEST_SUITE_P(Check, DegradedVariant, ::testing::ValuesIn(testing::degraded_variants()),
                         [](const auto& param_info) {
                           std::string n = param_info.param.name;
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

TEST(Check, EveryReasonCodeHasAVariantOrATestOfItsOwn) {
  std::set<std::string> covered;
  for (const auto& v : testing::degraded_variants())
    covered.insert(v.code);
  covered.insert("GPUSPEC-FLEET-OUTLIER");  // Fleet.*
  covered.insert("GPUSPEC-BELOW-BASELINE"); // Baseline.*
  covered.insert("GPUSPEC-RUN-INCOMPLETE"); // documented; the node message says it
  for (const auto& c : reason_codes())
    EXPECT_TRUE(covered.contains(std::string(c.code))) << c.code;
}

class InconclusiveVariant : public ::testing::TestWithParam<testing::inconclusive_variant> {};

TEST_P(InconclusiveVariant, IsNeverAPass) {
  const auto o = check(build(GetParam().degrade), synthetic_specs(), default_rules());
  std::size_t inconclusive = 0;
  for (const auto& r : o.nodes[0].results)
    if (r.status == verdict_status::inconclusive) {
      ++inconclusive;
      EXPECT_FALSE(r.message.empty());
    }
  EXPECT_EQ(inconclusive, 1u);
  EXPECT_EQ(o.status, verdict_status::inconclusive);
  EXPECT_EQ(exit_code_of(o.status), 3);
}

INSTANTIATE_TEST_SUITE_P(Check, InconclusiveVariant,
                         ::testing::ValuesIn(testing::inconclusive_variants()),
                         [](const auto& param_info) {
                           std::string n = param_info.param.name;
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

TEST(Check, InconclusiveLosesToWarnAndFail) {
  auto r = build(testing::inconclusive_variants()[0].degrade);
  testing::degraded_variants()[0].degrade(r); // PCIe link: warn
  EXPECT_EQ(check(r, synthetic_specs(), default_rules()).status, verdict_status::warn);
}

TEST(Check, SkippedIsNeutral) {
  auto r = healthy_report();
  r.results[0].status = result_status::not_supported;
  r.results[0].reason = "synthetic";
  const auto o = check(r, synthetic_specs(), default_rules());
  EXPECT_EQ(o.nodes[0].results[0].status, verdict_status::skipped);
  EXPECT_EQ(o.status, verdict_status::pass);
}

TEST(Check, IncompleteOrEmptyReportIsInconclusive) {
  auto r = healthy_report();
  r.complete = false;
  r.incomplete_reason = "interrupted";
  auto o = check(r, synthetic_specs(), default_rules());
  EXPECT_EQ(o.status, verdict_status::inconclusive);
  EXPECT_NE(o.nodes[0].message.find("interrupted"), std::string::npos);
  r = healthy_report();
  r.results.clear();
  EXPECT_EQ(check(r, synthetic_specs(), default_rules()).status, verdict_status::inconclusive);
}

TEST(Check, NoSpecRowJudgesClockAdjustedEfficiency) {
  auto r = healthy_report();
  for (auto& d : r.devices) {
    d.spec_id.clear();
    d.pci_device_id = 0x0FFE;
    d.name = "Synthetic GPU Unknown";
  }
  scale_device_results(r, 1, 0.6); // 54% of the clock-adjusted ceiling: fail
  const auto o = check(r, synthetic_specs(), default_rules());
  for (const auto& res : o.nodes[0].results)
    EXPECT_EQ(res.frame, "clock_adjusted");
  EXPECT_EQ(o.nodes[0].results[3].status, verdict_status::fail);
  EXPECT_EQ(o.nodes[0].gpus[1].status, verdict_status::fail);
  EXPECT_EQ(o.nodes[0].gpus[0].status, verdict_status::warn); // no spec row
}

TEST(Check, LowerIsBetterMetricsAreInverted) {
  auto r = healthy_report();
  r.results.resize(1);
  r.results[0].bench_id = "latency.synthetic";
  r.results[0].higher_is_better = false;
  r.results[0].unit = "us";
  r.results[0].efficiency = 0.5; // the harness's figure, ceiling / median
  const auto o = check(r, synthetic_specs(), default_rules());
  EXPECT_EQ(o.nodes[0].results[0].frame, "clock_adjusted");
  EXPECT_EQ(o.nodes[0].results[0].status, verdict_status::fail);
}

TEST(Check, DatasheetRuleJudgesTheCeilingTheBenchmarkAttached) {
  // A memory-bound GEMM shape: the benchmark attached a roofline below the compute peak as its
  // datasheet ceiling; a "datasheet" rule judges against that, not against the spec's peak.
  auto r = healthy_report();
  r.results.resize(2);
  for (auto& res : r.results) {
    res.bench_id = "gemm.cublas.fp16_tc";
    res.unit = "TFLOP/s";
    res.ceiling_value.datasheet = 100.0;
    res.efficiency.reset();
  }
  r.results[0].stats.median = r.results[1].stats.median = 90.0;
  r.results[0].samples = r.results[1].samples = {90.0, 90.0, 90.0};
  auto rules = parse_expectations(nlohmann::ordered_json::parse(R"({
    "schema": "gpuspec.expect.v1",
    "rules": [{"pattern": "gemm.*", "ceiling": "datasheet", "pass": 0.85, "warn": 0.7}]})"),
                                  "rules.json");
  ASSERT_TRUE(rules) << rules.error().to_string();
  auto o = check(r, synthetic_specs(), rules.value());
  EXPECT_EQ(o.nodes[0].results[0].frame, "spec");
  ASSERT_TRUE(o.nodes[0].results[0].expected);
  EXPECT_DOUBLE_EQ(*o.nodes[0].results[0].expected, 100.0);
  EXPECT_EQ(o.nodes[0].results[0].status, verdict_status::pass);
  // No datasheet ceiling and no efficiency: skipped, and the message says which is missing.
  r.results[0].ceiling_value.datasheet.reset();
  o = check(r, synthetic_specs(), rules.value());
  EXPECT_EQ(o.nodes[0].results[0].status, verdict_status::skipped);
  EXPECT_NE(o.nodes[0].results[0].message.find("no datasheet ceiling"), std::string::npos);
}

TEST(Siblings, TwoIdenticalGpusFlagOnlyTheSlowOne) {
  auto r = healthy_report();
  r.devices.resize(2);
  std::erase_if(r.results, [](const result& x) { return x.devices[0] >= 2; });
  std::erase_if(r.host.checks, [](const host_check& c) { return c.device && *c.device >= 2; });
  scale_device_results(r, 1, 0.9);
  const auto o = check(r, synthetic_specs(), default_rules());
  EXPECT_TRUE(has(o, "GPUSPEC-SIBLING-OUTLIER", 1));
  EXPECT_FALSE(has(o, "GPUSPEC-SIBLING-OUTLIER", 0));
}

TEST(Siblings, SmallSpreadIsNotAnOutlier) {
  auto r = healthy_report();
  scale_device_results(r, 3, 0.97);
  EXPECT_EQ(check(r, synthetic_specs(), default_rules()).status, verdict_status::pass);
}

TEST(Fleet, ModifiedZScoreFindsTheSlowNodeWithTenReports) {
  std::vector<report> fleet;
  for (int i = 0; i < 12; ++i)
    fleet.push_back(healthy_report("node-" + std::to_string(i), 1.0 + 0.002 * (i % 5)));
  // A whole node 7% slow: its GPUs agree with each other (no sibling outlier) and still pass
  // against the datasheet, but the fleet frame sees it.
  fleet.push_back(healthy_report("node-slow", 0.93));
  const auto o = check(fleet, synthetic_specs(), default_rules());
  const auto& slow = o.nodes.back();
  EXPECT_EQ(slow.status, verdict_status::warn);
  for (const auto& r : slow.results) {
    ASSERT_EQ(r.diagnoses.size(), 1u) << r.name;
    EXPECT_EQ(r.diagnoses[0].code, "GPUSPEC-FLEET-OUTLIER");
  }
  for (std::size_t i = 0; i + 1 < o.nodes.size(); ++i)
    EXPECT_EQ(o.nodes[i].status, verdict_status::pass) << o.nodes[i].hostname;
}

TEST(Fleet, FewerThanTenReportsAreNotCompared) {
  std::vector<report> fleet;
  for (int i = 0; i < 8; ++i)
    fleet.push_back(healthy_report("node-" + std::to_string(i)));
  fleet.push_back(healthy_report("node-slow", 0.93));
  const auto o = check(fleet, synthetic_specs(), default_rules());
  EXPECT_EQ(o.status, verdict_status::pass);
  EXPECT_FALSE(o.notes.empty());
}

TEST(Baseline, JudgesAgainstTheBaselineMedianWithinTheTolerance) {
  const auto base = healthy_report();
  auto now = healthy_report();
  scale_device_results(now, 0, 0.97); // within 5%
  scale_device_results(now, 1, 0.93); // 5-10%: warn
  scale_device_results(now, 2, 0.80); // fail
  check_options options;
  options.baseline = &base;
  const auto o = check(now, synthetic_specs(), default_rules(), options);
  const auto& n = o.nodes[0];
  EXPECT_EQ(n.results[0].frame, "baseline");
  EXPECT_EQ(n.gpus[0].status, verdict_status::pass);
  EXPECT_EQ(n.gpus[1].status, verdict_status::warn);
  EXPECT_EQ(n.gpus[2].status, verdict_status::fail);
  EXPECT_TRUE(has(o, "GPUSPEC-BELOW-BASELINE", 2));
  // GPU 2 is also 20% below its siblings; with a wide tolerance only that frame warns.
  options.baseline_tolerance = 0.25;
  const auto wide = check(now, synthetic_specs(), default_rules(), options);
  EXPECT_FALSE(has(wide, "GPUSPEC-BELOW-BASELINE", 2));
  EXPECT_TRUE(has(wide, "GPUSPEC-SIBLING-OUTLIER", 2));
}

TEST(Baseline, MatchesGpusBySerialNotIndex) {
  auto base = healthy_report();
  // The baseline lists the same GPUs in another order (indices renumbered).
  std::swap(base.devices[0].serial, base.devices[3].serial);
  std::swap(base.devices[0].uuid, base.devices[3].uuid);
  scale_device_results(base, 3, 0.5); // baseline for serial ...0000 is slow
  auto now = healthy_report();
  for (int i = 0; i < 4; ++i)
    scale_device_results(now, i, 0.5);
  check_options options;
  options.baseline = &base;
  const auto o = check(now, synthetic_specs(), default_rules(), options);
  EXPECT_EQ(o.nodes[0].gpus[0].status, verdict_status::pass); // same serial: equal
  EXPECT_EQ(o.nodes[0].gpus[1].status, verdict_status::fail); // half its baseline
}

// Behaviour at scale only; how fast it is, tests/perf/gpuspec_check_benchmark measures.
TEST(Check, TenThousandResultsAreAllJudged) {
  auto r = healthy_report();
  const auto base = r.results;
  r.results.clear();
  for (int i = 0; r.results.size() < 10000; ++i)
    for (const auto& res : base) {
      auto copy = res;
      copy.parameters["size"] = i;
      r.results.push_back(std::move(copy));
    }
  const auto rules = default_rules();
  const auto specs = synthetic_specs();
  const auto o = check(r, specs, rules);
  EXPECT_EQ(o.status, verdict_status::pass);
  ASSERT_EQ(o.nodes.size(), 1U);
  EXPECT_EQ(o.nodes[0].results.size(), r.results.size());
}

TEST(Rollup, WorstWinsAndExitCodes) {
  EXPECT_EQ(worst(verdict_status::pass, verdict_status::skipped), verdict_status::pass);
  EXPECT_EQ(worst(verdict_status::inconclusive, verdict_status::pass),
            verdict_status::inconclusive);
  EXPECT_EQ(worst(verdict_status::inconclusive, verdict_status::warn), verdict_status::warn);
  EXPECT_EQ(worst(verdict_status::fail, verdict_status::warn), verdict_status::fail);
  EXPECT_EQ(exit_code_of(verdict_status::skipped), 0);
  EXPECT_EQ(exit_code_of(verdict_status::pass), 0);
  EXPECT_EQ(exit_code_of(verdict_status::warn), 1);
  EXPECT_EQ(exit_code_of(verdict_status::fail), 2);
  EXPECT_EQ(exit_code_of(verdict_status::inconclusive), 3);
}

TEST(ReasonCodes, AreUniqueAndNamedByConvention) {
  std::set<std::string_view> seen;
  for (const auto& c : reason_codes()) {
    EXPECT_TRUE(seen.insert(c.code).second) << c.code;
    EXPECT_TRUE(c.code.starts_with("GPUSPEC-")) << c.code;
    EXPECT_FALSE(c.action.empty());
  }
  EXPECT_THROW((void)find_reason("GPUSPEC-NOT-A-CODE"), std::out_of_range);
}

TEST(ReasonCodes, AreAllDocumented) {
  std::ifstream in(std::filesystem::path(GPUSPEC_SOURCE_DIR) / "docs" / "check.md");
  ASSERT_TRUE(in) << "docs/check.md";
  std::stringstream text;
  text << in.rdbuf();
  for (const auto& c : reason_codes())
    EXPECT_NE(text.str().find(std::string(c.code)), std::string::npos) << c.code;
}

// ---- expectations ---------------------------------------------------------------------

TEST(Expectations, ShippedRulesLoad) {
  const auto e = default_rules();
  ASSERT_NE(e.find("memory.stream.triad"), nullptr);
  EXPECT_EQ(e.find("memory.stream.triad")->ceiling, "memory_bandwidth_gbs");
  // GEMMs: the ceiling the benchmark attached (the spec row's peak, or its roofline).
  EXPECT_EQ(e.find("gemm.cublas.fp16_tc")->ceiling, "datasheet");
  EXPECT_EQ(e.find("gemm.cublas.fp64")->ceiling, "datasheet");
  EXPECT_EQ(e.find("gemm.cublas.fp16_tc_acc16")->pattern, "gemm.cublas.fp16_tc_acc16");
  EXPECT_EQ(e.find("compute.fma.int32")->ceiling, "efficiency");
  EXPECT_EQ(e.find("tensor.mma.fp8")->pattern, "tensor.mma.*");
  EXPECT_EQ(e.find("something.else")->ceiling, "efficiency");
}

TEST(Expectations, PatternMatching) {
  EXPECT_TRUE(pattern_matches("memory.stream.*", "memory.stream.triad"));
  EXPECT_TRUE(pattern_matches("*", "x"));
  EXPECT_TRUE(pattern_matches("gemm.*.fp16_tc", "gemm.cublas.fp16_tc"));
  EXPECT_FALSE(pattern_matches("gemm.cublas.fp64", "gemm.cublas.fp64_tc"));
  EXPECT_FALSE(pattern_matches("memory.stream.*", "memory.copy"));
}

TEST(Expectations, SiteFileOverridesARuleFieldAndWinsOverSpecificity) {
  const auto base = default_rules();
  const auto site = nlohmann::ordered_json::parse(R"({
    "schema": "gpuspec.expect.v1",
    "settings": {"sibling_threshold": 0.1},
    "rules": [
      {"pattern": "memory.stream.*", "pass": 0.95},
      {"pattern": "memory.*", "ceiling": "efficiency", "pass": 0.5, "warn": 0.4}
    ]})");
  auto merged = merge_expectations(base, site, "site.json");
  ASSERT_TRUE(merged) << merged.error().to_string();
  EXPECT_DOUBLE_EQ(merged.value().settings.sibling_threshold, 0.1);
  // Both site rules match; the more specific one wins within the site layer.
  const auto* rule = merged.value().find("memory.stream.triad");
  EXPECT_DOUBLE_EQ(rule->pass, 0.95);
  EXPECT_DOUBLE_EQ(rule->warn, 0.70);
  EXPECT_EQ(rule->ceiling, "memory_bandwidth_gbs");
  // A site rule beats a more specific base rule.
  const auto site2 = nlohmann::ordered_json::parse(
      R"({"schema": "gpuspec.expect.v1", "rules": [{"pattern": "*", "ceiling": "efficiency",
          "pass": 0.1, "warn": 0.05}]})");
  auto merged2 = merge_expectations(base, site2, "site.json");
  ASSERT_TRUE(merged2);
  EXPECT_DOUBLE_EQ(merged2.value().find("memory.stream.triad")->pass, 0.1);
  // With the site file, the healthy report's 90% misses the 95% bar: warn (above 70%).
  EXPECT_EQ(check(healthy_report(), synthetic_specs(), merged.value()).status,
            verdict_status::warn);
}

struct bad_rules {
  const char* text;
  const char* field;
};

void PrintTo(const bad_rules& b, std::ostream* os) { *os << b.field; }

class BadRules : public ::testing::TestWithParam<bad_rules> {};

TEST_P(BadRules, NameTheField) {
  const auto j = nlohmann::ordered_json::parse(GetParam().text);
  const auto e = parse_expectations(j, "expect.json");
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error().file, "expect.json");
  EXPECT_EQ(e.error().field, GetParam().field) << e.error().to_string();
}

INSTANTIATE_TEST_SUITE_P(
    Expectations, BadRules,
    ::testing::Values(
        bad_rules{R"([])", ""}, bad_rules{R"({"rules": []})", "schema"},
        bad_rules{R"({"schema": "gpuspec.expect.v0", "rules": []})", "schema"},
        bad_rules{R"({"schema": "gpuspec.expect.v1"})", "rules"},
        bad_rules{R"({"schema": "gpuspec.expect.v1", "rules": {}})", "rules"},
        bad_rules{R"({"schema": "gpuspec.expect.v1", "rules": [], "extra": 1})", "extra"},
        bad_rules{R"({"schema": "gpuspec.expect.v1", "rules": [{"pattern": "a"}]})",
                  "rules[0].ceiling"},
        bad_rules{R"({"schema": "gpuspec.expect.v1", "rules": [{"pattern": "a", "ceiling":
                  "efficiency", "pass": "high", "warn": 0.5}]})",
                  "rules[0].pass"},
        bad_rules{R"({"schema": "gpuspec.expect.v1", "rules": [{"pattern": "a", "ceiling":
                  "peaks.fp3", "pass": 0.8, "warn": 0.5}]})",
                  "rules[0].ceiling"},
        bad_rules{R"({"schema": "gpuspec.expect.v1", "rules": [{"pattern": "a", "ceiling":
                  "efficiency", "pass": 0.5, "warn": 0.8}]})",
                  "rules[0].warn"},
        bad_rules{R"({"schema": "gpuspec.expect.v1", "rules": [{"pattern": "a", "ceiling":
                  "efficiency", "pass": 0.8, "warn": 0.5, "colour": 1}]})",
                  "rules[0].colour"},
        bad_rules{R"({"schema": "gpuspec.expect.v1", "rules": [
                  {"pattern": "a", "ceiling": "efficiency", "pass": 0.8, "warn": 0.5},
                  {"pattern": "a", "ceiling": "efficiency", "pass": 0.8, "warn": 0.5}]})",
                  "rules[1].pattern"},
        bad_rules{R"({"schema": "gpuspec.expect.v1", "settings": {"outlier_z": 2}, "rules": []})",
                  "settings.outlier_z"},
        bad_rules{R"({"schema": "gpuspec.expect.v1", "settings": {"fleet_min_reports": 10.5},
                  "rules": []})",
                  "settings.fleet_min_reports"}),
    [](const auto& param_info) { return "case_" + std::to_string(param_info.index); });

TEST(Expectations, FilesThatAreMissingEmptyOrNotJsonNameTheFile) {
  const auto dir = std::filesystem::temp_directory_path() / "gpuspec-check-rules-test";
  std::filesystem::create_directories(dir);
  EXPECT_FALSE(load_expectations(dir / "missing.json"));
  for (const char* text : {"", "{\"schema\": \"gpuspec.ex", "not json"}) {
    std::ofstream(dir / "bad.json") << text;
    const auto e = load_expectations(dir / "bad.json");
    ASSERT_FALSE(e) << text;
    EXPECT_EQ(e.error().file, (dir / "bad.json").string());
  }
  std::filesystem::remove_all(dir);
}

// ---- fixtures ---------------------------------------------------------------------------

/// The fixture files are the builders' reports as save_report writes them. With
/// GPUSPEC_WRITE_CHECK_FIXTURES set, this test rewrites them instead.
TEST(Fixtures, FilesMatchTheBuildersAndLoad) {
  std::vector<std::pair<std::string, report>> all = {{"healthy", healthy_report()}};
  for (const auto& v : testing::degraded_variants())
    all.emplace_back("degraded-" + v.name, build(v.degrade));
  for (const auto& v : testing::inconclusive_variants())
    all.emplace_back("inconclusive-" + v.name, build(v.degrade));
  const bool write = std::getenv("GPUSPEC_WRITE_CHECK_FIXTURES") != nullptr;
  for (const auto& [name, r] : all) {
    const auto path = fixtures / (name + ".json");
    if (write)
      save_report(path, r);
    const auto loaded = load_report(path);
    ASSERT_TRUE(loaded) << loaded.error().to_string();
    EXPECT_EQ(loaded.value(), r) << path;
  }
}

TEST(Fixtures, SpecFileHasTheSyntheticRow) {
  const auto t = load_spec_table(fixtures / "specs.json");
  ASSERT_TRUE(t) << t.error().to_string();
  const auto* row = t.value().find("synthetic-gpu-a");
  ASSERT_NE(row, nullptr);
  const auto expected = synthetic_specs().rows[0];
  EXPECT_EQ(row->memory_bandwidth_gbs, expected.memory_bandwidth_gbs);
  EXPECT_EQ(row->peaks, expected.peaks);
  EXPECT_EQ(row->pci_device_ids, expected.pci_device_ids);
  EXPECT_EQ(row->pcie_gen, expected.pcie_gen);
  EXPECT_EQ(row->pcie_width, expected.pcie_width);
}

} // namespace
} // namespace gpuspec::reports
