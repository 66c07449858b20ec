// Host tests of the CUDA worker backend's paths that need no working GPU: the CUDA inventory
// enrichment never throws, the plan comes from the registry with each benchmark's setup
// allowance, a GPU CUDA cannot see is skipped, a GPU that cannot start fails every case with the
// reason (failure gpu_start), bad selections are refused.

#include <atomic>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpuspec/benches/cuda_worker.hpp"
#include "gpuspec/benches/device_offer.hpp"
#include "gpuspec/host/measurement_options.hpp"
#include "gpuspec/kernels/stream_math.hpp"
#include "gpuspec/reports/model/report_json.hpp"
#include "gpuspec/spine/deadlines.hpp"

namespace b = gpuspec::benches;
namespace r = gpuspec::reports;
namespace spine = gpuspec::spine;

namespace {

spine::worker_assignment stream_assignment(const r::device_info& d) {
  const auto plan = b::cuda_worker_backend().plan({"quick", "^memory\\.stream\\.", {}});
  spine::worker_assignment a;
  a.device = d;
  a.cases = plan.cases;
  a.options.suite = "quick";
  a.options.stream_array_bytes = 1 << 20;
  a.nvml_library = "/nonexistent/libnvidia-ml.so.1"; // no telemetry here
  return a;
}

std::vector<r::result> run_all(const spine::worker_assignment& a) {
  const std::atomic<bool> interrupted{false};
  auto executor = b::cuda_worker_backend().open(a, interrupted);
  std::vector<r::result> out;
  for (const auto& c : a.cases)
    out.push_back(executor->run(c, [](int, double) {}));
  return out;
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

TEST(runner_host, the_plan_is_the_registry_with_each_setup_allowance) {
  const auto plan = b::cuda_worker_backend().plan({"quick", "^memory\\.stream\\.", {}});
  EXPECT_EQ(plan.backend, "cuda");
  EXPECT_TRUE(plan.unavailable.empty());
  // One case per row of the STREAM table; quick: fp32 only.
  ASSERT_EQ(plan.cases.size(), gpuspec::kernels::stream_ops.size());
  EXPECT_EQ(plan.cases.front().bench_id,
            "memory.stream." + std::string(gpuspec::kernels::stream_ops.front().name));
  EXPECT_EQ(plan.cases.front().axes,
            (std::vector<std::pair<std::string, std::string>>{{"dtype", "fp32"}}));
  for (const auto& c : plan.cases)
    EXPECT_EQ(c.setup_allowance_s, spine::default_setup_allowance_s);
  const auto gemm = b::cuda_worker_backend().plan({"quick", "^gemm\\.cublas\\.", {}});
  ASSERT_FALSE(gemm.cases.empty());
  for (const auto& c : gemm.cases)
    EXPECT_GT(c.setup_allowance_s, spine::default_setup_allowance_s) << c.label();
}

TEST(runner_host, the_burnin_suite_is_the_burnin_gemm_for_the_duration_and_the_memory_test) {
  const auto plan = b::cuda_worker_backend().plan({"burnin", "", {}});
  ASSERT_EQ(plan.cases.size(), 2u);
  EXPECT_EQ(plan.cases[0].label(), "burnin.gemm dtype=bf16");
  EXPECT_TRUE(plan.cases[0].runs_for_duration) << "its deadline grows by --duration";
  EXPECT_EQ(plan.cases[1].bench_id, "memory.test");
  EXPECT_FALSE(plan.cases[1].runs_for_duration);
  // The burn-in GEMM runs in no other suite but full; the memory test also in standard.
  EXPECT_TRUE(b::cuda_worker_backend().plan({"quick", "^burnin\\.", {}}).cases.empty());
  EXPECT_EQ(b::cuda_worker_backend().plan({"standard", "^memory\\.test$", {}}).cases.size(), 1u);
  EXPECT_EQ(b::cuda_worker_backend().plan({"full", "^burnin\\.", {}}).cases.size(), 2u);
}

TEST(runner_host, a_gpu_cuda_cannot_see_is_skipped_with_the_reason) {
  r::device_info d;
  d.index = 3; // no cuda_index and no bus id: not matched
  const auto results = run_all(stream_assignment(d));
  ASSERT_EQ(results.size(), gpuspec::kernels::stream_ops.size());
  for (const auto& res : results) {
    EXPECT_EQ(res.status, r::result_status::skipped);
    EXPECT_EQ(res.failure, r::failure_kind::none);
    EXPECT_NE(res.reason.find("not visible to the CUDA runtime"), std::string::npos) << res.reason;
    EXPECT_EQ(res.devices, std::vector<int>{3});
    EXPECT_EQ(res.axes.at("dtype"), "fp32");
    EXPECT_NO_THROW((void)r::result_to_json(res)); // what is produced always writes
    EXPECT_EQ(r::parameters_of(res).at("dtype"), "fp32");
  }
}

TEST(runner_host, a_gpu_that_cannot_start_fails_its_cases_with_the_reason) {
  r::device_info d;
  d.index = 0;
  d.cuda_index = 9999; // no such CUDA device, GPU or not
  const auto results = run_all(stream_assignment(d));
  ASSERT_EQ(results.size(), gpuspec::kernels::stream_ops.size());
  for (const auto& res : results) {
    EXPECT_EQ(res.status, r::result_status::failed);
    EXPECT_EQ(res.failure, r::failure_kind::gpu_start);
    EXPECT_NE(res.reason.find("could not be started"), std::string::npos) << res.reason;
    EXPECT_NE(res.reason.find("cudaError"), std::string::npos) << res.reason;
    EXPECT_NO_THROW((void)r::result_to_json(res));
  }
}

TEST(runner_host, bad_selections_are_refused) {
  const auto backend = b::cuda_worker_backend();
  EXPECT_THROW((void)backend.plan({"weekly", "", {}}), std::invalid_argument);
  EXPECT_THROW((void)backend.plan({"quick", "(", {}}), std::invalid_argument);
  EXPECT_TRUE(backend.plan({"quick", "^no\\.such\\.benchmark$", {}}).cases.empty());
  // The peer pairs fit the node: none on one GPU, a ring both ways on ten in quick.
  EXPECT_TRUE(backend.plan({"quick", "^transfer\\.p2p$", {0}}).cases.empty());
  EXPECT_EQ(
      backend.plan({"quick", "^transfer\\.p2p$", {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}}).cases.size(),
      20u);
}
