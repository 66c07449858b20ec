#include "gpuspec/cli/backend.hpp"

#include "gpuspec/benches/cuda_worker.hpp"
#include "gpuspec/benches/device_offer.hpp"

namespace gpuspec::cli {

bool backend_can_run_benchmarks() { return true; }

std::string backend_description() {
  return "CUDA build (device architectures: " GPUSPEC_CUDA_ARCHITECTURES ")";
}

void backend_enrich(reports::host_info& host, std::vector<reports::device_info>& devices) {
  benches::enrich_with_cuda(host, devices);
}

reports::built_against_versions backend_built_against() { return benches::cuda_built_against(); }

void backend_runtime_versions(reports::host_info& host) { benches::fill_runtime_versions(host); }

std::vector<host::benchmark_listing> backend_list() { return benches::list_benchmarks(); }

spine::worker_backend backend_worker() { return benches::cuda_worker_backend(); }

} // namespace gpuspec::cli
