// The NVML event watcher (host nvml_events.hpp) against the fake NVML's event API:
// registration by what each GPU supports, delivery after the fixture's time, the window query,
// the bound, and a driver whose GPUs report no events.

#include "gpuspec/host/nvml_events.hpp"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "gpuspec/host/nvml_library.hpp"

namespace gb = gpuspec::host;
using gpuspec::reports::gpu_event_type;
using namespace std::chrono_literals;

namespace {

const std::string fake_path = GPUSPEC_FAKE_NVML_PATH;
const std::filesystem::path configs = GPUSPEC_FAKE_NVML_CONFIGS;

gb::nvml_library open_fake(const std::string& config) {
  ::setenv("GPUSPEC_FAKE_NVML_CONFIG", (configs / config).c_str(), 1);
  std::string why;
  auto nvml = gb::nvml_library::open(why, fake_path);
  if (!nvml)
    throw std::runtime_error(why);
  return std::move(*nvml);
}

/// Waits (at most `limit`) until `device` has `count` events.
bool wait_for(const gb::nvml_event_watcher& w, int device, std::size_t count,
              std::chrono::milliseconds limit = 3000ms) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < until) {
    if (w.events(device, {}, std::chrono::steady_clock::time_point::max()).size() >= count)
      return true;
    std::this_thread::sleep_for(10ms);
  }
  return false;
}

TEST(NvmlEvents, ResolvesTheEventApiOfTheFake) {
  const auto nvml = open_fake("two-with-events.json");
  EXPECT_NE(nvml.api().event_set_create, nullptr);
  EXPECT_NE(nvml.api().event_set_wait, nullptr);
  EXPECT_NE(nvml.api().register_events, nullptr);
  EXPECT_NE(nvml.api().supported_event_types, nullptr);
  EXPECT_NE(nvml.api().event_set_free, nullptr);
}

TEST(NvmlEvents, DeliversEachEventOnceAfterItsTimeWithTheXid) {
  const auto nvml = open_fake("two-with-events.json");
  const auto start = std::chrono::steady_clock::now();
  const gb::nvml_event_watcher w(nvml, {0, 1}, 20ms);
  ASSERT_TRUE(w.watching());
  // Nothing is due before 0.2 s.
  std::this_thread::sleep_for(50ms);
  EXPECT_TRUE(w.events(0, {}, std::chrono::steady_clock::time_point::max()).empty());
  ASSERT_TRUE(wait_for(w, 0, 3));
  ASSERT_TRUE(wait_for(w, 1, 1));
  std::this_thread::sleep_for(100ms); // a second delivery would show now
  const auto all = std::chrono::steady_clock::time_point::max();
  const auto gpu0 = w.events(0, {}, all);
  ASSERT_EQ(gpu0.size(), 3U);
  EXPECT_EQ(gpu0[0].type, gpu_event_type::xid);
  EXPECT_EQ(gpu0[0].data, 79U);
  EXPECT_GE(gpu0[0].at - start, 190ms);
  EXPECT_EQ(gpu0[1].type, gpu_event_type::ecc_single_bit);
  EXPECT_EQ(gpu0[2].type, gpu_event_type::ecc_double_bit);
  EXPECT_EQ(gpu0[2].data, 0U);
  // GPU 1 registered Xids only: its clock event never comes.
  const auto gpu1 = w.events(1, {}, all);
  ASSERT_EQ(gpu1.size(), 1U);
  EXPECT_EQ(gpu1[0].data, 13U);
  EXPECT_EQ(gpu1[0].device, 1);
  EXPECT_EQ(w.dropped(), 0U);
}

TEST(NvmlEvents, SaysWhichTypesAGpuLacksWithoutFailing) {
  const auto nvml = open_fake("two-with-events.json");
  const gb::nvml_event_watcher w(nvml, {0, 1}, 20ms);
  const auto& notes = w.notes();
  ASSERT_EQ(notes.size(), 3U);
  EXPECT_EQ(notes[0], "GPU 1 does not report single-bit ECC events");
  EXPECT_EQ(notes[1], "GPU 1 does not report double-bit ECC events");
  EXPECT_EQ(notes[2], "GPU 1 does not report clock-change events");
}

TEST(NvmlEvents, AWindowHoldsOnlyItsOwnEvents) {
  const auto nvml = open_fake("two-with-events.json");
  const gb::nvml_event_watcher w(nvml, {0}, 20ms);
  ASSERT_TRUE(wait_for(w, 0, 3));
  const auto gpu0 = w.events(0, {}, std::chrono::steady_clock::time_point::max());
  // The window from the first event to just before the second holds the first only.
  const auto window = w.events(0, gpu0[0].at, gpu0[1].at - 1ns);
  ASSERT_EQ(window.size(), 1U);
  EXPECT_EQ(window[0].type, gpu_event_type::xid);
  EXPECT_TRUE(w.events(1, {}, std::chrono::steady_clock::time_point::max()).empty());
}

