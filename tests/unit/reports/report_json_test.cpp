// The report's JSON mapping: key order, null for absent optionals, round trips (exact, also for
// random reports), the strict loader's field-path errors, parse errors, and the fixtures.

#include <gtest/gtest.h>

#include <unistd.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "gpuspec/reports/model/report_json.hpp"
#include "sample_reports.hpp"
#include "test_text.hpp"

namespace gpuspec::reports {
namespace {

using json = nlohmann::ordered_json;
namespace fs = std::filesystem;
using testing::burnin_report;
using testing::interrupted_report;
using testing::mig_report;
using testing::multi_node_report;
using testing::no_gpu_report;
using testing::random_report;
using testing::synthetic_report;
using testing::without_version_1_1_fields;

const fs::path fixtures = fs::path(GPUSPEC_FIXTURES_DIR) / "reports";

using gpuspec::testing::read_text;

std::vector<std::string> keys_of(const json& j) {
  std::vector<std::string> keys;
  for (auto it = j.begin(); it != j.end(); ++it) {
    keys.push_back(it.key());
  }
  return keys;
}

/// Every double of a result, in a fixed order, as bit patterns.
std::vector<std::uint64_t> double_bits(const report& r) {
  std::vector<std::uint64_t> bits;
  const auto add = [&](double d) { bits.push_back(std::bit_cast<std::uint64_t>(d)); };
  const auto add_optional = [&](const std::optional<double>& d) {
    bits.push_back(d ? std::bit_cast<std::uint64_t>(*d) : 0x7ff8dead00000000ULL);
  };
  for (const result& x : r.results) {
    for (const double d : x.samples) {
      add(d);
    }
    for (const double d : x.sample_seconds) {
      add(d);
    }
    for (const double d : {x.stats.median, x.stats.mean, x.stats.min, x.stats.max, x.stats.stddev,
                           x.stats.cv, x.stats.q1, x.stats.q3, x.telemetry.period_ms}) {
      add(d);
    }
    for (const auto& d :
         {x.bytes_per_iteration, x.flops_per_iteration, x.host_seconds_median,
          x.ceiling_value.datasheet, x.ceiling_value.clock_adjusted, x.efficiency,
          x.efficiency_clock_adjusted, x.check.max_rel_error, x.check.tolerance,
          x.telemetry.sm_clock_mhz_min, x.telemetry.power_w_mean, x.telemetry.low_clock_fraction}) {
      add_optional(d);
    }
  }
  for (const device_info& d : r.devices) {
    add_optional(d.power_limit_w);
    add_optional(d.power_limit_max_w);
  }
  return bits;
}

// ------------------------------------------------------------------------------------ outcome

TEST(InputError, ToStringJoinsTheNonEmptyParts) {
  EXPECT_EQ(
      (input_error{"report.json", "results[3].stats.median", "expected a number"}.to_string()),
      "report.json: results[3].stats.median: expected a number");
  EXPECT_EQ((input_error{"report.json", "", "the file is empty"}.to_string()),
            "report.json: the file is empty");
  EXPECT_EQ((input_error{"", "schema", "missing"}.to_string()), "schema: missing");
  EXPECT_EQ((input_error{"", "", "alone"}.to_string()), "alone");
  EXPECT_EQ((input_error{}.to_string()), "");
}

TEST(Outcome, HoldsAValueOrAnError) {
  const outcome<int> good = 3;
  ASSERT_TRUE(good.has_value());
  EXPECT_EQ(good.value(), 3);
  const outcome<int> bad = input_error{"f", "x", "y"};
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().field, "x");
}

// ------------------------------------------------------------------------------------ enums

TEST(ReportJson, EveryEnumHasItsNameAndBack) {
  const std::vector<std::pair<result_status, std::string>> results{
      {result_status::ok, "ok"},
      {result_status::failed, "failed"},
      {result_status::skipped, "skipped"},
      {result_status::not_supported, "not_supported"}};
  for (const auto& [value, name] : results) {
    EXPECT_EQ(to_string(value), name);
    EXPECT_EQ(result_status_from_string(name), value);
  }
  const std::vector<std::pair<verification_status, std::string>> verifications{
      {verification_status::passed, "passed"},
      {verification_status::failed, "failed"},
      {verification_status::skipped, "skipped"}};
  for (const auto& [value, name] : verifications) {
    EXPECT_EQ(to_string(value), name);
    EXPECT_EQ(verification_status_from_string(name), value);
  }
  const std::vector<std::pair<check_status, std::string>> checks{
      {check_status::pass, "pass"},
      {check_status::warn, "warn"},
      {check_status::fail, "fail"},
      {check_status::skipped, "skipped"}};
  for (const auto& [value, name] : checks) {
    EXPECT_EQ(to_string(value), name);
    EXPECT_EQ(check_status_from_string(name), value);
  }
  EXPECT_EQ(result_status_from_string("not supported"), std::nullopt);
  EXPECT_EQ(verification_status_from_string("pass"), std::nullopt);
  EXPECT_EQ(check_status_from_string("ok"), std::nullopt);
  EXPECT_EQ(check_status_from_string(""), std::nullopt);
}

TEST(ReportJson, EveryEnumValueRoundTripsThroughAReport) {
  report r = synthetic_report();
  for (const result_status s : {result_status::ok, result_status::failed, result_status::skipped,
                                result_status::not_supported}) {
    for (const verification_status v :
         {verification_status::passed, verification_status::failed, verification_status::skipped}) {
      for (const check_status c :
           {check_status::pass, check_status::warn, check_status::fail, check_status::skipped}) {
        r.results[0].status = s;
        r.results[0].failure =
            s == result_status::failed ? failure_kind::worker_signal : failure_kind::none;
        r.results[0].reason = "because";
        r.results[0].check.status = v;
        r.host.checks[0].status = c;
        const json j = to_json(r);
        EXPECT_EQ(j["results"][0]["status"], to_string(s));
        EXPECT_EQ(j["results"][0]["verification"]["status"], to_string(v));
        EXPECT_EQ(j["host"]["checks"][0]["status"], to_string(c));
        const auto back = report_from_json(j, "enums");
        ASSERT_TRUE(back) << back.error().to_string();
        EXPECT_EQ(back.value(), r);
      }
    }
  }
}

// ------------------------------------------------------------------------------------ writing

TEST(ReportJson, ParametersAreTheAxesThenTheObservationsInTheirOrder) {
  // The order of every other key is report_fields.hpp's (ReportFields.* hold the writer, the
  // reader and the schema to it).
  const json j = to_json(synthetic_report());
  EXPECT_EQ(keys_of(j["results"][1]["parameters"]),
            (std::vector<std::string>{"shape", "layout", "m", "n", "k", "ceiling_key",
                                      "roofline_bytes"}));
  EXPECT_EQ(keys_of(j["results"][1]["axes"]), (std::vector<std::string>{"shape", "layout"}));
}

TEST(ReportJson, AbsentOptionalsAreWrittenAsNull) {
  const json j = to_json(synthetic_report());
  const json& skipped = j["results"][2];
  ASSERT_TRUE(skipped.contains("efficiency"));
  EXPECT_TRUE(skipped["efficiency"].is_null());
  EXPECT_TRUE(skipped["bytes_per_iteration"].is_null());
  EXPECT_TRUE(skipped["ceiling"]["datasheet"].is_null());
  EXPECT_TRUE(skipped["telemetry"]["power_w_max"].is_null());
  EXPECT_TRUE(j["host"]["checks"][0]["device"].is_null());
  EXPECT_EQ(j["host"]["checks"][2]["device"], 1);
  EXPECT_TRUE(j["devices"][0]["pci_subsystem_id"].is_null());
  EXPECT_TRUE(j["results"][0]["flops_per_iteration"].is_null());
  EXPECT_EQ(j["results"][0]["bytes_per_iteration"], 3000000000.0);
}

TEST(ReportJson, ReadingsAreTheNumberOrTheStatusNeverZero) {
  const report r = synthetic_report();
  const json j = to_json(r);
  const json& after = j["devices"][1]["counters_after"];
  EXPECT_EQ(after["pcie.replay"], 10);
  EXPECT_TRUE(after["pcie.replay"].is_number_integer());
  EXPECT_EQ(after["retired_pages.pending"], "not supported");
  EXPECT_EQ(after["row_remap.failure"], "unavailable: query failed");

  const auto back = report_from_json(j, "readings");
  ASSERT_TRUE(back) << back.error().to_string();
  const counter_set& counters = back.value().devices[1].counters_after;
  EXPECT_EQ(counters.at("retired_pages.pending"), reading::not_supported());
  EXPECT_FALSE(counters.at("retired_pages.pending").value.has_value());
  EXPECT_EQ(counters.at("row_remap.failure"), reading::unavailable("query failed"));
  EXPECT_EQ(counters.at("pcie.replay"), reading::of(10));
}

TEST(ReportJson, ExtremeReadingsAndIdsRoundTrip) {
  report r = synthetic_report();
  r.devices[0].counters_delta["min"] = reading::of(std::numeric_limits<std::int64_t>::min());
  r.devices[0].counters_delta["max"] = reading::of(std::numeric_limits<std::int64_t>::max());
  r.devices[0].pci_device_id = std::numeric_limits<std::uint32_t>::max();
  r.devices[0].memory_bytes = std::numeric_limits<std::int64_t>::max();
  const auto back = parse_report(to_json_text(r), "extremes");
  ASSERT_TRUE(back) << back.error().to_string();
  EXPECT_EQ(back.value(), r);
}

TEST(ReportJson, WrittenReportsRoundTrip) {
  for (const report& r : {no_gpu_report(), synthetic_report(), interrupted_report()}) {
    const auto direct = report_from_json(to_json(r), "direct");
    ASSERT_TRUE(direct) << direct.error().to_string();
    EXPECT_EQ(direct.value(), r);
    const auto text = parse_report(to_json_text(r), "text");
    ASSERT_TRUE(text) << text.error().to_string();
    EXPECT_EQ(text.value(), r);
  }
}

TEST(ReportJson, RandomReportsRoundTripExactly) {
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const report r = random_report(seed);
    const std::string text = to_json_text(r);
    const auto back = parse_report(text, "random");
    ASSERT_TRUE(back) << back.error().to_string();
    EXPECT_EQ(back.value(), r);
    // Bit-exact doubles (-0.0, subnormals, 17 significant digits): == alone would accept
    // -0.0 for 0.0, the bit patterns and the text do not.
    EXPECT_EQ(double_bits(back.value()), double_bits(r));
    EXPECT_EQ(to_json_text(back.value()), text);
  }
}

