// diff_reports: the verdict of each metric, GPU pairing by serial / UUID / index, inventory
// differences, missing results, and the renderers. All reports are synthetic (diff_samples).

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "diff_samples.hpp"
#include "gpuspec/reports/judge/diff.hpp"
#include "gpuspec/reports/model/report_json.hpp"
#include "gpuspec/reports/model/statistics.hpp"

namespace gr = gpuspec::reports;
namespace gt = gpuspec::reports::testing;
using gr::change_kind;
using gr::check_status;

namespace {

gr::report one_gpu(double median, double cv, std::uint64_t seed, bool higher_is_better = true,
                   int n = 30) {
  return gt::synthetic_node(
      "node-a", {gt::synthetic_gpu(0, "S1", "U1")},
      {gt::synthetic_result(higher_is_better ? "memory.stream.triad" : "latency.pointer_chase", 0,
                            gt::noisy_samples(median, cv, n, seed), higher_is_better,
                            higher_is_better ? gr::metric_unit::gigabytes_per_second
                                             : gr::metric_unit::nanoseconds)});
}

const gr::metric_diff& only(const gr::diff_output& d) {
  EXPECT_EQ(d.metrics.size(), 1U);
  return d.metrics.at(0);
}

const gr::metric_diff* find_metric(const gr::diff_output& d, const std::string& bench,
                                   const std::string& device) {
  for (const auto& m : d.metrics)
    if (m.bench_id == bench && m.device == device)
      return &m;
  return nullptr;
}

bool has_change(const gr::diff_output& d, const std::string& scope, const std::string& field) {
  return std::any_of(d.inventory.begin(), d.inventory.end(),
                     [&](const auto& c) { return c.scope == scope && c.field == field; });
}

} // namespace

TEST(Diff, IdenticalReportsAreUnchanged) {
  const auto r = gt::fixture_baseline();
  const auto d = gr::diff_reports(r, r);
  EXPECT_EQ(d.verdict, check_status::pass);
  EXPECT_TRUE(d.inventory.empty());
  ASSERT_EQ(d.metrics.size(), 4U);
  for (const auto& m : d.metrics) {
    EXPECT_EQ(m.kind, change_kind::unchanged) << m.note;
    EXPECT_DOUBLE_EQ(*m.relative_change, 0.0);
    EXPECT_DOUBLE_EQ(*m.p_value, 1.0);
  }
}

TEST(Diff, SameDistributionDifferentSeedIsNotSignificant) {
  const auto d = gr::diff_reports(one_gpu(1000, 0.002, 1), one_gpu(1000, 0.002, 2));
  EXPECT_EQ(only(d).kind, change_kind::unchanged) << only(d).note;
  EXPECT_EQ(d.verdict, check_status::pass);
}

TEST(Diff, TenPercentRegressionWithTightSamplesFails) {
  const auto d = gr::diff_reports(one_gpu(1000, 0.002, 1), one_gpu(900, 0.002, 2));
  const auto& m = only(d);
  EXPECT_EQ(m.kind, change_kind::regression);
  EXPECT_EQ(m.verdict, check_status::fail);
  EXPECT_LT(*m.p_value, 1e-6);
  EXPECT_NEAR(*m.relative_change, -0.10, 0.005);
  EXPECT_EQ(m.method, gr::mann_whitney_method::asymptotic); // 30 vs 30 samples
  EXPECT_EQ(d.verdict, check_status::fail);
}

TEST(Diff, ThreePercentSignificantRegressionWarns) {
  const auto d = gr::diff_reports(one_gpu(1000, 0.002, 1), one_gpu(970, 0.002, 2));
  EXPECT_EQ(only(d).kind, change_kind::regression);
  EXPECT_EQ(only(d).verdict, check_status::warn);
  EXPECT_EQ(d.verdict, check_status::warn);
}

TEST(Diff, SignificantButTinyChangeIsUnchanged) {
  // 1% is measurable with 0.2% noise but below the 2% minimum effect.
  const auto d = gr::diff_reports(one_gpu(1000, 0.002, 1), one_gpu(990, 0.002, 2));
  EXPECT_LT(*only(d).p_value, 0.01);
  EXPECT_EQ(only(d).kind, change_kind::unchanged);
  EXPECT_EQ(d.verdict, check_status::pass);
}

