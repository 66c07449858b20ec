// The kernel log's Xids since the run started, placed in the report's results
// (host/run_kernel_log.hpp), on the saved log of tests/fixtures/kernel-log.

#include "gpuspec/host/run_kernel_log.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

namespace gb = gpuspec::host;
namespace gr = gpuspec::reports;

namespace {

std::string fixture_log(const std::string& name) {
  std::ifstream in(std::filesystem::path(GPUSPEC_FIXTURES_DIR) / "kernel-log" / name,
                   std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

gr::result result_on(int device, double start_s, double end_s) {
  gr::result r;
  r.bench_id = "memory.stream.triad";
  r.devices = {device};
  r.telemetry.window_start_s = start_s;
  r.telemetry.window_end_s = end_s;
  return r;
}

/// GPU 0 at PCI 18 and GPU 3 at PCI 5d (as eight-healthy.json's), with results whose windows
/// hold (GPU 0) or sit near (GPU 3) the fixture's Xids for a run started 3000 s after boot:
/// Xid 13 at 3601.25 s (601.25 s into the run), Xid 79 twice at 5107.64 s (2107.64 s).
gr::report two_gpu_report() {
  gr::report r;
  r.devices.resize(2);
  r.devices[0].index = 0;
  r.devices[0].pci_bus_id = "00000000:18:00.0";
  r.devices[1].index = 3;
  r.devices[1].pci_bus_id = "00000000:5D:00.0";
  r.results = {result_on(0, 600, 602), result_on(3, 2100, 2105), result_on(3, 2108, 2110)};
  return r;
}

TEST(RunKernelLog, PlacesEachXidAfterTheStartInTheResultOfItsGpu) {
  gr::report r = two_gpu_report();
  const auto placed = gb::place_kernel_log_xids(r, fixture_log("xid79-gpu3.log"), 3000.0);
  EXPECT_EQ(placed.placed, 3U);
  EXPECT_TRUE(placed.notes.empty()) << placed.notes.front();
  ASSERT_EQ(r.results[0].events.size(), 1U);
  const auto& e = r.results[0].events[0];
  EXPECT_EQ(e.xid, 13);
  EXPECT_EQ(e.device, 0);
  EXPECT_EQ(e.source, "kernel_log");
  EXPECT_NEAR(e.time_s, 601.250311, 1e-6);
  EXPECT_EQ(e.detail.find("NVRM: Xid (PCI:0000:18:00): 13, pid=48213"), 0U) << e.detail;
  // 2107.64 s lies between GPU 3's windows, nearer the second (0.36 s) than the first (2.64 s).
  EXPECT_TRUE(r.results[1].events.empty());
  ASSERT_EQ(r.results[2].events.size(), 2U);
  EXPECT_EQ(r.results[2].events[0].xid, 79);
  EXPECT_EQ(r.results[2].events[0].device, 3);
  EXPECT_LE(r.results[2].events[0].time_s, r.results[2].events[1].time_s);
  EXPECT_NE(r.results[2].events[0].detail.find("outside the result's window"), std::string::npos);
}

TEST(RunKernelLog, AnXidOnALostGpuGoesWithItsResultThatHasNoWindow) {
  // GPU 3 fell off the bus: its worker could not start, so its one result failed with no
  // measurement window. Its bus id is the one identify_lost_devices took from the driver.
  gr::report r = two_gpu_report();
  r.results.resize(1);
  gr::result failed;
  failed.bench_id = "memory.stream.copy";
  failed.devices = {3};
  failed.status = gr::result_status::failed;
  failed.failure = gr::failure_kind::gpu_start;
  r.results.push_back(failed);
  const auto placed = gb::place_kernel_log_xids(r, fixture_log("xid79-gpu3.log"), 3000.0);
  EXPECT_EQ(placed.placed, 3U);
  EXPECT_TRUE(placed.notes.empty()) << placed.notes.front();
  ASSERT_EQ(r.results[1].events.size(), 2U);
  EXPECT_EQ(r.results[1].events[0].xid, 79);
  EXPECT_EQ(r.results[1].events[0].device, 3);
  EXPECT_NE(r.results[1].events[0].detail.find("the result has no measurement window"),
            std::string::npos)
      << r.results[1].events[0].detail;
  // A GPU with no result at all: the note names it.
  r.results.resize(1);
  const auto none = gb::place_kernel_log_xids(r, fixture_log("xid79-gpu3.log"), 3000.0);
  EXPECT_EQ(none.placed, 1U);
  ASSERT_EQ(none.notes.size(), 2U);
  EXPECT_NE(none.notes[0].find("on GPU 3"), std::string::npos) << none.notes[0];
}

TEST(RunKernelLog, LeavesOutTheXidsBeforeTheRun) {
  gr::report r = two_gpu_report();
  // Started at 4000 s after boot: the Xid 13 of 3601 s is health's, not the run's.
  const auto placed = gb::place_kernel_log_xids(r, fixture_log("xid79-gpu3.log"), 4000.0);
  EXPECT_EQ(placed.placed, 2U);
  EXPECT_TRUE(r.results[0].events.empty());
  // A run started after every line of the log sees none of them.
  gr::report later = two_gpu_report();
  EXPECT_EQ(gb::place_kernel_log_xids(later, fixture_log("xid79-gpu3.log"), 6000.0).placed, 0U);
  gr::report clean = two_gpu_report();
  EXPECT_EQ(gb::place_kernel_log_xids(clean, fixture_log("clean-boot.log"), 0.0).placed, 0U);
}

TEST(RunKernelLog, AnXidAProgramWroteIntoItsSegfaultLineIsNoEvent) {
  // The program faulted in a file named "NVRM: Xid (PCI:0000:5d:00): 79, ...": the kernel wrote
  // the name inside its segfault line, at 5107.64 s, inside GPU 3's result window.
  gr::report r = two_gpu_report();
  const auto placed =
      gb::place_kernel_log_xids(r, fixture_log("forged-xid79-in-segfault.log"), 3000.0);
  EXPECT_EQ(placed.placed, 0U);
  EXPECT_TRUE(placed.notes.empty());
  for (const auto& res : r.results)
    EXPECT_TRUE(res.events.empty());
}

TEST(RunKernelLog, SaysWhatItCannotPlace) {
  gr::report r = two_gpu_report();
  r.devices.pop_back(); // PCI 5d is no GPU of the inventory now
  r.results.resize(1);
  const std::string log = fixture_log("xid79-gpu3.log") +
                          "Dec  1 12:00:00 host kernel: NVRM: Xid (PCI:0000:18:00): 31, pid=1, "
                          "MMU Fault\n";
  auto placed = gb::place_kernel_log_xids(r, log, 3000.0);
  EXPECT_EQ(placed.placed, 1U);
  ASSERT_EQ(placed.notes.size(), 3U);
  EXPECT_NE(placed.notes[0].find("which no GPU of the inventory has"), std::string::npos);
  EXPECT_NE(placed.notes[2].find("without a monotonic time"), std::string::npos);
  // A GPU without a measured result cannot hold one.
  gr::report unmeasured = two_gpu_report();
  unmeasured.results.clear();
  placed = gb::place_kernel_log_xids(unmeasured, fixture_log("xid79-gpu3.log"), 3000.0);
  EXPECT_EQ(placed.placed, 0U);
  EXPECT_EQ(placed.notes.size(), 3U);
}

TEST(RunKernelLog, ALineAfterTheRunOrFromAnotherBootNeverLandsInAResult) {
  // Ended at 4000 s after boot: the Xid 79s of 5107 s came after the run.
  gr::report ended = two_gpu_report();
  const auto placed =
      gb::place_kernel_log_xids(ended, fixture_log("xid79-gpu3.log"), 3000.0, 4000.0);
  EXPECT_EQ(placed.placed, 1U);
  EXPECT_EQ(ended.results[0].events.size(), 1U);
  EXPECT_TRUE(ended.results[2].events.empty());
  // A saved log of two boots: the earlier boot's Xid 79 at 5107 s counts from another boot, so
  // it is not placed, though its time falls after the run's start; this boot's Xid 13 is.
  gr::report two_boots = two_gpu_report();
  const auto both = gb::place_kernel_log_xids(
      two_boots, fixture_log("dmesg-two-banners-xid79-earlier.log"), 3000.0, 6000.0);
  EXPECT_EQ(both.placed, 1U);
  ASSERT_EQ(two_boots.results[0].events.size(), 1U);
  EXPECT_EQ(two_boots.results[0].events[0].xid, 13);
  EXPECT_TRUE(two_boots.results[1].events.empty());
  EXPECT_TRUE(two_boots.results[2].events.empty());
}

TEST(RunKernelLog, ALogThatIsNotTextPlacesNothingAndSaysSo) {
  gr::report r = two_gpu_report();
  const auto placed = gb::place_kernel_log_xids(r, fixture_log("utf16-xid79-gpu3.log"), 0.0);
  EXPECT_EQ(placed.placed, 0U);
  ASSERT_EQ(placed.notes.size(), 1U);
  EXPECT_NE(placed.notes[0].find("UTF-16"), std::string::npos) << placed.notes[0];
}

} // namespace
