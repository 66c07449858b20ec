// Host tests of the runner's paths that need no working GPU: CUDA inventory enrichment never
// throws, a GPU CUDA cannot see is skipped, a GPU that cannot start fails every case with the
// reason and the run goes on, bad selections are refused.

#include <atomic>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpuspec/benches/runner.hpp"
#include "gpuspec/reports/report_json.hpp"

namespace b = gpuspec::benches;
namespace r = gpuspec::reports;

namespace {

class recording_observer final : public b::run_observer {
public:
  void on_start(const std::string& bench_id, int device, const std::string& params) override {
    starts.push_back(bench_id + "@" + std::to_string(device) + " " + params);
  }
  void on_result(const r::result& result) override { results.push_back(result.bench_id); }
  std::vector<std::string> starts, results;
};

b::run_options quick_stream_options() {
  b::run_options o;
  o.suite = "quick";
  o.filter = "^memory\\.stream\\.";
  o.stream_array_bytes = 1 << 20;
  return o;
}

} // namespace

TEST(runner_host, enrich_records_versions_and_never_throws) {
  r::host_info host;
  std::vector<r::device_info> devices(1);
  devices[0].index = 0;
  devices[0].pci_bus_id = "00000000:3B:00.0";
  EXPECT_NO_THROW(b::enrich_with_cuda(host, devices));
  EXPECT_FALSE(host.cuda_runtime_version.empty()); // the runtime this binary links
  EXPECT_NE(host.cuda_runtime_version.find('.'), std::string::npos);
  EXPECT_FALSE(host.cublas_version.empty());
  EXPECT_FALSE(host.nccl_version.empty());
  if (host.gpu_status != "ok") { // no GPU here: CUDA's reason is recorded, on the device too
    EXPECT_FALSE(devices[0].problems.empty());
  }
}

TEST(runner_host, a_gpu_cuda_cannot_see_is_skipped_with_the_reason) {
  r::report report;
  report.devices.resize(1);
  report.devices[0].index = 3; // no cuda_index: not matched
  recording_observer observer;
  std::atomic<bool> interrupted{false};
  b::run_benchmarks(quick_stream_options(), nullptr, report, observer, interrupted);
  ASSERT_EQ(report.results.size(), 5u);
  for (const auto& res : report.results) {
    EXPECT_EQ(res.status, r::result_status::skipped);
    EXPECT_NE(res.reason.find("not visible to the CUDA runtime"), std::string::npos) << res.reason;
    EXPECT_EQ(res.devices, std::vector<int>{3});
    EXPECT_EQ(r::parameters_of(res).at("dtype"), "fp32");
  }
  EXPECT_EQ(observer.results.size(), 5u);
  EXPECT_NO_THROW((void)r::to_json(report)); // what is produced always writes
}

TEST(runner_host, a_gpu_that_cannot_start_fails_its_cases_and_the_run_goes_on) {
  r::report report;
  report.devices.resize(2);
  report.devices[0].index = 0;
  report.devices[0].cuda_index = 9999; // no such CUDA device, GPU or not
  report.devices[1].index = 1;         // not visible to CUDA
  recording_observer observer;
  std::atomic<bool> interrupted{false};
  b::run_benchmarks(quick_stream_options(), nullptr, report, observer, interrupted);
  ASSERT_EQ(report.results.size(), 10u);
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(report.results[i].status, r::result_status::failed);
    EXPECT_NE(report.results[i].reason.find("could not be started"), std::string::npos)
        << report.results[i].reason;
    EXPECT_NE(report.results[i].reason.find("cudaError"), std::string::npos)
        << report.results[i].reason;
  }
  for (std::size_t i = 5; i < 10; ++i)
    EXPECT_EQ(report.results[i].status, r::result_status::skipped);
  EXPECT_NO_THROW((void)r::to_json(report));
}

TEST(runner_host, interrupted_before_the_start_measures_nothing) {
  r::report report;
  report.devices.resize(1);
  recording_observer observer;
  std::atomic<bool> interrupted{true};
  b::run_benchmarks(quick_stream_options(), nullptr, report, observer, interrupted);
  EXPECT_TRUE(report.results.empty());
}

TEST(runner_host, bad_selections_are_refused) {
  r::report report;
  report.devices.resize(1);
  recording_observer observer;
  std::atomic<bool> interrupted{false};
  auto o = quick_stream_options();
  o.suite = "weekly";
  EXPECT_THROW(b::run_benchmarks(o, nullptr, report, observer, interrupted), std::invalid_argument);
  o = quick_stream_options();
  o.filter = "(";
  EXPECT_THROW(b::run_benchmarks(o, nullptr, report, observer, interrupted), std::invalid_argument);
  o = quick_stream_options();
  o.devices = {7};
  EXPECT_THROW(b::run_benchmarks(o, nullptr, report, observer, interrupted), std::invalid_argument);
  EXPECT_TRUE(report.results.empty());
}