TEST(ReportJson, NegativeZeroAndSubnormalsKeepTheirBits) {
  report r = synthetic_report();
  r.results[0].samples = {-0.0, std::numeric_limits<double>::denorm_min(),
                          std::numeric_limits<double>::max(), 0.1, 1.0 / 3.0};
  const auto back = parse_report(to_json_text(r), "bits");
  ASSERT_TRUE(back) << back.error().to_string();
  ASSERT_EQ(back.value().results[0].samples.size(), 5U);
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(std::bit_cast<std::uint64_t>(back.value().results[0].samples[i]),
              std::bit_cast<std::uint64_t>(r.results[0].samples[i]))
        << i;
  }
}

/// to_json throws std::invalid_argument whose message contains `path`.
void expect_unwritable(const report& r, const std::string& path) {
  try {
    (void)to_json(r);
    ADD_FAILURE() << "to_json accepted a report with a bad " << path;
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(path + ":"), std::string::npos) << e.what();
  }
}

TEST(ReportJson, NaNAndInfinityAreNeverWritten) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  report r = synthetic_report();
  r.results[1].samples[2] = nan;
  expect_unwritable(r, "results[1].samples[2]");
  r = synthetic_report();
  r.results[0].efficiency = inf;
  expect_unwritable(r, "results[0].efficiency");
  r = synthetic_report();
  r.results[0].stats.cv = -inf;
  expect_unwritable(r, "results[0].stats.cv");
  r = synthetic_report();
  r.devices[1].power_limit_w = nan;
  expect_unwritable(r, "devices[1].power_limit_w");
  r = synthetic_report();
  r.results[0].observations["sweep"] = json::array({1.0, nan});
  expect_unwritable(r, "results[0].observations.sweep[1]");
}

