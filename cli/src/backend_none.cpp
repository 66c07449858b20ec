#include "gpuspec/cli/backend.hpp"

#include <stdexcept>

namespace gpuspec::cli {

bool backend_can_run_benchmarks() { return false; }

std::string backend_description() {
  return "host-only build (GPUSPEC_CUDA=OFF): inventory, host checks and report tools only; "
         "benchmarks need the gpuspec-cuda13 package (or a CUDA build)";
}

namespace {
constexpr const char* not_built_in = "not built in (host-only build)";
} // namespace

void backend_enrich(reports::host_info& host, std::vector<reports::device_info>& /*devices*/) {
  backend_runtime_versions(host);
}

reports::built_against_versions backend_built_against() {
  return {not_built_in, not_built_in, not_built_in, ""};
}

// The CUDA driver's version stays NVML's: the driver is there or not whatever this build holds.
void backend_runtime_versions(reports::host_info& host) {
  host.cuda_runtime_version = not_built_in;
  host.cublas_version = not_built_in;
  host.nccl_version = not_built_in;
}

std::vector<host::benchmark_listing> backend_list() { return {}; }

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
  b.probe = [] {
    // No CUDA runtime to ask: the answer says so, and health judges nothing from it.
    return spine::cuda_probe_answer{"none", 0, "this is a " + backend_description(), ""};
  };
  return b;
}

} // namespace gpuspec::cli
