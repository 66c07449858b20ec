// The coordinator-worker protocol as pure functions: every document and message round-trips,
// the strict reader rejects what a worker could babble (naming the field), the line splitter
// splits, and no truncation or corruption of a real line makes the reader throw.

#include <chrono>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "gpuspec/reports/model/statistics.hpp"
#include "gpuspec/spine/child_process.hpp"
#include "gpuspec/spine/protocol.hpp"
#include "sample_reports.hpp"

namespace spine = gpuspec::spine;
namespace r = gpuspec::reports;

namespace {

spine::worker_plan sample_plan() {
  spine::worker_plan p;
  p.backend = "cuda";
  p.startup_allowance_s = 120;
  p.cases = {{"memory.stream.triad", {{"dtype", "fp32"}}, 60.0},
             {"gemm.cublas.fp16_tc", {{"shape", "8192x8192x8192"}, {"layout", "NN"}}, 120.0},
             {"latency.launch", {}, 60.0}};
  return p;
}

spine::worker_assignment sample_assignment() {
  spine::worker_assignment a;
  a.device = r::testing::synthetic_report().devices.at(1);
  a.cases = sample_plan().cases;
  a.options.suite = "standard";
  a.options.stopping.min_samples = 7;
  a.options.stopping.max_seconds = 2.5;
  a.options.telemetry_period = std::chrono::milliseconds(10);
  a.options.stream_array_bytes = 12345678;
  a.spec_rows = {{"schema", "gpuspec.specs.v1"}, {"rows", nlohmann::ordered_json::array()}};
  a.clock_origin_ns = 987654321012345;
  a.nvml_library = "/usr/lib/libnvidia-ml.so.1";
  return a;
}

r::result sample_result() { return r::testing::synthetic_report().results.at(0); }

} // namespace

TEST(Protocol, ThePlanRoundTrips) {
  const auto plan = sample_plan();
  const auto back = spine::plan_from_text(spine::plan_to_text(plan), "plan");
  ASSERT_TRUE(back) << back.error().to_string();
  EXPECT_EQ(back.value(), plan);
}

TEST(Protocol, TheAssignmentRoundTrips) {
  const auto a = sample_assignment();
  const auto back = spine::assignment_from_text(spine::assignment_to_text(a), "stdin");
  ASSERT_TRUE(back) << back.error().to_string();
  const auto& b = back.value();
  EXPECT_EQ(b.device, a.device);
  EXPECT_EQ(b.cases, a.cases);
  EXPECT_EQ(b.options.suite, a.options.suite);
  EXPECT_EQ(b.options.stopping.min_samples, 7);
  EXPECT_EQ(b.options.stopping.max_seconds, 2.5);
  EXPECT_EQ(b.options.stopping.cv_target, a.options.stopping.cv_target);
  EXPECT_EQ(b.options.telemetry_period, std::chrono::milliseconds(10));
  EXPECT_EQ(b.options.stream_array_bytes, 12345678);
  EXPECT_EQ(b.spec_rows, a.spec_rows);
  EXPECT_EQ(b.clock_origin_ns, a.clock_origin_ns);
  EXPECT_EQ(b.nvml_library, a.nvml_library);
}