TEST(ReportJson, ToJsonRejectsWhatTheLoaderWouldReject) {
  report r = synthetic_report();
  r.devices[0].counters_after["ecc.x"] = reading{};
  expect_unwritable(r, R"(devices[0].counters_after["ecc.x"])");
  r = synthetic_report();
  r.devices[0].counters_after["ecc.x"] = reading{5, "not supported"};
  expect_unwritable(r, R"(devices[0].counters_after["ecc.x"])");
  r = synthetic_report();
  r.devices[0].counters_after["ecc.x"] = reading{std::nullopt, "n/a"};
  expect_unwritable(r, R"(devices[0].counters_after["ecc.x"])");
  r = synthetic_report();
  r.devices[0].counters_after["ecc.x"] = reading::unavailable("");
  expect_unwritable(r, R"(devices[0].counters_after["ecc.x"])");
  r = synthetic_report();
  r.devices[0].counters_after["plain"] = reading{};
  expect_unwritable(r, "devices[0].counters_after.plain");
  r = synthetic_report();
  r.results[1].reason = "";
  expect_unwritable(r, "results[1].reason");
  r = synthetic_report();
  r.results[1].stats.n = -1;
  expect_unwritable(r, "results[1].stats.n");
  r = synthetic_report();
  r.results[1].telemetry.samples = -1;
  expect_unwritable(r, "results[1].telemetry.samples");
  r = synthetic_report();
  r.results[0].cache_state = "warm";
  expect_unwritable(r, "results[0].cache_state");
  r = synthetic_report();
  r.results[0].stop_reason = "converged";
  expect_unwritable(r, "results[0].stop_reason");
  r = synthetic_report();
  r.results[0].observations = json::array();
  expect_unwritable(r, "results[0].observations");
  r = synthetic_report();
  r.results[0].observations["dtype"] = "fp64"; // an axis too
  expect_unwritable(r, "results[0].observations.dtype");
  r = synthetic_report();
  r.results[0].ceiling_value.spec_figure = "peaks.fp16_sparse";
  expect_unwritable(r, "results[0].ceiling.spec_figure");
  r = synthetic_report();
  r.schema = "gpuspec.report.v0";
  expect_unwritable(r, "schema");
}

// The writer builds a field's path only when it names it in an error: every level of a deep
// one is still there, each in the loader's form.
TEST(ReportJson, ADeepFieldIsNamedByItsWholePath) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  report r = synthetic_report();
  r.host.topology->gpus[1].nvlinks[0].remote_type = "cable";
  expect_unwritable(r, "host.topology.gpus[1].nvlinks[0].remote_type");
  r = synthetic_report();
  r.host.topology->gpus[1].nvlink_link_gbs = nan;
  expect_unwritable(r, "host.topology.gpus[1].nvlink_link_gbs");
  r = synthetic_report();
  r.host.topology->pairs[1].transport = "pigeon";
  expect_unwritable(r, "host.topology.pairs[1].transport");
  r = multi_node_report();
  r.nodes.back().devices.back().power_limit_max_w = nan;
  expect_unwritable(r, "nodes[" + std::to_string(r.nodes.size() - 1) + "].devices[" +
                           std::to_string(r.nodes.back().devices.size() - 1) +
                           "].power_limit_max_w");
  r = multi_node_report();
  (*r.host.network_ports)[1].rate_gbps = nan;
  expect_unwritable(r, "host.network_ports[1].rate_gbps");
  r = burnin_report();
  r.results[0].burnin->intervals[2].power_w_max = nan;
  expect_unwritable(r, "results[0].burnin.intervals[2].power_w_max");
  r = burnin_report();
  r.results[0].burnin->event_samples[1].power_w = nan;
  expect_unwritable(r, "results[0].burnin.event_samples[1].power_w");
  r = burnin_report();
  r.results[0].burnin->gemm->mismatches[0].actual = "0x12";
  expect_unwritable(r, "results[0].burnin.gemm.mismatches[0].actual");
  r = burnin_report();
  r.results[0].events[1].time_s = nan;
  expect_unwritable(r, "results[0].events[1].time_s");
  r = synthetic_report();
  r.results[0].observations["sweep"] = json::object({{"odd key", json::array({1.0, nan})}});
  expect_unwritable(r, R"(results[0].observations.sweep["odd key"][1])");
}

