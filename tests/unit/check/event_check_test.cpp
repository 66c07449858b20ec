// The check of events during a result (docs/check.md, "Events during the run"): the degraded
// variants of check_fixtures.cpp trip each rule; here, the healthy inputs that must not (the
// catalog's application Xids, clock changes, single-bit events up to the policy's count), the
// boundary, and an Xid that explains a failed result.

#include <filesystem>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include "check_fixtures.hpp"
#include "gpuspec/reports/judge/check.hpp"
#include "gpuspec/reports/judge/event_rules.hpp"

namespace gpuspec::reports {
namespace {

using testing::add_nvml_events;
using testing::healthy_report;
using testing::synthetic_specs;

expectations event_default_rules() {
  auto e = load_expectations(std::filesystem::path(GPUSPEC_SPECS_DIR) / "expect.json");
  if (!e)
    throw std::runtime_error(e.error().to_string());
  return e.value();
}

const result_verdict& first_verdict_of(const check_outcome& o, int device) {
  for (const auto& v : o.nodes.at(0).results)
    if (v.devices == std::vector<int>{device})
      return v;
  throw std::out_of_range("no result on that GPU");
}

std::vector<std::pair<gpu_event_type, std::uint64_t>> single_bits(std::size_t n) {
  return std::vector<std::pair<gpu_event_type, std::uint64_t>>(n,
                                                               {gpu_event_type::ecc_single_bit, 0});
}

TEST(EventCheck, BenignEventsLeaveAHealthyNodePassing) {
  report r = healthy_report();
  // Xid 13 (a graphics engine exception: the application's), two clock changes, and as many
  // single-bit events as the policy allows.
  add_nvml_events(r, 2,
                  {{gpu_event_type::xid, 13},
                   {gpu_event_type::clock_change, 0},
                   {gpu_event_type::clock_change, 0}});
  add_nvml_events(r, 3, single_bits(single_bit_events_warn_above));
  const auto o = check(r, synthetic_specs(), event_default_rules());
  EXPECT_EQ(o.status, verdict_status::pass) << to_string(o.status);
  const auto& v = first_verdict_of(o, 2);
  EXPECT_EQ(v.status, verdict_status::pass);
  EXPECT_TRUE(v.diagnoses.empty());
  // The application's Xid is said, not held against the GPU.
  EXPECT_NE(v.message.find("note: Xid 13"), std::string::npos) << v.message;
  EXPECT_NE(v.message.find("application"), std::string::npos) << v.message;
}

TEST(EventCheck, OneSingleBitEventPastThePolicyWarns) {
  report r = healthy_report();
  add_nvml_events(r, 3, single_bits(single_bit_events_warn_above + 1));
  const auto o = check(r, synthetic_specs(), event_default_rules());
  EXPECT_EQ(o.status, verdict_status::warn);
  const auto& v = first_verdict_of(o, 3);
  ASSERT_EQ(v.diagnoses.size(), 1U);
  EXPECT_EQ(v.diagnoses[0].code, "GPUSPEC-ECC-CORRECTED-STORM");
  EXPECT_EQ(v.diagnoses[0].evidence.at("event.count"), "11");
}

TEST(EventCheck, AHardwareXidNamesTheResultTheTimeAndTheCatalogEntry) {
  report r = healthy_report();
  add_nvml_events(r, 2, {{gpu_event_type::xid, 79}, {gpu_event_type::xid, 79}});
  const auto o = check(r, synthetic_specs(), event_default_rules());
  EXPECT_EQ(o.status, verdict_status::fail);
  const auto& v = first_verdict_of(o, 2);
  EXPECT_EQ(v.status, verdict_status::fail);
  ASSERT_EQ(v.diagnoses.size(), 1U) << "one finding per Xid number and GPU, with its count";
  const auto& d = v.diagnoses[0];
  EXPECT_EQ(d.code, "GPUSPEC-XID-HARDWARE");
  EXPECT_EQ(d.evidence.at("xid"), "79");
  EXPECT_EQ(d.evidence.at("xid.count"), "2");
  EXPECT_EQ(d.evidence.at("xid.mnemonic"), "ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS");
  EXPECT_EQ(d.evidence.at("event.source"), "nvml");
  EXPECT_NE(d.cause.find("during " + v.bench_id), std::string::npos) << d.cause;
  EXPECT_EQ(v.message.find(d.cause), 0U) << v.message;
  // The other GPUs are untouched.
  EXPECT_EQ(o.nodes[0].gpus[1].status, verdict_status::pass);
}

TEST(EventCheck, AnXidSeenByNvmlAndTheKernelLogCountsOnce) {
  report r = healthy_report();
  add_nvml_events(r, 2, {{gpu_event_type::xid, 79}});
  for (auto& res : r.results)
    if (!res.events.empty()) {
      gpu_event line = res.events.front();
      line.source = "kernel_log";
      line.detail = "NVRM: Xid (PCI:0000:12:00): 79, pid=1, GPU has fallen off the bus.";
      res.events.push_back(line);
    }
  const auto o = check(r, synthetic_specs(), event_default_rules());
  const auto& v = first_verdict_of(o, 2);
  ASSERT_EQ(v.diagnoses.size(), 1U);
  EXPECT_EQ(v.diagnoses[0].evidence.at("xid.count"), "1");
}

TEST(EventCheck, AnXidDuringAFailedResultIsStillJudged) {
  report r = healthy_report();
  add_nvml_events(r, 2, {{gpu_event_type::xid, 79}});
  for (auto& res : r.results)
    if (res.devices == std::vector<int>{2} && !res.events.empty()) {
      res.status = result_status::skipped;
      res.reason = "the GPU fell off the bus";
    }
  const auto o = check(r, synthetic_specs(), event_default_rules());
  const auto& v = first_verdict_of(o, 2);
  EXPECT_EQ(v.status, verdict_status::fail);
  ASSERT_FALSE(v.diagnoses.empty());
  EXPECT_EQ(v.diagnoses[0].code, "GPUSPEC-XID-HARDWARE");
}

TEST(EventCheck, KernelLogXidsAreJudgedAsNvmlOnes) {
  report r = healthy_report();
  add_nvml_events(r, 2, {{gpu_event_type::ecc_double_bit, 0}});
  for (auto& res : r.results)
    for (auto& e : res.events) {
      e.source = "kernel_log";
      e.detail = "NVRM: Xid (PCI:0000:1b:00): 48, pid=1234, DBE (double bit error) ECC error";
    }
  const auto o = check(r, synthetic_specs(), event_default_rules());
  EXPECT_EQ(o.status, verdict_status::fail);
  EXPECT_EQ(first_verdict_of(o, 2).diagnoses.at(0).code, "GPUSPEC-ECC-UNCORRECTED");
  EXPECT_NE(first_verdict_of(o, 2).diagnoses.at(0).cause.find("kernel log"), std::string::npos);
}

TEST(EventCheck, AKernelLogLineIsJudgedByWhatItSays) {
  // A fatal NVLink 5 line fails where the number alone warns (issue 16), as in gpuspec health.
  const auto judged = [](const std::string& text) {
    report r = healthy_report();
    add_nvml_events(r, 2, {{gpu_event_type::xid, 149}});
    for (auto& res : r.results)
      for (auto& e : res.events) {
        e.source = "kernel_log";
        e.detail = "NVRM: Xid (PCI:0000:1b:00): 149, " + text;
      }
    return first_verdict_of(check(r, synthetic_specs(), event_default_rules()), 2).status;
  };
  EXPECT_EQ(judged("NETIR_LINK_EVT Fatal XC0 i0 Link 00 (0x025001c6 0x00000000)"),
            verdict_status::fail);
  EXPECT_EQ(judged("RLW_RXPIPE Nonfatal XC0 i0 Link 13 (0x0409a0c2 0x00000008)"),
            verdict_status::warn);
}

/// Every diagnosis of `code` in the outcome: the GPUs' and the results'.
std::vector<const diagnosis*> all_of_code(const check_outcome& o, const std::string& code) {
  std::vector<const diagnosis*> out;
  for (const auto& g : o.nodes.at(0).gpus)
    for (const auto& d : g.diagnoses)
      if (d.code == code)
        out.push_back(&d);
  for (const auto& v : o.nodes.at(0).results)
    for (const auto& d : v.diagnoses)
      if (d.code == code)
        out.push_back(&d);
  return out;
}

TEST(EventCheck, AnEccErrorSeenByTheCountersAndAnEventCountsOnce) {
  report r = healthy_report();
  // NVML's double-bit event during GPU 2's first result, and the volatile counter that counted it.
  add_nvml_events(r, 2, {{gpu_event_type::ecc_double_bit, 0}});
  r.devices[2].counters_after["ecc.volatile.uncorrected"] = reading::of(1);
  r.devices[2].counters_delta["ecc.volatile.uncorrected"] = reading::of(1);
  const auto o = check(r, synthetic_specs(), event_default_rules());
  EXPECT_EQ(o.status, verdict_status::fail);
  const auto found = all_of_code(o, "GPUSPEC-ECC-UNCORRECTED");
  ASSERT_EQ(found.size(), 1U) << "one ECC error, one diagnosis";
  const auto& d = *found[0];
  EXPECT_EQ(d.device, 2);
  EXPECT_EQ(d.evidence.at("counters_delta.ecc.volatile.uncorrected"), "1");
  EXPECT_EQ(d.evidence.at("event.count"), "1");
  const auto& v = first_verdict_of(o, 2);
  EXPECT_EQ(d.evidence.at("event.bench_id"), v.bench_id);
  EXPECT_NE(d.cause.find("double-bit"), std::string::npos) << d.cause;
  EXPECT_EQ(o.nodes[0].gpus[2].status, verdict_status::fail);
  // The result says where it was seen, and where it is counted.
  EXPECT_NE(v.message.find("counted once, in GPU 2's GPUSPEC-ECC-UNCORRECTED"), std::string::npos)
      << v.message;

  // The same for a storm of single-bit events and the corrected counter.
  r = healthy_report();
  add_nvml_events(r, 3, single_bits(single_bit_events_warn_above + 1));
  r.devices[3].counters_after["ecc.volatile.corrected"] = reading::of(500);
  r.devices[3].counters_delta["ecc.volatile.corrected"] = reading::of(500);
  const auto storm_outcome =
      check(r, synthetic_specs(), event_default_rules()); // outlives the pointers
  const auto storm = all_of_code(storm_outcome, "GPUSPEC-ECC-CORRECTED-STORM");
  ASSERT_EQ(storm.size(), 1U);
  EXPECT_EQ(storm[0]->evidence.at("event.count"), "11");

  // Counters that did not see it (not supported, say): the event's finding stands on its own.
  r = healthy_report();
  add_nvml_events(r, 2, {{gpu_event_type::ecc_double_bit, 0}});
  r.devices[2].counters_delta["ecc.volatile.uncorrected"] = reading::not_supported();
  const auto alone = check(r, synthetic_specs(), event_default_rules());
  ASSERT_EQ(all_of_code(alone, "GPUSPEC-ECC-UNCORRECTED").size(), 1U);
  EXPECT_EQ(first_verdict_of(alone, 2).status, verdict_status::fail);
}

} // namespace
} // namespace gpuspec::reports
