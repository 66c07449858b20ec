#pragma once
/// What the device side offers the host side besides measuring (which goes through the worker
/// spine: gpuspec/spine/worker.hpp, cuda_worker.hpp): the registry's listing and the
/// inventory's CUDA enrichment. Host types only, so the CLI's .cpp files include it without
/// CUDA headers; defined in gpuspec_benches (device_offer.cpp).

#include <vector>

#include "gpuspec/host/benchmark_listing.hpp"
#include "gpuspec/reports/model/report.hpp"

namespace gpuspec::benches {

[[nodiscard]] std::vector<host::benchmark_listing> list_benchmarks();

/// The CUDA toolkit (CUDART_VERSION), cuBLAS (CUBLAS_VER_*) and NCCL (nccl.h) headers this
/// build was compiled against; `nvml` is left empty (the host library's, nvml_library.hpp).
[[nodiscard]] reports::built_against_versions cuda_built_against();

/// The versions found at run time: the CUDA runtime, cuBLAS and NCCL, and the CUDA driver
/// (cudaDriverGetVersion) where NVML did not say it. A part not found is left empty, or says
/// why (NCCL: "not found (...)"). Needs no GPU; enrich_with_cuda does this first.
void fill_runtime_versions(reports::host_info& host);

/// Adds what only the CUDA runtime knows: cuda_index (joined by PCI bus id), SM count, L2
/// size, compute capability where NVML lacked it; runtime, cuBLAS and NCCL versions in host.
/// A CUDA error (no device, driver too old) is recorded in host.gpu_status / problems.
void enrich_with_cuda(reports::host_info& host, std::vector<reports::device_info>& devices);

} // namespace gpuspec::benches
