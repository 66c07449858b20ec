// The NCCL side of a measured collective (collective_driver.hpp) against the fake libnccl
// (tests/fakes/fake_nccl.cpp), with stand-in GPUs: what NCCL is asked, in which order, and what
// happens between the start and stop events of a timed sample. Runs without a GPU or NCCL.
//
// The stand-in device_ops counts the fake's calls at every start and stop event, so a test sees
// exactly what happened inside the timed region: no ncclCommGetAsyncError poll, no
// ncclInProgress, no log line, one group end per call.

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <unistd.h>

#include "fake_nccl_control.hpp"
#include "gpuspec/collectives/collective_driver.hpp"
#include "gpuspec/collectives/dynamic_library.hpp"
#include "gpuspec/collectives/expected_values.hpp"
#include "gpuspec/collectives/nccl_debug_setup.hpp"
#include "gpuspec/collectives/nccl_library.hpp"
#include "gpuspec/collectives/nccl_log_session.hpp"

namespace gpuspec::collectives {
namespace {

/// The fake's counters at one instant.
struct fake_counts {
  long polls, group_ends, in_progress, log_lines, collectives, p2p;
  static fake_counts of(const gpuspec_fake_nccl_state& f) {
    return {f.async_error_polls.load(), f.group_ends.load(),  f.in_progress_returns.load(),
            f.log_lines.load(),         f.collectives.load(), f.point_to_point.load()};
  }
};

/// One timed region, from record_begin to record_end.
struct region {
  fake_counts begin, end;
};

/// GPUs that run nothing: fixed stand-in timings, buffers on the host, every stop event
/// complete at once. Records the fake's counters at each event and the seeds it was given.
class stand_in_gpus final : public device_ops {
public:
  stand_in_gpus(gpuspec_fake_nccl_state& fake, int ranks, double seconds_per_batch)
      : m_fake(fake), m_buffers(ranks, std::vector<std::byte>(64)), m_seconds(seconds_per_batch) {}

  cudaStream_t stream(int) override { return nullptr; }
  const std::byte* send_data(int r) override { return m_buffers[r].data(); }
  std::byte* recv_data(int r) override { return m_buffers[r].data(); }
  void prepare(std::uint64_t seed) override { prepared.push_back(seed); }
  void record_begin() override { m_open = fake_counts::of(m_fake); }
  void record_end() override { regions.push_back({m_open, fake_counts::of(m_fake)}); }
  std::vector<int> end_pending() override { return {}; }
  double slowest_seconds() override { return m_seconds; }
  std::vector<std::int64_t> count_wrong(std::uint64_t seed) override {
    checked.push_back(seed);
    return std::vector<std::int64_t>(m_buffers.size(), 0);
  }

  std::vector<region> regions;
  std::vector<std::uint64_t> prepared, checked;

private:
  gpuspec_fake_nccl_state& m_fake;
  std::vector<std::vector<std::byte>> m_buffers;
  double m_seconds;
  fake_counts m_open{};
};

class collective_driver_test : public ::testing::Test {
protected:
  void SetUp() override {
    std::string why;
    m_handle = dynamic_library::open_first({GPUSPEC_FAKE_NCCL_PATH}, why);
    ASSERT_TRUE(m_handle) << why;
    auto* state =
        reinterpret_cast<gpuspec_fake_nccl_state* (*)()>(m_handle->symbol("gpuspecFakeNcclState"));
    ASSERT_NE(state, nullptr);
    fake = state();
    fake->works = 1;
    m_nccl = nccl_library::open({GPUSPEC_FAKE_NCCL_PATH}, why);
    ASSERT_TRUE(m_nccl) << why;
    ranks.nccl = &*m_nccl;
  }
  void TearDown() override {
    if (fake != nullptr)
      fake->works = 0;
  }

  /// `n` ranks on ordinals 0..n-1, made by init_ranks.
  void make_ranks(int n) {
    for (int r = 0; r < n; ++r)
      ranks.devices.push_back(r);
    ranks.group_size = n;
    init_ranks(ranks, ncclUniqueId{}, 5.0);
  }

  static collective_request request(collective_kind kind) {
    collective_request q;
    q.kind = kind;
    q.type = element_type::fp16;
    q.size_bytes = 64;
    q.seed = 0x5eed;
    q.warmup_iterations = 5;
    q.iterations = 20;
    q.samples = 3;
    q.deadline_s = 10;
    return q;
  }

