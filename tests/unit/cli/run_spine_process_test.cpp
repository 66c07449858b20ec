// `gpuspec run` end to end over the spine, as an operator runs it on an 8-GPU node, with the fake
// NVML's GPUs and the stand-in worker (tests/fakes) in place of the measuring one: one GPU's
// worker hangs and one crashes, and the other six GPUs' results are whole; a lost worker is
// followed by a fresh one for its GPU's remaining cases, and a second loss ends the GPU; the
// coordinator is SIGKILLed mid-run and a valid report is recovered from its journal; a stand-in run
// is never passed. Each test takes seconds.

#include <dirent.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gpuspec/reports/model/report_json.hpp"
#include "gpuspec/spine/protocol.hpp"
#include "run_process.hpp"

namespace fs = std::filesystem;
namespace r = gpuspec::reports;

namespace {

class RunSpine : public gpuspec::testing::scratch_dir_test {
protected:
  /// `gpuspec ARGS` over the fake NVML `config` and the stand-in following `script`.
  gpuspec::testing::process_result run(const std::string& args, const std::string& config,
                                       const std::string& script) {
    return gpuspec::testing::run_in(m_dir, env(config, script) + " '" GPUSPEC_BINARY "' " + args);
  }
  static std::string env(const std::string& config, const std::string& script) {
    std::ostringstream s;
    s << "env GPUSPEC_NVML_LIBRARY='" << GPUSPEC_FAKE_NVML_PATH << "' GPUSPEC_FAKE_NVML_CONFIG='"
      << GPUSPEC_FAKE_NVML_CONFIGS << "/" << config << "' GPUSPEC_WORKER='"
      << GPUSPEC_STAND_IN_WORKER << "' GPUSPEC_STAND_IN_SCRIPT='" << GPUSPEC_STAND_IN_SCRIPTS << "/"
      << script << "'";
    return s.str();
  }

  r::report load(const fs::path& file) {
    auto loaded = r::load_report(file);
    EXPECT_TRUE(loaded.has_value()) << (loaded ? "" : loaded.error().to_string());
    return loaded ? loaded.value() : r::report{};
  }

  /// Processes whose environment names `script`: the stand-in workers of this test.
  static int workers_alive(const std::string& script) {
    std::ostringstream marker;
    marker << "GPUSPEC_STAND_IN_SCRIPT=" << GPUSPEC_STAND_IN_SCRIPTS << "/" << script;
    int count = 0;
    for (const auto& entry : fs::directory_iterator("/proc")) {
      const std::string name = entry.path().filename().string();
      if (name.find_first_not_of("0123456789") != std::string::npos)
        continue;
      std::ifstream in(entry.path() / "environ", std::ios::binary);
      std::stringstream s;
      s << in.rdbuf();
      if (s.str().find(marker.str()) != std::string::npos &&
          s.str().find("GPUSPEC_WORKER=") != std::string::npos) {
        std::ifstream cmd(entry.path() / "cmdline");
        std::string argv0;
        std::getline(cmd, argv0, '\0');
        if (argv0.find("gpuspec_stand_in_worker") != std::string::npos)
          ++count;
      }
    }
    return count;
  }
};

} // namespace