TEST(Diff, ImprovementPasses) {
  const auto d = gr::diff_reports(one_gpu(1000, 0.002, 1), one_gpu(1100, 0.002, 2));
  EXPECT_EQ(only(d).kind, change_kind::improved);
  EXPECT_EQ(d.verdict, check_status::pass);
}

TEST(Diff, LowerIsBetterRespectsDirection) {
  const auto worse = gr::diff_reports(one_gpu(100, 0.002, 1, false), one_gpu(110, 0.002, 2, false));
  EXPECT_EQ(only(worse).kind, change_kind::regression);
  EXPECT_EQ(worse.verdict, check_status::fail);
  const auto better = gr::diff_reports(one_gpu(100, 0.002, 1, false), one_gpu(90, 0.002, 2, false));
  EXPECT_EQ(only(better).kind, change_kind::improved);
  EXPECT_EQ(better.verdict, check_status::pass);
}

TEST(Diff, LargeButNoisyRegressionWarnsAsNoisy) {
  auto a = one_gpu(100, 0, 1);
  auto b = one_gpu(100, 0, 1);
  a.results[0] = gt::synthetic_result("memory.stream.triad", 0, {100, 60, 140, 80, 120});
  b.results[0] = gt::synthetic_result("memory.stream.triad", 0, {94, 56, 132, 75, 113});
  const auto d = gr::diff_reports(a, b);
  EXPECT_GT(*only(d).p_value, 0.01);
  EXPECT_NEAR(*only(d).relative_change, -0.06, 1e-12);
  EXPECT_EQ(only(d).kind, change_kind::noisy_regression);
  EXPECT_EQ(d.verdict, check_status::warn);
}

TEST(Diff, TooFewSamplesIsNotTested) {
  const auto d =
      gr::diff_reports(one_gpu(1000, 0.002, 1, true, 1), one_gpu(990, 0.002, 2, true, 1));
  EXPECT_FALSE(only(d).p_value.has_value());
  EXPECT_EQ(only(d).kind, change_kind::unchanged);
}

TEST(Diff, FixturesGiveTheirVerdicts) {
  const auto base = gt::fixture_baseline();
  EXPECT_EQ(gr::diff_reports(base, gt::fixture_regressed()).verdict, check_status::fail);
  EXPECT_EQ(gr::diff_reports(base, gt::fixture_slightly()).verdict, check_status::warn);
  EXPECT_EQ(gr::diff_reports(base, gt::fixture_improved()).verdict, check_status::pass);
  const auto d = gr::diff_reports(base, gt::fixture_regressed());
  const auto* m = find_metric(d, "memory.stream.triad", "serial SYN0000000002");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->verdict, check_status::fail);
  const auto* other = find_metric(d, "memory.stream.triad", "serial SYN0000000001");
  ASSERT_NE(other, nullptr);
  EXPECT_EQ(other->verdict, check_status::pass);
}

TEST(Diff, GpuThatMovedIndexIsMatchedBySerial) {
  auto samples = [](double m, std::uint64_t s) { return gt::noisy_samples(m, 0.002, 30, s); };
  const auto a = gt::synthetic_node(
      "node", {gt::synthetic_gpu(0, "SA", "UA"), gt::synthetic_gpu(1, "SB", "UB")},
      {gt::synthetic_result("memory.stream.triad", 0, samples(1000, 1)),
       gt::synthetic_result("memory.stream.triad", 1, samples(1000, 2))});
  // The card SA now sits at index 1, and is 10% slower; SB at index 0 is unchanged.
  const auto b = gt::synthetic_node(
      "node", {gt::synthetic_gpu(0, "SB", "UB"), gt::synthetic_gpu(1, "SA", "UA")},
      {gt::synthetic_result("memory.stream.triad", 0, samples(1000, 3)),
       gt::synthetic_result("memory.stream.triad", 1, samples(900, 4))});
  const auto d = gr::diff_reports(a, b);
  EXPECT_EQ(d.key, gr::device_key::serial);
  const auto* sa = find_metric(d, "memory.stream.triad", "serial SA");
  const auto* sb = find_metric(d, "memory.stream.triad", "serial SB");
  ASSERT_NE(sa, nullptr);
  ASSERT_NE(sb, nullptr);
  EXPECT_EQ(sa->verdict, check_status::fail);
  EXPECT_EQ(sa->old_devices, std::vector<int>{0});
  EXPECT_EQ(sa->new_devices, std::vector<int>{1});
  EXPECT_NE(sa->note.find("moved"), std::string::npos) << sa->note;
  EXPECT_EQ(sb->verdict, check_status::pass);
  EXPECT_TRUE(has_change(d, "serial SA", "index"));
  ASSERT_EQ(d.devices.size(), 2U);
  EXPECT_EQ(d.devices[0].identity, "serial SA");
  EXPECT_EQ(d.devices[0].old_index, 0);
  EXPECT_EQ(d.devices[0].new_index, 1);
  // Matched by index instead, the regression would land on the wrong card.
}

