// The coordinator and its watchdog, with real worker processes: the stand-in worker of
// tests/fakes, told by a script to answer normally, hang, die on SIGSEGV, exit 1 half-way, write
// a line cut short, write garbage, stay silent, be slow within its deadline or fail a case with a
// sticky CUDA error. Each GPU's fate must stay its own, every case must get exactly one result (or
// none after an interrupt), each lost worker's results must say which GPU, which case, what
// happened and after how long, and a lost worker is followed by one fresh worker for the rest.

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "gpuspec/spine/coordinator.hpp"
#include "gpuspec/spine/protocol.hpp"

namespace spine = gpuspec::spine;
namespace r = gpuspec::reports;
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

struct recorder final : spine::coordinator_observer {
  void on_case_started(const spine::worker_job& job, int index,
                       const spine::planned_case&) override {
    starts.emplace_back(job.device, index);
    if (interrupt_at_first_start != nullptr)
      interrupt_at_first_start->store(true);
  }
  void on_result(const spine::journal_entry& e) override { results[e.device].push_back(e); }
  void on_worker_lost(const spine::worker_job& job, const std::string& what,
                      const std::string&) override {
    lost[job.device] = what;
  }
  std::vector<std::pair<int, int>> starts;
  std::map<int, std::vector<spine::journal_entry>> results;
  std::map<int, std::string> lost;
  std::atomic<bool>* interrupt_at_first_start = nullptr;
};

class Coordinator : public ::testing::Test {
protected:
  void SetUp() override {
    m_script = fs::temp_directory_path() /
               ("gpuspec-stand-in-" +
                std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "-" +
                std::to_string(::getpid()) + ".json");
  }
  void TearDown() override { fs::remove(m_script); }

  /// `cases` cases of `seconds` each; `gpus` maps a GPU to its behaviour and case.
  void script(int cases, double seconds, const json& gpus, double setup_allowance = 0.5,
              double startup_allowance = 3.0) {
    json s{{"comment", "SYNTHETIC stand-in script written by coordinator_test"},
           {"startup_allowance_s", startup_allowance},
           {"setup_allowance_s", setup_allowance},
           {"slow_s", 1.2},
           {"cases", json::array()},
           {"gpus", gpus}};
    for (int i = 0; i < cases; ++i)
      s["cases"].push_back({{"bench_id", "stand_in.case" + std::to_string(i)},
                            {"axes", {{"size", std::to_string(i + 1) + " MiB"}}},
                            {"seconds", seconds},
                            {"value", 100 + i}});
    std::ofstream(m_script) << s.dump(2);
    ::setenv("GPUSPEC_STAND_IN_SCRIPT", m_script.c_str(), 1);
    m_cases.clear();
    for (int i = 0; i < cases; ++i)
      m_cases.push_back(spine::planned_case{"stand_in.case" + std::to_string(i),
                                            {{"size", std::to_string(i + 1) + " MiB"}},
                                            setup_allowance});
    m_startup = startup_allowance;
  }

  /// Runs `gpus` stand-in workers under the coordinator; returns the wall time in seconds.
  double run(int gpus, int concurrency = 0, std::atomic<bool>* interrupt = nullptr,
             std::vector<std::string> command = {GPUSPEC_STAND_IN_WORKER}) {
    std::vector<spine::worker_job> jobs;
    for (int d = 0; d < gpus; ++d) {
      spine::worker_assignment a;
      a.device.index = d;
      a.cases = m_cases;
      a.options.suite = "quick";
      a.nvml_library = "/nonexistent";
      jobs.push_back({d, m_cases, spine::assignment_to_text(a), {}, {}});
    }
    spine::coordinator_options o;
    o.worker_command = std::move(command);
    o.backend = "stand-in";
    o.concurrency = concurrency;
    o.measurement.stopping.max_seconds = 0.5;
    o.startup_allowance_s = m_startup;
    o.kill_grace_s = 0.3;
    o.interrupt_grace_s = 3.0;
    o.gpu_lost = m_gpu_lost;
    const std::atomic<bool> never{false};
    if (interrupt != nullptr)
      m_recorder.interrupt_at_first_start = interrupt;
    const auto begin = std::chrono::steady_clock::now();
    spine::run_workers(o, jobs, m_recorder, interrupt != nullptr ? *interrupt : never);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  }

