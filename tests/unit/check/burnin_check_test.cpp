// The burn-in's judge rules (reports/burnin_rules.hpp, docs/burnin.md), over reports built the
// way the harness writes them (check_fixtures.hpp); each rule's degraded and inconclusive
// variants are in check_fixtures.cpp and run with the others in check_test.cpp.

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "check_fixtures.hpp"
#include "gpuspec/reports/judge/burnin_rules.hpp"
#include "gpuspec/reports/judge/check.hpp"

namespace gpuspec::reports {
namespace {

using testing::burnin_report;
using testing::healthy_burnin_report;
using testing::synthetic_specs;

expectations burnin_default_rules() {
  auto e = load_expectations(std::filesystem::path(GPUSPEC_SPECS_DIR) / "expect.json");
  if (!e)
    throw std::runtime_error(e.error().to_string());
  return e.value();
}

std::vector<const diagnosis*> burnin_diagnoses(const check_outcome& o) {
  std::vector<const diagnosis*> out;
  for (const auto& r : o.nodes.at(0).results)
    if (r.bench_id == "burnin.gemm")
      for (const auto& d : r.diagnoses)
        out.push_back(&d);
  return out;
}

result& burnin_on(report& r, int dev) {
  for (auto& res : r.results)
    if (res.bench_id == "burnin.gemm" && res.devices.front() == dev)
      return res;
  throw std::out_of_range("no burn-in on that GPU");
}

TEST(BurnIn, AHealthyTwelveMinuteBurnInPasses) {
  const auto o = check(healthy_burnin_report(), synthetic_specs(), burnin_default_rules());
  EXPECT_EQ(o.status, verdict_status::pass);
  EXPECT_TRUE(o.notes.empty());
  int judged = 0;
  for (const auto& r : o.nodes[0].results) {
    if (r.bench_id != "burnin.gemm")
      continue;
    ++judged;
    EXPECT_EQ(r.status, verdict_status::pass) << r.message;
    EXPECT_TRUE(r.diagnoses.empty()) << r.diagnoses.front().code;
    EXPECT_NE(r.message.find("checksum mismatch"), std::string::npos) << r.message;
  }
  EXPECT_EQ(judged, 8);
}

TEST(BurnIn, TenMinutesWithAMemoryPassOnEveryGpuPass) {
  // The acceptance minimum itself (burnin_min_duration_s, 600 s): ten 60 s cycles.
  const auto o = check(burnin_report(600), synthetic_specs(), burnin_default_rules());
  EXPECT_EQ(o.status, verdict_status::pass);
  for (const auto& r : o.nodes[0].results) {
    if (r.bench_id == "burnin.gemm") {
      EXPECT_TRUE(r.diagnoses.empty()) << r.diagnoses.front().code << ": " << r.message;
    }
  }
}

/// The codes of the burn-in's diagnoses on each GPU.
std::map<int, std::set<std::string>> codes_by_gpu(const check_outcome& o) {
  std::map<int, std::set<std::string>> out;
  for (const auto* d : burnin_diagnoses(o))
    if (d->device)
      out[*d->device].insert(d->code);
  return out;
}

TEST(BurnIn, OneSecondWithNoMemoryPassIsInconclusiveWithItsOwnCodesNeverAPass) {
  // `--duration 1s` as the harness writes it: one second of GEMMs, no memory pass, no memtest
  // record at all (issue 16: the "checked no word" rule never saw it).
  const report r = burnin_report(1);
  for (const auto& res : r.results) {
    if (res.burnin) {
      ASSERT_FALSE(res.burnin->memtest);
    }
  }
  const auto o = check(r, synthetic_specs(), burnin_default_rules());
  EXPECT_EQ(o.status, verdict_status::inconclusive);
  const auto codes = codes_by_gpu(o);
  ASSERT_EQ(codes.size(), 8u);
  for (const auto& [gpu, found] : codes) {
    EXPECT_EQ(found,
              (std::set<std::string>{"GPUSPEC-BURNIN-TOO-SHORT", "GPUSPEC-BURNIN-NO-MEMORY-PASS"}))
        << gpu;
  }
  for (const auto& g : o.nodes[0].gpus)
    EXPECT_EQ(g.status, verdict_status::inconclusive) << g.index;
  for (const auto* d : burnin_diagnoses(o)) {
    EXPECT_EQ(d->severity, verdict_status::inconclusive) << d->code;
    if (d->code == "GPUSPEC-BURNIN-TOO-SHORT") {
      EXPECT_NE(d->cause.find("1.5 s"), std::string::npos) << d->cause;
      EXPECT_NE(d->cause.find("acceptance minimum of 600 s"), std::string::npos) << d->cause;
      EXPECT_EQ(d->evidence.at("burnin_min_duration_s"), "600");
    } else {
      EXPECT_NE(d->cause.find("no memory-test pass"), std::string::npos) << d->cause;
      EXPECT_EQ(d->evidence.at("memtest_passes"), "0");
    }
  }
}

TEST(BurnIn, TwoMinutesAreReportedAsShorterThanTheAcceptanceMinimumAndPassUnderASiteMinimum) {
  // scripts/gpu-validate.sh's burn-in: two cycles, two memory passes, under the 10 minutes.
  const report r = burnin_report(120);
  auto rules = burnin_default_rules();
  const auto o = check(r, synthetic_specs(), rules);
  EXPECT_EQ(o.status, verdict_status::inconclusive);
  for (const auto& [gpu, found] : codes_by_gpu(o))
    EXPECT_EQ(found, std::set<std::string>{"GPUSPEC-BURNIN-TOO-SHORT"}) << gpu;
  // The validation script's --rules (a site setting): its own minimum, and then the rest judges.
  const auto site =
      merge_expectations(rules, nlohmann::ordered_json::parse(R"({"schema": "gpuspec.expect.v2",
                                              "settings": {"burnin_min_duration_s": 120}})"),
                         "validation-rules.json");
  ASSERT_TRUE(site) << site.error().to_string();
  EXPECT_EQ(check(r, synthetic_specs(), site.value()).status, verdict_status::pass);
  // A bad minimum is named.
  const auto bad =
      merge_expectations(rules, nlohmann::ordered_json::parse(R"({"schema": "gpuspec.expect.v2",
                                              "settings": {"burnin_min_duration_s": -1}})"),
                         "bad.json");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().field, "settings.burnin_min_duration_s");
}

