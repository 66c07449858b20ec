// NVML opened at run time. nvml.h #defines the unversioned names to the current versions
// (nvmlInit -> nvmlInit_v2, nvmlDeviceGetPciInfo -> nvmlDeviceGetPciInfo_v3, ...), but dlsym
// takes the exported string, so every entry point is resolved by its real exported name here.

#include "gpuspec/host/nvml_library.hpp"

#include <dlfcn.h>

#include <bit>
#include <utility>

#include <fmt/format.h>

namespace gpuspec::host {
namespace {

std::string last_dlerror() {
  const char* text = dlerror();
  return text != nullptr ? text : "unknown dlopen error";
}

/// dlsym into a typed function pointer; null when the library does not export `name`.
template <class Fn> void resolve(void* handle, Fn& out, const char* name) {
  static_assert(sizeof(Fn) == sizeof(void*));
  out = std::bit_cast<Fn>(dlsym(handle, name));
}

/// The entry points without which nothing can be asked; the exported name of the first one
/// `handle` lacks, or nullptr when it has them all.
const char* resolve_required(void* handle, nvml_api& api) {
  resolve(handle, api.init, "nvmlInit_v2");
  resolve(handle, api.shutdown, "nvmlShutdown");
  resolve(handle, api.error_string, "nvmlErrorString");
  resolve(handle, api.device_count, "nvmlDeviceGetCount_v2");
  resolve(handle, api.handle_by_index, "nvmlDeviceGetHandleByIndex_v2");
  const std::pair<const void*, const char*> required[] = {
      {std::bit_cast<const void*>(api.init), "nvmlInit_v2"},
      {std::bit_cast<const void*>(api.shutdown), "nvmlShutdown"},
      {std::bit_cast<const void*>(api.error_string), "nvmlErrorString"},
      {std::bit_cast<const void*>(api.device_count), "nvmlDeviceGetCount_v2"},
      {std::bit_cast<const void*>(api.handle_by_index), "nvmlDeviceGetHandleByIndex_v2"},
  };
  for (const auto& [symbol, name] : required)
    if (symbol == nullptr)
      return name;
  return nullptr;
}

/// The rest, one line an entry point: a null one makes its queries report "not supported".
void resolve_optional(void* handle, nvml_api& api) {
  resolve(handle, api.system_driver_version, "nvmlSystemGetDriverVersion");
  resolve(handle, api.system_cuda_driver_version, "nvmlSystemGetCudaDriverVersion_v2");
  resolve(handle, api.name, "nvmlDeviceGetName");
  resolve(handle, api.uuid, "nvmlDeviceGetUUID");
  resolve(handle, api.serial, "nvmlDeviceGetSerial");
  resolve(handle, api.vbios, "nvmlDeviceGetVbiosVersion");
  resolve(handle, api.pci_info, "nvmlDeviceGetPciInfo_v3");
  resolve(handle, api.compute_capability, "nvmlDeviceGetCudaComputeCapability");
  resolve(handle, api.memory_info, "nvmlDeviceGetMemoryInfo");
  resolve(handle, api.clock_info, "nvmlDeviceGetClockInfo");
  resolve(handle, api.max_clock_info, "nvmlDeviceGetMaxClockInfo");
  resolve(handle, api.memory_bus_width, "nvmlDeviceGetMemoryBusWidth");
  resolve(handle, api.pcie_gen_current, "nvmlDeviceGetCurrPcieLinkGeneration");
  resolve(handle, api.pcie_gen_max, "nvmlDeviceGetMaxPcieLinkGeneration");
  resolve(handle, api.gpu_pcie_gen_max, "nvmlDeviceGetGpuMaxPcieLinkGeneration");
  resolve(handle, api.pcie_width_current, "nvmlDeviceGetCurrPcieLinkWidth");
  resolve(handle, api.pcie_width_max, "nvmlDeviceGetMaxPcieLinkWidth");
  resolve(handle, api.power_limit, "nvmlDeviceGetPowerManagementLimit");
  resolve(handle, api.power_limit_default, "nvmlDeviceGetPowerManagementDefaultLimit");
  resolve(handle, api.power_limit_constraints, "nvmlDeviceGetPowerManagementLimitConstraints");
  resolve(handle, api.power_usage, "nvmlDeviceGetPowerUsage");
  resolve(handle, api.temperature, "nvmlDeviceGetTemperature");
  resolve(handle, api.temperature_threshold, "nvmlDeviceGetTemperatureThreshold");
  resolve(handle, api.ecc_mode, "nvmlDeviceGetEccMode");
  resolve(handle, api.mig_mode, "nvmlDeviceGetMigMode");
  resolve(handle, api.persistence_mode, "nvmlDeviceGetPersistenceMode");
  resolve(handle, api.max_mig_device_count, "nvmlDeviceGetMaxMigDeviceCount");
  resolve(handle, api.mig_device_handle_by_index, "nvmlDeviceGetMigDeviceHandleByIndex");
  resolve(handle, api.gpu_instance_id, "nvmlDeviceGetGpuInstanceId");
  resolve(handle, api.compute_instance_id, "nvmlDeviceGetComputeInstanceId");
  resolve(handle, api.device_attributes, "nvmlDeviceGetAttributes_v2");
  resolve(handle, api.c2c_mode_info, "nvmlDeviceGetC2cModeInfoV");
  resolve(handle, api.addressing_mode, "nvmlDeviceGetAddressingMode");
  resolve(handle, api.total_ecc_errors, "nvmlDeviceGetTotalEccErrors");
  resolve(handle, api.retired_pages, "nvmlDeviceGetRetiredPages");
  resolve(handle, api.retired_pages_pending, "nvmlDeviceGetRetiredPagesPendingStatus");
  resolve(handle, api.remapped_rows, "nvmlDeviceGetRemappedRows");
  resolve(handle, api.pcie_replay_counter, "nvmlDeviceGetPcieReplayCounter");
  resolve(handle, api.nvlink_state, "nvmlDeviceGetNvLinkState");
  resolve(handle, api.nvlink_error_counter, "nvmlDeviceGetNvLinkErrorCounter");
  resolve(handle, api.compute_processes, "nvmlDeviceGetComputeRunningProcesses_v3");
  resolve(handle, api.graphics_processes, "nvmlDeviceGetGraphicsRunningProcesses_v3");
  resolve(handle, api.utilization, "nvmlDeviceGetUtilizationRates");
  resolve(handle, api.gpu_fabric_info, "nvmlDeviceGetGpuFabricInfoV");
  resolve(handle, api.nvlink_version, "nvmlDeviceGetNvLinkVersion");
  resolve(handle, api.nvlink_remote_pci, "nvmlDeviceGetNvLinkRemotePciInfo_v2");
  resolve(handle, api.nvlink_remote_type, "nvmlDeviceGetNvLinkRemoteDeviceType");
  resolve(handle, api.topology_common_ancestor, "nvmlDeviceGetTopologyCommonAncestor");
  resolve(handle, api.p2p_status, "nvmlDeviceGetP2PStatus");
  resolve(handle, api.event_set_create, "nvmlEventSetCreate");
  resolve(handle, api.event_set_free, "nvmlEventSetFree");
  resolve(handle, api.supported_event_types, "nvmlDeviceGetSupportedEventTypes");
  resolve(handle, api.register_events, "nvmlDeviceRegisterEvents");
  resolve(handle, api.event_set_wait, "nvmlEventSetWait_v2");
  resolve(handle, api.clocks_event_reasons, "nvmlDeviceGetCurrentClocksEventReasons");
  if (api.clocks_event_reasons == nullptr)
    resolve(handle, api.clocks_event_reasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
}

} // namespace

std::string nvml_header_api_version() { return NVML_API_VERSION_STR; }

std::optional<nvml_library> nvml_library::open(std::string& why, const std::string& library_path) {
  dlerror(); // clear a stale message
  void* handle = dlopen(library_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    why =
        fmt::format("no NVIDIA driver: {} could not be opened ({})", library_path, last_dlerror());
    return std::nullopt;
  }

  nvml_api api;
  if (const char* missing = resolve_required(handle, api)) {
    why = fmt::format("{} does not export {}: the NVIDIA driver is too old, or the file is not "
                      "NVML",
                      library_path, missing);
    dlclose(handle);
    return std::nullopt;
  }
  resolve_optional(handle, api);

  const nvmlReturn_t status = api.init();
  if (status != NVML_SUCCESS) {
    const char* text = api.error_string(status);
    why = fmt::format("nvmlInit_v2 failed: {} (is the NVIDIA kernel module loaded?)",
                      text != nullptr ? text
                                      : fmt::format("NVML error {}", static_cast<int>(status)));
    dlclose(handle);
    return std::nullopt;
  }
  return nvml_library(handle, api);
}

nvml_library::nvml_library(nvml_library&& other) noexcept
    : m_handle(std::exchange(other.m_handle, nullptr)), m_api(std::exchange(other.m_api, {})) {}

nvml_library& nvml_library::operator=(nvml_library&& other) noexcept {
  if (this != &other) {
    close();
    m_handle = std::exchange(other.m_handle, nullptr);
    m_api = std::exchange(other.m_api, {});
  }
  return *this;
}

nvml_library::~nvml_library() { close(); }

void nvml_library::close() noexcept {
  if (m_handle == nullptr)
    return;
  if (m_api.shutdown != nullptr)
    m_api.shutdown(); // nothing useful to do with a failure while closing
  dlclose(m_handle);
  m_handle = nullptr;
  m_api = {};
}

std::string nvml_library::error_text(nvmlReturn_t status) const {
  if (m_api.error_string != nullptr) {
    if (const char* text = m_api.error_string(status); text != nullptr)
      return text;
  }
  return fmt::format("NVML error {}", static_cast<int>(status));
}

} // namespace gpuspec::host