  /// Every case of `device` has one result, in order; the first `ok` are ok.
  void expect_results(int device, std::size_t ok) {
    const auto& got = m_recorder.results[device];
    ASSERT_EQ(got.size(), m_cases.size()) << "GPU " << device;
    for (std::size_t i = 0; i < got.size(); ++i) {
      SCOPED_TRACE("GPU " + std::to_string(device) + " case " + std::to_string(i));
      EXPECT_EQ(got[i].case_index, static_cast<int>(i));
      EXPECT_EQ(got[i].result.bench_id, m_cases[i].bench_id);
      EXPECT_EQ(got[i].result.devices, std::vector<int>{device});
      EXPECT_EQ(got[i].result.axes.at("size"), m_cases[i].axes[0].second);
      if (i < ok) {
        EXPECT_EQ(got[i].result.status, r::result_status::ok) << got[i].result.reason;
        EXPECT_EQ(got[i].result.failure, r::failure_kind::none);
      } else {
        EXPECT_EQ(got[i].result.status, r::result_status::failed);
      }
    }
  }

  /// Every case of `device` has one result, in order, ok where `ok` says so and failed elsewhere.
  void expect_results(int device, const std::vector<bool>& ok) {
    const auto& got = m_recorder.results[device];
    ASSERT_EQ(got.size(), ok.size()) << "GPU " << device;
    for (std::size_t i = 0; i < got.size(); ++i) {
      SCOPED_TRACE("GPU " + std::to_string(device) + " case " + std::to_string(i));
      EXPECT_EQ(got[i].case_index, static_cast<int>(i));
      EXPECT_EQ(got[i].result.bench_id, m_cases[i].bench_id);
      EXPECT_EQ(got[i].result.status, ok[i] ? r::result_status::ok : r::result_status::failed)
          << got[i].result.reason;
    }
  }

  [[nodiscard]] const r::result& result(int device, std::size_t index) {
    return m_recorder.results[device].at(index).result;
  }

  fs::path m_script;
  std::vector<spine::planned_case> m_cases;
  double m_startup = 3.0;
  std::function<bool(int)> m_gpu_lost;
  recorder m_recorder;
};

} // namespace

TEST_F(Coordinator, WorkersThatAnswerGiveEveryResultInOrder) {
  script(3, 0.02, json::object());
  (void)run(2);
  expect_results(0, 3);
  expect_results(1, 3);
  EXPECT_TRUE(m_recorder.lost.empty());
  EXPECT_DOUBLE_EQ(result(0, 0).stats.median, 100.45); // the stand-in's made-up samples, whole
}

TEST_F(Coordinator, AHungWorkerIsKilledAtItsDeadlineAndTheOthersGoOn) {
  script(3, 0.02, {{"1", {{"behaviour", "hang"}, {"at_case", 1}}}});
  const double seconds = run(3);
  expect_results(0, 3);
  expect_results(2, 3);
  expect_results(1, {true, false, true}); // the third by a fresh worker
  const auto& hung = result(1, 1);
  EXPECT_EQ(hung.failure, r::failure_kind::worker_timeout);
  EXPECT_EQ(hung.reason.rfind("GPU 1: no answer for ", 0), 0U) << hung.reason;
  EXPECT_NE(hung.reason.find("in stand_in.case1 size=2 MiB"), std::string::npos) << hung.reason;
  EXPECT_NE(hung.reason.find("worker killed"), std::string::npos) << hung.reason;
  EXPECT_NE(m_recorder.lost[1].find("no answer"), std::string::npos);
  EXPECT_NE(m_recorder.lost[1].find("a fresh worker measures its 1 remaining case"),
            std::string::npos)
      << m_recorder.lost[1];
  // Its deadline: the 0.5 s setup allowance plus two 0.1 s progress runs of silence, then the
  // 0.3 s grace before SIGKILL: seconds, not the default minutes.
  EXPECT_LT(seconds, 5.0);
}

TEST_F(Coordinator, AWorkerDeadOnASignalFailsItsCasesSayingWhich) {
  script(3, 0.02, {{"0", {{"behaviour", "segv"}, {"at_case", 0}}}});
  (void)run(2);
  expect_results(0, {false, true, true});
  expect_results(1, 3);
  const auto& dead = result(0, 0);
  EXPECT_EQ(dead.failure, r::failure_kind::worker_signal);
  EXPECT_EQ(dead.reason.rfind("GPU 0: the worker died on signal 11 (SIGSEGV) in stand_in.case0", 0),
            0U)
      << dead.reason;
  EXPECT_EQ(dead.reason.find("worker killed"), std::string::npos) << "it died by itself";
}