TEST(ReportJson, BadUtf8IsReplacedNotThrown) {
  report r = synthetic_report();
  r.run.command_line.push_back("bad \xff byte");
  std::string text;
  ASSERT_NO_THROW(text = to_json_text(r));
  EXPECT_NE(text.find("bad \xef\xbf\xbd byte"), std::string::npos);
  const auto back = parse_report(text, "utf8");
  ASSERT_TRUE(back) << back.error().to_string();
  EXPECT_EQ(back.value().run.command_line.back(), "bad \xef\xbf\xbd byte");
}

// ------------------------------------------------------------------------------------ strict
// loading

struct bad_input {
  std::string name;
  std::function<void(json&)> change;
  std::string field;
  std::string message; ///< a part of the message
};

std::vector<bad_input> bad_inputs() {
  return {
      {"schema of another version", [](json& j) { j["schema"] = "gpuspec.report.v2"; }, "schema",
       R"(expected "gpuspec.report.v1", "gpuspec.report.v1.1", "gpuspec.report.v1.2", got "gpuspec.report.v2")"},
      {"schema missing", [](json& j) { j.erase("schema"); }, "schema",
       R"(missing; expected "gpuspec.report.v1", "gpuspec.report.v1.1", "gpuspec.report.v1.2")"},
      {"schema a number", [](json& j) { j["schema"] = 1; }, "schema", "got a number"},
      {"top level not an object", [](json& j) { j = json::array(); }, "", "got an array"},
      {"required field missing", [](json& j) { j["results"][0]["stats"].erase("median"); },
       "results[0].stats.median", "missing"},
      {"nullable field missing", [](json& j) { j["devices"][1].erase("cuda_index"); },
       "devices[1].cuda_index", "missing"},
      {"number as a string", [](json& j) { j["results"][0]["stats"]["median"] = "1000"; },
       "results[0].stats.median", "expected a number, got a string"},
      {"null for a number", [](json& j) { j["results"][1]["stats"]["mean"] = nullptr; },
       "results[1].stats.mean", "expected a number, got null"},
      {"null for a string", [](json& j) { j["results"][0]["metric"] = nullptr; },
       "results[0].metric", "expected a string, got null"},
      {"string for a boolean", [](json& j) { j["complete"] = "yes"; }, "complete",
       "expected true or false, got a string"},
      {"object for an array", [](json& j) { j["devices"] = json::object(); }, "devices",
       "expected an array, got an object"},
      {"fraction for an integer", [](json& j) { j["devices"][0]["index"] = 1.5; },
       "devices[0].index", "expected an integer, got 1.5"},
      {"integer too large for int", [](json& j) { j["devices"][0]["sm_count"] = 1LL << 40; },
       "devices[0].sm_count", "expected an integer from"},
      {"negative PCI id", [](json& j) { j["devices"][0]["pci_device_id"] = -1; },
       "devices[0].pci_device_id", "from 0 to 4294967295"},
      {"integer beyond int64", [](json& j) { j["host"]["memory_bytes"] = 18446744073709551615ULL; },
       "host.memory_bytes", "expected an integer from"},
      {"string in an integer array", [](json& j) { j["results"][2]["devices"][1] = "1"; },
       "results[2].devices[1]", "expected an integer, got a string"},
      {"string in the samples", [](json& j) { j["results"][1]["samples"][3] = "100"; },
       "results[1].samples[3]", "expected a number, got a string"},
      {"NaN in a document built in code",
       [](json& j) { j["results"][1]["samples"][4] = std::numeric_limits<double>::quiet_NaN(); },
       "results[1].samples[4]", "expected a finite number"},
      {"unknown result status", [](json& j) { j["results"][2]["status"] = "skip"; },
       "results[2].status",
       R"(expected one of "ok", "failed", "skipped", "not_supported", got "skip")"},
      {"unknown verification status",
       [](json& j) { j["results"][0]["verification"]["status"] = "ok"; },
       "results[0].verification.status", R"("passed", "failed", "skipped")"},
      {"unknown check status", [](json& j) { j["host"]["checks"][0]["status"] = "ok"; },
       "host.checks[0].status", R"("pass", "warn", "fail", "skipped")"},
      {"status not a string", [](json& j) { j["results"][0]["status"] = 0; }, "results[0].status",
       "got a number"},
      {"counter as free text",
       [](json& j) { j["devices"][1]["counters_after"]["retired_pages.pending"] = "n/a"; },
       R"(devices[1].counters_after["retired_pages.pending"])", R"(got "n/a")"},
      {"counter unavailable without why",
       [](json& j) { j["devices"][0]["counters_before"]["pcie.replay"] = "unavailable: "; },
       R"(devices[0].counters_before["pcie.replay"])", "unavailable: <why>"},
      {"counter with a fraction",
       [](json& j) { j["devices"][0]["counters_delta"]["pcie.replay"] = 0.5; },
       R"(devices[0].counters_delta["pcie.replay"])", "expected an integer, got 0.5"},
      {"counters not an object", [](json& j) { j["devices"][0]["counters_delta"] = json::array(); },
       "devices[0].counters_delta", "expected an object of counters"},
      {"typo at the top level",
       [](json& j) {
         j["resutls"] = j["results"];
         j.erase("results");
       },
       "resutls", R"(unknown field (did you mean "results"?))"},
      {"typo in a result", [](json& j) { j["results"][0]["efficency"] = 0.5; },
       "results[0].efficency", R"(did you mean "efficiency"?)"},
      {"unrelated extra field", [](json& j) { j["devices"][0]["colour"] = "green"; },
       "devices[0].colour", R"(unknown field; the fields here are "index", "cuda_index")"},
      {"parameters an array", [](json& j) { j["results"][0]["parameters"] = json::array(); },
       "results[0].parameters", "expected an object, got an array"},
      {"failed without a reason", [](json& j) { j["results"][1]["reason"] = ""; },
       "results[1].reason", R"(a result whose status is "failed" must say why)"},
      {"unknown cache state", [](json& j) { j["results"][0]["cache_state"] = "warm"; },
       "results[0].cache_state", R"(expected one of "cold", "hot", "", got "warm")"},
      {"unknown stop reason", [](json& j) { j["results"][0]["stop_reason"] = "converged"; },
       "results[0].stop_reason", R"("cv_target", "stalled", "time_cap", "sample_cap")"},
      {"run not an object", [](json& j) { j["run"] = "today"; }, "run",
       "expected an object, got a string"},
      {"negative count", [](json& j) { j["results"][0]["stats"]["n"] = -1; }, "results[0].stats.n",
       "expected a count (0 or more), got -1"},
      {"negative telemetry count", [](json& j) { j["results"][0]["telemetry"]["samples"] = -3; },
       "results[0].telemetry.samples", "expected a count (0 or more), got -3"},
  };
}

