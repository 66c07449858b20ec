#pragma once
/// libnvidia-ml.so.1 opened at run time (dlopen), so gpuspec starts where there is no driver.
///
/// One owning, move-only handle: it dlopens the library, resolves the entry points gpuspec uses
/// (an entry point missing from an older driver is left null and its queries report
/// "not supported"), calls nvmlInit_v2, and nvmlShutdown + dlclose in its destructor.

#include <memory>
#include <optional>
#include <string>

#include <nvml.h>

namespace gpuspec::benches {

/// The entry points, by their versioned names. A null pointer: the driver lacks it.
struct nvml_api {
  decltype(&::nvmlInit_v2) init = nullptr;
  decltype(&::nvmlShutdown) shutdown = nullptr;
  decltype(&::nvmlErrorString) error_string = nullptr;
  decltype(&::nvmlSystemGetDriverVersion) system_driver_version = nullptr;
  decltype(&::nvmlSystemGetCudaDriverVersion_v2) system_cuda_driver_version = nullptr;
  decltype(&::nvmlDeviceGetCount_v2) device_count = nullptr;
  decltype(&::nvmlDeviceGetHandleByIndex_v2) handle_by_index = nullptr;
  decltype(&::nvmlDeviceGetName) name = nullptr;
  decltype(&::nvmlDeviceGetUUID) uuid = nullptr;
  decltype(&::nvmlDeviceGetSerial) serial = nullptr;
  decltype(&::nvmlDeviceGetVbiosVersion) vbios = nullptr;
  decltype(&::nvmlDeviceGetPciInfo_v3) pci_info = nullptr;
  decltype(&::nvmlDeviceGetCudaComputeCapability) compute_capability = nullptr;
  decltype(&::nvmlDeviceGetMemoryInfo) memory_info = nullptr;
  decltype(&::nvmlDeviceGetClockInfo) clock_info = nullptr;
  decltype(&::nvmlDeviceGetMaxClockInfo) max_clock_info = nullptr;
  decltype(&::nvmlDeviceGetMemoryBusWidth) memory_bus_width = nullptr;
  decltype(&::nvmlDeviceGetCurrPcieLinkGeneration) pcie_gen_current = nullptr;
  decltype(&::nvmlDeviceGetMaxPcieLinkGeneration) pcie_gen_max = nullptr;
  decltype(&::nvmlDeviceGetGpuMaxPcieLinkGeneration) gpu_pcie_gen_max = nullptr;
  decltype(&::nvmlDeviceGetCurrPcieLinkWidth) pcie_width_current = nullptr;
  decltype(&::nvmlDeviceGetMaxPcieLinkWidth) pcie_width_max = nullptr;
  decltype(&::nvmlDeviceGetPowerManagementLimit) power_limit = nullptr;
  decltype(&::nvmlDeviceGetPowerManagementDefaultLimit) power_limit_default = nullptr;
  decltype(&::nvmlDeviceGetPowerManagementLimitConstraints) power_limit_constraints = nullptr;
  decltype(&::nvmlDeviceGetPowerUsage) power_usage = nullptr;
  decltype(&::nvmlDeviceGetTemperature) temperature = nullptr;
  decltype(&::nvmlDeviceGetEccMode) ecc_mode = nullptr;
  decltype(&::nvmlDeviceGetMigMode) mig_mode = nullptr;
  decltype(&::nvmlDeviceGetPersistenceMode) persistence_mode = nullptr;
  decltype(&::nvmlDeviceGetTotalEccErrors) total_ecc_errors = nullptr;
  decltype(&::nvmlDeviceGetRetiredPages) retired_pages = nullptr;
  decltype(&::nvmlDeviceGetRetiredPagesPendingStatus) retired_pages_pending = nullptr;
  decltype(&::nvmlDeviceGetRemappedRows) remapped_rows = nullptr;
  decltype(&::nvmlDeviceGetPcieReplayCounter) pcie_replay_counter = nullptr;
  decltype(&::nvmlDeviceGetNvLinkState) nvlink_state = nullptr;
  decltype(&::nvmlDeviceGetNvLinkErrorCounter) nvlink_error_counter = nullptr;
  /// nvmlDeviceGetCurrentClocksEventReasons (newer drivers) or ...ThrottleReasons (older):
  /// same signature, whichever the driver exports.
  decltype(&::nvmlDeviceGetCurrentClocksThrottleReasons) clocks_event_reasons = nullptr;
};

class nvml_library {
public:
  /// Opens and initialises NVML. On failure returns nullopt and sets `why` to one clear
  /// sentence ("no NVIDIA driver: libnvidia-ml.so.1 not found (...)", "nvmlInit failed: ...").
  static std::optional<nvml_library> open(std::string& why);

  nvml_library(nvml_library&& other) noexcept;
  nvml_library& operator=(nvml_library&& other) noexcept;
  nvml_library(const nvml_library&) = delete;
  nvml_library& operator=(const nvml_library&) = delete;
  ~nvml_library();

  [[nodiscard]] const nvml_api& api() const { return m_api; }
  /// nvmlErrorString's words for a status, or the number if the entry point is missing.
  [[nodiscard]] std::string error_text(nvmlReturn_t status) const;

private:
  nvml_library(void* handle, nvml_api api) : m_handle(handle), m_api(api) {}
  void* m_handle = nullptr;
  nvml_api m_api;
};

} // namespace gpuspec::benches