TEST(Protocol, TheMeasurementOptionsTravelAsOneObjectWithTheirDefaults) {
  // One object, "options", holds every measurement option; nothing of it at the top level.
  const auto text = spine::assignment_to_text(sample_assignment());
  const auto j = nlohmann::ordered_json::parse(text);
  ASSERT_TRUE(j.contains("options")) << text;
  EXPECT_EQ(j["options"]["suite"], "standard");
  EXPECT_EQ(j["options"]["telemetry_period_ms"], 10);
  for (const char* key : {"suite", "stopping", "telemetry_period_ms", "stream_array_bytes"})
    EXPECT_FALSE(j.contains(key)) << key;
  // Options left at their defaults read back as the one set of defaults.
  spine::worker_assignment plain = sample_assignment();
  plain.options = {};
  const auto back = spine::assignment_from_text(spine::assignment_to_text(plain), "stdin");
  ASSERT_TRUE(back) << back.error().to_string();
  const gpuspec::host::measurement_options defaults;
  EXPECT_EQ(back.value().options.suite, defaults.suite);
  EXPECT_EQ(back.value().options.telemetry_period, defaults.telemetry_period);
  EXPECT_EQ(back.value().options.stream_array_bytes, defaults.stream_array_bytes);
  EXPECT_EQ(back.value().options.stopping.max_seconds, defaults.stopping.max_seconds);
  // A bad option is named by its path inside the object.
  std::string bad = spine::assignment_to_text(sample_assignment());
  const std::string from = "\"min_samples\":7";
  bad.replace(bad.find(from), from.size(), "\"min_samples\":\"7\"");
  const auto rejected = spine::assignment_from_text(bad, "stdin");
  ASSERT_FALSE(rejected);
  EXPECT_EQ(rejected.error().field, "options.stopping.min_samples") << rejected.error().to_string();
}

TEST(Protocol, ANodeWideAssignmentCarriesEveryGpuAndItsCasesSayNodeWide) {
  auto a = sample_assignment();
  const auto devices = r::testing::synthetic_report().devices;
  a.devices = devices;
  a.device = devices.front();
  for (auto& c : a.cases)
    c.node_wide = true;
  const auto back = spine::assignment_from_text(spine::assignment_to_text(a), "stdin");
  ASSERT_TRUE(back) << back.error().to_string();
  EXPECT_EQ(back.value().devices, devices);
  EXPECT_EQ(back.value().device, devices.front());
  EXPECT_TRUE(back.value().cases.front().node_wide);
  // A one-GPU assignment written without `devices` reads back with its one GPU there.
  const auto one = spine::assignment_from_text(spine::assignment_to_text(sample_assignment()), "s");
  ASSERT_TRUE(one);
  EXPECT_EQ(one.value().devices, std::vector<r::device_info>{sample_assignment().device});
}

TEST(Protocol, APlannedCaseWithoutAProperNodeWideFlagIsRejectedNamingIt) {
  auto text = spine::plan_to_text(sample_plan());
  const auto at = text.find("\"node_wide\":false");
  ASSERT_NE(at, std::string::npos) << text;
  text.replace(at, std::string("\"node_wide\":false").size(), "\"node_wide\":0");
  const auto back = spine::plan_from_text(text, "plan");
  ASSERT_FALSE(back);
  EXPECT_EQ(back.error().field, "cases[0].node_wide") << back.error().to_string();
}

TEST(Protocol, TheBurnInsDurationAndItsCasesTravelAsOptionalKeys) {
  // Absent unless a burn-in: the plan and the assignment of other suites are unchanged.
  auto a = sample_assignment();
  const std::string plain = spine::assignment_to_text(a);
  EXPECT_EQ(plain.find("duration_s"), std::string::npos);
  EXPECT_EQ(plain.find("runs_for_duration"), std::string::npos);
  EXPECT_FALSE(spine::assignment_from_text(plain, "stdin").value().options.duration_s);
  a.options.duration_s = 1800;
  a.cases.front().runs_for_duration = true;
  const auto back = spine::assignment_from_text(spine::assignment_to_text(a), "stdin");
  ASSERT_TRUE(back) << back.error().to_string();
  EXPECT_EQ(back.value().options.duration_s, 1800.0);
  EXPECT_EQ(back.value().cases, a.cases);
  // Strict when present.
  for (const auto& [from, to, field] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"\"duration_s\":1800.0", "\"duration_s\":0", "options.duration_s"},
           {"\"duration_s\":1800.0", "\"duration_s\":\"30m\"", "options.duration_s"},
           {"\"runs_for_duration\":true", "\"runs_for_duration\":1", "runs_for_duration"}}) {
    std::string text = spine::assignment_to_text(a);
    const auto at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
    const auto bad = spine::assignment_from_text(text, "stdin");
    ASSERT_FALSE(bad) << to;
    EXPECT_NE(bad.error().to_string().find(field), std::string::npos) << bad.error().to_string();
  }
}

