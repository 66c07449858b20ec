// A partitioned GPU's MIG devices through NVML (mig_probe.hpp). Every query is asked on its
// own; one that fails empties its field and is named in the instance's problems.

#include "gpuspec/host/mig_probe.hpp"

#include <array>
#include <cmath>

#include <fmt/format.h>

namespace gpuspec::host {
namespace {

template <class Fn, class... Args> nvmlReturn_t call(Fn fn, Args... args) {
  return fn == nullptr ? NVML_ERROR_FUNCTION_NOT_FOUND : fn(args...);
}

std::string failure(const nvml_library& nvml, std::string_view query, nvmlReturn_t status) {
  return fmt::format("{}: {}", query,
                     status == NVML_ERROR_FUNCTION_NOT_FOUND ? "not exported by this driver"
                                                             : nvml.error_text(status));
}

/// One MIG device from its handle.
reports::mig_instance probe_instance(const nvml_library& nvml, nvmlDevice_t mig, unsigned index,
                                     const reports::device_info& gpu) {
  const nvml_api& api = nvml.api();
  reports::mig_instance m;
  m.mig_index = static_cast<int>(index);
  std::array<char, NVML_DEVICE_UUID_V2_BUFFER_SIZE> uuid{};
  if (const auto s = call(api.uuid, mig, uuid.data(), static_cast<unsigned>(uuid.size()));
      s == NVML_SUCCESS)
    m.uuid = uuid.data();
  else
    m.problems.push_back(failure(nvml, "nvmlDeviceGetUUID", s));
  unsigned id = 0;
  if (const auto s = call(api.gpu_instance_id, mig, &id); s == NVML_SUCCESS)
    m.gpu_instance_id = static_cast<int>(id);
  else
    m.problems.push_back(failure(nvml, "nvmlDeviceGetGpuInstanceId", s));
  if (const auto s = call(api.compute_instance_id, mig, &id); s == NVML_SUCCESS)
    m.compute_instance_id = static_cast<int>(id);
  else
    m.problems.push_back(failure(nvml, "nvmlDeviceGetComputeInstanceId", s));
  nvmlDeviceAttributes_t a{};
  if (const auto s = call(api.device_attributes, mig, &a); s != NVML_SUCCESS) {
    m.problems.push_back(failure(nvml, "nvmlDeviceGetAttributes", s));
    return m;
  }
  m.sm_count = static_cast<int>(a.multiprocessorCount);
  m.memory_bytes = static_cast<std::int64_t>(a.memorySizeMB) << 20;
  m.copy_engines = static_cast<int>(a.sharedCopyEngineCount);
  m.gpu_slices = static_cast<int>(a.gpuInstanceSliceCount);
  m.compute_slices = static_cast<int>(a.computeInstanceSliceCount);
  m.profile = mig_profile_name(*m.gpu_slices, *m.compute_slices, *m.memory_bytes);
  if (gpu.memory_bytes && gpu.mig_memory_slices)
    m.memory_slices =
        instance_memory_slices(*m.memory_bytes, *gpu.memory_bytes, *gpu.mig_memory_slices);
  return m;
}

} // namespace

std::string mig_profile_name(int gpu_slices, int compute_slices, std::int64_t memory_bytes) {
  const auto gib = static_cast<long long>(
      std::ceil(static_cast<double>(memory_bytes) / static_cast<double>(std::int64_t{1} << 30)));
  const std::string gi = fmt::format("{}g.{}gb", gpu_slices, gib);
  return compute_slices > 0 && compute_slices < gpu_slices
             ? fmt::format("{}c.{}", compute_slices, gi)
             : gi;
}

std::optional<int> mig_memory_slices_for(int max_mig_devices) {
  if (max_mig_devices == 7)
    return 8;
  if (max_mig_devices == 4 || max_mig_devices == 2)
    return max_mig_devices;
  return std::nullopt;
}

std::optional<int> instance_memory_slices(std::int64_t instance_bytes, std::int64_t gpu_bytes,
                                          int gpu_slices) {
  if (gpu_bytes <= 0 || gpu_slices <= 0 || instance_bytes <= 0)
    return std::nullopt;
  const double slice = static_cast<double>(gpu_bytes) / gpu_slices;
  const auto n = static_cast<int>(std::lround(static_cast<double>(instance_bytes) / slice));
  if (n <= 0)
    return std::nullopt;
  return n;
}

void probe_mig(const nvml_library& nvml, nvmlDevice_t device, reports::device_info& d) {
  const nvml_api& api = nvml.api();
  unsigned max = 0;
  if (const auto s = call(api.max_mig_device_count, device, &max); s != NVML_SUCCESS) {
    d.problems.push_back(failure(nvml, "nvmlDeviceGetMaxMigDeviceCount", s));
    return;
  }
  d.mig_memory_slices = mig_memory_slices_for(static_cast<int>(max));
  for (unsigned i = 0; i < max; ++i) {
    nvmlDevice_t mig = nullptr;
    const auto s = call(api.mig_device_handle_by_index, device, i, &mig);
    if (s == NVML_ERROR_NOT_FOUND)
      continue; // no MIG device at this index
    if (s != NVML_SUCCESS) {
      d.problems.push_back(
          failure(nvml, fmt::format("nvmlDeviceGetMigDeviceHandleByIndex({})", i), s));
      continue;
    }
    d.mig_instances.push_back(probe_instance(nvml, mig, i, d));
  }
}

} // namespace gpuspec::host