  gpuspec_fake_nccl_state* fake = nullptr;
  nccl_ranks ranks;

private:
  std::optional<dynamic_library> m_handle;
  std::optional<nccl_library> m_nccl;
};

TEST_F(collective_driver_test, CommunicatorsAreBlockingAndMadeInOneGroup) {
  make_ranks(4);
  EXPECT_EQ(fake->blocking_inits.load(), 4);
  EXPECT_EQ(fake->nonblocking_inits.load(), 0);
  EXPECT_EQ(fake->group_ends.load(), 1);
  EXPECT_EQ(fake->async_error_polls.load(), 0); // nothing to poll: group end returned when done
  close_ranks(ranks, 5.0);
  EXPECT_EQ(fake->finalizes.load(), 4);
  EXPECT_EQ(fake->destroys.load(), 4);
  EXPECT_EQ(fake->aborts.load(), 0);
}

TEST_F(collective_driver_test, ATimedSampleIsTheCallsBackToBackWithNothingBetween) {
  // The regression: non-blocking communicators answer every group end ncclInProgress (NCCL
  // 2.23 on), and waiting for each put a poll and a 50 us sleep between two timed calls.
  make_ranks(4);
  stand_in_gpus gpus(*fake, 4, 20 * 7e-6);
  for (collective_kind kind : all_collective_kinds) {
    gpus.regions.clear();
    const auto q = request(kind);
    const auto o = run_schedule(ranks, gpus, q, counts_for_size(kind, q.size_bytes, 2, 4));
    ASSERT_FALSE(o.timed_out) << o.phase;
    // Warm-up, three samples, the check.
    ASSERT_EQ(gpus.regions.size(), 5u) << collective_name(kind);
    for (std::size_t i = 1; i <= 3; ++i) {
      const auto& [b, e] = gpus.regions[i];
      EXPECT_EQ(e.polls - b.polls, 0) << collective_name(kind) << " sample " << i;
      EXPECT_EQ(e.in_progress - b.in_progress, 0) << collective_name(kind);
      EXPECT_EQ(e.group_ends - b.group_ends, q.iterations) << collective_name(kind);
      EXPECT_EQ(e.log_lines - b.log_lines, 0) << collective_name(kind);
      const long calls = (e.collectives - b.collectives) + (e.p2p - b.p2p);
      EXPECT_GE(calls, static_cast<long>(q.iterations) * 4) << collective_name(kind);
    }
    // The stand-in timing comes through: the batch's time over its calls.
    ASSERT_EQ(o.seconds_per_iteration.size(), 3u);
    for (double t : o.seconds_per_iteration)
      EXPECT_DOUBLE_EQ(t, 7e-6);
  }
}

TEST_F(collective_driver_test, TheCheckZeroesAndRefillsUnderAnotherSeed) {
  make_ranks(2);
  stand_in_gpus gpus(*fake, 2, 1e-3);
  auto q = request(collective_kind::all_gather);
  q.in_place = true; // in place the timed input sits in the buffer the check reads
  const auto o = run_schedule(ranks, gpus, q, counts_for_size(q.kind, q.size_bytes, 2, 2));
  ASSERT_FALSE(o.timed_out);
  ASSERT_EQ(gpus.prepared.size(), 2u);
  EXPECT_EQ(gpus.prepared[0], q.seed);
  EXPECT_EQ(gpus.prepared[1], check_seed(q.seed));
  EXPECT_NE(gpus.prepared[1], q.seed);
  EXPECT_EQ(gpus.checked, std::vector<std::uint64_t>{check_seed(q.seed)});
  EXPECT_EQ(o.wrong_per_rank, (std::vector<std::int64_t>{0, 0}));
}

TEST_F(collective_driver_test, TheWatchdogAbortsACallThatNeverReturns) {
  make_ranks(4);
  stand_in_gpus gpus(*fake, 4, 1e-3);
  auto q = request(collective_kind::all_reduce);
  q.deadline_s = 0.2;
  fake->hang_next_group_end = 1; // the first warm-up call blocks until ncclCommAbort
  const auto t0 = std::chrono::steady_clock::now();
  const auto o = run_schedule(ranks, gpus, q, counts_for_size(q.kind, q.size_bytes, 2, 4));
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_TRUE(o.timed_out);
  EXPECT_EQ(o.phase, "warm-up");
  EXPECT_EQ(o.ranks_not_finished, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(fake->aborts.load(), 4); // every communicator, once
  EXPECT_TRUE(ranks.aborted());
  EXPECT_LT(took, q.deadline_s + watchdog_grace_s + 2.0);
  EXPECT_GE(took, q.deadline_s);
  close_ranks(ranks, 1.0); // aborted: nothing more is called
  EXPECT_EQ(fake->finalizes.load(), 0);
  EXPECT_THROW((void)run_schedule(ranks, gpus, q, o.counts), nccl_error);
}

TEST_F(collective_driver_test, TheWatchdogEndsAnInitThatNeverFinishes) {
  for (int r = 0; r < 2; ++r)
    ranks.devices.push_back(r);
  ranks.group_size = 2;
  fake->hang_next_group_end = 1;
  EXPECT_THROW(init_ranks(ranks, ncclUniqueId{}, 0.2), nccl_unavailable);
  EXPECT_EQ(fake->aborts.load(), 2);
}

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST_F(collective_driver_test, NcclsTuningLogIsOnForTheUntimedCallOnly) {
  // The worker's own setup (nothing set by the user), applied as the worker applies it.
  const auto dir = std::filesystem::temp_directory_path() /
                   ("gpuspec-driver-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string main_log = (dir / "nccl.log").string();
  for (const char* v : {"NCCL_DEBUG", "NCCL_DEBUG_SUBSYS", "NCCL_DEBUG_FILE"})
    unsetenv(v);
  auto setup = plan_nccl_debug([](std::string_view) { return std::nullopt; }, main_log, "h", 1);
  ASSERT_TRUE(setup.switchable);
  for (const auto& [name, value] : setup.to_set)
    setenv(name.c_str(), value.c_str(), 1);
  ASSERT_NE(ranks.nccl->api().reset_debug_init, nullptr); // the fake exports it, as 2.24 on
  ranks.nccl->api().reset_debug_init(); // a fresh read of the variables, as at process start
  nccl_log_session session(
      std::move(setup),
      [](const std::string& n, const std::string& v) { setenv(n.c_str(), v.c_str(), 1); },
      [this] { ranks.nccl->api().reset_debug_init(); });
  ASSERT_TRUE(session.probes());

  make_ranks(4);
  stand_in_gpus gpus(*fake, 4, 1e-3);
  auto q = request(collective_kind::all_reduce);
  q.tuning_log = [&](bool on) { session.tuning(on); };
  const long lines_before = fake->log_lines.load();
  const auto o = run_schedule(ranks, gpus, q, counts_for_size(q.kind, q.size_bytes, 2, 4));
  ASSERT_FALSE(o.timed_out);

  // Nothing written inside any timed region (warm-up and samples); one line in all, the
  // untimed check call's (rank 0 prints the choice).
  for (std::size_t i = 0; i + 1 < gpus.regions.size(); ++i)
    EXPECT_EQ(gpus.regions[i].end.log_lines - gpus.regions[i].begin.log_lines, 0) << i;
  EXPECT_EQ(fake->log_lines.load() - lines_before, 1);
  const auto choices = session.read_new();
  ASSERT_EQ(choices.size(), 1u) << slurp(main_log) << slurp(main_log + ".tuning");
  EXPECT_EQ(choices[0].function, "AllReduce");
  EXPECT_EQ(choices[0].bytes, o.counts.param_count * 2);
  EXPECT_EQ(choices[0].algorithm, "RING");
  EXPECT_EQ(choices[0].protocol, "SIMPLE");
  // The init's channel lines, read from the main log, are still there.
  EXPECT_EQ(session.facts().connections.size(), 4u);
  // And the log is back to the timed calls' subsystems.
  EXPECT_EQ(std::string(std::getenv("NCCL_DEBUG_SUBSYS")), timing_subsystems);
  EXPECT_EQ(std::string(std::getenv("NCCL_DEBUG_FILE")), main_log);
  std::filesystem::remove_all(dir);
}

TEST_F(collective_driver_test, WithTuningOnThroughoutEveryTimedCallWritesALine) {
  // The degraded setup the issue names: TUNING on from start (the old default) puts a log
  // write inside every timed call; the region counters see it.
  const auto dir = std::filesystem::temp_directory_path() /
                   ("gpuspec-driver-test-on-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  setenv("NCCL_DEBUG", "INFO", 1);
  setenv("NCCL_DEBUG_SUBSYS", "INIT,GRAPH,TUNING", 1);
  setenv("NCCL_DEBUG_FILE", (dir / "nccl.log").c_str(), 1);
  ranks.nccl->api().reset_debug_init();
  make_ranks(2);
  stand_in_gpus gpus(*fake, 2, 1e-3);
  const auto q = request(collective_kind::all_reduce);
  ASSERT_FALSE(run_schedule(ranks, gpus, q, counts_for_size(q.kind, 64, 2, 2)).timed_out);
  EXPECT_EQ(gpus.regions[1].end.log_lines - gpus.regions[1].begin.log_lines, q.iterations);
  std::filesystem::remove_all(dir);
}

} // namespace
} // namespace gpuspec::collectives