TEST(Protocol, EveryMessageRoundTripsOnOneLine) {
  std::vector<spine::worker_message> messages(5);
  messages[0].kind = spine::message_kind::hello;
  messages[0].backend = "stand-in";
  messages[0].pid = 4242;
  messages[0].device = 7;
  messages[1].kind = spine::message_kind::start;
  messages[1].case_index = 3;
  messages[2].kind = spine::message_kind::progress;
  messages[2].case_index = 3;
  messages[2].runs = 12;
  messages[2].longest_run_s = 0.25;
  messages[3].kind = spine::message_kind::result;
  messages[3].case_index = 3;
  messages[3].result = sample_result();
  messages[4].kind = spine::message_kind::done;
  for (const auto& m : messages) {
    const std::string line = spine::message_line(m);
    ASSERT_EQ(line.back(), '\n');
    EXPECT_EQ(line.find('\n'), line.size() - 1) << "one line per message";
    const auto back = spine::message_from_line(line.substr(0, line.size() - 1), "line 1");
    ASSERT_TRUE(back) << back.error().to_string();
    EXPECT_EQ(back.value().kind, m.kind);
    EXPECT_EQ(back.value().case_index, m.case_index);
    EXPECT_EQ(back.value().backend, m.backend);
    EXPECT_EQ(back.value().pid, m.pid);
    EXPECT_EQ(back.value().device, m.device);
    EXPECT_EQ(back.value().runs, m.runs);
    EXPECT_EQ(back.value().longest_run_s, m.longest_run_s);
    EXPECT_EQ(back.value().result, m.result);
  }
}

TEST(Protocol, WhatAWorkerCouldBabbleIsRejectedNamingTheField) {
  struct bad {
    std::string line, field, words;
  };
  const std::vector<bad> cases{
      {"this is not a message", "", "not valid JSON"},
      {"[1, 2]", "msg", "expected an object"},
      {R"({"msg": "hi"})", "msg", "\"hi\" is not a message"},
      {R"({"msg": "start"})", "case", "missing"},
      {R"({"msg": "start", "case": -1})", "case", "from 0"},
      {R"({"msg": "start", "case": 1.5})", "case", "integer"},
      {R"({"msg": "start", "case": 1, "extra": true})", "extra", "unknown field"},
      {R"({"msg": "done", "case": 1})", "case", "unknown field"},
      {R"({"msg": "hello", "protocol": "gpuspec.worker.v0", "backend": "cuda", "pid": 1, "device": 0})",
       "protocol", "gpuspec.worker.v1"},
      {R"({"msg": "progress", "case": 0, "runs": 1, "longest_run_s": -1})", "longest_run_s",
       "0 or more"},
      {R"({"msg": "result", "case": 0, "result": {"bench_id": 1}})", "result", ""},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.line);
    const auto parsed = spine::message_from_line(c.line, "line 9");
    ASSERT_FALSE(parsed);
    EXPECT_EQ(parsed.error().file, "line 9");
    EXPECT_EQ(parsed.error().field.rfind(c.field, 0), 0U) << parsed.error().field;
    EXPECT_NE(parsed.error().message.find(c.words), std::string::npos) << parsed.error().message;
  }
}