TEST(BurnIn, TheFullSuitesShortBurnInSampleIsNotABurnInVerdict) {
  // `--suite full` runs burnin.gemm for the stopping rule's cap (15 s), with no --duration and
  // no memory pass: a sample of the sustained GEMM, judged by its record's other rules.
  report r = burnin_report(15);
  r.run.suite = "full";
  const auto o = check(r, synthetic_specs(), burnin_default_rules());
  EXPECT_EQ(o.status, verdict_status::pass);
  EXPECT_TRUE(codes_by_gpu(o).empty());
  // The same record in the burnin suite is no pass.
  r.run.suite = "burnin";
  EXPECT_EQ(check(r, synthetic_specs(), burnin_default_rules()).status,
            verdict_status::inconclusive);
}

TEST(BurnIn, AMemoryTestNeedsACompletedPassButNoDuration) {
  report r = healthy_burnin_report();
  result mt = burnin_on(r, 0);
  mt.bench_id = "memory.test";
  mt.axes = nlohmann::ordered_json::object();
  mt.burnin->duration_s.reset();
  mt.burnin->elapsed_s = 20; // one pass of each pattern, on its own
  mt.burnin->gemm.reset();
  mt.burnin->intervals.clear();
  r.results.push_back(mt);
  auto findings =
      burnin_findings(r, r.results.back(), &r.devices[0], burnin_default_rules().settings);
  EXPECT_TRUE(findings.empty()) << findings.front().code << ": no --duration, no minimum";
  r.results.back().burnin->memtest->passes = 0;
  r.results.back().burnin->memtest->words_checked = 0;
  r.run.suite = "standard"; // memory.test runs there too, and needs its pass there too
  findings = burnin_findings(r, r.results.back(), &r.devices[0], burnin_default_rules().settings);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].code, "GPUSPEC-BURNIN-NO-MEMORY-PASS");
  EXPECT_NE(findings[0].cause.find("the memory test completed no pass"), std::string::npos)
      << findings[0].cause;
}