TEST(ReportJson, StrictLoadingNamesTheField) {
  const json good = to_json(synthetic_report());
  ASSERT_TRUE(report_from_json(good, "good.json"));
  for (const bad_input& bad : bad_inputs()) {
    SCOPED_TRACE(bad.name);
    json j = good;
    bad.change(j);
    outcome<report> loaded = report_from_json(j, "bad.json");
    ASSERT_FALSE(loaded);
    EXPECT_EQ(loaded.error().file, "bad.json");
    EXPECT_EQ(loaded.error().field, bad.field);
    EXPECT_NE(loaded.error().message.find(bad.message), std::string::npos)
        << loaded.error().message;
    // And through the text, as a file would be read (a NaN cannot be written as text).
    if (bad.name.find("NaN") == std::string::npos) {
      loaded = parse_report(j.dump(2), "bad.json");
      ASSERT_FALSE(loaded);
      EXPECT_EQ(loaded.error().field, bad.field);
    }
  }
}

TEST(ReportJson, IntegralNumbersWithAFractionPartAreIntegers) {
  // JSON Schema counts 3.0 as an integer; so does the loader.
  json j = to_json(synthetic_report());
  j["devices"][1]["index"] = 1.0;
  const auto loaded = report_from_json(j, "integral.json");
  ASSERT_TRUE(loaded) << loaded.error().to_string();
  EXPECT_EQ(loaded.value().devices[1].index, 1);
}

// ------------------------------------------------------------------------------------ parsing

TEST(ParseReport, EmptyAndBlankTextAreNamed) {
  auto loaded = parse_report("", "empty.json");
  ASSERT_FALSE(loaded);
  EXPECT_EQ(loaded.error().to_string(), "empty.json: the file is empty, not a report");
  loaded = parse_report(" \n\t ", "blank.json");
  ASSERT_FALSE(loaded);
  EXPECT_EQ(loaded.error().field, "");
  EXPECT_NE(loaded.error().message.find("white space"), std::string::npos);
}

TEST(ParseReport, TruncatedJsonGivesTheByteOffset) {
  const std::string text = to_json_text(synthetic_report());
  const std::string cut = text.substr(0, 300);
  const auto loaded = parse_report(cut, "cut.json");
  ASSERT_FALSE(loaded);
  EXPECT_EQ(loaded.error().file, "cut.json");
  EXPECT_EQ(loaded.error().field, "");
  EXPECT_NE(loaded.error().message.find("not valid JSON (at byte "), std::string::npos)
      << loaded.error().message;
  EXPECT_NE(loaded.error().message.find("unexpected end of input"), std::string::npos)
      << loaded.error().message;
}

TEST(ParseReport, NonJsonGivesTheByteOffset) {
  const auto loaded = parse_report("{\"schema\": gpuspec}", "words.json");
  ASSERT_FALSE(loaded);
  EXPECT_NE(loaded.error().message.find("at byte 12"), std::string::npos) << loaded.error().message;
  EXPECT_FALSE(parse_report("<html></html>", "page.json"));
  EXPECT_FALSE(parse_report("{\"a\": NaN}", "nan.json"));
}

TEST(ParseReport, NumbersBeyondDoubleAreErrors) {
  json j = to_json(synthetic_report());
  std::string text = j.dump();
  const std::string median = "\"median\":1000.0";
  ASSERT_NE(text.find(median), std::string::npos);
  text.replace(text.find(median), median.size(), "\"median\":1e400");
  const auto loaded = parse_report(text, "huge.json");
  ASSERT_FALSE(loaded);
  EXPECT_NE(loaded.error().message.find("1e400"), std::string::npos) << loaded.error().message;
}