TEST(NvmlEvents, KeepsTheLatestPastItsCapacityAndCountsTheRest) {
  const auto nvml = open_fake("two-with-events.json");
  const gb::nvml_event_watcher w(nvml, {0}, 20ms, 2);
  const auto until = std::chrono::steady_clock::now() + 3s;
  while (w.dropped() == 0 && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(10ms);
  EXPECT_EQ(w.dropped(), 1U);
  const auto kept = w.events(0, {}, std::chrono::steady_clock::time_point::max());
  ASSERT_EQ(kept.size(), 2U);
  EXPECT_EQ(kept[0].type, gpu_event_type::ecc_single_bit);
  EXPECT_EQ(kept[1].type, gpu_event_type::ecc_double_bit);
}

TEST(NvmlEvents, GpusWithoutEventsAreNotedAndNoThreadRuns) {
  // two-healthy.json has no "supported_events": the fake answers NOT_SUPPORTED, as NVML does.
  const auto nvml = open_fake("two-healthy.json");
  const gb::nvml_event_watcher w(nvml, {0, 1}, 20ms);
  EXPECT_FALSE(w.watching());
  ASSERT_EQ(w.notes().size(), 2U);
  EXPECT_EQ(w.notes()[0], "GPU 0: no events: nvmlDeviceGetSupportedEventTypes: Not Supported");
}

TEST(NvmlEvents, ReportEventsCountFromTheRunsOrigin) {
  const auto origin = std::chrono::steady_clock::now();
  std::vector<gb::nvml_event> events(2);
  events[0] = {origin + 1500ms, 3, gpu_event_type::xid, 79};
  events[1] = {origin + 2s, 3, gpu_event_type::ecc_double_bit, 0};
  const auto r = gb::to_report_events(events, origin);
  ASSERT_EQ(r.size(), 2U);
  EXPECT_DOUBLE_EQ(r[0].time_s, 1.5);
  EXPECT_EQ(r[0].device, 3);
  EXPECT_EQ(r[0].xid, 79);
  EXPECT_EQ(r[0].source, "nvml");
  EXPECT_FALSE(r[1].xid.has_value());
  EXPECT_EQ(r[1].type, gpu_event_type::ecc_double_bit);
}

TEST(NvmlEvents, AResultGetsTheEventsOfItsGpusDuringItsWindow) {
  const auto nvml = open_fake("two-with-events.json");
  const auto origin = std::chrono::steady_clock::now();
  const gb::nvml_event_watcher w(nvml, {0, 1}, 20ms);
  ASSERT_TRUE(wait_for(w, 0, 3));
  ASSERT_TRUE(wait_for(w, 1, 1));
  const auto seconds = [&](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(t - origin).count();
  };
  const auto gpu0 = w.events(0, {}, std::chrono::steady_clock::time_point::max());
  gpuspec::reports::result r;
  r.devices = {0};
  // A window around the single-bit event only.
  r.telemetry.window_start_s = seconds(gpu0[1].at) - 1e-6;
  r.telemetry.window_end_s = seconds(gpu0[1].at) + 1e-6;
  gb::attach_window_events(r, w, origin);
  ASSERT_EQ(r.events.size(), 1U);
  EXPECT_EQ(r.events[0].type, gpu_event_type::ecc_single_bit);
  EXPECT_NEAR(r.events[0].time_s, seconds(gpu0[1].at), 1e-6);
  // A node-wide result over both GPUs and the whole run: every event, in time order.
  r.devices = {0, 1};
  r.telemetry.window_start_s = 0;
  r.telemetry.window_end_s = 1e6;
  gb::attach_window_events(r, w, origin);
  ASSERT_EQ(r.events.size(), 4U);
  for (std::size_t i = 1; i < r.events.size(); ++i)
    EXPECT_LE(r.events[i - 1].time_s, r.events[i].time_s);
  // GPU 1's missing types are said in the observations; nothing was dropped.
  ASSERT_TRUE(r.observations.contains("events_not_watched"));
  EXPECT_EQ(r.observations["events_not_watched"].size(), 3U);
  EXPECT_FALSE(r.observations.contains("events_dropped"));
  // A result that never measured has no window and no events.
  r.telemetry.window_start_s.reset();
  gb::attach_window_events(r, w, origin);
  EXPECT_TRUE(r.events.empty());
}

} // namespace
