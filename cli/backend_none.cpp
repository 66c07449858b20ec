#include "backend.hpp"

#include <stdexcept>

namespace gpuspec::cli {

bool backend_can_run_benchmarks() { return false; }

std::string backend_description() {
  return "host-only build (GPUSPEC_CUDA=OFF): inventory, host checks and report tools only";
}

void backend_enrich(reports::host_info& host, std::vector<reports::device_info>& /*devices*/) {
  host.cuda_runtime_version = "";
  host.cublas_version = "not built with CUDA";
  host.nccl_version = "not built with CUDA";
}

std::vector<benches::benchmark_listing> backend_list() { return {}; }

void backend_run(const benches::run_options& /*options*/, const benches::nvml_library* /*nvml*/,
                 reports::report& /*report*/, benches::run_observer& /*observer*/,
                 const std::atomic<bool>& /*interrupted*/) {
  // cmd_run checks backend_can_run_benchmarks() first; reaching here is a bug.
  throw std::logic_error("backend_run called in a host-only build");
}

} // namespace gpuspec::cli