TEST(ParseReport, DuplicateKeysAreNamedWithTheirPath) {
  std::string text = to_json(synthetic_report()).dump();
  const std::string median = "\"median\":100.0,";
  const auto at = text.find(median, text.find("gemm.cublas.fp16_tc"));
  ASSERT_NE(at, std::string::npos);
  text.insert(at, "\"median\":5.0,");
  const auto loaded = parse_report(text, "twice.json");
  ASSERT_FALSE(loaded);
  EXPECT_EQ(loaded.error().field, "results[1].stats.median");
  EXPECT_NE(loaded.error().message.find("duplicate key"), std::string::npos);

  // In a counter set and at the top level.
  text = to_json(synthetic_report()).dump();
  text.insert(text.find("\"pcie.replay\":10"), "\"pcie.replay\":9,");
  EXPECT_EQ(parse_report(text, "twice.json").error().field,
            R"(devices[1].counters_after["pcie.replay"])");
  text = to_json(no_gpu_report()).dump();
  text.insert(1, "\"complete\":false,");
  EXPECT_EQ(parse_report(text, "twice.json").error().field, "complete");
}

// ------------------------------------------------------------------------------------ files

class ReportFiles : public ::testing::Test {
protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    m_dir = fs::temp_directory_path() /
            (std::string("gpuspec-report-json-") + info->name() + "-" + std::to_string(::getpid()));
    fs::remove_all(m_dir);
    fs::create_directories(m_dir);
  }
  void TearDown() override { fs::remove_all(m_dir); }

  fs::path write(const std::string& name, const std::string& text) {
    const fs::path file = m_dir / name;
    std::ofstream(file, std::ios::binary) << text;
    return file;
  }

  fs::path m_dir;
};

TEST_F(ReportFiles, SaveThenLoadGivesTheSameReport) {
  const report r = synthetic_report();
  const fs::path file = m_dir / "report.json";
  save_report(file, r);
  const std::string text = read_text(file);
  EXPECT_EQ(text, to_json_text(r));
  EXPECT_EQ(text.back(), '\n');
  EXPECT_EQ(text.substr(0, 36), "{\n  \"schema\": \"gpuspec.report.v1.1\",");
  const auto loaded = load_report(file);
  ASSERT_TRUE(loaded) << loaded.error().to_string();
  EXPECT_EQ(loaded.value(), r);
}

TEST_F(ReportFiles, MissingFileIsNamed) {
  const fs::path file = m_dir / "absent.json";
  const auto loaded = load_report(file);
  ASSERT_FALSE(loaded);
  EXPECT_EQ(loaded.error().file, file.string());
  EXPECT_EQ(loaded.error().field, "");
  EXPECT_EQ(loaded.error().message, "cannot open: No such file or directory");
}

TEST_F(ReportFiles, FolderIsNotAReport) {
  const auto loaded = load_report(m_dir);
  ASSERT_FALSE(loaded);
  EXPECT_EQ(loaded.error().file, m_dir.string());
  EXPECT_NE(loaded.error().message.find("folder"), std::string::npos);
}

TEST_F(ReportFiles, EmptyTruncatedAndNonJsonFilesAreNamed) {
  auto loaded = load_report(write("empty.json", ""));
  ASSERT_FALSE(loaded);
  EXPECT_EQ(loaded.error().to_string(),
            (m_dir / "empty.json").string() + ": the file is empty, not a report");

  loaded = load_report(write("cut.json", to_json_text(synthetic_report()).substr(0, 1000)));
  ASSERT_FALSE(loaded);
  EXPECT_EQ(loaded.error().file, (m_dir / "cut.json").string());
  // nlohmann's byte: the 1-based position where parsing failed, here the end of input.
  EXPECT_NE(loaded.error().message.find("at byte 1001"), std::string::npos)
      << loaded.error().message;

  loaded = load_report(write("text.json", "this is not a report\n"));
  ASSERT_FALSE(loaded);
  EXPECT_NE(loaded.error().message.find("not valid JSON (at byte 2)"), std::string::npos)
      << loaded.error().message;
}

TEST_F(ReportFiles, UnreadableFileIsNamed) {
  if (::geteuid() == 0) {
    GTEST_SKIP() << "running as root: permissions do not stop reading";
  }
  const fs::path file = write("locked.json", to_json_text(no_gpu_report()));
  fs::permissions(file, fs::perms::none);
  const auto loaded = load_report(file);
  ASSERT_FALSE(loaded);
  EXPECT_EQ(loaded.error().message, "cannot open: Permission denied");
}

// ------------------------------------------------------------------------------------ fixtures

/// The fixtures are the sample reports as save_report writes them, byte for byte: a change of
/// key order, key name or number format fails here (regenerate them only on purpose).
TEST(Fixtures, AreTheSampleReportsByteForByte) {
  const std::vector<std::pair<std::string, report>> samples{
      {"no-gpu.json", no_gpu_report()},
      {"synthetic-two-gpus.json", synthetic_report()},
      {"synthetic-interrupted.json", interrupted_report()},
      {"synthetic-burnin.json", burnin_report()},
      {"synthetic-multi-node.json", multi_node_report()}};
  // With GPUSPEC_WRITE_REPORT_FIXTURES set, this test rewrites the files instead (after a
  // change to the model, a version that adds fields).
  const bool write = std::getenv("GPUSPEC_WRITE_REPORT_FIXTURES") != nullptr;
  for (const auto& [name, r] : samples) {
    SCOPED_TRACE(name);
    const fs::path file = fixtures / name;
    if (write)
      save_report(file, r);
    EXPECT_EQ(read_text(file), to_json_text(r));
    const auto loaded = load_report(file);
    ASSERT_TRUE(loaded) << loaded.error().to_string();
    EXPECT_EQ(loaded.value(), r);
  }
}

