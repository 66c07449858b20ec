#include "backend.hpp"

#include <stdexcept>

namespace gpuspec::cli {

bool backend_can_run_benchmarks() { return false; }

std::string backend_description() {
  return "host-only build (GPUSPEC_CUDA=OFF): inventory, host checks and report tools only; "
         "benchmarks need the gpuspec-cuda13 package (or a CUDA build)";
}

void backend_enrich(reports::host_info& host, std::vector<reports::device_info>& /*devices*/) {
  host.cuda_runtime_version = "";
  host.cublas_version = "not built with CUDA";
  host.nccl_version = "not built with CUDA";
}

std::vector<benches::benchmark_listing> backend_list() { return {}; }

spine::worker_backend backend_worker() {
  spine::worker_backend b;
  b.name = "none";
  b.plan = [](const spine::plan_request& /*request*/) {
    spine::worker_plan plan;
    plan.backend = "none";
    plan.unavailable = "this is a " + backend_description();
    return plan;
  };
  b.open = [](const spine::worker_assignment&,
              const std::atomic<bool>&) -> std::unique_ptr<spine::case_executor> {
    // The plan says nothing can run, so no coordinator hands this worker an assignment.
    throw std::logic_error("a host-only build has no measuring backend");
  };
  return b;
}

} // namespace gpuspec::cli
