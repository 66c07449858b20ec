// Device test of the whole harness: run_benchmarks over memory.stream.* (fp32 and fp64) with
// tiny arrays whose element counts leave a scalar tail, and a short stopping rule. Every result
// must be ok, verified, with plausible statistics, a ceiling where NVML is present, and a
// report that writes. Then an interruption during the first case.

#include <algorithm>
#include <array>
#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpu_test_support.hpp"
#include "gpuspec/benches/device_probe.hpp"
#include "gpuspec/benches/nvml_library.hpp"
#include "gpuspec/benches/runner.hpp"
#include "gpuspec/reports/report_json.hpp"
#include "gpuspec/reports/units.hpp"

namespace b = gpuspec::benches;
namespace r = gpuspec::reports;

namespace {

class recording_observer : public b::run_observer {
public:
  void on_start(const std::string& bench_id, int device, const std::string& params) override {
    starts.push_back(bench_id + "@" + std::to_string(device) + " " + params);
  }
  void on_result(const r::result& result) override { results.push_back(result.bench_id); }
  std::vector<std::string> starts, results;
};

/// Interrupts the run as soon as the first case starts.
class interrupting_observer final : public recording_observer {
public:
  explicit interrupting_observer(std::atomic<bool>& flag) : m_flag(flag) {}
  void on_start(const std::string& bench_id, int device, const std::string& params) override {
    recording_observer::on_start(bench_id, device, params);
    m_flag.store(true);
  }

private:
  std::atomic<bool>& m_flag;
};

struct run_benchmarks_test : gpuspec::testing::gpu_test {
  void SetUp() override {
    gpu_test::SetUp();
    if (IsSkipped() || HasFatalFailure())
      return;
    std::string why;
    nvml = b::nvml_library::open(why);
    if (nvml) {
      report.devices = b::probe_devices(*nvml);
    } else { // no NVML: one device known only to CUDA, joined by its bus id like the real ones
      r::device_info d;
      d.index = 0;
      std::array<char, 64> bus{};
      ASSERT_EQ(cudaDeviceGetPCIBusId(bus.data(), static_cast<int>(bus.size()), 0), cudaSuccess);
      d.pci_bus_id = bus.data();
      report.devices.push_back(d);
    }
    b::enrich_with_cuda(report.host, report.devices);
    for (const auto& d : report.devices)
      if (d.cuda_index == 0)
        device = d.index;
    ASSERT_TRUE(device.has_value())
        << "CUDA device 0 was not joined to the inventory by PCI bus id";
  }

  b::run_options options() const {
    b::run_options o;
    o.suite = "standard"; // fp32 and fp64
    o.filter = "^memory\\.stream\\.";
    o.devices = {*device};
    o.stream_array_bytes =
        (std::int64_t{1} << 20) + 12; // 262147 floats (tail 3), 131073 doubles (tail 1)
    o.stopping.min_samples = 5;
    o.stopping.max_samples = 40;
    o.stopping.min_seconds = 0.0;
    o.stopping.max_seconds = 2.0;
    return o;
  }

  std::optional<b::nvml_library> nvml;
  r::report report;
  std::optional<int> device;
};

} // namespace

TEST_F(run_benchmarks_test, stream_family_is_ok_verified_and_plausible) {
  recording_observer observer;
  std::atomic<bool> interrupted{false};
  const auto o = options();
  b::run_benchmarks(o, nvml ? &*nvml : nullptr, report, observer, interrupted);

  ASSERT_EQ(report.results.size(), 10u);
  EXPECT_EQ(observer.starts.size(), 10u);
  EXPECT_EQ(observer.results.size(), 10u);
  for (const auto& res : report.results) {
    SCOPED_TRACE(res.bench_id + " " + r::parameters_of(res).dump());
    EXPECT_EQ(res.status, r::result_status::ok) << res.reason;
    EXPECT_EQ(res.check.status, r::verification_status::passed) << res.check.detail;
    EXPECT_EQ(res.devices, std::vector<int>{*device});
    EXPECT_EQ(res.metric, "bandwidth");
    EXPECT_EQ(r::to_string(res.unit), "GB/s");
    EXPECT_EQ(res.cache_state, "cold");
    EXPECT_GE(res.stats.n, 5);
    EXPECT_LE(res.stats.n, 40);
    EXPECT_EQ(res.samples.size(), static_cast<std::size_t>(res.stats.n));
    EXPECT_EQ(res.sample_seconds.size(), res.samples.size());
    for (double s : res.sample_seconds)
      EXPECT_GT(s, 0.0);
    EXPECT_GT(res.stats.median, 1.0);   // GB/s: any GPU moves more than 1 GB/s
    EXPECT_LT(res.stats.median, 1.0e5); // and less than 100 TB/s, even from L2
    EXPECT_GE(res.stats.max, res.stats.median);
    EXPECT_LE(res.stats.min, res.stats.median);
    EXPECT_FALSE(res.stop_reason.empty());
    ASSERT_TRUE(res.host_seconds_median.has_value());
    EXPECT_GT(*res.host_seconds_median, 0.0);

    const bool fp32 = r::parameters_of(res).at("dtype") == "fp32";
    const std::uint64_t elements = fp32 ? 262147u : 131073u;
    EXPECT_EQ(r::parameters_of(res).at("elements").get<std::uint64_t>(), elements);
    EXPECT_EQ(r::parameters_of(res).at("below_4x_l2").get<bool>(), true);
    const int arrays = r::parameters_of(res).at("arrays").get<int>();
    ASSERT_TRUE(res.bytes_per_iteration.has_value());
    EXPECT_DOUBLE_EQ(*res.bytes_per_iteration, static_cast<double>(arrays) *
                                                   static_cast<double>(elements) *
                                                   (fp32 ? 4.0 : 8.0));
    // The metric is the declared bytes over each sample's device seconds.
    EXPECT_NEAR(res.samples[0], *res.bytes_per_iteration / res.sample_seconds[0] / 1e9,
                1e-9 * res.samples[0]);

    EXPECT_FALSE(res.ceiling_value.datasheet.has_value());
    EXPECT_EQ(res.ceiling_value.datasheet_source, "no spec table yet");
    if (nvml) {
      EXPECT_EQ(res.telemetry.status, "ok");
      ASSERT_TRUE(res.ceiling_value.clock_adjusted.has_value())
          << res.ceiling_value.clock_adjusted_source;
      ASSERT_TRUE(res.efficiency.has_value());
      EXPECT_GT(*res.efficiency, 0.0);
    }
  }
  // Both dtypes of every kernel, in registration order.
  EXPECT_EQ(report.results.front().bench_id, "memory.stream.copy");
  EXPECT_EQ(report.results.back().bench_id, "memory.stream.dot");
  EXPECT_NO_THROW((void)r::to_json(report));
}

TEST_F(run_benchmarks_test, an_interruption_keeps_what_was_done_and_starts_nothing_more) {
  std::atomic<bool> interrupted{false};
  interrupting_observer observer(interrupted);
  b::run_benchmarks(options(), nvml ? &*nvml : nullptr, report, observer, interrupted);
  ASSERT_EQ(report.results.size(), 1u); // the case that was running when the flag went up
  EXPECT_EQ(observer.starts.size(), 1u);
  EXPECT_EQ(report.results[0].status, r::result_status::skipped);
  EXPECT_NE(report.results[0].reason.find("interrupted"), std::string::npos)
      << report.results[0].reason;
  EXPECT_EQ(report.results[0].stop_reason, "");
  EXPECT_NO_THROW((void)r::to_json(report));
}
