// The device side's offer to the host side (device_offer.hpp): the registry's listing, and the
// inventory enriched with what only the CUDA runtime knows.

#include "gpuspec/benches/device_offer.hpp"

#include <algorithm>
#include <array>

#include <cublas_api.h>
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "gpuspec/benches/registry.hpp"
#include "gpuspec/collectives/nccl_version.hpp"
#include "gpuspec/host/pci_bus_id.hpp"
#include "gpuspec/kernels/cuda_check.cuh"

namespace gpuspec::benches {

namespace {

/// 13000 -> "13.0", 12080 -> "12.8" (CUDART_VERSION's encoding: major*1000 + minor*10).
std::string cuda_version_text(int version) {
  return fmt::format("{}.{}", version / 1000, (version % 1000) / 10);
}

/// "13.0.2" from cublasGetProperty, which needs no handle (and no GPU); "" if it fails.
std::string cublas_version_text() {
  int major = 0, minor = 0, patch = 0;
  if (cublasGetProperty(MAJOR_VERSION, &major) != CUBLAS_STATUS_SUCCESS ||
      cublasGetProperty(MINOR_VERSION, &minor) != CUBLAS_STATUS_SUCCESS ||
      cublasGetProperty(PATCH_LEVEL, &patch) != CUBLAS_STATUS_SUCCESS)
    return {};
  return fmt::format("{}.{}.{}", major, minor, patch);
}

/// Fills what NVML left empty from cudaDeviceGetAttribute (not cudaDeviceProp: CUDA 13 removed
/// several of its fields). A failing query becomes a problem line, never an exception.
void fill_from_cuda_attributes(reports::device_info& d, int ordinal) {
  auto attribute = [&](cudaDeviceAttr attr, const char* name) -> std::optional<int> {
    int value = 0;
    const cudaError_t err = cudaDeviceGetAttribute(&value, attr, ordinal);
    if (err != cudaSuccess) {
      (void)cudaGetLastError();
      d.problems.push_back(fmt::format("CUDA: cudaDeviceGetAttribute({}): {}", name,
                                       kernels::describe_cuda_error(err)));
      return std::nullopt;
    }
    return value;
  };
  if (!d.sm_count)
    d.sm_count = attribute(cudaDevAttrMultiProcessorCount, "cudaDevAttrMultiProcessorCount");
  if (!d.l2_bytes)
    if (auto v = attribute(cudaDevAttrL2CacheSize, "cudaDevAttrL2CacheSize"))
      d.l2_bytes = *v;
  if (!d.cc_major || !d.cc_minor) {
    auto major = attribute(cudaDevAttrComputeCapabilityMajor, "cudaDevAttrComputeCapabilityMajor");
    auto minor = attribute(cudaDevAttrComputeCapabilityMinor, "cudaDevAttrComputeCapabilityMinor");
    if (major && minor) {
      d.cc_major = major;
      d.cc_minor = minor;
    }
  }
  if (!d.memory_bus_width_bits)
    d.memory_bus_width_bits =
        attribute(cudaDevAttrGlobalMemoryBusWidth, "cudaDevAttrGlobalMemoryBusWidth");
}

} // namespace

std::vector<host::benchmark_listing> list_benchmarks() {
  std::vector<host::benchmark_listing> out;
  for (const auto& def : benchmark_registry().benchmarks())
    out.push_back(
        host::benchmark_listing{def.id(), def.description(), def.suites(), def.axes_text()});
  return out;
}

reports::built_against_versions cuda_built_against() {
  reports::built_against_versions v;
  v.cuda = cuda_version_text(CUDART_VERSION);
  v.cublas = fmt::format("{}.{}.{}", CUBLAS_VER_MAJOR, CUBLAS_VER_MINOR, CUBLAS_VER_PATCH);
  v.nccl = collectives::nccl_header_version();
  return v;
}

void fill_runtime_versions(reports::host_info& host) {
  int runtime = 0;
  if (cudaRuntimeGetVersion(&runtime) == cudaSuccess && runtime > 0)
    host.cuda_runtime_version = cuda_version_text(runtime);
  // 0 without a driver; NVML's figure, where it gave one, is the same number.
  int driver = 0;
  if (host.cuda_driver_version.empty() && cudaDriverGetVersion(&driver) == cudaSuccess &&
      driver > 0)
    host.cuda_driver_version = cuda_version_text(driver);
  (void)cudaGetLastError();
  host.cublas_version = cublas_version_text();
  host.nccl_version = collectives::nccl_version();
}

void enrich_with_cuda(reports::host_info& host, std::vector<reports::device_info>& devices) {
  fill_runtime_versions(host);

  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    const std::string why =
        "CUDA runtime: cudaGetDeviceCount: " + kernels::describe_cuda_error(err);
    if (host.gpu_status == "ok")
      host.gpu_status = why;
    for (auto& d : devices)
      d.problems.push_back(why);
    return;
  }
  if (count == 0) {
    if (host.gpu_status == "ok")
      host.gpu_status = "the CUDA runtime reports no device";
    return;
  }

  for (int ordinal = 0; ordinal < count; ++ordinal) {
    std::array<char, 64> bus{};
    const cudaError_t bus_err =
        cudaDeviceGetPCIBusId(bus.data(), static_cast<int>(bus.size()), ordinal);
    if (bus_err != cudaSuccess) {
      (void)cudaGetLastError();
      continue;
    }
    const std::string key = host::normalize_pci_bus_id(bus.data());
    auto match = std::find_if(devices.begin(), devices.end(), [&](const reports::device_info& d) {
      return !key.empty() && host::normalize_pci_bus_id(d.pci_bus_id) == key;
    });
    if (match == devices.end())
      continue;
    match->cuda_index = ordinal;
    fill_from_cuda_attributes(*match, ordinal);
  }
  for (auto& d : devices)
    if (!d.cuda_index)
      d.problems.push_back(
          "not visible to the CUDA runtime (CUDA_VISIBLE_DEVICES, or MIG mode), or no CUDA device "
          "has its PCI bus id " +
          d.pci_bus_id);
}

} // namespace gpuspec::benches
