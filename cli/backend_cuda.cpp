#include "backend.hpp"

namespace gpuspec::cli {

bool backend_can_run_benchmarks() { return true; }

std::string backend_description() {
  return "CUDA build (device architectures: " GPUSPEC_CUDA_ARCHITECTURES ")";
}

void backend_enrich(reports::host_info& host, std::vector<reports::device_info>& devices) {
  benches::enrich_with_cuda(host, devices);
}

std::vector<benches::benchmark_listing> backend_list() { return benches::list_benchmarks(); }

void backend_run(const benches::run_options& options, const benches::nvml_library* nvml,
                 reports::report& report, benches::run_observer& observer,
                 const std::atomic<bool>& interrupted) {
  benches::run_benchmarks(options, nvml, report, observer, interrupted);
}

} // namespace gpuspec::cli