TEST(Diff, FallsBackToUuidThenIndex) {
  auto r = [](const std::string& s0, const std::string& u0) {
    return gt::synthetic_node("n", {gt::synthetic_gpu(0, s0, u0)}, {});
  };
  EXPECT_EQ(gr::diff_reports(r("", "U0"), r("", "U0")).key, gr::device_key::uuid);
  EXPECT_EQ(gr::diff_reports(r("S0", "U0"), r("", "U0")).key, gr::device_key::uuid);
  EXPECT_EQ(gr::diff_reports(r("", ""), r("", "")).key, gr::device_key::index);
  // Serials that are not unique within a report cannot pair GPUs.
  const auto dup = gt::synthetic_node(
      "n", {gt::synthetic_gpu(0, "SAME", "U0"), gt::synthetic_gpu(1, "SAME", "U1")}, {});
  EXPECT_EQ(gr::diff_reports(dup, dup).key, gr::device_key::uuid);
}

TEST(Diff, ReplacedGpuIsListedOnBothSidesAndWarns) {
  const auto a = gt::synthetic_node(
      "n", {gt::synthetic_gpu(0, "OLD", "UOLD")},
      {gt::synthetic_result("memory.stream.triad", 0, gt::noisy_samples(1000, 0.002, 30, 1))});
  const auto b = gt::synthetic_node(
      "n", {gt::synthetic_gpu(0, "NEW", "UNEW")},
      {gt::synthetic_result("memory.stream.triad", 0, gt::noisy_samples(1000, 0.002, 30, 2))});
  const auto d = gr::diff_reports(a, b);
  ASSERT_EQ(d.devices.size(), 2U);
  EXPECT_FALSE(d.devices[0].new_index.has_value());
  EXPECT_FALSE(d.devices[1].old_index.has_value());
  ASSERT_EQ(d.metrics.size(), 2U);
  EXPECT_EQ(d.metrics[0].kind, change_kind::missing_in_new);
  EXPECT_EQ(d.metrics[1].kind, change_kind::new_in_new);
  EXPECT_EQ(d.verdict, check_status::warn);
}

TEST(Diff, InventoryDifferencesAreListedHostFirst) {
  auto a = gt::fixture_baseline();
  auto b = gt::fixture_baseline();
  b.host.driver_version = "000.02";
  b.host.nccl_version = "2.99.9";
  b.host.cublas_version = "99.0.0";
  b.devices[1].vbios = "00.00.00.00.02";
  b.devices[1].power_limit_w = 250.0;
  b.devices[0].sm_clock_max_mhz = 1800;
  b.devices[0].pcie.width_max = 8;
  b.devices[0].ecc_mode = "disabled";
  const auto d = gr::diff_reports(a, b);
  ASSERT_FALSE(d.inventory.empty());
  EXPECT_EQ(d.inventory.front().scope, "host");
  EXPECT_EQ(d.inventory.front().field, "driver_version");
  EXPECT_EQ(d.inventory.front().old_value, "000.01");
  EXPECT_EQ(d.inventory.front().new_value, "000.02");
  EXPECT_TRUE(has_change(d, "host", "nccl_version"));
  EXPECT_TRUE(has_change(d, "host", "cublas_version"));
  EXPECT_TRUE(has_change(d, "serial SYN0000000002", "vbios"));
  EXPECT_TRUE(has_change(d, "serial SYN0000000002", "power_limit_w"));
  EXPECT_TRUE(has_change(d, "serial SYN0000000001", "sm_clock_max_mhz"));
  EXPECT_TRUE(has_change(d, "serial SYN0000000001", "pcie.width_max"));
  EXPECT_TRUE(has_change(d, "serial SYN0000000001", "ecc_mode"));
  EXPECT_EQ(d.inventory.size(), 8U);
  EXPECT_EQ(d.verdict, check_status::pass); // inventory alone does not change the verdict
}