TEST(BurnIn, AMismatchNamesTheIterationTheTimeAndBothChecksums) {
  report r = healthy_burnin_report();
  auto& g = *burnin_on(r, 3).burnin->gemm;
  g.checksum_mismatches = 2;
  g.mismatches = {{17, 4.75, g.reference_checksum, "0x5e5e00000000c0df"},
                  {18, 4.80, g.reference_checksum, "0x5e5e00000000c0df"}};
  const auto o = check(r, synthetic_specs(), burnin_default_rules());
  EXPECT_EQ(o.status, verdict_status::fail);
  const auto all = burnin_diagnoses(o);
  const auto it = std::find_if(all.begin(), all.end(), [](const diagnosis* d) {
    return d->code == "GPUSPEC-BURNIN-CHECKSUM-MISMATCH";
  });
  ASSERT_NE(it, all.end());
  const diagnosis& d = **it;
  EXPECT_EQ(d.device, 3);
  EXPECT_EQ(d.action, "reset, rerun; RMA if it recurs");
  EXPECT_NE(d.cause.find("iteration 17"), std::string::npos) << d.cause;
  EXPECT_NE(d.cause.find("4.8 s"), std::string::npos) << d.cause;
  EXPECT_NE(d.cause.find("0x5e5e00000000c0df"), std::string::npos) << d.cause;
  EXPECT_NE(d.cause.find("0x5e5e00000000c0de"), std::string::npos) << d.cause;
  EXPECT_EQ(d.evidence.at("first_mismatch_iteration"), "17");
  // The other GPUs are not touched.
  for (const auto& gv : o.nodes[0].gpus) {
    if (gv.index != 3) {
      EXPECT_EQ(gv.status, verdict_status::pass) << gv.index;
    }
  }
}

TEST(BurnIn, TheMinorityChecksumAcrossGpusFailsAndTwoThatDisagreeBothFail) {
  report r = healthy_burnin_report();
  burnin_on(r, 5).burnin->gemm->reference_checksum = "0x0000000000000001";
  auto c = compare_burnin_checksums(r);
  ASSERT_EQ(c.findings.size(), 1u);
  EXPECT_EQ(c.findings[0].second.device, 5);
  EXPECT_NE(c.findings[0].second.cause.find("0x0000000000000001"), std::string::npos);

  // Two GPUs only, and they disagree: neither can be trusted.
  report two = healthy_burnin_report();
  two.results.erase(std::remove_if(two.results.begin(), two.results.end(),
                                   [](const result& x) {
                                     return x.bench_id == "burnin.gemm" && x.devices.front() > 1;
                                   }),
                    two.results.end());
  burnin_on(two, 1).burnin->gemm->reference_checksum = "0x0000000000000001";
  c = compare_burnin_checksums(two);
  ASSERT_EQ(c.findings.size(), 2u);
  EXPECT_NE(c.findings[0].second.cause.find("no checksum has a majority"), std::string::npos);
}