TEST(Protocol, ATypoOrARepeatedKeyIsNamedAsItself) {
  const std::string good = spine::assignment_to_text(sample_assignment());
  ASSERT_TRUE(spine::assignment_from_text(good, "stdin"));
  std::string typo = good;
  const std::string from = "\"stall_window\":";
  typo.replace(typo.find(from), from.size(), "\"stall_windw\":");
  const auto misspelt = spine::assignment_from_text(typo, "stdin");
  ASSERT_FALSE(misspelt);
  EXPECT_EQ(misspelt.error().field, "options.stopping.stall_windw");
  EXPECT_NE(misspelt.error().message.find("did you mean \"stall_window\""), std::string::npos)
      << misspelt.error().message;
  const auto twice = spine::message_from_line(R"({"msg": "start", "case": 1, "case": 2})", "w");
  ASSERT_FALSE(twice);
  EXPECT_EQ(twice.error().field, "case");
  EXPECT_NE(twice.error().message.find("duplicate key"), std::string::npos);
  ASSERT_TRUE(spine::message_from_line(R"({"msg": "start", "case": 1})", "w"));
}

TEST(Protocol, APlanOrAssignmentOfAnotherShapeIsRejected) {
  EXPECT_FALSE(spine::plan_from_text("", "plan"));
  EXPECT_FALSE(spine::plan_from_text(R"({"protocol": "gpuspec.worker.v1"})", "plan"));
  auto text = spine::plan_to_text(sample_plan());
  const auto at = text.find("\"setup_allowance_s\":60.0");
  ASSERT_NE(at, std::string::npos) << text;
  text.replace(at, std::string("\"setup_allowance_s\":60.0").size(), "\"setup_allowance_s\":0");
  const auto zero = spine::plan_from_text(text, "plan");
  ASSERT_FALSE(zero);
  EXPECT_EQ(zero.error().field, "cases[0].setup_allowance_s");
  EXPECT_FALSE(spine::assignment_from_text("{}", "stdin"));
}

TEST(Protocol, NoTruncationOrCorruptionOfARealLineThrows) {
  spine::worker_message m;
  m.kind = spine::message_kind::result;
  m.case_index = 2;
  m.result = sample_result();
  const std::string line = spine::message_line(m);
  for (std::size_t n = 0; n + 1 < line.size(); ++n)
    EXPECT_FALSE(spine::message_from_line(line.substr(0, n), "cut")) << n;
  std::mt19937_64 rng(20261201);
  for (int i = 0; i < 2000; ++i) {
    std::string corrupt = line.substr(0, line.size() - 1);
    for (int k = 0; k < 3; ++k)
      corrupt[rng() % corrupt.size()] = static_cast<char>(rng() % 256);
    EXPECT_NO_THROW((void)spine::message_from_line(corrupt, "corrupt"));
  }
}

TEST(LineSplitter, SplitsAcrossFeedsAndKeepsWhatIsCutShort) {
  spine::line_splitter s(100);
  s.feed("ab");
  EXPECT_FALSE(s.next());
  s.feed("c\nde\n\nf");
  EXPECT_EQ(s.next(), "abc");
  EXPECT_EQ(s.next(), "de");
  EXPECT_EQ(s.next(), "");
  EXPECT_FALSE(s.next());
  EXPECT_EQ(s.pending(), "f");
  EXPECT_FALSE(s.overflowed());
}

TEST(LineSplitter, ALineLongerThanTheLimitIsAnOverflow) {
  spine::line_splitter s(8);
  s.feed("12345678\n");
  EXPECT_EQ(s.next(), "12345678");
  s.feed("123456789");
  EXPECT_TRUE(s.overflowed());
}

TEST(ExitStatus, SaysHowAProcessEnded) {
  EXPECT_EQ((spine::exit_status{false, 1, 0}.describe()), "exited with status 1");
  EXPECT_EQ((spine::exit_status{true, 0, 11}.describe()), "died on signal 11 (SIGSEGV)");
  EXPECT_TRUE((spine::exit_status{false, 0, 0}.clean()));
  EXPECT_FALSE((spine::exit_status{true, 0, 9}.clean()));
  EXPECT_EQ(spine::signal_name(99), "signal 99");
}