TEST(Diff, MissingAndNewResults) {
  auto a = gt::fixture_baseline();
  auto b = gt::fixture_baseline();
  b.results.erase(b.results.begin() + 2); // copy on GPU 0
  b.results.push_back(
      gt::synthetic_result("memory.stream.scale", 0, gt::noisy_samples(1000, 0.002, 30, 9)));
  const auto d = gr::diff_reports(a, b);
  const auto* missing = find_metric(d, "memory.stream.copy", "serial SYN0000000001");
  const auto* added = find_metric(d, "memory.stream.scale", "serial SYN0000000001");
  ASSERT_NE(missing, nullptr);
  ASSERT_NE(added, nullptr);
  EXPECT_EQ(missing->kind, change_kind::missing_in_new);
  EXPECT_EQ(missing->verdict, check_status::warn);
  EXPECT_EQ(added->kind, change_kind::new_in_new);
  EXPECT_EQ(added->verdict, check_status::pass);
  EXPECT_EQ(d.metrics.back().bench_id, "memory.stream.scale");
  EXPECT_EQ(d.verdict, check_status::warn);
}

TEST(Diff, AxesSeparateResults) {
  auto a = gt::fixture_baseline();
  auto b = gt::fixture_baseline();
  b.results[0].axes["dtype"] = "fp64";
  const auto d = gr::diff_reports(a, b);
  EXPECT_EQ(std::count_if(d.metrics.begin(), d.metrics.end(),
                          [](const auto& m) { return m.kind == change_kind::missing_in_new; }),
            1);
}

TEST(Diff, ObservationsNeverSeparateResultsAndAreShownAsContext) {
  // After a library upgrade the harness chose another algorithm and more GEMMs per sample: the
  // pair holds, the 10% regression is found, and the note says what else changed.
  auto a = gt::fixture_baseline();
  auto b = gt::fixture_regressed();
  for (auto& r : a.results)
    r.observations.update({{"algo_id", 21}, {"gemms_per_sample", 40}});
  for (auto& r : b.results)
    r.observations.update({{"algo_id", 6}, {"gemms_per_sample", 42}, {"cublas", "13.1"}});
  const auto d = gr::diff_reports(a, b);
  EXPECT_EQ(std::count_if(d.metrics.begin(), d.metrics.end(),
                          [](const auto& m) {
                            return m.kind == change_kind::missing_in_new ||
                                   m.kind == change_kind::new_in_new;
                          }),
            0);
  EXPECT_EQ(d.verdict, check_status::fail);
  const auto& m = d.metrics[0];
  ASSERT_EQ(m.observations_changed.size(), 3U);
  EXPECT_EQ(m.observations_changed[0], (gr::observation_change{"algo_id", "21", "6"}));
  EXPECT_EQ(m.observations_changed[2], (gr::observation_change{"cublas", "", "13.1"}));
  EXPECT_NE(m.note.find("another algorithm"), std::string::npos) << m.note;
  EXPECT_NE(m.note.find("gemms_per_sample 40 -> 42"), std::string::npos) << m.note;
  EXPECT_EQ(gr::to_json(d)["metrics"][0]["observations_changed"].size(), 3U);
}

TEST(Diff, UnitsAreConvertedAndDifferentQuantitiesAreNotCompared) {
  auto a = one_gpu(1000, 0.002, 1);
  auto b = one_gpu(1000, 0.002, 2);
  for (auto& x : b.results[0].samples)
    x /= 1000; // the same figures in TB/s
  b.results[0].stats = gr::summarize(b.results[0].samples);
  b.results[0].unit = gr::metric_unit::terabytes_per_second;
  auto d = gr::diff_reports(a, b);
  EXPECT_EQ(only(d).kind, change_kind::unchanged) << only(d).note;
  EXPECT_NEAR(*only(d).new_median, 1000, 5);
  b.results[0].unit = gr::metric_unit::nanoseconds;
  d = gr::diff_reports(a, b);
  EXPECT_EQ(only(d).kind, change_kind::not_compared);
  EXPECT_EQ(only(d).verdict, check_status::warn);
}