TEST(BurnIn, AMigDevicesChecksumIsComparedWithItsProfilesSiblingsOnlyNeverAWholeGpus) {
  // GPU 0 measured as one 1g MIG device (docs/mig.md): its GEMM may round otherwise than the
  // whole GPUs' (fewer SMs), so a checksum of its own is no finding; the note says why.
  report r = healthy_burnin_report();
  result& mig = burnin_on(r, 0);
  mig.mig = mig_ref{"MIG-5e7e71c0-0000-4000-8000-000000000007", "1g.10gb", 7, 0};
  mig.burnin->gemm->reference_checksum = "0x0000000000000001";
  auto c = compare_burnin_checksums(r);
  EXPECT_TRUE(c.findings.empty());
  ASSERT_EQ(c.notes.size(), 1u);
  EXPECT_NE(c.notes[0].find("model or MIG profile (2 kinds)"), std::string::npos) << c.notes[0];

  // Two more instances of that profile that agree with each other: the odd one is named as its
  // instance, among its profile's siblings.
  for (int gpu : {1, 2}) {
    result& sibling = burnin_on(r, gpu);
    sibling.devices = {0};
    sibling.mig = mig_ref{fmt::format("MIG-5e7e71c0-0000-4000-8000-00000000000{}", 7 + gpu),
                          "1g.10gb", 7 + gpu, 0};
  }
  c = compare_burnin_checksums(r);
  ASSERT_EQ(c.findings.size(), 1u);
  const std::string& cause = c.findings[0].second.cause;
  EXPECT_EQ(cause.rfind("GPU 0 MIG 1g.10gb, GI 7 CI 0's GEMM checksum 0x0000000000000001 "
                        "differs from ",
                        0),
            0u)
      << cause;
  EXPECT_NE(cause.find("of the 3 MIG devices of profile 1g.10gb"), std::string::npos) << cause;
  EXPECT_NE(cause.find("GPU 0 MIG 1g.10gb, GI 9 CI 0 0x"), std::string::npos) << cause;
}

TEST(BurnIn, DifferentAlgorithmsOrSeedsAreNotComparedAndTheCheckSaysWhy) {
  report r = healthy_burnin_report();
  auto& g = *burnin_on(r, 2).burnin->gemm;
  g.algorithm = "id=6 tile=20 stages=8 split_k=1";
  g.reference_checksum = "0x0000000000000001";
  const auto o = check(r, synthetic_specs(), burnin_default_rules());
  EXPECT_EQ(o.status, verdict_status::pass) << "a different algorithm gives different bits";
  ASSERT_EQ(o.notes.size(), 1u);
  EXPECT_NE(o.notes[0].find("compared only among equals"), std::string::npos) << o.notes[0];

  report nd = healthy_burnin_report();
  for (auto& res : nd.results)
    if (res.burnin) {
      res.burnin->gemm->deterministic = false;
      res.burnin->gemm->determinism_note = "split-K with an atomic reduction";
    }
  burnin_on(nd, 2).burnin->gemm->reference_checksum = "0x0000000000000001";
  const auto c = compare_burnin_checksums(nd);
  EXPECT_TRUE(c.findings.empty());
  ASSERT_EQ(c.notes.size(), 1u);
  EXPECT_NE(c.notes[0].find("split-K with an atomic reduction"), std::string::npos);
}

TEST(BurnIn, DriftComparesTheFirstAndLastQuarterCappedAtFiveIntervals) {
  std::vector<burnin_interval> in(3);
  in[0].throughput = 100;
  in[1].throughput = 100;
  in[2].throughput = 50;
  EXPECT_FALSE(drift_of(in)) << "two intervals after the soak: nothing to compare";
  in.resize(31);
  for (std::size_t i = 0; i < in.size(); ++i)
    in[i].throughput = i < 26 ? 100.0 : 80.0;
  const auto d = drift_of(in);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->intervals, 5u);
  EXPECT_EQ(d->soak_intervals, 1u);
  EXPECT_DOUBLE_EQ(d->first, 100);
  EXPECT_DOUBLE_EQ(d->last, 80);
  EXPECT_NEAR(d->drop, 0.2, 1e-12);
  // Memory-test intervals (no throughput) are left out; a rise is a negative drop.
  in.assign(5, {});
  in[0].throughput = 100;
  in[1].throughput = 100;
  in[3].throughput = 105;
  in[4].throughput = 110;
  ASSERT_TRUE(drift_of(in));
  EXPECT_LT(drift_of(in)->drop, 0);
}

