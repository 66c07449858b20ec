// The NCCL_DEBUG* rules: ours where the user set nothing, theirs kept and read otherwise.

#include <map>
#include <string>

#include <gtest/gtest.h>

#include "gpuspec/collectives/nccl_debug_setup.hpp"

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
  EXPECT_EQ(inverted.limitation.find("TUNING"), std::string::npos);
}

} // namespace
} // namespace gpuspec::collectives
