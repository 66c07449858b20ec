// What `gpuspec run` shows while it measures: the plan first, then plain lines per case start
// and result when stderr is not a terminal, or one line per GPU redrawn in place when it is.

#include <cstdio>
#include <regex>
#include <string>

#include <gtest/gtest.h>

#include "gpuspec/cli/progress_display.hpp"

namespace gpuspec::cli {
namespace {

std::string shown(std::FILE* f) {
  std::fflush(f);
  std::rewind(f);
  std::string out;
  char buffer[4096];
  std::size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof(buffer), f)) > 0)
    out.append(buffer, n);
  return out;
}

spine::session_plan two_gpus() {
  spine::session_plan p;
  p.backend = "cuda";
  p.devices = {0, 3};
  p.cases_per_gpu = 2;
  p.concurrency = 2;
  p.expected_s = 4;
  p.deadline_s = 7200;
  return p;
}

spine::journal_entry ok_result(int device) {
  spine::journal_entry e;
  e.device = device;
  e.result.status = reports::result_status::ok;
  e.result.unit = reports::metric_unit::gigabytes_per_second;
  e.result.stats.median = 4321.5;
  e.result.stats.n = 12;
  return e;
}

void play(progress_display& p) {
  p.on_plan(two_gpus());
  p.on_worker_started(0, 100);
  p.on_worker_started(3, 101);
  const spine::planned_case c{"memory.stream.triad", {{"dtype", "fp32"}}, 60};
  p.on_case_started(0, 0, c);
  p.on_progress(0, 0, 7);
  p.on_result(ok_result(0));
  p.on_case_started(3, 0, c);
  p.on_worker_lost(3, "GPU 3: no answer for 61 s in memory.stream.triad dtype=fp32", "XID 79\n");
  p.on_worker_finished(0);
  p.close();
}

TEST(ProgressDisplay, PlainLinesWhenNotATerminal) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  progress_display p(f, false, "r.json");
  play(p);
  const std::string out = shown(f);
  std::fclose(f);
  EXPECT_NE(out.find("2 GPU(s) at once, 2 case(s) each (cuda backend); expected about 4 s, at "
                     "most 2.0 h"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("[gpu 0] 1/2 memory.stream.triad dtype=fp32 ..."), std::string::npos) << out;
  EXPECT_NE(out.find("[gpu 0]     4321.5 GB/s (median of 12"), std::string::npos) << out;
  // Each case's wall time, for sizing the next run (a log, not a terminal).
  EXPECT_TRUE(std::regex_search(
      out, std::regex(R"(\[gpu 0\]     4321\.5 GB/s .*\[wall [0-9]+\.[0-9] s\]\n)")))
      << out;
  EXPECT_NE(out.find("GPU 3: no answer for 61 s"), std::string::npos) << out;
  EXPECT_NE(out.find("    XID 79"), std::string::npos) << out;
  EXPECT_EQ(out.find('\x1b'), std::string::npos) << "no terminal control in a log file";
}

TEST(ProgressDisplay, OneLinePerGpuRedrawnInPlaceOnATerminal) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  progress_display p(f, true, "r.json");
  play(p);
  const std::string out = shown(f);
  std::fclose(f);
  EXPECT_NE(out.find("\x1b[2F"), std::string::npos) << "back up over the two GPU lines";
  // Redraws are at most every 100 ms, so the lines shown last are the final state's.
  EXPECT_NE(out.find("gpu  0    0/2   waiting  [0 ok]"), std::string::npos) << out;
  EXPECT_NE(out.find("gpu  3    0/2   LOST  [0 ok]"), std::string::npos) << out;
  EXPECT_NE(out.find("gpu  0    1/2   done  [1 ok]"), std::string::npos) << out;
  EXPECT_EQ(out.find("[gpu 0] 1/2"), std::string::npos) << "no plain lines on a terminal";
}

} // namespace
} // namespace gpuspec::cli
