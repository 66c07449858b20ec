// The idle precondition's facts (gpu_activity.hpp), from NVML's process lists.

#include "gpuspec/host/gpu_activity.hpp"

#include <vector>

#include <fmt/format.h>

#include "gpuspec/host/host_probe.hpp"

namespace gpuspec::host {
namespace {

using process_query = decltype(nvml_api::compute_processes);

/// NVML's two-call contract: ask with room for `guess`, and again with the count it says when
/// the list grew in between. Returns the status text on failure, "" on success.
std::string list_processes(const nvml_library& nvml, nvmlDevice_t device, process_query query,
                           const char* name, const char* kind,
                           std::vector<reports::gpu_process>& out) {
  if (query == nullptr)
    return fmt::format("{} is not exported by this driver", name);
  std::vector<nvmlProcessInfo_t> infos(16);
  for (int attempt = 0; attempt < 4; ++attempt) {
    auto count = static_cast<unsigned int>(infos.size());
    const nvmlReturn_t status = query(device, &count, infos.data());
    if (status == NVML_ERROR_INSUFFICIENT_SIZE) {
      infos.resize(count + 8);
      continue;
    }
    if (status != NVML_SUCCESS)
      return fmt::format("{}: {}", name, nvml.error_text(status));
    for (unsigned int i = 0; i < count; ++i) {
      reports::gpu_process p;
      p.pid = infos[i].pid;
      // NVML_VALUE_NOT_AVAILABLE (all ones) where the driver cannot tell (WDDM, no permission).
      if (infos[i].usedGpuMemory != ~0ULL)
        p.used_memory_bytes = static_cast<std::int64_t>(infos[i].usedGpuMemory);
      p.kind = kind;
      out.push_back(std::move(p));
    }
    return "";
  }
  return fmt::format("{}: the process list kept growing while it was read", name);
}

} // namespace

reports::gpu_activity read_gpu_activity(const nvml_library& nvml, int index,
                                        const std::filesystem::path& root) {
  reports::gpu_activity out;
  const nvml_api& api = nvml.api();
  nvmlDevice_t device{};
  const nvmlReturn_t got = api.handle_by_index(static_cast<unsigned>(index), &device);
  if (got != NVML_SUCCESS) {
    out.status = "the process list could not be read: nvmlDeviceGetHandleByIndex_v2: " +
                 nvml.error_text(got);
    return out;
  }
  // The compute list is the one that matters (a benchmark shares SMs with it); a driver that
  // lacks only the graphics query still answers the question.
  const std::string compute_failed =
      list_processes(nvml, device, api.compute_processes, "nvmlDeviceGetComputeRunningProcesses_v3",
                     "compute", out.processes);
  if (!compute_failed.empty())
    out.status = "the process list could not be read: " + compute_failed;
  (void)list_processes(nvml, device, api.graphics_processes,
                       "nvmlDeviceGetGraphicsRunningProcesses_v3", "graphics", out.processes);
  for (auto& p : out.processes) {
    const auto comm = read_system_file(root / "proc" / std::to_string(p.pid) / "comm");
    if (comm)
      p.name = *comm;
    while (!p.name.empty() && (p.name.back() == '\n' || p.name.back() == ' '))
      p.name.pop_back();
  }
  if (api.utilization != nullptr) {
    nvmlUtilization_t u{};
    if (api.utilization(device, &u) == NVML_SUCCESS)
      out.utilization_pct = static_cast<int>(u.gpu);
  }
  return out;
}

idle_snapshot read_idle_snapshot(const nvml_library& nvml, int index) {
  idle_snapshot out;
  const nvml_api& api = nvml.api();
  nvmlDevice_t device{};
  if (api.handle_by_index(static_cast<unsigned>(index), &device) != NVML_SUCCESS)
    return out;
  if (api.utilization != nullptr) {
    nvmlUtilization_t u{};
    if (api.utilization(device, &u) == NVML_SUCCESS)
      out.utilization_pct = static_cast<int>(u.gpu);
  }
  if (api.temperature != nullptr) {
    unsigned int t = 0;
    if (api.temperature(device, NVML_TEMPERATURE_GPU, &t) == NVML_SUCCESS)
      out.temperature_c = static_cast<int>(t);
  }
  return out;
}

} // namespace gpuspec::host
