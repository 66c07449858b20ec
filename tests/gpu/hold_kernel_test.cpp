// Device tests of the hold kernel: it holds the stream until released, the work queued behind
// it then runs back-to-back (the hold's wait is not in the events' interval), and it gives up
// after its timeout and says so.

#include <atomic>
#include <chrono>
#include <optional>
#include <thread>

#include <gtest/gtest.h>

#include "gpu_test_support.hpp"
#include "gpuspec/kernels/cuda_handles.cuh"
#include "gpuspec/kernels/hold.hpp"
#include "gpuspec/kernels/stream.hpp"

namespace k = gpuspec::kernels;
using namespace std::chrono_literals;

namespace {

struct hold_test : gpuspec::testing::gpu_test {
  // Made in SetUp, after the GPU check: a fixture's constructor runs before SetUp can skip.
  void SetUp() override {
    gpu_test::SetUp();
    if (IsSkipped() || HasFatalFailure())
      return;
    flags = k::pinned_buffer<int>(2);
    s.emplace();
  }
  void release() { std::atomic_ref<int>(flags.host()[0]).store(1); }
  [[nodiscard]] bool timed_out() const { return std::atomic_ref<int>(flags.host()[1]).load() != 0; }
  [[nodiscard]] k::stream_ref stream() const { return s->ref(); }
  k::pinned_buffer<int> flags;
  std::optional<k::stream> s;
};

} // namespace

TEST_F(hold_test, holds_the_stream_until_released) {
  k::event done;
  k::launch_hold(flags.device(), flags.device() + 1, 10.0, stream().handle());
  done.record(stream());
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(cudaEventQuery(done.get()), cudaErrorNotReady);
  (void)cudaGetLastError(); // "not ready" must not linger for a later launch check
  release();
  done.synchronize();
  EXPECT_FALSE(timed_out());
}

TEST_F(hold_test, queued_work_runs_back_to_back_once_released) {
  const std::size_t n = std::size_t{1} << 20;
  k::device_buffer<float> a(n), c(n);
  k::event start, stop;
  // Load the copy kernel before the hold: with lazy module loading (CUDA's default), a first
  // launch behind a spinning kernel may wait for the context to go idle, i.e. for the hold to
  // time out (the harness's warm-up does the same before its first hold).
  k::launch_stream<float>(k::stream_op::copy, {a.data(), nullptr, c.data()}, 0.0f, n,
                          stream().handle());
  stream().synchronize();
  k::launch_hold(flags.device(), flags.device() + 1, 10.0, stream().handle());
  start.record(stream());
  k::launch_stream<float>(k::stream_op::copy, {a.data(), nullptr, c.data()}, 0.0f, n,
                          stream().handle());
  stop.record(stream());
  std::this_thread::sleep_for(50ms); // the host dawdles; the device must not charge it
  release();
  stop.synchronize();
  EXPECT_FALSE(timed_out());
  EXPECT_LT(k::event::elapsed_seconds(start, stop), 0.010); // a 4 MiB copy, not the 50 ms wait
}

TEST_F(hold_test, times_out_and_says_so) {
  const auto t0 = std::chrono::steady_clock::now();
  k::launch_hold(flags.device(), flags.device() + 1, 0.2, stream().handle());
  stream().synchronize();
  const double waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_TRUE(timed_out());
  EXPECT_GE(waited, 0.19);
  EXPECT_LT(waited, 5.0);
}

TEST_F(hold_test, released_before_it_starts_it_returns_at_once) {
  release();
  k::launch_hold(flags.device(), flags.device() + 1, 10.0, stream().handle());
  const auto t0 = std::chrono::steady_clock::now();
  stream().synchronize();
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 1.0);
  EXPECT_FALSE(timed_out());
}