TEST_F(Coordinator, ASegvAtTheSecondOfFourCasesLeavesTheThirdAndFourthToAFreshWorker) {
  script(4, 0.02, {{"0", {{"behaviour", "segv"}, {"at_case", 1}}}});
  (void)run(1);
  expect_results(0, {true, false, true, true});
  EXPECT_EQ(result(0, 1).failure, r::failure_kind::worker_signal);
  EXPECT_NE(result(0, 1).reason.find("SIGSEGV) in stand_in.case1"), std::string::npos)
      << result(0, 1).reason;
  EXPECT_NEAR(result(0, 2).stats.median, 102 * 1.0045, 1e-9); // the fresh worker's, case 2
  EXPECT_NE(m_recorder.lost[0].find("a fresh worker measures its 2 remaining cases"),
            std::string::npos)
      << m_recorder.lost[0];
}

TEST_F(Coordinator, ASecondLostWorkerEndsTheGpu) {
  script(4, 0.02, {{"0", {{"behaviour", "segv"}, {"at_cases", {1, 2}}}}});
  (void)run(2);
  expect_results(0, {true, false, false, false});
  expect_results(1, 4);
  EXPECT_EQ(result(0, 2).failure, r::failure_kind::worker_signal);
  EXPECT_EQ(result(0, 2).reason.rfind("GPU 0: the worker died on signal 11 (SIGSEGV) in "
                                      "stand_in.case2",
                                      0),
            0U)
      << result(0, 2).reason;
  EXPECT_NE(result(0, 3).reason.find("not run"), std::string::npos) << result(0, 3).reason;
  EXPECT_NE(result(0, 3).reason.find("its 2 workers were lost, which ends the GPU"),
            std::string::npos)
      << result(0, 3).reason;
}

TEST_F(Coordinator, AStickyErrorEndsTheWorkerSayingWhichAndAFreshOneMeasuresTheRest) {
  script(4, 0.02, {{"0", {{"behaviour", "sticky"}, {"at_case", 1}}}});
  (void)run(1);
  expect_results(0, {true, false, true, true});
  const auto& faulted = result(0, 1);
  EXPECT_EQ(faulted.failure, r::failure_kind::benchmark); // the worker's own result
  EXPECT_NE(faulted.reason.find("sticky error cudaErrorIllegalAddress"), std::string::npos)
      << faulted.reason;
  EXPECT_NE(m_recorder.lost[0].find("exited with status 4: a sticky CUDA error"), std::string::npos)
      << m_recorder.lost[0];
}

TEST_F(Coordinator, NoFreshWorkerForAGpuNvmlSaysIsLost) {
  script(3, 0.02, {{"0", {{"behaviour", "segv"}, {"at_case", 0}}}});
  m_gpu_lost = [](int device) { return device == 0; };
  (void)run(1);
  expect_results(0, 0);
  EXPECT_NE(result(0, 2).reason.find("NVML says GPU 0 is lost: no fresh worker"), std::string::npos)
      << result(0, 2).reason;
}

TEST_F(Coordinator, AWorkerThatExitsHalfWayFailsTheRest) {
  script(4, 0.02, {{"1", {{"behaviour", "exit1"}, {"at_case", 2}}}});
  (void)run(2);
  expect_results(1, {true, true, false, true});
  EXPECT_EQ(result(1, 2).failure, r::failure_kind::worker_exit);
  EXPECT_NE(result(1, 2).reason.find("exited with status 1 in stand_in.case2"), std::string::npos)
      << result(1, 2).reason;
  expect_results(0, 4);
}

TEST_F(Coordinator, ALineCutShortIsAProtocolFailure) {
  script(3, 0.02, {{"0", {{"behaviour", "truncated"}, {"at_case", 1}}}});
  (void)run(1);
  expect_results(0, {true, false, true});
  EXPECT_EQ(result(0, 1).failure, r::failure_kind::worker_protocol);
  EXPECT_NE(result(0, 1).reason.find("cut short"), std::string::npos) << result(0, 1).reason;
}