TEST(Diff, BenjaminiHochbergOnKnownValues) {
  // p = 0.01, 0.04, 0.03, 0.005 (m = 4): sorted 0.005, 0.01, 0.03, 0.04 give 0.02, 0.02,
  // 0.04, 0.04 (R: p.adjust(c(.01, .04, .03, .005), "BH") = 0.02 0.04 0.04 0.02).
  const auto q = gr::benjamini_hochberg({0.01, 0.04, 0.03, 0.005});
  ASSERT_EQ(q.size(), 4U);
  EXPECT_NEAR(q[0], 0.02, 1e-12);
  EXPECT_NEAR(q[1], 0.04, 1e-12);
  EXPECT_NEAR(q[2], 0.04, 1e-12);
  EXPECT_NEAR(q[3], 0.02, 1e-12);
  EXPECT_TRUE(gr::benjamini_hochberg({}).empty());
  EXPECT_DOUBLE_EQ(gr::benjamini_hochberg({0.5})[0], 0.5);
  EXPECT_DOUBLE_EQ(gr::benjamini_hochberg({0.9, 0.95})[1], 0.95);
}

TEST(Diff, ManyMetricsOfTheSameRunDoNotRaiseFalseAlarms) {
  // 200 metrics whose two runs come from the same distribution, samples of 5 (p is exact and
  // coarse there): uncorrected, alpha 0.01 would flag about 2 of them; the false-discovery
  // correction flags none, while a real 10% regression among them is still found.
  gr::report a = gt::synthetic_node("node", {gt::synthetic_gpu(0, "S", "U")}, {});
  gr::report b = a;
  for (int i = 0; i < 200; ++i) {
    auto x =
        gt::synthetic_result("memory.stream.triad", 0, gt::noisy_samples(1000, 0.05, 5, 1000 + i));
    x.axes["case"] = i;
    auto y = x;
    y.samples = gt::noisy_samples(1000, 0.05, 5, 5000 + i);
    y.stats = gr::summarize(y.samples);
    a.results.push_back(x);
    b.results.push_back(y);
  }
  // The one real change: 10% slower, 30 samples a side.
  auto slow = gt::synthetic_result("memory.stream.copy", 0, gt::noisy_samples(1000, 0.01, 30, 7));
  auto slower = slow;
  slower.samples = gt::noisy_samples(900, 0.01, 30, 8);
  slower.stats = gr::summarize(slower.samples);
  a.results.push_back(slow);
  b.results.push_back(slower);
  gr::diff_options o;
  o.min_effect = 0; // the minimum effect alone would hide what the correction is for
  o.fail_threshold = 0.05;
  std::size_t uncorrected = 0;
  const auto d = gr::diff_reports(a, b, o);
  ASSERT_EQ(d.metrics.size(), 201U);
  for (std::size_t i = 0; i < 200; ++i) {
    const auto& m = d.metrics[i];
    EXPECT_NE(m.kind, change_kind::regression) << m.note;
    EXPECT_NE(m.kind, change_kind::improved) << m.note;
    if (m.p_value && *m.p_value < o.alpha)
      ++uncorrected;
  }
  EXPECT_EQ(d.tested, 201U);
  EXPECT_GT(uncorrected, 0U) << "the test data should tempt an uncorrected test";
  EXPECT_EQ(d.metrics[200].kind, change_kind::regression) << d.metrics[200].note;
  EXPECT_EQ(d.verdict, check_status::fail);
}