/// Version 1 documents (the same sample reports, written before version 1.1) keep loading: the
/// added fields take their defaults, and a failed result's `failure` is derived.
TEST(Fixtures, VersionOneReportsLoadWithTheAddedFieldsAtTheirDefaults) {
  const std::vector<std::pair<std::string, report>> samples{
      {"no-gpu.json", no_gpu_report()},
      {"synthetic-two-gpus.json", synthetic_report()},
      {"synthetic-interrupted.json", interrupted_report()}};
  for (const auto& [name, r] : samples) {
    SCOPED_TRACE(name);
    const auto loaded = load_report(fixtures / "v1" / name);
    ASSERT_TRUE(loaded) << loaded.error().to_string();
    EXPECT_EQ(loaded.value().schema, "gpuspec.report.v1");
    report expected = without_version_1_1_fields(r);
    expected.schema = "gpuspec.report.v1";
    // The samples have since moved on in what they record; the version 1 files hold the
    // parameters version 1 wrote, and what is derived from them is checked below.
    ASSERT_EQ(loaded.value().results.size(), expected.results.size());
    for (std::size_t i = 0; i < expected.results.size(); ++i) {
      expected.results[i].axes = loaded.value().results[i].axes;
      expected.results[i].observations = loaded.value().results[i].observations;
      expected.results[i].ceiling_value = loaded.value().results[i].ceiling_value;
      // Version 1's efficiency was against the clock-adjusted ceiling, whatever the reference.
      expected.results[i].efficiency = loaded.value().results[i].efficiency;
    }
    EXPECT_EQ(loaded.value(), expected);
    // Written again, it is a version 1.1 document that loads as what was read.
    const auto again = parse_report(to_json_text(loaded.value()), name);
    ASSERT_TRUE(again) << again.error().to_string();
    EXPECT_EQ(again.value().schema, report_schema_version);
    EXPECT_EQ(again.value().results, loaded.value().results);
  }
}

TEST(Fixtures, VersionOneAxesObservationsAndReferencesAreDerived) {
  const auto loaded = load_report(fixtures / "v1" / "synthetic-two-gpus.json");
  ASSERT_TRUE(loaded) << loaded.error().to_string();
  const auto& results = loaded.value().results;
  ASSERT_EQ(results.size(), 4U);
  // memory.stream.triad: version 1's registry declared dtype as its axis; the rest was found.
  EXPECT_EQ(results[0].axes, json({{"dtype", "fp32"}}));
  EXPECT_EQ(results[0].observations, json({{"bytes_per_array", 1000000000}}));
  EXPECT_EQ(results[0].ceiling_value.spec_figure, "memory_bandwidth_gbs");
  EXPECT_EQ(results[0].ceiling_value.reference, reference_kind::datasheet);
  // gemm.cublas.fp16_tc: axes shape and layout, neither in this hand-made document; no
  // ceiling_key was recorded, so no spec figure, and the clock-adjusted ceiling judges.
  EXPECT_EQ(results[1].axes, json::object());
  EXPECT_EQ(results[1].observations,
            json({{"m", 1000}, {"n", 1000}, {"k", 1000}, {"dtype", "fp16"}}));
  EXPECT_EQ(results[1].ceiling_value.spec_figure, "");
  EXPECT_EQ(results[1].ceiling_value.reference, reference_kind::clock_adjusted);
  // collective.all_reduce: not in version 1's registry, so every parameter is an axis.
  EXPECT_EQ(results[2].axes, json({{"bytes", 1000000}}));
  EXPECT_EQ(results[2].observations, json::object());
  EXPECT_EQ(results[2].ceiling_value.reference, reference_kind::none);
}

TEST(ReportJson, AxesMustAgreeWithTheParameters) {
  json j = to_json(synthetic_report());
  j["results"][0]["axes"]["dtype"] = "fp64";
  auto loaded = report_from_json(j, "axes.json");
  ASSERT_FALSE(loaded);
  EXPECT_EQ(loaded.error().field, "results[0].axes.dtype");
  EXPECT_NE(loaded.error().message.find("parameters.dtype is \"fp32\""), std::string::npos)
      << loaded.error().message;
  j = to_json(synthetic_report());
  j["results"][0]["axes"]["size"] = 4;
  loaded = report_from_json(j, "axes.json");
  ASSERT_FALSE(loaded);
  EXPECT_EQ(loaded.error().field, "results[0].axes.size");
  j = to_json(synthetic_report());
  j["results"][0]["unit"] = "GB/sec";
  loaded = report_from_json(j, "unit.json");
  ASSERT_FALSE(loaded);
  EXPECT_EQ(loaded.error().field, "results[0].unit");
  EXPECT_NE(loaded.error().message.find("\"GB/s\""), std::string::npos) << loaded.error().message;
  j = to_json(synthetic_report());
  j["results"][0]["ceiling"]["reference"] = "spec";
  EXPECT_EQ(report_from_json(j, "reference.json").error().field, "results[0].ceiling.reference");
}

