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

spine::worker_job job_on(int device) {
  spine::worker_job j;
  j.device = device;
  return j;
}

void play(progress_display& p) {
  p.on_plan(two_gpus());
  p.on_worker_started(job_on(0), 100);
  p.on_worker_started(job_on(3), 101);
  const spine::planned_case c{"memory.stream.triad", {{"dtype", "fp32"}}, 60};
  p.on_case_started(job_on(0), 0, c);
  p.on_progress(job_on(0), 0, 7);
  p.on_result(ok_result(0));
  p.on_case_started(job_on(3), 0, c);
  p.on_worker_lost(job_on(3), "GPU 3: no answer for 61 s in memory.stream.triad dtype=fp32",
                   "XID 79\n");
  p.on_worker_finished(job_on(0));
  p.close();
}

/// A MIG device of GPU `device` as the inventory lists it (tests/fixtures/nvml/a100-mig-7x1g:
/// 1g.10gb, GPU instances from 7 on).
gpuspec::reports::mig_instance instance(int device, int mig_index) {
  gpuspec::reports::mig_instance m;
  m.mig_index = mig_index;
  m.uuid = "MIG-" + std::to_string(device) + "-" + std::to_string(mig_index);
  m.profile = "1g.10gb";
  m.gpu_instance_id = 7 + mig_index;
  return m;
}

/// GPUs `partitioned` as `per_gpu` MIG devices each, then GPUs `whole`, as run plans them.
spine::session_plan mig_plan(const std::vector<int>& partitioned, int per_gpu,
                             const std::vector<int>& whole) {
  spine::session_plan p = two_gpus();
  p.devices.clear();
  for (int d : partitioned) {
    p.devices.push_back(d);
    for (int i = 0; i < per_gpu; ++i)
      p.units.push_back({d, instance(d, i)});
  }
  for (int d : whole) {
    p.devices.push_back(d);
    p.units.push_back({d, std::nullopt});
  }
  p.concurrency = static_cast<int>(p.units.size());
  return p;
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

TEST(ProgressDisplay, CountsMigInstancesOnTheirGpus) {
  const auto first_line = [](const spine::session_plan& plan) {
    std::FILE* f = std::tmpfile();
    progress_display p(f, false, "r.json");
    p.on_plan(plan);
    const std::string out = shown(f);
    std::fclose(f);
    return out.substr(0, out.find('\n'));
  };
  EXPECT_NE(first_line(mig_plan({0}, 7, {})).find("run: 7 MIG instances on 1 GPU at once, 2 case"),
            std::string::npos)
      << first_line(mig_plan({0}, 7, {}));
  const std::string mixed = first_line(mig_plan({0, 1, 2, 3}, 2, {4, 5, 6, 7}));
  EXPECT_NE(mixed.find("run: 4 whole GPUs and 8 MIG instances on 4 GPUs at once"),
            std::string::npos)
      << mixed;
  // Two workers at a time of the seven: not "at once", though there is one GPU.
  auto waves = mig_plan({0}, 7, {});
  waves.concurrency = 2;
  EXPECT_NE(first_line(waves).find("7 MIG instances on 1 GPU 2 at a time"), std::string::npos)
      << first_line(waves);
}

TEST(ProgressDisplay, OneLinePerMigDevice) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  progress_display p(f, true, "r.json");
  p.on_plan(mig_plan({0}, 2, {4}));
  spine::worker_job mig3 = job_on(0);
  mig3.mig = gpuspec::reports::ref_of(instance(0, 1));
  p.on_worker_started(mig3, 100);
  spine::journal_entry e = ok_result(0);
  e.result.mig = mig3.mig;
  p.on_result(e);
  p.on_worker_finished(mig3);
  p.close();
  const std::string out = shown(f);
  std::fclose(f);
  EXPECT_NE(out.find("\x1b[3F"), std::string::npos) << "back up over three lines";
  EXPECT_NE(out.find("gpu 0:mig0    0/2   waiting  [0 ok]"), std::string::npos) << out;
  EXPECT_NE(out.find("gpu 0:mig1    1/2   done  [1 ok]"), std::string::npos) << out;
  EXPECT_NE(out.find("gpu      4    0/2   waiting  [0 ok]"), std::string::npos) << out;
}

} // namespace
} // namespace gpuspec::cli