TEST(Diff, StatusChanges) {
  auto a = gt::fixture_baseline();
  auto b = gt::fixture_baseline();
  b.results[0].status = gr::result_status::failed;
  b.results[0].failure = gr::failure_kind::verification;
  b.results[0].reason = "verification failed";
  a.results[1].status = gr::result_status::skipped;
  a.results[1].reason = "not enough memory";
  const auto d = gr::diff_reports(a, b);
  EXPECT_EQ(d.metrics[0].kind, change_kind::failed);
  EXPECT_EQ(d.metrics[0].verdict, check_status::fail);
  EXPECT_EQ(d.metrics[1].kind, change_kind::recovered);
  EXPECT_EQ(d.verdict, check_status::fail);
}

TEST(Diff, OptionsAreChecked) {
  const auto r = gt::fixture_baseline();
  EXPECT_THROW((void)gr::diff_reports(r, r, {.alpha = 0}), std::invalid_argument);
  EXPECT_THROW(
      (void)gr::diff_reports(r, r, {.alpha = 0.01, .min_effect = 0.1, .fail_threshold = 0.05}),
      std::invalid_argument);
  // A stricter fail threshold turns the 3% warning into a failure.
  EXPECT_EQ(gr::diff_reports(r, gt::fixture_slightly(),
                             {.alpha = 0.01, .min_effect = 0.02, .fail_threshold = 0.025})
                .verdict,
            check_status::fail);
}

TEST(Diff, JsonAndMarkdown) {
  auto b = gt::fixture_regressed();
  b.host.driver_version = "000.02";
  const auto d = gr::diff_reports(gt::fixture_baseline(), b);
  const auto j = gr::to_json(d);
  EXPECT_EQ(j.at("schema"), "gpuspec.diff.v2");
  EXPECT_EQ(j.at("verdict"), "fail");
  EXPECT_EQ(j.at("device_key"), "serial");
  EXPECT_EQ(j.at("inventory").at(0).at("field"), "driver_version");
  EXPECT_EQ(j.at("metrics").size(), 4U);
  EXPECT_TRUE(j.at("metrics").at(1).at("p_value").is_number());
  const std::string md = gr::to_markdown(d);
  EXPECT_NE(md.find("## Inventory"), std::string::npos);
  EXPECT_LT(md.find("## Inventory"), md.find("## Metrics"));
  EXPECT_NE(md.find("| memory.stream.triad |"), std::string::npos);
  // For a ticket, the answer first (issue 31): the verdict and the regression before the details.
  EXPECT_EQ(md.rfind("# gpuspec diff: FAIL\n\n**FAIL (exit code 2);", 0), 0U) << md;
  EXPECT_LT(md.find("## Not passing, worst first"), md.find("## Inventory"));
  EXPECT_NE(md.find("\n**Verdict: FAIL (exit code 2)**\n"), std::string::npos);
}

// The fixture files are these reports as save_report writes them. Regenerate with
// GPUSPEC_REGENERATE_DIFF_FIXTURES=1 diff_unit --gtest_filter=DiffFixtures.*
TEST(DiffFixtures, MatchTheCode) {
  const std::filesystem::path dir = GPUSPEC_DIFF_FIXTURES;
  const std::pair<const char*, gr::report> files[] = {
      {"baseline.json", gt::fixture_baseline()},
      {"regressed.json", gt::fixture_regressed()},
      {"slightly-slower.json", gt::fixture_slightly()},
      {"improved.json", gt::fixture_improved()}};
  const bool regenerate = std::getenv("GPUSPEC_REGENERATE_DIFF_FIXTURES") != nullptr;
  for (const auto& [name, r] : files) {
    if (regenerate)
      gr::save_report(dir / name, r);
    const auto loaded = gr::load_report(dir / name);
    ASSERT_TRUE(loaded.has_value()) << loaded.error().to_string();
    EXPECT_EQ(loaded.value(), r) << name;
  }
}

TEST(Diff, ZeroOldMedianCannotBeJudgedAndWarns) {
  auto a = one_gpu(100, 0, 1);
  auto b = one_gpu(100, 0, 1);
  a.results[0] = gt::synthetic_result("memory.stream.triad", 0, {0, 0, 0});
  const auto d = gr::diff_reports(a, b);
  EXPECT_EQ(only(d).kind, change_kind::not_compared);
  EXPECT_EQ(d.verdict, check_status::warn);
  EXPECT_EQ(gr::diff_reports(a, a).verdict, check_status::pass); // 0 -> 0: unchanged
}