TEST(ReportJson, EventsRoundTripAndAreCheckedAtTheirField) {
  report r = synthetic_report();
  r.results[0].events = {
      {1.25, 0, gpu_event_type::xid, 79, "nvml", "NVML Xid critical error event, Xid 79"},
      {2.5, 0, gpu_event_type::ecc_double_bit, std::nullopt, "kernel_log", "a line"}};
  const json good = to_json(r);
  const auto back = report_from_json(good, "events.json");
  ASSERT_TRUE(back) << back.error().to_string();
  EXPECT_EQ(back.value().results[0].events, r.results[0].events);
  // A result without events writes no key (the synthetic report's result 1).
  EXPECT_FALSE(good["results"][1].contains("events"));

  json j = good;
  j["results"][0]["events"] = json::array();
  auto loaded = report_from_json(j, "empty.json");
  ASSERT_FALSE(loaded);
  EXPECT_EQ(loaded.error().field, "results[0].events");
  j = good;
  j["results"][0]["events"][1]["xid"] = 48; // an ECC event with an Xid
  loaded = report_from_json(j, "xid.json");
  ASSERT_FALSE(loaded);
  EXPECT_EQ(loaded.error().field, "results[0].events[1].xid");
  j = good;
  j["results"][0]["events"][0]["xid"] = nullptr; // an Xid event without one
  EXPECT_EQ(report_from_json(j, "xid.json").error().field, "results[0].events[0].xid");
  j = good;
  j["results"][0]["events"][0]["type"] = "xid_storm";
  EXPECT_EQ(report_from_json(j, "type.json").error().field, "results[0].events[0].type");
  j = good;
  j["results"][0]["events"][0]["source"] = "dmesg";
  EXPECT_EQ(report_from_json(j, "source.json").error().field, "results[0].events[0].source");
  // The writer refuses what the reader would.
  r.results[0].events[1].xid = 48;
  EXPECT_THROW((void)to_json(r), std::exception);
}

TEST(Fixtures, VersionOneDocumentsMayNotHoldVersionOnePointOneFields) {
  json j = to_json(synthetic_report());
  j["schema"] = "gpuspec.report.v1";
  const auto loaded = report_from_json(j, "old.json");
  ASSERT_FALSE(loaded);
  EXPECT_EQ(loaded.error().field, "run.backend");
}

TEST(Fixtures, EveryValidFixtureLoads) {
  int count = 0;
  for (const auto& entry : fs::directory_iterator(fixtures)) {
    if (entry.path().extension() != ".json") {
      continue;
    }
    ++count;
    const auto loaded = load_report(entry.path());
    EXPECT_TRUE(loaded) << loaded.error().to_string();
  }
  EXPECT_GE(count, 3);
}

/// Each file in fixtures/reports/invalid is rejected by the loader at the field named here, and
/// by the schema (the reports.schema_rejects_invalid test).
TEST(Fixtures, EveryInvalidFixtureIsRejectedAtItsField) {
  const std::vector<std::pair<std::string, std::string>> expected{
      {"empty-file.json", ""},
      {"truncated.json", ""},
      {"nan-literal.json", ""},
      {"not-an-object.json", ""},
      {"duplicate-key.json", "results[0].stats.median"},
      {"wrong-schema-version.json", "schema"},
      {"missing-schema.json", "schema"},
      {"unknown-top-level-key.json", "resutls"},
      {"unknown-result-key.json", "results[0].efficency"},
      {"missing-median.json", "results[0].stats.median"},
      {"median-as-string.json", "results[0].stats.median"},
      {"nullable-key-omitted.json", "devices[0].cuda_index"},
      {"bad-result-status.json", "results[2].status"},
      {"bad-check-status.json", "host.checks[0].status"},
      {"counter-as-free-text.json", R"(devices[1].counters_after["retired_pages.pending"])"},
      {"counter-as-fraction.json", R"(devices[0].counters_delta["pcie.replay"])"},
      {"failed-without-reason.json", "results[1].reason"},
      {"bad-cache-state.json", "results[0].cache_state"},
      {"negative-pci-device-id.json", "devices[0].pci_device_id"},
      {"index-as-string.json", "devices[0].index"},
      {"negative-sample-count.json", "results[0].stats.n"},
  };
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(fixtures / "invalid")) {
    files += entry.path().extension() == ".json" ? 1U : 0U;
  }
  EXPECT_EQ(files, expected.size()) << "a file in fixtures/reports/invalid is not listed here";
  for (const auto& [name, field] : expected) {
    SCOPED_TRACE(name);
    const auto loaded = load_report(fixtures / "invalid" / name);
    ASSERT_FALSE(loaded);
    EXPECT_EQ(loaded.error().field, field) << loaded.error().to_string();
  }
}

/// Writes reports with save_report and loads them back. For the reports.schema_written test,
/// which validates them against the schema with scripts/validate-report.py, CTest runs this test
/// with GPUSPEC_WRITTEN_REPORTS_DIR set to the folder to leave them in; otherwise (as one of the
/// discovered tests, which may run in parallel with that one) it writes to a temporary folder
/// and removes it.
TEST(WrittenReports, SaveForSchemaValidation) {
  const char* keep = std::getenv("GPUSPEC_WRITTEN_REPORTS_DIR");
  const fs::path dir =
      keep != nullptr && *keep != '\0'
          ? fs::path(keep)
          : fs::temp_directory_path() / ("gpuspec-written-reports-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::vector<std::pair<std::string, report>> reports{
      {"no-gpu.json", no_gpu_report()},
      {"synthetic-two-gpus.json", synthetic_report()},
      {"synthetic-interrupted.json", interrupted_report()},
      {"synthetic-burnin.json", burnin_report()},
      {"synthetic-multi-node.json", multi_node_report()},
      {"synthetic-mig.json", mig_report()}};
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    reports.emplace_back("random-" + std::to_string(seed) + ".json", random_report(seed));
  }
  for (const auto& [name, r] : reports) {
    save_report(dir / name, r);
    const auto loaded = load_report(dir / name);
    ASSERT_TRUE(loaded) << loaded.error().to_string();
    EXPECT_EQ(loaded.value(), r) << name;
  }
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 46);
  if (keep == nullptr || *keep == '\0') {
    fs::remove_all(dir);
  }
}

} // namespace
} // namespace gpuspec::reports
