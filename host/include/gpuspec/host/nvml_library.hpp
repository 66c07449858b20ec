#pragma once
/// libnvidia-ml.so.1 opened at run time (dlopen), so gpuspec starts where there is no driver.
///
/// One owning, move-only handle: it dlopens the library, resolves the entry points gpuspec uses
/// (an entry point missing from an older driver is left null and its queries report
/// "not supported"), calls nvmlInit_v2, and nvmlShutdown + dlclose in its destructor.

#include <optional>
#include <string>

#include <nvml.h>

namespace gpuspec::host {

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
  /// Spelled out rather than decltype'd: nvml.h marks it deprecated from CUDA 13.1, and every
  /// driver still exports it (nvmlDeviceGetTemperatureV is r535+ only).
  nvmlReturn_t (*temperature)(nvmlDevice_t, nvmlTemperatureSensors_t, unsigned int*) = nullptr;
  decltype(&::nvmlDeviceGetTemperatureThreshold) temperature_threshold = nullptr;
  decltype(&::nvmlDeviceGetEccMode) ecc_mode = nullptr;
  decltype(&::nvmlDeviceGetMigMode) mig_mode = nullptr;
  decltype(&::nvmlDeviceGetPersistenceMode) persistence_mode = nullptr;
  // A partitioned GPU's MIG devices (host mig_probe.hpp; docs/mig.md).
  decltype(&::nvmlDeviceGetMaxMigDeviceCount) max_mig_device_count = nullptr;
  decltype(&::nvmlDeviceGetMigDeviceHandleByIndex) mig_device_handle_by_index = nullptr;
  decltype(&::nvmlDeviceGetGpuInstanceId) gpu_instance_id = nullptr;
  decltype(&::nvmlDeviceGetComputeInstanceId) compute_instance_id = nullptr;
  decltype(&::nvmlDeviceGetAttributes_v2) device_attributes = nullptr;
  /// NVLink-C2C (r550+): spelled out, with the layouts of nvmlC2cModeInfo_v1_t (one unsigned,
  /// isC2cEnabled) and nvmlDeviceAddressingMode_v1_t (version, value), which older nvml.h lack.
  nvmlReturn_t (*c2c_mode_info)(nvmlDevice_t, unsigned int*) = nullptr;
  nvmlReturn_t (*addressing_mode)(nvmlDevice_t, unsigned int*) = nullptr;
  decltype(&::nvmlDeviceGetTotalEccErrors) total_ecc_errors = nullptr;
  decltype(&::nvmlDeviceGetRetiredPages) retired_pages = nullptr;
  decltype(&::nvmlDeviceGetRetiredPagesPendingStatus) retired_pages_pending = nullptr;
  decltype(&::nvmlDeviceGetRemappedRows) remapped_rows = nullptr;
  decltype(&::nvmlDeviceGetPcieReplayCounter) pcie_replay_counter = nullptr;
  decltype(&::nvmlDeviceGetNvLinkState) nvlink_state = nullptr;
  decltype(&::nvmlDeviceGetNvLinkErrorCounter) nvlink_error_counter = nullptr;
  decltype(&::nvmlDeviceGetComputeRunningProcesses_v3) compute_processes = nullptr;
  decltype(&::nvmlDeviceGetGraphicsRunningProcesses_v3) graphics_processes = nullptr;
  decltype(&::nvmlDeviceGetUtilizationRates) utilization = nullptr;
  /// The GPU's NVLink fabric registration and domain (r550+; the version-less
  /// nvmlDeviceGetGpuFabricInfo, deprecated in CUDA 13, is not used).
  decltype(&::nvmlDeviceGetGpuFabricInfoV) gpu_fabric_info = nullptr;
  // Topology (host topology.hpp).
  decltype(&::nvmlDeviceGetNvLinkVersion) nvlink_version = nullptr;
  decltype(&::nvmlDeviceGetNvLinkRemotePciInfo_v2) nvlink_remote_pci = nullptr;
  decltype(&::nvmlDeviceGetNvLinkRemoteDeviceType) nvlink_remote_type = nullptr;
  decltype(&::nvmlDeviceGetTopologyCommonAncestor) topology_common_ancestor = nullptr;
  decltype(&::nvmlDeviceGetP2PStatus) p2p_status = nullptr;
  // Events during the run (host nvml_events.hpp).
  decltype(&::nvmlEventSetCreate) event_set_create = nullptr;
  decltype(&::nvmlEventSetFree) event_set_free = nullptr;
  decltype(&::nvmlDeviceGetSupportedEventTypes) supported_event_types = nullptr;
  decltype(&::nvmlDeviceRegisterEvents) register_events = nullptr;
  decltype(&::nvmlEventSetWait_v2) event_set_wait = nullptr;
  /// nvmlDeviceGetCurrentClocksEventReasons (newer drivers) or ...ThrottleReasons (older):
  /// same signature, whichever the driver exports. Spelled out: the older name is deprecated
  /// and the newer one absent from CUDA 12.0/12.1's nvml.h.
  nvmlReturn_t (*clocks_event_reasons)(nvmlDevice_t, unsigned long long*) = nullptr;
};

/// The NVML API version of the nvml.h this build was compiled against (NVML_API_VERSION_STR,
/// "13"): what `gpuspec --version` and a report's run.build say it was built against.
[[nodiscard]] std::string nvml_header_api_version();

class nvml_library {
public:
  /// Opens and initialises NVML from `library_path` (a file name searched the dlopen way, or a
  /// path: tests open the fake in tests/fakes). On failure returns nullopt and sets `why` to
  /// one clear sentence ("no NVIDIA driver: libnvidia-ml.so.1 could not be opened (...)",
  /// "nvmlInit_v2 failed: ...").
  static std::optional<nvml_library> open(std::string& why,
                                          const std::string& library_path = "libnvidia-ml.so.1");

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
  void close() noexcept;
  void* m_handle = nullptr;
  nvml_api m_api;
};

} // namespace gpuspec::host
