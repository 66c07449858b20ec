// The NCCL_DEBUG* rules: ours where the user set nothing, theirs kept and read otherwise.

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include <gtest/gtest.h>

#include "gpuspec/collectives/nccl_debug_setup.hpp"
#include "gpuspec/collectives/nccl_log_session.hpp"

namespace gpuspec::collectives {
namespace {

environment_lookup env(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](std::string_view name) -> std::optional<std::string> {
    const auto it = vars.find(std::string(name));
    if (it == vars.end())
      return std::nullopt;
    return it->second;
  };
}

TEST(NcclDebugSetup, NothingSetGivesInfoOurSubsystemsWithoutTuningAndOurFile) {
  // TUNING is a line written inside every call: never on for the timed calls.
  const auto s = plan_nccl_debug(env({}), "/tmp/w/nccl.log", "h", 42);
  using kv = std::pair<std::string, std::string>;
  EXPECT_EQ(s.to_set, (std::vector<kv>{{"NCCL_DEBUG", "INFO"},
                                       {"NCCL_DEBUG_SUBSYS", "INIT,GRAPH"},
                                       {"NCCL_DEBUG_FILE", "/tmp/w/nccl.log"}}));
  EXPECT_EQ(s.log_path, "/tmp/w/nccl.log");
  EXPECT_EQ(s.limitation, "");
  EXPECT_TRUE(s.switchable);
  EXPECT_EQ(s.probe_log_path, "/tmp/w/nccl.log.tuning");
}

TEST(NcclDebugSetup, AUsersTuningListIsKeptAndSaidToWriteInsideTimedCalls) {
  const auto s = plan_nccl_debug(env({{"NCCL_DEBUG_SUBSYS", "INIT,TUNING"}}), "/o", "h", 1);
  EXPECT_FALSE(s.switchable);
  EXPECT_NE(s.limitation.find("inside every timed call"), std::string::npos) << s.limitation;
}

TEST(NcclDebugSetup, AUsersFileIsNeverSwitched) {
  const auto s = plan_nccl_debug(env({{"NCCL_DEBUG_FILE", "/logs/n.log"}}), "/o", "h", 1);
  EXPECT_FALSE(s.switchable);
  EXPECT_NE(s.limitation.find("NCCL_DEBUG_FILE was set by the user"), std::string::npos);
}

TEST(NcclDebugSetup, TheUsersFileIsKeptAndItsPatternFilledIn) {
  const auto s =
      plan_nccl_debug(env({{"NCCL_DEBUG_FILE", "/logs/nccl.%h.%p"}}), "/own", "node7", 1234);
  EXPECT_EQ(s.log_path, "/logs/nccl.node7.1234");
  for (const auto& [name, value] : s.to_set)
    EXPECT_NE(name, "NCCL_DEBUG_FILE");
}

TEST(NcclDebugSetup, AUserLevelBelowInfoIsKeptAndSaidToHideTheFacts) {
  const auto s = plan_nccl_debug(env({{"NCCL_DEBUG", "WARN"}}), "/own", "h", 1);
  for (const auto& [name, value] : s.to_set)
    EXPECT_NE(name, "NCCL_DEBUG");
  EXPECT_NE(s.limitation.find("NCCL_DEBUG=WARN"), std::string::npos);
  EXPECT_EQ(s.log_path, "/own"); // still our file: NCCL must not print on the worker's stdout
}

TEST(NcclDebugSetup, AUserInfoLevelIsEnough) {
  const auto s = plan_nccl_debug(env({{"NCCL_DEBUG", "info"}}), "/own", "h", 1);
  EXPECT_EQ(s.limitation, "");
  EXPECT_TRUE(s.switchable);
}

TEST(NcclDebugSetup, UserSubsystemsAreReadTheWayNcclReadsThem) {
  // A list with TUNING prints every fact (and writes inside every call: said so).
  for (const char* all : {"ALL", "init,tuning"}) {
    const auto s = plan_nccl_debug(env({{"NCCL_DEBUG_SUBSYS", all}}), "/o", "h", 1);
    EXPECT_EQ(s.limitation.find("leaves out"), std::string::npos) << all;
    EXPECT_NE(s.limitation.find("has TUNING"), std::string::npos) << all;
  }
  const auto no_tuning = plan_nccl_debug(env({{"NCCL_DEBUG_SUBSYS", "INIT,NET"}}), "/o", "h", 1);
  EXPECT_NE(no_tuning.limitation.find("TUNING"), std::string::npos);
  EXPECT_EQ(no_tuning.limitation.find("INIT:"), std::string::npos);
  // The channel lines are INIT and P2P (NCCL prints a line if any of its subsystems is on).
  const auto inverted = plan_nccl_debug(env({{"NCCL_DEBUG_SUBSYS", "^INIT,P2P"}}), "/o", "h", 1);
  EXPECT_NE(inverted.limitation.find("leaves out INIT"), std::string::npos);
  EXPECT_EQ(inverted.limitation.find("leaves out TUNING"), std::string::npos);
  EXPECT_NE(inverted.limitation.find("has TUNING"), std::string::npos);
}

// --- the session: the tuning log switched for one untimed call --------------------------------

struct recorded {
  std::map<std::string, std::string> vars;
  int resets = 0;
};

nccl_log_session session_over(const nccl_debug_setup& setup, recorded& r, bool can_reset) {
  nccl_log_session::reset_log reset;
  if (can_reset)
    reset = [&r] { ++r.resets; };
  return nccl_log_session(
      setup, [&r](const std::string& n, const std::string& v) { r.vars[n] = v; }, std::move(reset));
}

TEST(NcclLogSession, WithoutNcclsResetNothingIsSwitchedAndTheReasonSaysWhy) {
  recorded r;
  auto s = session_over(plan_nccl_debug(env({}), "/o", "h", 1), r, false);
  EXPECT_FALSE(s.probes());
  EXPECT_NE(s.why_no_probe().find("ncclResetDebugInit"), std::string::npos);
  s.tuning(true);
  s.tuning(false);
  EXPECT_TRUE(r.vars.empty());
}

TEST(NcclLogSession, AUsersLogIsNeverSwitched) {
  recorded r;
  auto s = session_over(plan_nccl_debug(env({{"NCCL_DEBUG_FILE", "/u"}}), "/o", "h", 1), r, true);
  EXPECT_FALSE(s.probes());
  EXPECT_NE(s.why_no_probe().find("the user's"), std::string::npos);
  s.tuning(true);
  EXPECT_TRUE(r.vars.empty());
  EXPECT_EQ(r.resets, 0);
}

TEST(NcclLogSession, TheUntimedCallsLogIsReadAndTheTimedLogRestored) {
  const auto dir = std::filesystem::temp_directory_path() / "gpuspec-log-session-test";
  std::filesystem::create_directories(dir);
  const std::string main_log = (dir / "nccl.log").string();
  recorded r;
  auto s = session_over(plan_nccl_debug(env({}), main_log, "h", 1), r, true);
  ASSERT_TRUE(s.probes());
  EXPECT_EQ(s.why_no_probe(), "");
  std::ofstream(main_log) << "h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM\n";
  s.tuning(true);
  EXPECT_EQ(r.vars["NCCL_DEBUG_SUBSYS"], "INIT,GRAPH,TUNING");
  EXPECT_EQ(r.vars["NCCL_DEBUG_FILE"], main_log + ".tuning");
  EXPECT_EQ(r.resets, 1);
  // What NCCL writes for the untimed call, into the probe log.
  std::ofstream(main_log + ".tuning")
      << "h:1:1 [0] NCCL INFO AllReduce: 1024 Bytes -> Algo NVLS proto SIMPLE "
         "channel{Lo..Hi}={0..15}\n";
  s.tuning(false);
  EXPECT_EQ(r.vars["NCCL_DEBUG_SUBSYS"], "INIT,GRAPH");
  EXPECT_EQ(r.vars["NCCL_DEBUG_FILE"], main_log);
  EXPECT_EQ(r.resets, 2);
  EXPECT_EQ(std::filesystem::file_size(main_log), 0u); // read, then emptied, as NCCL reopens it
  const auto choices = s.read_new();
  ASSERT_EQ(choices.size(), 1u);
  EXPECT_EQ(choices[0].algorithm, "NVLS");
  EXPECT_EQ(choices[0].bytes, 1024u);
  EXPECT_EQ(s.facts().connections.size(), 1u);
  EXPECT_TRUE(s.read_new().empty()); // each choice once
  // NCCL's next lines go to the main log from its start.
  std::ofstream(main_log) << "h:1:1 [0] NCCL INFO Channel 01/0 : 1[1] -> 0[0] via P2P/CUMEM\n";
  (void)s.read_new();
  EXPECT_EQ(s.facts().connections.size(), 2u);
  std::filesystem::remove_all(dir);
}

} // namespace
} // namespace gpuspec::collectives