TEST_F(RunSpine, EightGpusOneHangsOneCrashesTheOtherSixAreWhole) {
  const auto begin = std::chrono::steady_clock::now();
  const auto p = run("run -o report.json --max-time 0.2 --kill-grace 0.3", "eight-healthy.json",
                     "eight-two-lost.json");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  EXPECT_EQ(p.exit_code, 2) << p.err; // the check fails the node
  EXPECT_LT(seconds, 15.0);
  const r::report rep = load(m_dir / "report.json");
  EXPECT_EQ(rep.run.backend, "stand-in");
  EXPECT_EQ(rep.run.concurrency, 8);
  EXPECT_EQ(rep.run.devices, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_TRUE(rep.complete) << rep.incomplete_reason;
  ASSERT_EQ(rep.results.size(), 40U);
  std::map<int, std::vector<const r::result*>> by_gpu;
  for (const auto& res : rep.results)
    by_gpu[res.devices.at(0)].push_back(&res);
  for (int gpu : {0, 1, 2, 4, 6, 7}) {
    ASSERT_EQ(by_gpu[gpu].size(), 5U) << gpu;
    for (const auto* res : by_gpu[gpu])
      EXPECT_EQ(res->status, r::result_status::ok) << "GPU " << gpu << ": " << res->reason;
  }
  // GPU 3 hung in its third case: two results, then the watchdog's, then a fresh worker's two.
  ASSERT_EQ(by_gpu[3].size(), 5U);
  EXPECT_EQ(by_gpu[3][1]->status, r::result_status::ok);
  EXPECT_EQ(by_gpu[3][2]->failure, r::failure_kind::worker_timeout);
  EXPECT_EQ(by_gpu[3][2]->reason.rfind("GPU 3: no answer for ", 0), 0U) << by_gpu[3][2]->reason;
  EXPECT_NE(by_gpu[3][2]->reason.find("in stand_in.scale dtype=fp32"), std::string::npos);
  EXPECT_NE(by_gpu[3][2]->reason.find("worker killed"), std::string::npos);
  EXPECT_EQ(by_gpu[3][3]->status, r::result_status::ok) << by_gpu[3][3]->reason;
  EXPECT_EQ(by_gpu[3][4]->status, r::result_status::ok) << by_gpu[3][4]->reason;
  // GPU 5 died on SIGSEGV in its second case; a fresh worker measured the other three.
  ASSERT_EQ(by_gpu[5].size(), 5U);
  EXPECT_EQ(by_gpu[5][0]->status, r::result_status::ok);
  EXPECT_EQ(by_gpu[5][1]->failure, r::failure_kind::worker_signal);
  EXPECT_NE(by_gpu[5][1]->reason.find("SIGSEGV"), std::string::npos) << by_gpu[5][1]->reason;
  for (int i : {2, 3, 4})
    EXPECT_EQ(by_gpu[5][i]->status, r::result_status::ok) << i << ": " << by_gpu[5][i]->reason;
  // Told on stderr as it happened; the journal is gone once the report is written.
  EXPECT_NE(p.err.find("GPU 3: no answer"), std::string::npos) << p.err;
  EXPECT_NE(p.err.find("GPU 5: the worker died on signal 11"), std::string::npos) << p.err;
  EXPECT_FALSE(fs::exists(m_dir / "report.json.journal"));
  // The check of the written report agrees.
  const auto check = gpuspec::testing::run_in(
      m_dir, "'" GPUSPEC_BINARY "' check report.json --format json > check.json");
  EXPECT_EQ(check.exit_code, 2) << check.err;
}

TEST_F(RunSpine, ALostWorkerIsFollowedByOneFreshWorkerAndASecondLossEndsTheGpu) {
  const auto p = run("run -o report.json --max-time 0.2 --kill-grace 0.3", "eight-healthy.json",
                     "four-cases-lost-workers.json");
  EXPECT_EQ(p.exit_code, 2) << p.err;
  const r::report rep = load(m_dir / "report.json");
  EXPECT_TRUE(rep.complete) << rep.incomplete_reason;
  std::map<int, std::vector<const r::result*>> by_gpu;
  for (const auto& res : rep.results)
    by_gpu[res.devices.at(0)].push_back(&res);
  const auto statuses = [&](int gpu) {
    std::string out;
    for (const auto* res : by_gpu[gpu])
      out += res->status == r::result_status::ok ? "o" : "F";
    return out;
  };
  // GPU 0: SIGSEGV in case 2 of 4; cases 3 and 4 measured by a second worker.
  EXPECT_EQ(statuses(0), "oFoo");
  EXPECT_EQ(by_gpu[0][1]->failure, r::failure_kind::worker_signal);
  EXPECT_NE(p.err.find("GPU 0: the worker died on signal 11 (SIGSEGV) in stand_in.copy size=2 "
                       "MiB"),
            std::string::npos)
      << p.err;
  EXPECT_NE(p.err.find("a fresh worker measures its 2 remaining cases"), std::string::npos)
      << p.err;
  // GPU 1: the second worker dies too (case 3): that ends the GPU; case 4 is not run.
  EXPECT_EQ(statuses(1), "oFFF");
  EXPECT_EQ(by_gpu[1][2]->failure, r::failure_kind::worker_signal);
  EXPECT_NE(by_gpu[1][3]->reason.find("not run"), std::string::npos) << by_gpu[1][3]->reason;
  EXPECT_NE(by_gpu[1][3]->reason.find("its 2 workers were lost, which ends the GPU"),
            std::string::npos)
      << by_gpu[1][3]->reason;
  // GPU 2: a sticky CUDA error in case 2: named in its result; a fresh worker measures the rest.
  EXPECT_EQ(statuses(2), "oFoo");
  EXPECT_NE(by_gpu[2][1]->reason.find("cudaErrorIllegalAddress"), std::string::npos)
      << by_gpu[2][1]->reason;
  for (int gpu = 3; gpu < 8; ++gpu)
    EXPECT_EQ(statuses(gpu), "oooo") << gpu;
}

TEST_F(RunSpine, NoFreshWorkerForAGpuNvmlSaysIsLost) {
  // mixed-lost.json: GPU 1 answers GPU_IS_LOST to every NVML query.
  const auto p = run("run -o report.json --max-time 0.2 --kill-grace 0.3 --devices 1",
                     "mixed-lost.json", "four-cases-lost-workers.json");
  const r::report rep = load(m_dir / "report.json");
  ASSERT_EQ(rep.results.size(), 4U) << p.err;
  EXPECT_EQ(rep.results[1].failure, r::failure_kind::worker_signal) << rep.results[1].reason;
  for (int i : {2, 3})
    EXPECT_NE(rep.results[i].reason.find("NVML says GPU 1 is lost: no fresh worker"),
              std::string::npos)
        << rep.results[i].reason;
}

TEST_F(RunSpine, AStandInRunIsNeverPassed) {
  const auto p = run("run -o report.json --max-time 0.5", "two-healthy.json", "two-healthy.json");
  EXPECT_NE(p.exit_code, 0) << p.out;
  const r::report rep = load(m_dir / "report.json");
  EXPECT_EQ(rep.run.backend, "stand-in");
  ASSERT_EQ(rep.results.size(), 6U);
  for (const auto& res : rep.results) {
    EXPECT_EQ(res.status, r::result_status::ok);
    EXPECT_NE(res.check.detail.find("stand-in"), std::string::npos);
  }
  const auto check = gpuspec::testing::run_in(m_dir, "'" GPUSPEC_BINARY "' check report.json");
  EXPECT_NE(check.exit_code, 0) << check.out;
}

TEST_F(RunSpine, AnXidInTheKernelLogDuringTheRunIsAnEventOfItsGpuAndFailsIt) {
  // A saved log whose Xid 79 on GPU 1 (PCI 0000:2a:00 in two-healthy.json) is timed just after
  // now on CLOCK_MONOTONIC (the log's clock), so after the run's start; and one Xid long before.
  const double now_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  {
    std::ofstream log(m_dir / "kernel.log");
    log << fmt::format("[{:12.6f}] NVRM: Xid (PCI:0000:2a:00): 79, pid=1, GPU has fallen off the "
                       "bus.\n",
                       now_s - 100)
        << fmt::format("[{:12.6f}] NVRM: Xid (PCI:0000:2a:00): 79, pid='<unknown>', GPU has "
                       "fallen off the bus.\n",
                       now_s + 0.5);
  }
  const auto p = gpuspec::testing::run_in(
      m_dir, env("two-healthy.json", "two-healthy.json") + " GPUSPEC_KERNEL_LOG='" +
                 (m_dir / "kernel.log").string() +
                 "' '" GPUSPEC_BINARY "' run -o report.json --max-time 0.5");
  const r::report rep = load(m_dir / "report.json");
  std::size_t events = 0;
  for (const auto& res : rep.results) {
    for (const auto& e : res.events) {
      ++events;
      EXPECT_EQ(res.devices, std::vector<int>{1});
      EXPECT_EQ(e.device, 1);
      EXPECT_EQ(e.xid, 79);
      EXPECT_EQ(e.source, "kernel_log");
      EXPECT_GT(e.time_s, 0);
    }
  }
  EXPECT_EQ(events, 1U) << "only the Xid after the run's start: " << p.err;
  const auto check =
      gpuspec::testing::run_in(m_dir, "'" GPUSPEC_BINARY "' check report.json --format json");
  EXPECT_EQ(check.exit_code, 2) << check.out;
  EXPECT_NE(check.out.find("GPUSPEC-XID-HARDWARE"), std::string::npos) << check.out;
}

TEST_F(RunSpine, OneAtATimeIsRecordedInTheReportAndEveryResult) {
  const auto p = run("run -o report.json --concurrency 1 --max-time 0.5", "two-healthy.json",
                     "two-healthy.json");
  const r::report rep = load(m_dir / "report.json");
  EXPECT_EQ(rep.run.concurrency, 1);
  ASSERT_EQ(rep.results.size(), 6U) << p.err;
  for (const auto& res : rep.results)
    EXPECT_EQ(res.gpus_busy, 1);
  EXPECT_NE(p.err.find("1 at a time"), std::string::npos) << p.err;
}

TEST_F(RunSpine, TheCoordinatorKilledMidRunLeavesAJournalThatRecovers) {
  // Started in the background, SIGKILLed once three results are journalled.
  const std::string script = "eight-slow.json";
  std::ostringstream command;
  command << "(" << env("eight-healthy.json", script) << " '" << GPUSPEC_BINARY
          << "' run -o report.json --max-time 0.5 >/dev/null 2>&1 & echo $! > pid); "
          << "for i in $(seq 400); do "
          << "  n=$(grep -c '\"result\"' report.json.journal 2>/dev/null || true); "
          << "  [ \"${n:-0}\" -ge 3 ] && break; sleep 0.05; done; "
          << "grep -las 'GPUSPEC_STAND_IN_SCRIPT=.*" << script
          << "' /proc/[0-9]*/environ | wc -l > alive_before; "
          << "kill -9 $(cat pid); sleep 0.5; echo killed";
  const auto killed = gpuspec::testing::run_in(m_dir, command.str());
  ASSERT_NE(killed.out.find("killed"), std::string::npos) << killed.err;
  ASSERT_TRUE(fs::exists(m_dir / "report.json.journal"));
  int before = 0;
  std::ifstream(m_dir / "alive_before") >> before;
  EXPECT_GE(before, 8) << "the coordinator and its eight workers were running";
  // The workers died with their coordinator (PR_SET_PDEATHSIG): no GPU is left loaded.
  for (int i = 0; i < 20 && workers_alive(script) > 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(workers_alive(script), 0);

  const auto p = gpuspec::testing::run_in(
      m_dir, "'" GPUSPEC_BINARY "' run --recover report.json.journal -o recovered.json");
  EXPECT_NE(p.exit_code, 0) << p.err; // a stand-in's, and incomplete: never a pass
  EXPECT_NE(p.err.find("written to recovered.json"), std::string::npos) << p.err;
  const r::report rep = load(m_dir / "recovered.json");
  EXPECT_FALSE(rep.complete);
  EXPECT_NE(rep.incomplete_reason.find("report.json.journal"), std::string::npos)
      << rep.incomplete_reason;
  EXPECT_EQ(rep.run.backend, "stand-in");
  EXPECT_EQ(rep.devices.size(), 8U);
  ASSERT_GE(rep.results.size(), 3U);
  for (const auto& res : rep.results)
    EXPECT_EQ(res.status, r::result_status::ok) << res.reason;
  // The checkpoint the coordinator wrote at its start is there too, as the run in progress.
  const r::report checkpoint = load(m_dir / "report.json");
  EXPECT_FALSE(checkpoint.complete);
}

TEST_F(RunSpine, ASpecTableThatDoesNotLoadIsBadInputBeforeAnythingRuns) {
  const auto p = run("run -o report.json --specs /nonexistent/gpus.json", "two-healthy.json",
                     "two-healthy.json");
  EXPECT_EQ(p.exit_code, 3);
  EXPECT_NE(p.err.find("/nonexistent/gpus.json"), std::string::npos) << p.err;
  EXPECT_FALSE(fs::exists(m_dir / "report.json"));
}

TEST_F(RunSpine, TheSpecTableIsLoadedOnceAtTheStartAndHandedToTheCheckAfterTheRun) {
  // The worker removes the spec table when it is asked for its plan, after the session loaded
  // it: the run still matches its GPUs, and the check after the run judges with the table the
  // run loaded (read again, it would be missing: "gpuspec run: check: ... gpus.json ...").
  fs::copy_file(GPUSPEC_SPECS_FILE, m_dir / "gpus.json");
  {
    std::ofstream script(m_dir / "worker.sh");
    script << "#!/bin/sh\nrm -f '" << (m_dir / "gpus.json").string() << "'\nexec '"
           << GPUSPEC_STAND_IN_WORKER << "' \"$@\"\n";
  }
  fs::permissions(m_dir / "worker.sh", fs::perms::owner_all);
  const auto p = gpuspec::testing::run_in(
      m_dir, env("two-healthy.json", "two-healthy.json") + " GPUSPEC_WORKER='" +
                 (m_dir / "worker.sh").string() +
                 "' '" GPUSPEC_BINARY "' run -o report.json --max-time 0.5 --specs gpus.json");
  EXPECT_FALSE(fs::exists(m_dir / "gpus.json")) << "the worker did not run";
  EXPECT_EQ(p.err.find("gpuspec run: check:"), std::string::npos) << p.err;
  const r::report rep = load(m_dir / "report.json");
  ASSERT_EQ(rep.results.size(), 6U) << p.err;
  for (const auto& d : rep.devices)
    EXPECT_FALSE(d.spec_id.empty()) << "GPU " << d.index << " matched to no row";
  // The verdict table of the check is printed after the summary: the check ran.
  EXPECT_NE(p.out.find("stand-in"), std::string::npos) << p.out;
  EXPECT_NE(p.exit_code, 0) << "a stand-in run is never passed";
}

TEST_F(RunSpine, RecoveringSomethingThatIsNotAJournalNamesIt) {
  std::ofstream(m_dir / "bogus.journal") << "{\"not\": \"a journal\"}\n";
  const auto p =
      gpuspec::testing::run_in(m_dir, "'" GPUSPEC_BINARY "' run --recover bogus.journal");
  EXPECT_EQ(p.exit_code, 3);
  EXPECT_NE(p.err.find("bogus.journal: line 1"), std::string::npos) << p.err;
}

TEST_F(RunSpine, RecoveringAReportInsteadOfItsJournalSaysItIsAReport) {
  // Issue 16: given the report, --recover said "line 1: not JSON".
  const auto ran = run("run -o report.json --max-time 0.2", "two-healthy.json", "two-healthy.json");
  ASSERT_TRUE(fs::exists(m_dir / "report.json")) << ran.err;
  ASSERT_FALSE(fs::exists(m_dir / "report.json.journal")) << "a finished run leaves no journal";
  const auto p = gpuspec::testing::run_in(m_dir, "'" GPUSPEC_BINARY "' run --recover report.json");
  EXPECT_EQ(p.exit_code, 3);
  EXPECT_NE(p.err.find("report.json: not a gpuspec journal (this is a report"), std::string::npos)
      << p.err;
  EXPECT_NE(p.err.find("report.json.journal"), std::string::npos) << p.err;
  EXPECT_EQ(p.err.find("not valid JSON"), std::string::npos) << p.err;
  EXPECT_FALSE(fs::exists(m_dir / "report.json.json")) << "nothing written";
}

TEST_F(RunSpine, TheRealWorkerPlansAndSpeaksTheProtocol) {
  // gpuspec's own worker, given one case by hand. Without a GPU its case cannot be measured:
  // the CUDA build skips it (the runtime cannot see the GPU), the host-only build fails it (no
  // measuring backend); either way the worker says so in the protocol and exits 0.
  const auto planned = gpuspec::testing::run_in(
      m_dir,
      "'" GPUSPEC_BINARY "' __worker --plan --suite quick --filter '^memory\\.stream\\.copy$'");
  ASSERT_EQ(planned.exit_code, 0) << planned.err;
  const auto plan = gpuspec::spine::plan_from_text(planned.out, "plan");
  ASSERT_TRUE(plan) << plan.error().to_string();
  EXPECT_EQ(plan.value().backend, GPUSPEC_TEST_CUDA_BUILD ? "cuda" : "none");
  gpuspec::spine::worker_assignment a;
  a.device.index = 2;
  a.device.pci_bus_id = "00000000:3B:00.0";
  a.cases = {gpuspec::spine::planned_case{"memory.stream.copy", {{"dtype", "fp32"}}, 60.0}};
  a.nvml_library = "/nonexistent/libnvidia-ml.so.1";
  std::ofstream(m_dir / "assignment.json") << gpuspec::spine::assignment_to_text(a);
  const auto worked =
      gpuspec::testing::run_in(m_dir, "'" GPUSPEC_BINARY "' __worker < assignment.json");
  EXPECT_EQ(worked.exit_code, 0) << worked.err;
  std::istringstream lines(worked.out);
  std::vector<gpuspec::spine::worker_message> messages;
  for (std::string line; std::getline(lines, line);) {
    auto m = gpuspec::spine::message_from_line(line, "worker");
    ASSERT_TRUE(m) << m.error().to_string() << ": " << line;
    messages.push_back(std::move(m).value());
  }
  ASSERT_EQ(messages.size(), 4U) << worked.out;
  EXPECT_EQ(messages[0].kind, gpuspec::spine::message_kind::hello);
  EXPECT_EQ(messages[0].device, 2);
  EXPECT_EQ(messages[1].kind, gpuspec::spine::message_kind::start);
  EXPECT_EQ(messages[2].kind, gpuspec::spine::message_kind::result);
  ASSERT_TRUE(messages[2].result.has_value());
  const r::result& res = *messages[2].result;
  EXPECT_EQ(res.bench_id, "memory.stream.copy");
  EXPECT_EQ(res.devices, std::vector<int>{2});
  if (GPUSPEC_TEST_CUDA_BUILD) {
    EXPECT_EQ(res.status, r::result_status::skipped) << res.reason;
    EXPECT_NE(res.reason.find("not visible to the CUDA runtime"), std::string::npos) << res.reason;
  } else {
    EXPECT_EQ(res.status, r::result_status::failed) << res.reason;
    EXPECT_EQ(res.failure, r::failure_kind::gpu_start);
  }
  EXPECT_EQ(messages[3].kind, gpuspec::spine::message_kind::done);
}

TEST_F(RunSpine, TheRealWorkerRejectsAMalformedAssignment) {
  std::ofstream(m_dir / "assignment.json") << "{\"protocol\": \"gpuspec.worker.v1\"}";
  const auto worked =
      gpuspec::testing::run_in(m_dir, "'" GPUSPEC_BINARY "' __worker < assignment.json");
  EXPECT_EQ(worked.exit_code, 2);
  EXPECT_NE(worked.err.find("the assignment on stdin"), std::string::npos) << worked.err;
  EXPECT_TRUE(worked.out.empty()) << worked.out;
}

TEST_F(RunSpine, AWorkerThatCannotPlanLeavesTheInventoryReportAndSaysWhy) {
  std::ostringstream command;
  command << "env GPUSPEC_NVML_LIBRARY='" << GPUSPEC_FAKE_NVML_PATH
          << "' GPUSPEC_FAKE_NVML_CONFIG='" << GPUSPEC_FAKE_NVML_CONFIGS
          << "/two-healthy.json' GPUSPEC_WORKER=/bin/false '" << GPUSPEC_BINARY
          << "' run -o report.json";
  const auto p = gpuspec::testing::run_in(m_dir, command.str());
  EXPECT_EQ(p.exit_code, 3);
  EXPECT_NE(p.err.find("the worker could not plan the run: the worker /bin/false exited with "
                       "status 1 while listing its plan"),
            std::string::npos)
      << p.err;
  const r::report rep = load(m_dir / "report.json");
  EXPECT_FALSE(rep.complete);
  EXPECT_EQ(rep.devices.size(), 2U);
  EXPECT_TRUE(rep.results.empty());
}

TEST_F(RunSpine, NodeWideCasesRunOnceOverEveryGpuAfterTheOneGpuCases) {
  const auto p =
      run("run -o report.json --max-time 0.2", "two-healthy.json", "two-with-node-wide.json");
  EXPECT_EQ(p.exit_code, 3) << p.err; // a stand-in run is never passed
  EXPECT_NE((p.out + p.err).find("2 case(s) each, then 2 node-wide case(s) over all of them"),
            std::string::npos)
      << p.err;
  const r::report rep = load(m_dir / "report.json");
  EXPECT_TRUE(rep.complete) << rep.incomplete_reason;
  ASSERT_EQ(rep.results.size(), 6U);
  // The one-GPU cases, GPU by GPU, then the node-wide ones, which cover both GPUs.
  EXPECT_EQ(rep.results[0].devices, std::vector<int>{0});
  EXPECT_EQ(rep.results[2].devices, std::vector<int>{1});
  for (std::size_t i = 4; i < 6; ++i) {
    EXPECT_EQ(rep.results[i].bench_id, "stand_in.all_reduce");
    EXPECT_EQ(rep.results[i].devices, (std::vector<int>{0, 1}));
    EXPECT_EQ(rep.results[i].gpus_busy, 2);
    EXPECT_EQ(rep.results[i].status, r::result_status::ok) << rep.results[i].reason;
  }
  EXPECT_EQ(rep.results[4].axes.at("size"), "1 MiB");
  EXPECT_EQ(rep.results[5].axes.at("size"), "64 MiB");
}

TEST_F(RunSpine, ThePeerPairsArePlannedFromTheGpusMeasuredAtAnyCount) {
  // transfer.p2p as the worker plans it from the GPUs the coordinator measures (--plan --gpus):
  // quick, a ring both ways (every GPU sends to and receives from both neighbours); standard,
  // every ordered pair. One GPU: no pair, no case. Ten GPUs: every one of them is measured.
  struct node {
    std::string config, devices;
    std::vector<int> gpus;
  };
  const std::vector<node> nodes = {{"eight-healthy.json", "--devices 3", {3}},
                                   {"two-healthy.json", "", {0, 1}},
                                   {"eight-healthy.json", "", {0, 1, 2, 3, 4, 5, 6, 7}},
                                   {"ten-pcie.json", "", {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}}};
  for (const auto& n : nodes)
    for (const std::string suite : {"quick", "standard"}) {
      SCOPED_TRACE(n.config + " " + n.devices + " " + suite);
      const auto p = run(fmt::format("run -o report-{}.json --suite {} --max-time 0.2 {}", suite,
                                     suite, n.devices),
                         n.config, "p2p-pairs.json");
      EXPECT_EQ(p.exit_code, 3) << p.err; // a stand-in run is never passed
      const r::report rep = load(m_dir / fmt::format("report-{}.json", suite));
      EXPECT_TRUE(rep.complete) << rep.incomplete_reason;
      std::set<std::pair<int, int>> pairs;
      std::map<int, int> sends, receives;
      for (const auto& res : rep.results) {
        if (res.bench_id != "transfer.p2p")
          continue;
        EXPECT_EQ(res.devices, n.gpus);
        EXPECT_EQ(res.status, r::result_status::ok) << res.reason;
        const std::string pair = res.axes.at("pair").get<std::string>();
        const auto arrow = pair.find("->");
        ASSERT_NE(arrow, std::string::npos) << pair;
        const int src = std::stoi(pair.substr(0, arrow)), dst = std::stoi(pair.substr(arrow + 2));
        EXPECT_TRUE(pairs.emplace(src, dst).second) << "measured twice: " << pair;
        ++sends[src];
        ++receives[dst];
      }
      const std::size_t count = n.gpus.size();
      if (count < 2) {
        EXPECT_TRUE(pairs.empty()) << "one GPU has no pair";
        continue;
      }
      const std::size_t expected = suite == "standard" ? count * (count - 1)
                                   : count == 2        ? 2
                                                       : 2 * count;
      EXPECT_EQ(pairs.size(), expected);
      for (const int g : n.gpus) {
        // Every GPU present sends and receives; in quick, to and from both neighbours.
        EXPECT_GE(sends[g], count == 2 ? 1 : 2) << "GPU " << g;
        EXPECT_GE(receives[g], count == 2 ? 1 : 2) << "GPU " << g;
        for (const int h : n.gpus) {
          if (g != h && suite == "standard") {
            EXPECT_TRUE(pairs.count({g, h})) << g << "->" << h;
          }
        }
      }
      if (suite == "quick" && count > 2) {
        for (std::size_t i = 0; i < count; ++i) {
          const int a = n.gpus[i], b = n.gpus[(i + 1) % count];
          EXPECT_TRUE(pairs.count({a, b}) && pairs.count({b, a})) << a << "<->" << b;
        }
      }
    }
}

TEST_F(RunSpine, TheRealWorkerPlansThePeerPairsForTheGpusItIsGiven) {
  const auto planned = gpuspec::testing::run_in(
      m_dir, "'" GPUSPEC_BINARY "' __worker --plan --suite quick --filter '^transfer\\.p2p$' "
             "--gpus 0,1,2,3,4,5,6,7,8,9");
  ASSERT_EQ(planned.exit_code, 0) << planned.err;
  const auto plan = gpuspec::spine::plan_from_text(planned.out, "plan");
  ASSERT_TRUE(plan) << plan.error().to_string();
  if (GPUSPEC_TEST_CUDA_BUILD) {
    // One size, engine and direction in quick: one case per pair of the ring, both ways.
    ASSERT_EQ(plan.value().cases.size(), 20U);
    EXPECT_EQ(plan.value().cases.front().axes.front(),
              (std::pair<std::string, std::string>{"pair", "0->1"}));
    EXPECT_EQ(plan.value().cases.back().axes.front(),
              (std::pair<std::string, std::string>{"pair", "0->9"}));
    for (const auto& c : plan.value().cases)
      EXPECT_TRUE(c.node_wide);
  } else {
    EXPECT_TRUE(plan.value().cases.empty()) << "a host-only build plans nothing";
  }
  const auto bad = gpuspec::testing::run_in(m_dir, "'" GPUSPEC_BINARY
                                                   "' __worker --plan --suite quick --gpus 0,x");
  EXPECT_EQ(bad.exit_code, 3);
  EXPECT_NE(bad.err.find("--gpus"), std::string::npos) << bad.err;
}

TEST_F(RunSpine, ANodeWideWorkerThatHangsFailsItsCasesNamingEveryGpuAndKeepsTheRest) {
  const auto p = run("run -o report.json --max-time 0.2 --kill-grace 0.3", "two-healthy.json",
                     "two-node-wide-hangs.json");
  EXPECT_EQ(p.exit_code, 2) << p.err;
  const r::report rep = load(m_dir / "report.json");
  ASSERT_EQ(rep.results.size(), 6U);
  for (std::size_t i = 0; i < 5; ++i)
    EXPECT_EQ(rep.results[i].status, r::result_status::ok) << i << ": " << rep.results[i].reason;
  const r::result& hung = rep.results[5];
  EXPECT_EQ(hung.failure, r::failure_kind::worker_timeout);
  EXPECT_EQ(hung.devices, (std::vector<int>{0, 1}));
  EXPECT_EQ(hung.reason.rfind("GPUs 0,1 (node-wide): no answer for ", 0), 0U) << hung.reason;
  EXPECT_NE(hung.reason.find("in stand_in.all_reduce size=64 MiB"), std::string::npos)
      << hung.reason;
}

// ---- the burn-in (docs/burnin.md) --------------------------------------------------------

TEST_F(RunSpine, ABurnInRunsForItsDurationAndTheGpuWhoseChecksumChangesFailsWithTheIteration) {
  const auto begin = std::chrono::steady_clock::now();
  // --max-time 0.2 and a 1 s setup allowance: without the duration in its deadline
  // (A + 2 T + D), the watchdog would kill the 3 s case after about 1.6 s.
  const auto p = run("run --suite burnin --duration 3s --max-time 0.2 -o report.json",
                     "eight-healthy.json", "eight-burnin.json");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  EXPECT_EQ(p.exit_code, 2) << p.err; // GPU 5 fails
  EXPECT_GE(seconds, 3.0) << "every GPU loaded for the whole duration";
  EXPECT_LT(seconds, 20.0);
  const r::report rep = load(m_dir / "report.json");
  EXPECT_TRUE(rep.complete) << rep.incomplete_reason;
  EXPECT_EQ(rep.run.suite, "burnin");
  ASSERT_EQ(rep.results.size(), 8U);
  for (const auto& res : rep.results) {
    const int gpu = res.devices.at(0);
    ASSERT_TRUE(res.burnin) << gpu;
    const auto& b = *res.burnin;
    EXPECT_EQ(b.duration_s, 3.0);
    EXPECT_GE(b.elapsed_s, 3.0) << gpu;
    ASSERT_TRUE(b.gemm);
    EXPECT_GT(b.gemm->iterations, 20) << gpu;
    EXPECT_EQ(b.gemm->reference_checksum, "0x5e5e00000000c0de");
    // The memory-test phase (1.5 s to 2 s) ran its passes on every GPU.
    ASSERT_TRUE(b.memtest) << gpu;
    EXPECT_GE(b.memtest->passes, 1) << gpu;
    EXPECT_EQ(b.memtest->words_checked, b.memtest->passes * 1048576) << gpu;
    // Per-interval series: 0.5 s intervals over 3 s.
    EXPECT_GE(b.intervals.size(), 6U) << gpu;
    EXPECT_LE(b.intervals.size(), 8U) << gpu;
    EXPECT_EQ(res.gpus_busy, 8) << "every GPU loaded at once";
    if (gpu == 5) {
      ASSERT_FALSE(b.gemm->mismatches.empty());
      EXPECT_EQ(b.gemm->mismatches.front().iteration, 17);
      EXPECT_EQ(b.gemm->checksum_mismatches, b.gemm->iterations - 17);
      EXPECT_EQ(res.failure, r::failure_kind::verification);
    } else {
      EXPECT_EQ(b.gemm->checksum_mismatches, 0) << gpu;
      EXPECT_EQ(res.status, r::result_status::ok) << gpu;
    }
  }
  // The check names GPU 5, the iteration and the checksums.
  const auto check = gpuspec::testing::run_in(
      m_dir, "'" GPUSPEC_BINARY "' check report.json --format json > check.json");
  EXPECT_EQ(check.exit_code, 2) << check.err;
  const auto j = nlohmann::json::parse(std::ifstream(m_dir / "check.json"));
  bool named = false;
  for (const auto& res : j.at("nodes").at(0).at("results"))
    for (const auto& d : res.at("diagnoses"))
      if (d.at("code") == "GPUSPEC-BURNIN-CHECKSUM-MISMATCH") {
        EXPECT_EQ(d.at("device"), 5);
        EXPECT_NE(d.at("cause").get<std::string>().find("iteration 17"), std::string::npos)
            << d.at("cause");
        EXPECT_NE(d.at("cause").get<std::string>().find("0x5e5e00000000c0de"), std::string::npos);
        named = true;
      }
  EXPECT_TRUE(named) << check.out;
  for (const auto& g : j.at("nodes").at(0).at("gpus")) {
    if (g.at("index") != 5) {
      EXPECT_EQ(g.at("status"), "inconclusive") << "a stand-in's burn-in never passes";
    }
  }
  // 3 s is under the acceptance minimum on every GPU; each had its memory pass.
  std::set<int> short_gpus;
  for (const auto& res : j.at("nodes").at(0).at("results"))
    for (const auto& d : res.at("diagnoses")) {
      EXPECT_NE(d.at("code"), "GPUSPEC-BURNIN-NO-MEMORY-PASS") << d.dump();
      if (d.at("code") == "GPUSPEC-BURNIN-TOO-SHORT" && d.at("device").is_number())
        short_gpus.insert(d.at("device").get<int>());
    }
  EXPECT_EQ(short_gpus.size(), 8U);
}

TEST_F(RunSpine, AOneSecondBurnInWithNoMemoryPassIsInconclusiveWithItsOwnCodesOnEveryGpu) {
  // Issue 16: one second of GEMMs, no memory pass, the memtest record null (the harness writes
  // none without a pass). Reported, never passed, and the check says why on every GPU.
  const auto p = run("run --suite burnin --duration 1s --max-time 0.2 -o report.json",
                     "eight-healthy.json", "eight-burnin.json");
  EXPECT_EQ(p.exit_code, 2) << p.err; // GPU 5's checksum still changes at iteration 17
  EXPECT_NE(p.err.find("--duration 1s is shorter than the acceptance minimum of 600 s"),
            std::string::npos)
      << p.err;
  const r::report rep = load(m_dir / "report.json");
  ASSERT_EQ(rep.results.size(), 8U);
  for (const auto& res : rep.results) {
    ASSERT_TRUE(res.burnin);
    EXPECT_FALSE(res.burnin->memtest) << "no memory pass: no memtest record";
  }
  const auto check = gpuspec::testing::run_in(
      m_dir, "'" GPUSPEC_BINARY "' check report.json --format json > check.json");
  EXPECT_EQ(check.exit_code, 2) << check.err;
  const auto j = nlohmann::json::parse(std::ifstream(m_dir / "check.json"));
  std::map<std::string, std::set<int>> gpus_of;
  for (const auto& res : j.at("nodes").at(0).at("results"))
    for (const auto& d : res.at("diagnoses")) {
      if (d.at("device").is_number())
        gpus_of[d.at("code")].insert(d.at("device").get<int>());
      if (d.at("code") == "GPUSPEC-BURNIN-TOO-SHORT") {
        EXPECT_EQ(d.at("severity"), "inconclusive");
        EXPECT_NE(d.at("cause").get<std::string>().find("shorter than the acceptance minimum"),
                  std::string::npos)
            << d.at("cause");
      }
    }
  EXPECT_EQ(gpus_of["GPUSPEC-BURNIN-TOO-SHORT"].size(), 8U);
  EXPECT_EQ(gpus_of["GPUSPEC-BURNIN-NO-MEMORY-PASS"].size(), 8U);
  for (const auto& g : j.at("nodes").at(0).at("gpus"))
    EXPECT_NE(g.at("status"), "pass") << g.dump();
}

TEST_F(RunSpine, DurationGoesWithTheBurnInSuiteOnlyAndIsParsedStrictly) {
  auto p = run("run --duration 30m -o report.json", "two-healthy.json", "two-healthy.json");
  EXPECT_EQ(p.exit_code, 3);
  EXPECT_NE(p.err.find("--duration is for --suite burnin only"), std::string::npos) << p.err;
  p = run("run --suite burnin -o report.json", "two-healthy.json", "two-healthy.json");
  EXPECT_EQ(p.exit_code, 3);
  EXPECT_NE(p.err.find("needs --duration"), std::string::npos) << p.err;
  p = run("run --suite burnin --duration 30x -o report.json", "two-healthy.json",
          "two-healthy.json");
  EXPECT_EQ(p.exit_code, 3);
  EXPECT_NE(p.err.find("'x' is not a unit"), std::string::npos) << p.err;
  // A bare number is refused, naming the option: `--duration 30` is not 30 seconds.
  p = run("run --suite burnin --duration 30 -o report.json", "two-healthy.json",
          "two-healthy.json");
  EXPECT_EQ(p.exit_code, 3);
  EXPECT_NE(p.err.find("--duration: '30' has no unit: write 30s, 30m or 30h"), std::string::npos)
      << p.err;
  EXPECT_FALSE(fs::exists(m_dir / "report.json")) << "nothing runs on bad usage";
}

TEST_F(RunSpine, ABurnInInterruptedWithCtrlCKeepsWhatWasDone) {
  // A 60 s burn-in, interrupted (SIGINT, as Ctrl-C sends) once it has run about 2 s.
  std::ostringstream command;
  command << "(" << env("eight-healthy.json", "eight-burnin.json") << " '" << GPUSPEC_BINARY
          << "' run --suite burnin --duration 60s -o report.json >out 2>err & echo $! > pid); "
          << "sleep 2.5; kill -INT $(cat pid); "
          << "for i in $(seq 200); do kill -0 $(cat pid) 2>/dev/null || break; sleep 0.05; done; "
          << "echo stopped";
  const auto begin = std::chrono::steady_clock::now();
  const auto stopped = gpuspec::testing::run_in(m_dir, command.str());
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  ASSERT_NE(stopped.out.find("stopped"), std::string::npos) << stopped.err;
  EXPECT_LT(seconds, 20.0) << "stopped long before the 60 s";
  const r::report rep = load(m_dir / "report.json");
  EXPECT_FALSE(rep.complete);
  EXPECT_EQ(rep.incomplete_reason, "interrupted");
  ASSERT_EQ(rep.results.size(), 8U);
  for (const auto& res : rep.results) {
    ASSERT_TRUE(res.burnin) << res.reason;
    EXPECT_GT(res.burnin->gemm->iterations, 10) << "what was done is kept";
    EXPECT_LT(res.burnin->elapsed_s, 30.0);
    EXPECT_FALSE(res.burnin->intervals.empty());
  }
  const auto check = gpuspec::testing::run_in(
      m_dir, "'" GPUSPEC_BINARY "' check report.json --format json > check.json");
  EXPECT_NE(check.exit_code, 0) << "an interrupted burn-in never passes";
  std::ifstream in(m_dir / "check.json");
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find("GPUSPEC-BURNIN-TOO-LITTLE-WORK"), std::string::npos);
}

// ---- the idle precondition -----------------------------------------------------------------

TEST_F(RunSpine, AGpuAnotherProgramUsesIsRefusedAndTheCheckSaysWhoUsedIt) {
  const auto p = run("run -o report.json --max-time 0.2", "two-one-busy.json", "two-healthy.json");
  EXPECT_EQ(p.exit_code, 3) << p.err;
  EXPECT_NE(p.err.find("GPU 1 refused: in use by pid 4242 (name unknown, 20.0 GiB); not measured "
                       "(--allow-busy measures it anyway)"),
            std::string::npos)
      << p.err;
  const r::report rep = load(m_dir / "report.json");
  EXPECT_EQ(rep.run.devices, (std::vector<int>{0, 1})); // asked for, so never passed silently
  ASSERT_EQ(rep.results.size(), 3U);
  for (const auto& res : rep.results)
    EXPECT_EQ(res.devices, std::vector<int>{0});
  ASSERT_TRUE(rep.devices.at(1).activity);
  ASSERT_EQ(rep.devices.at(1).activity->processes.size(), 1U);
  EXPECT_EQ(rep.devices.at(1).activity->processes[0].pid, 4242);
  EXPECT_EQ(rep.devices.at(1).activity->utilization_pct, 97);
  ASSERT_TRUE(rep.devices.at(0).activity);
  EXPECT_TRUE(rep.devices.at(0).activity->processes.empty());
  const auto check = gpuspec::testing::run_in(
      m_dir, "'" GPUSPEC_BINARY "' check report.json --format json > check.json");
  EXPECT_EQ(check.exit_code, 3) << check.err;
  std::ifstream in(m_dir / "check.json");
  std::stringstream s;
  s << in.rdbuf();
  EXPECT_NE(s.str().find("GPUSPEC-GPU-BUSY"), std::string::npos);
  EXPECT_NE(s.str().find("GPU 1 was refused: in use by pid 4242"), std::string::npos);
}

TEST_F(RunSpine, AllowBusyMeasuresTheBusyGpuAndTheCheckWarnsItWasShared) {
  const auto p = run("run -o report.json --max-time 0.2 --allow-busy", "two-one-busy.json",
                     "two-healthy.json");
  EXPECT_EQ(p.err.find("refused"), std::string::npos) << p.err;
  const r::report rep = load(m_dir / "report.json");
  ASSERT_EQ(rep.results.size(), 6U);
  EXPECT_EQ(rep.results[3].devices, std::vector<int>{1});
  const auto check = gpuspec::testing::run_in(
      m_dir, "'" GPUSPEC_BINARY "' check report.json --format json > check.json");
  std::ifstream in(m_dir / "check.json");
  std::stringstream s;
  s << in.rdbuf();
  EXPECT_NE(s.str().find("GPUSPEC-GPU-SHARED"), std::string::npos);
  EXPECT_EQ(s.str().find("GPUSPEC-GPU-BUSY"), std::string::npos);
}

TEST_F(RunSpine, EveryGpuBusyWritesTheInventoryReportAndExits3) {
  const auto p =
      run("run -o report.json --max-time 0.2 --devices 1", "two-one-busy.json", "two-healthy.json");
  EXPECT_EQ(p.exit_code, 3) << p.err;
  EXPECT_NE(p.err.find("every selected GPU is in use by another process"), std::string::npos)
      << p.err;
  const r::report rep = load(m_dir / "report.json");
  EXPECT_FALSE(rep.complete);
  EXPECT_TRUE(rep.results.empty());
}