TEST(BurnIn, TheColdFirstIntervalIsNotADrift) {
  // A cold GPU boosts in its first minute: 10% above what it sustains after. Healthy: the soak
  // is left out, the rest is flat.
  report r = healthy_burnin_report();
  auto& res = burnin_on(r, 3);
  ASSERT_GE(res.burnin->intervals.size(), 6u);
  std::size_t first_gemm = 0;
  while (!res.burnin->intervals[first_gemm].throughput)
    ++first_gemm;
  const double sustained = *res.burnin->intervals[first_gemm].throughput;
  res.burnin->intervals[first_gemm].throughput = sustained * 1.10;
  const auto d = drift_of(res.burnin->intervals);
  ASSERT_TRUE(d);
  EXPECT_NEAR(d->drop, 0, 1e-9);
  EXPECT_EQ(check(r, synthetic_specs(), burnin_default_rules()).status, verdict_status::pass);

  // Degraded: the same cold start, then a real fall of 10% over the run warns.
  for (std::size_t i = res.burnin->intervals.size() / 2; i < res.burnin->intervals.size(); ++i)
    if (res.burnin->intervals[i].throughput)
      res.burnin->intervals[i].throughput = sustained * 0.90;
  EXPECT_EQ(check(r, synthetic_specs(), burnin_default_rules()).status, verdict_status::warn);
}

TEST(BurnIn, DriftAtTheThresholdPassesAndJustAboveWarns) {
  const auto rules = burnin_default_rules();
  for (const auto& [factor, expected] : {std::pair{0.96, verdict_status::pass},
                                         {0.94, verdict_status::warn},
                                         {0.84, verdict_status::fail}}) {
    report r = healthy_burnin_report();
    auto& res = burnin_on(r, 6);
    for (std::size_t i = 8; i < res.burnin->intervals.size(); ++i)
      res.burnin->intervals[i].throughput = 700 * factor;
    EXPECT_EQ(check(r, synthetic_specs(), rules).status, expected) << factor;
  }
}

TEST(BurnIn, AnInterruptedBurnInIsInconclusiveNeverAPass) {
  report r = healthy_burnin_report();
  r.complete = false;
  r.incomplete_reason = "interrupted";
  auto& b = *burnin_on(r, 0).burnin;
  b.intervals.resize(3);
  b.busy_s = 170;
  const auto o = check(r, synthetic_specs(), burnin_default_rules());
  EXPECT_EQ(o.status, verdict_status::inconclusive);
  const auto all = burnin_diagnoses(o);
  EXPECT_TRUE(std::any_of(all.begin(), all.end(), [](const diagnosis* d) {
    return d->code == "GPUSPEC-BURNIN-TOO-LITTLE-WORK" && d->device == 0;
  }));
}

TEST(BurnIn, HotOrThrottledDuringTheBurnInWarnsWithTheExistingCodes) {
  report r = healthy_burnin_report();
  auto& res = burnin_on(r, 7);
  res.telemetry.temperature_c_max = 88;
  res.telemetry.throttle_reasons = {"sw_power_cap", "hw_power_brake", "hw_slowdown"};
  res.telemetry.throttled = true;
  const auto o = check(r, synthetic_specs(), burnin_default_rules());
  EXPECT_EQ(o.status, verdict_status::warn);
  const auto all = burnin_diagnoses(o);
  for (const char* code :
       {"GPUSPEC-GPU-TEMPERATURE-HIGH", "GPUSPEC-HW-SLOWDOWN", "GPUSPEC-POWER-THROTTLE"})
    EXPECT_TRUE(std::any_of(all.begin(), all.end(), [&](const diagnosis* d) {
      return d->code == code && d->device == 7;
    })) << code;
}

} // namespace
} // namespace gpuspec::reports
