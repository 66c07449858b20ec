#pragma once
/// What the CLI needs from the device side. Two implementations, chosen by CMake rather than
/// by #if: backend_cuda.cpp (GPUSPEC_CUDA=ON) forwards to gpuspec_benches; backend_none.cpp
/// (host-only build) says plainly that no benchmark can run.

#include <string>
#include <vector>

#include "gpuspec/host/benchmark_listing.hpp"
#include "gpuspec/reports/model/report.hpp"
#include "gpuspec/spine/worker.hpp"

namespace gpuspec::cli {

/// False in a host-only build.
[[nodiscard]] bool backend_can_run_benchmarks();
/// One line for `gpuspec info` and error messages, e.g. "CUDA 13.0 build (sm_75 ... sm_90)".
[[nodiscard]] std::string backend_description();
void backend_enrich(reports::host_info& host, std::vector<reports::device_info>& devices);
/// The CUDA toolkit, cuBLAS and NCCL this build was compiled against ("not built in (host-only
/// build)" in a host-only build); `nvml` is left empty (build_info.cpp fills it).
[[nodiscard]] reports::built_against_versions backend_built_against();
/// The runtime, cuBLAS and NCCL versions found at run time, and the CUDA driver's where NVML
/// did not say it, into `host` (what backend_enrich records first, without the devices).
void backend_runtime_versions(reports::host_info& host);
[[nodiscard]] std::vector<host::benchmark_listing> backend_list();
/// What `gpuspec __worker` measures with.
[[nodiscard]] spine::worker_backend backend_worker();

} // namespace gpuspec::cli
