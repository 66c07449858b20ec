#pragma once
/// What the CLI needs from the device side. Two implementations, chosen by CMake rather than
/// by #if: backend_cuda.cpp (GPUSPEC_CUDA=ON) forwards to gpuspec_benches; backend_none.cpp
/// (host-only build) says plainly that no benchmark can run.

#include <atomic>
#include <string>
#include <vector>

#include "gpuspec/benches/runner.hpp"
#include "gpuspec/reports/report.hpp"

namespace gpuspec::benches {
class nvml_library;
}

namespace gpuspec::cli {

/// False in a host-only build.
[[nodiscard]] bool backend_can_run_benchmarks();
/// One line for `gpuspec info` and error messages, e.g. "CUDA 13.0 build (sm_75 ... sm_90)".
[[nodiscard]] std::string backend_description();
void backend_enrich(reports::host_info& host, std::vector<reports::device_info>& devices);
[[nodiscard]] std::vector<benches::benchmark_listing> backend_list();
void backend_run(const benches::run_options& options, const benches::nvml_library* nvml,
                 reports::report& report, benches::run_observer& observer,
                 const std::atomic<bool>& interrupted);

} // namespace gpuspec::cli