TEST_F(Coordinator, GarbageOnTheProtocolChannelStopsTheWorker) {
  script(3, 0.02, {{"0", {{"behaviour", "garbage"}, {"at_case", 1}}}});
  const double seconds = run(2);
  // It babbles before case 1 starts, and so does the fresh worker that takes over at case 1.
  expect_results(0, {true, false, false});
  expect_results(1, 3);
  const auto& bad = result(0, 1);
  EXPECT_EQ(bad.failure, r::failure_kind::worker_protocol);
  EXPECT_NE(bad.reason.find("malformed message"), std::string::npos) << bad.reason;
  EXPECT_NE(bad.reason.find("worker killed"), std::string::npos) << bad.reason;
  EXPECT_LT(seconds, 5.0);
}

TEST_F(Coordinator, ASilentWorkerMissesItsStartupAllowance) {
  script(2, 0.02, {{"0", {{"behaviour", "silent"}}}}, 0.5, 0.5);
  (void)run(1);
  expect_results(0, 0);
  EXPECT_EQ(result(0, 0).failure, r::failure_kind::worker_timeout);
  EXPECT_NE(result(0, 0).reason.find("no hello for"), std::string::npos) << result(0, 0).reason;
  EXPECT_NE(result(0, 0).reason.find("before its first case"), std::string::npos)
      << result(0, 0).reason;
}

TEST_F(Coordinator, ASlowWorkerThatKeepsTalkingIsWithinItsDeadline) {
  // Each case takes 1.2 s more than its 0.5 s setup allowance, with progress every 0.1 s.
  script(2, 0.02, {{"0", {{"behaviour", "slow"}}}});
  const double seconds = run(2);
  expect_results(0, 2);
  expect_results(1, 2);
  EXPECT_TRUE(m_recorder.lost.empty());
  EXPECT_GE(seconds, 2.4);
}

TEST_F(Coordinator, OneAtATimeNoGpuSharesTheMachine) {
  script(2, 0.2, json::object());
  (void)run(3, 1);
  for (int d = 0; d < 3; ++d) {
    expect_results(d, 2);
    for (const auto& e : m_recorder.results[d])
      EXPECT_EQ(e.result.gpus_busy, 1);
  }
  // Workers start only when the previous one has ended: GPU 0's cases, then GPU 1's, ...
  ASSERT_EQ(m_recorder.starts.size(), 6U);
  EXPECT_EQ(m_recorder.starts[0].first, 0);
  EXPECT_EQ(m_recorder.starts[2].first, 1);
  EXPECT_EQ(m_recorder.starts[4].first, 2);
}

TEST_F(Coordinator, AllAtOnceTheResultsSayHowManyWereBusy) {
  script(2, 0.4, json::object());
  (void)run(3);
  int most = 0;
  for (int d = 0; d < 3; ++d)
    for (const auto& e : m_recorder.results[d])
      most = std::max(most, e.result.gpus_busy.value_or(0));
  EXPECT_EQ(most, 3);
}

TEST_F(Coordinator, AnInterruptReturnsTheCasesInProgressAndStartsNoMore) {
  script(3, 2.0, json::object());
  std::atomic<bool> interrupt{false};
  const double seconds = run(2, 0, &interrupt);
  EXPECT_LT(seconds, 2.0) << "the workers stop between their progress steps";
  for (int d = 0; d < 2; ++d) {
    const auto& got = m_recorder.results[d];
    ASSERT_LE(got.size(), 1U) << "GPU " << d;
    for (const auto& e : got) {
      // Returned by the worker itself, stopped between two of its progress steps: not the
      // watchdog's "did not return the case".
      EXPECT_EQ(e.result.status, r::result_status::skipped) << e.result.reason;
      EXPECT_EQ(e.result.reason, "interrupted after 0 sample(s)");
    }
  }
  EXPECT_TRUE(m_recorder.lost.empty());
}

TEST_F(Coordinator, AWorkerThatCannotStartFailsItsCases) {
  script(2, 0.02, json::object());
  (void)run(1, 0, nullptr, {"/nonexistent/gpuspec-worker"});
  expect_results(0, 0);
  EXPECT_EQ(result(0, 0).failure, r::failure_kind::worker_exit);
}
