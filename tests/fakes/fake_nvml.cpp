// A fake libnvidia-ml for tests: the NVML entry points gpuspec resolves, answering from a JSON
// file named by $GPUSPEC_FAKE_NVML_CONFIG (format: tests/fakes/README.md). Without the variable
// it is a driver with no GPU. The configuration is read on the first nvmlInit_v2 (NVML's
// initialisation is reference-counted; the last nvmlShutdown forgets it).
//
// Deliberately exported under the older clocks name only (nvmlDeviceGetCurrentClocksThrottle-
// Reasons), so gpuspec's fallback from nvmlDeviceGetCurrentClocksEventReasons is exercised.

#include <nvml.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

// nvml.h leaves the device struct opaque; the fake's handle is its index, and a MIG device's
// handle its GPU's index and its place in the GPU's "mig" "devices".
struct nvmlDevice_st {
  unsigned index = 0;
  int mig = -1; ///< -1: the GPU itself
};

// An event set: when it was made (a fixture's event times count from then), the types each
// device registered, and the fixture events it has delivered.
struct nvmlEventSet_st {
  std::mutex mutex;
  std::chrono::steady_clock::time_point created = std::chrono::steady_clock::now();
  std::map<unsigned, unsigned long long> registered;    ///< device index -> nvmlEventType mask
  std::set<std::pair<unsigned, std::size_t>> delivered; ///< (device, index in its "events")
};

namespace {

using json = nlohmann::json;

struct fake_state {
  std::mutex mutex;
  int init_count = 0;
  json config = json::object();
  std::vector<nvmlDevice_st> handles;
  std::vector<std::vector<nvmlDevice_st>> mig_handles; ///< per GPU, one per "mig" "devices" entry
};

fake_state& state() {
  static fake_state s;
  return s;
}

const std::map<std::string, nvmlReturn_t>& error_names() {
  static const std::map<std::string, nvmlReturn_t> names = {
      {"SUCCESS", NVML_SUCCESS},
      {"UNINITIALIZED", NVML_ERROR_UNINITIALIZED},
      {"INVALID_ARGUMENT", NVML_ERROR_INVALID_ARGUMENT},
      {"NOT_SUPPORTED", NVML_ERROR_NOT_SUPPORTED},
      {"NO_PERMISSION", NVML_ERROR_NO_PERMISSION},
      {"NOT_FOUND", NVML_ERROR_NOT_FOUND},
      {"INSUFFICIENT_SIZE", NVML_ERROR_INSUFFICIENT_SIZE},
      {"INSUFFICIENT_POWER", NVML_ERROR_INSUFFICIENT_POWER},
      {"DRIVER_NOT_LOADED", NVML_ERROR_DRIVER_NOT_LOADED},
      {"TIMEOUT", NVML_ERROR_TIMEOUT},
      {"IRQ_ISSUE", NVML_ERROR_IRQ_ISSUE},
      {"LIBRARY_NOT_FOUND", NVML_ERROR_LIBRARY_NOT_FOUND},
      {"FUNCTION_NOT_FOUND", NVML_ERROR_FUNCTION_NOT_FOUND},
      {"CORRUPTED_INFOROM", NVML_ERROR_CORRUPTED_INFOROM},
      {"GPU_IS_LOST", NVML_ERROR_GPU_IS_LOST},
      {"RESET_REQUIRED", NVML_ERROR_RESET_REQUIRED},
      {"OPERATING_SYSTEM", NVML_ERROR_OPERATING_SYSTEM},
      {"LIB_RM_VERSION_MISMATCH", NVML_ERROR_LIB_RM_VERSION_MISMATCH},
      {"NO_DATA", NVML_ERROR_NO_DATA},
      {"ARGUMENT_VERSION_MISMATCH", NVML_ERROR_ARGUMENT_VERSION_MISMATCH},
      {"UNKNOWN", NVML_ERROR_UNKNOWN},
  };
  return names;
}

/// "NVML_ERROR_GPU_IS_LOST", "GPU_IS_LOST" or a number.
nvmlReturn_t parse_error(const json& value) {
  if (value.is_number_integer())
    return static_cast<nvmlReturn_t>(value.get<int>());
  std::string name = value.get<std::string>();
  for (const char* prefix : {"NVML_ERROR_", "NVML_"})
    if (name.rfind(prefix, 0) == 0)
      name = name.substr(std::strlen(prefix));
  const auto it = error_names().find(name);
  if (it == error_names().end()) {
    std::fprintf(stderr, "fake NVML: unknown error name '%s' in the configuration\n",
                 value.get<std::string>().c_str());
    return NVML_ERROR_UNKNOWN;
  }
  return it->second;
}

/// The device of a handle, or null for a handle the fake did not give out.
const json* device_of(nvmlDevice_t device) {
  auto& s = state();
  if (device == nullptr || s.init_count == 0)
    return nullptr;
  const json& devices = s.config.at("devices");
  if (device->index >= devices.size())
    return nullptr;
  if (device->mig >= 0) // a MIG device: its own entry answers (tests/fakes/README.md)
    return &devices[device->index].at("mig").at("devices").at(
        static_cast<std::size_t>(device->mig));
  return &devices[device->index];
}

/// The status a query answers before looking at values: a lost device, an injected error,
/// or success. `query` is the exported NVML name, as in the configuration's "errors".
nvmlReturn_t gate(nvmlDevice_t device, const char* query, const json*& dev) {
  if (state().init_count == 0)
    return NVML_ERROR_UNINITIALIZED;
  dev = device_of(device);
  if (dev == nullptr)
    return NVML_ERROR_INVALID_ARGUMENT;
  if (dev->contains("fail_all"))
    return parse_error((*dev)["fail_all"]);
  if (dev->contains("errors") && (*dev)["errors"].contains(query))
    return parse_error((*dev)["errors"][query]);
  return NVML_SUCCESS;
}

/// The value at a path of keys, or null when any part is absent (the fake then answers
/// NOT_SUPPORTED, as NVML does for what a GPU lacks).
const json* find(const json& root, std::initializer_list<const char*> path) {
  const json* at = &root;
  for (const char* key : path) {
    if (!at->is_object() || !at->contains(key) || (*at)[key].is_null())
      return nullptr;
    at = &(*at)[key];
  }
  return at;
}

template <class T>
nvmlReturn_t number(nvmlDevice_t device, const char* query, T* out,
                    std::initializer_list<const char*> path) {
  const json* dev = nullptr;
  if (const nvmlReturn_t g = gate(device, query, dev); g != NVML_SUCCESS)
    return g;
  if (out == nullptr)
    return NVML_ERROR_INVALID_ARGUMENT;
  const json* v = find(*dev, path);
  if (v == nullptr)
    return NVML_ERROR_NOT_SUPPORTED;
  if (v->is_string()) // hex, e.g. "0x233010DE"
    *out = static_cast<T>(std::stoull(v->get<std::string>(), nullptr, 0));
  else
    *out = v->get<T>();
  return NVML_SUCCESS;
}

nvmlReturn_t text(nvmlDevice_t device, const char* query, char* out, unsigned length,
                  const char* key) {
  const json* dev = nullptr;
  if (const nvmlReturn_t g = gate(device, query, dev); g != NVML_SUCCESS)
    return g;
  const json* v = find(*dev, {key});
  if (v == nullptr)
    return NVML_ERROR_NOT_SUPPORTED;
  const std::string s = v->get<std::string>();
  if (out == nullptr || length < s.size() + 1)
    return NVML_ERROR_INSUFFICIENT_SIZE;
  std::memcpy(out, s.c_str(), s.size() + 1);
  return NVML_SUCCESS;
}

nvmlEnableState_t enable_state(const json& v) {
  return (v.is_boolean() ? v.get<bool>() : v.get<int>() != 0) ? NVML_FEATURE_ENABLED
                                                              : NVML_FEATURE_DISABLED;
}

/// A pair of modes {"current": .., "pending": ..} (pending defaults to current).
template <class T, class Convert>
nvmlReturn_t mode_pair(nvmlDevice_t device, const char* query, const char* key, T* current,
                       T* pending, Convert convert) {
  const json* dev = nullptr;
  if (const nvmlReturn_t g = gate(device, query, dev); g != NVML_SUCCESS)
    return g;
  const json* v = find(*dev, {key});
  if (v == nullptr)
    return NVML_ERROR_NOT_SUPPORTED;
  if (current == nullptr || pending == nullptr)
    return NVML_ERROR_INVALID_ARGUMENT;
  *current = convert((*v)["current"]);
  *pending = convert(v->contains("pending") ? (*v)["pending"] : (*v)["current"]);
  return NVML_SUCCESS;
}

/// The active link `link` of a device's "nvlink" list, after the gate; NOT_SUPPORTED without
/// NVLink, INVALID_ARGUMENT past the last link.
nvmlReturn_t nvlink_entry(nvmlDevice_t device, const char* query, unsigned link,
                          const json*& entry) {
  const json* dev = nullptr;
  if (const nvmlReturn_t g = gate(device, query, dev); g != NVML_SUCCESS)
    return g;
  const json* links = find(*dev, {"nvlink"});
  if (links == nullptr)
    return NVML_ERROR_NOT_SUPPORTED;
  if (link >= links->size() || link >= NVML_NVLINK_MAX_LINKS)
    return NVML_ERROR_INVALID_ARGUMENT;
  entry = &(*links)[link];
  return NVML_SUCCESS;
}

/// The cell (a, b) of a top-level matrix of names, or a name that holds for every pair; null
/// when the configuration has neither (the fake then answers NOT_SUPPORTED).
const json* pair_cell(std::initializer_list<const char*> path, unsigned a, unsigned b) {
  const json* v = find(state().config, path);
  if (v == nullptr || v->is_string())
    return v;
  if (!v->is_array() || a >= v->size() || !(*v)[a].is_array() || b >= (*v)[a].size())
    return nullptr;
  return &(*v)[a][b];
}

} // namespace

extern "C" {

nvmlReturn_t nvmlInit_v2(void) {
  auto& s = state();
  const std::lock_guard lock(s.mutex);
  if (s.init_count > 0) {
    ++s.init_count;
    return NVML_SUCCESS;
  }
  json config = json::object();
  if (const char* path = std::getenv("GPUSPEC_FAKE_NVML_CONFIG");
      path != nullptr && *path != '\0') {
    std::ifstream in(path);
    if (!in) {
      std::fprintf(stderr, "fake NVML: cannot open %s\n", path);
      return NVML_ERROR_UNKNOWN;
    }
    try {
      config = json::parse(in);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "fake NVML: %s is not valid JSON: %s\n", path, e.what());
      return NVML_ERROR_UNKNOWN;
    }
  }
  if (config.contains("init_error"))
    return parse_error(config["init_error"]);
  if (!config.contains("devices"))
    config["devices"] = json::array();
  s.config = std::move(config);
  s.handles.assign(s.config["devices"].size(), nvmlDevice_st{});
  s.mig_handles.assign(s.handles.size(), {});
  for (unsigned i = 0; i < s.handles.size(); ++i) {
    s.handles[i].index = i;
    const json& dev = s.config["devices"][i];
    if (dev.contains("mig") && dev["mig"].contains("devices"))
      for (std::size_t m = 0; m < dev["mig"]["devices"].size(); ++m)
        s.mig_handles[i].push_back(nvmlDevice_st{i, static_cast<int>(m)});
  }
  s.init_count = 1;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlShutdown(void) {
  auto& s = state();
  const std::lock_guard lock(s.mutex);
  if (s.init_count == 0)
    return NVML_ERROR_UNINITIALIZED;
  if (--s.init_count == 0) {
    s.config = json::object();
    s.handles.clear();
    s.mig_handles.clear();
  }
  return NVML_SUCCESS;
}

const char* nvmlErrorString(nvmlReturn_t result) {
  // NVML's own words for the common statuses.
  switch (result) {
  case NVML_SUCCESS:
    return "Success";
  case NVML_ERROR_UNINITIALIZED:
    return "Uninitialized";
  case NVML_ERROR_INVALID_ARGUMENT:
    return "Invalid Argument";
  case NVML_ERROR_NOT_SUPPORTED:
    return "Not Supported";
  case NVML_ERROR_NO_PERMISSION:
    return "Insufficient Permissions";
  case NVML_ERROR_NOT_FOUND:
    return "Not Found";
  case NVML_ERROR_INSUFFICIENT_SIZE:
    return "Insufficient Size";
  case NVML_ERROR_DRIVER_NOT_LOADED:
    return "Driver Not Loaded";
  case NVML_ERROR_TIMEOUT:
    return "Timeout";
  case NVML_ERROR_FUNCTION_NOT_FOUND:
    return "Function Not Found";
  case NVML_ERROR_GPU_IS_LOST:
    return "GPU is lost";
  case NVML_ERROR_RESET_REQUIRED:
    return "GPU requires reset";
  case NVML_ERROR_LIB_RM_VERSION_MISMATCH:
    return "RM has detected an NVML/RM version mismatch.";
  case NVML_ERROR_NO_DATA:
    return "No data";
  default:
    return "Unknown Error";
  }
}

nvmlReturn_t nvmlSystemGetDriverVersion(char* version, unsigned int length) {
  auto& s = state();
  if (s.init_count == 0)
    return NVML_ERROR_UNINITIALIZED;
  const std::string v = s.config.value("driver_version", "580.00.00");
  if (version == nullptr || length < v.size() + 1)
    return NVML_ERROR_INSUFFICIENT_SIZE;
  std::memcpy(version, v.c_str(), v.size() + 1);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int* cudaDriverVersion) {
  auto& s = state();
  if (s.init_count == 0)
    return NVML_ERROR_UNINITIALIZED;
  if (cudaDriverVersion == nullptr)
    return NVML_ERROR_INVALID_ARGUMENT;
  *cudaDriverVersion = s.config.value("cuda_driver_version", 13000);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int* deviceCount) {
  auto& s = state();
  if (s.init_count == 0)
    return NVML_ERROR_UNINITIALIZED;
  if (deviceCount == nullptr)
    return NVML_ERROR_INVALID_ARGUMENT;
  *deviceCount = static_cast<unsigned>(s.handles.size());
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t* device) {
  auto& s = state();
  if (s.init_count == 0)
    return NVML_ERROR_UNINITIALIZED;
  if (device == nullptr || index >= s.handles.size())
    return NVML_ERROR_INVALID_ARGUMENT;
  const json& dev = s.config.at("devices").at(index);
  if (dev.contains("handle_error"))
    return parse_error(dev["handle_error"]);
  *device = &s.handles[index];
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char* name, unsigned int length) {
  return text(device, "nvmlDeviceGetName", name, length, "name");
}
nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char* uuid, unsigned int length) {
  return text(device, "nvmlDeviceGetUUID", uuid, length, "uuid");
}
nvmlReturn_t nvmlDeviceGetSerial(nvmlDevice_t device, char* serial, unsigned int length) {
  return text(device, "nvmlDeviceGetSerial", serial, length, "serial");
}
nvmlReturn_t nvmlDeviceGetVbiosVersion(nvmlDevice_t device, char* version, unsigned int length) {
  return text(device, "nvmlDeviceGetVbiosVersion", version, length, "vbios");
}

nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t* pci) {
  const json* dev = nullptr;
  if (const nvmlReturn_t g = gate(device, "nvmlDeviceGetPciInfo_v3", dev); g != NVML_SUCCESS)
    return g;
  const json* p = find(*dev, {"pci"});
  if (p == nullptr)
    return NVML_ERROR_NOT_SUPPORTED;
  if (pci == nullptr)
    return NVML_ERROR_INVALID_ARGUMENT;
  *pci = nvmlPciInfo_t{};
  const auto hex = [&](const char* key) -> unsigned {
    const json* v = find(*p, {key});
    if (v == nullptr)
      return 0;
    return v->is_string() ? static_cast<unsigned>(std::stoul(v->get<std::string>(), nullptr, 0))
                          : v->get<unsigned>();
  };
  pci->domain = hex("domain");
  pci->bus = hex("bus");
  pci->device = hex("device");
  pci->pciDeviceId = hex("device_id");
  pci->pciSubSystemId = hex("subsystem_id");
  const std::string bus_id = p->value("bus_id", "");
  std::snprintf(pci->busId, sizeof(pci->busId), "%s", bus_id.c_str());
  std::snprintf(pci->busIdLegacy, sizeof(pci->busIdLegacy), "%s",
                bus_id.size() > 4 ? bus_id.substr(4).c_str() : bus_id.c_str());
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device, int* major, int* minor) {
  const json* dev = nullptr;
  if (const nvmlReturn_t g = gate(device, "nvmlDeviceGetCudaComputeCapability", dev);
      g != NVML_SUCCESS)
    return g;
  const json* cc = find(*dev, {"compute_capability"});
  if (cc == nullptr)
    return NVML_ERROR_NOT_SUPPORTED;
  if (major == nullptr || minor == nullptr)
    return NVML_ERROR_INVALID_ARGUMENT;
  *major = (*cc)[0].get<int>();
  *minor = (*cc)[1].get<int>();
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t* memory) {
  unsigned long long total = 0;
  const nvmlReturn_t r = number(device, "nvmlDeviceGetMemoryInfo", &total, {"memory_total_bytes"});
  if (r != NVML_SUCCESS)
    return r;
  if (memory == nullptr)
    return NVML_ERROR_INVALID_ARGUMENT;
  memory->total = total;
  memory->used = total / 100;
  memory->free = total - memory->used;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, nvmlClockType_t type,
                                    unsigned int* clock) {
  if (type == NVML_CLOCK_SM)
    return number(device, "nvmlDeviceGetClockInfo", clock, {"clocks", "sm"});
  if (type == NVML_CLOCK_MEM)
    return number(device, "nvmlDeviceGetClockInfo", clock, {"clocks", "mem"});
  return NVML_ERROR_NOT_SUPPORTED;
}

nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t device, nvmlClockType_t type,
                                       unsigned int* clock) {
  if (type == NVML_CLOCK_SM)
    return number(device, "nvmlDeviceGetMaxClockInfo", clock, {"clocks", "sm_max"});
  if (type == NVML_CLOCK_MEM)
    return number(device, "nvmlDeviceGetMaxClockInfo", clock, {"clocks", "mem_max"});
  return NVML_ERROR_NOT_SUPPORTED;
}

nvmlReturn_t nvmlDeviceGetMemoryBusWidth(nvmlDevice_t device, unsigned int* busWidth) {
  return number(device, "nvmlDeviceGetMemoryBusWidth", busWidth, {"memory_bus_width"});
}

nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t device, unsigned int* currLinkGen) {
  return number(device, "nvmlDeviceGetCurrPcieLinkGeneration", currLinkGen, {"pcie", "gen"});
}
nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t device, unsigned int* maxLinkGen) {
  return number(device, "nvmlDeviceGetMaxPcieLinkGeneration", maxLinkGen, {"pcie", "gen_max"});
}
nvmlReturn_t nvmlDeviceGetGpuMaxPcieLinkGeneration(nvmlDevice_t device,
                                                   unsigned int* maxLinkGenDevice) {
  return number(device, "nvmlDeviceGetGpuMaxPcieLinkGeneration", maxLinkGenDevice,
                {"pcie", "gpu_gen_max"});
}
nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t device, unsigned int* currLinkWidth) {
  return number(device, "nvmlDeviceGetCurrPcieLinkWidth", currLinkWidth, {"pcie", "width"});
}
nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t device, unsigned int* maxLinkWidth) {
  return number(device, "nvmlDeviceGetMaxPcieLinkWidth", maxLinkWidth, {"pcie", "width_max"});
}

nvmlReturn_t nvmlDeviceGetPowerManagementLimit(nvmlDevice_t device, unsigned int* limit) {
  return number(device, "nvmlDeviceGetPowerManagementLimit", limit, {"power_mw", "limit"});
}
nvmlReturn_t nvmlDeviceGetPowerManagementDefaultLimit(nvmlDevice_t device,
                                                      unsigned int* defaultLimit) {
  return number(device, "nvmlDeviceGetPowerManagementDefaultLimit", defaultLimit,
                {"power_mw", "default"});
}
nvmlReturn_t nvmlDeviceGetPowerManagementLimitConstraints(nvmlDevice_t device,
                                                          unsigned int* minLimit,
                                                          unsigned int* maxLimit) {
  const nvmlReturn_t r =
      number(device, "nvmlDeviceGetPowerManagementLimitConstraints", minLimit, {"power_mw", "min"});
  if (r != NVML_SUCCESS)
    return r;
  return number(device, "nvmlDeviceGetPowerManagementLimitConstraints", maxLimit,
                {"power_mw", "max"});
}
nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int* power) {
  return number(device, "nvmlDeviceGetPowerUsage", power, {"power_mw", "usage"});
}

nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, nvmlTemperatureSensors_t sensorType,
                                      unsigned int* temp) {
  if (sensorType != NVML_TEMPERATURE_GPU)
    return NVML_ERROR_INVALID_ARGUMENT;
  return number(device, "nvmlDeviceGetTemperature", temp, {"temperature_c"});
}

nvmlReturn_t nvmlDeviceGetTemperatureThreshold(nvmlDevice_t device,
                                               nvmlTemperatureThresholds_t thresholdType,
                                               unsigned int* temp) {
  if (thresholdType != NVML_TEMPERATURE_THRESHOLD_SLOWDOWN)
    return NVML_ERROR_NOT_SUPPORTED;
  return number(device, "nvmlDeviceGetTemperatureThreshold", temp,
                {"temperature_thresholds", "slowdown"});
}

nvmlReturn_t nvmlDeviceGetEccMode(nvmlDevice_t device, nvmlEnableState_t* current,
                                  nvmlEnableState_t* pending) {
  return mode_pair(device, "nvmlDeviceGetEccMode", "ecc_mode", current, pending, enable_state);
}

nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device, unsigned int* currentMode,
                                  unsigned int* pendingMode) {
  return mode_pair(device, "nvmlDeviceGetMigMode", "mig_mode", currentMode, pendingMode,
                   [](const json& v) -> unsigned {
                     return enable_state(v) == NVML_FEATURE_ENABLED ? NVML_DEVICE_MIG_ENABLE
                                                                    : NVML_DEVICE_MIG_DISABLE;
                   });
}

// MIG devices: a GPU's "mig" {"max_devices", "devices": [...]}; a device entry that is null
// leaves its index empty (NOT_FOUND), as NVML answers for an index without a MIG device.
nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t device, unsigned int* count) {
  return number(device, "nvmlDeviceGetMaxMigDeviceCount", count, {"mig", "max_devices"});
}

nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t device, unsigned int index,
                                                 nvmlDevice_t* migDevice) {
  const json* dev = nullptr;
  if (const nvmlReturn_t g = gate(device, "nvmlDeviceGetMigDeviceHandleByIndex", dev);
      g != NVML_SUCCESS)
    return g;
  if (device->mig >= 0 || migDevice == nullptr)
    return NVML_ERROR_INVALID_ARGUMENT;
  const json* devices = find(*dev, {"mig", "devices"});
  if (devices == nullptr)
    return NVML_ERROR_NOT_SUPPORTED;
  if (index >= devices->size() || (*devices)[index].is_null())
    return NVML_ERROR_NOT_FOUND;
  *migDevice = &state().mig_handles.at(device->index).at(index);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t device, unsigned int* id) {
  if (device != nullptr && device->mig < 0)
    return NVML_ERROR_INVALID_ARGUMENT; // asked of a GPU, not of a MIG device
  return number(device, "nvmlDeviceGetGpuInstanceId", id, {"gpu_instance_id"});
}

nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t device, unsigned int* id) {
  if (device != nullptr && device->mig < 0)
    return NVML_ERROR_INVALID_ARGUMENT;
  return number(device, "nvmlDeviceGetComputeInstanceId", id, {"compute_instance_id"});
}

nvmlReturn_t nvmlDeviceGetAttributes_v2(nvmlDevice_t device, nvmlDeviceAttributes_t* attributes) {
  const json* dev = nullptr;
  if (const nvmlReturn_t g = gate(device, "nvmlDeviceGetAttributes_v2", dev); g != NVML_SUCCESS)
    return g;
  const json* a = find(*dev, {"attributes"});
  if (a == nullptr || device->mig < 0) // NVML answers for MIG device handles only
    return NVML_ERROR_NOT_SUPPORTED;
  if (attributes == nullptr)
    return NVML_ERROR_INVALID_ARGUMENT;
  *attributes = nvmlDeviceAttributes_t{};
  attributes->multiprocessorCount = a->value("multiprocessors", 0U);
  attributes->sharedCopyEngineCount = a->value("copy_engines", 0U);
  attributes->gpuInstanceSliceCount = a->value("gpu_instance_slices", 0U);
  attributes->computeInstanceSliceCount = a->value("compute_instance_slices", 0U);
  attributes->memorySizeMB = a->value("memory_mib", 0ULL);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPersistenceMode(nvmlDevice_t device, nvmlEnableState_t* mode) {
  const json* dev = nullptr;
  if (const nvmlReturn_t g = gate(device, "nvmlDeviceGetPersistenceMode", dev); g != NVML_SUCCESS)
    return g;
  const json* v = find(*dev, {"persistence_mode"});
  if (v == nullptr)
    return NVML_ERROR_NOT_SUPPORTED;
  if (mode == nullptr)
    return NVML_ERROR_INVALID_ARGUMENT;
  *mode = enable_state(*v);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t device, nvmlMemoryErrorType_t errorType,
                                         nvmlEccCounterType_t counterType,
                                         unsigned long long* eccCounts) {
  const char* where = counterType == NVML_VOLATILE_ECC ? "volatile" : "aggregate";
  const char* what = errorType == NVML_MEMORY_ERROR_TYPE_CORRECTED ? "corrected" : "uncorrected";
  return number(device, "nvmlDeviceGetTotalEccErrors", eccCounts, {"ecc_errors", where, what});
}

nvmlReturn_t nvmlDeviceGetRetiredPages(nvmlDevice_t device, nvmlPageRetirementCause_t cause,
                                       unsigned int* pageCount, unsigned long long* addresses) {
  const char* key =
      cause == NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR ? "double_bit" : "single_bit";
  if (pageCount == nullptr)
    return NVML_ERROR_INVALID_ARGUMENT;
  unsigned count = 0;
  const nvmlReturn_t r =
      number(device, "nvmlDeviceGetRetiredPages", &count, {"retired_pages", key});
  if (r != NVML_SUCCESS)
    return r;
  // NVML's contract: a buffer too small (or none) gets the count and INSUFFICIENT_SIZE.
  const bool fits = *pageCount >= count;
  if (fits && addresses != nullptr)
    for (unsigned i = 0; i < count; ++i)
      addresses[i] = 0x1000ULL * (i + 1);
  *pageCount = count;
  return fits ? NVML_SUCCESS : NVML_ERROR_INSUFFICIENT_SIZE;
}

nvmlReturn_t nvmlDeviceGetRetiredPagesPendingStatus(nvmlDevice_t device,
                                                    nvmlEnableState_t* isPending) {
  const json* dev = nullptr;
  if (const nvmlReturn_t g = gate(device, "nvmlDeviceGetRetiredPagesPendingStatus", dev);
      g != NVML_SUCCESS)
    return g;
  const json* v = find(*dev, {"retired_pages", "pending"});
  if (v == nullptr)
    return NVML_ERROR_NOT_SUPPORTED;
  if (isPending == nullptr)
    return NVML_ERROR_INVALID_ARGUMENT;
  *isPending = enable_state(*v);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t device, unsigned int* corrRows,
                                       unsigned int* uncRows, unsigned int* isPending,
                                       unsigned int* failureOccurred) {
  const json* dev = nullptr;
  if (const nvmlReturn_t g = gate(device, "nvmlDeviceGetRemappedRows", dev); g != NVML_SUCCESS)
    return g;
  const json* v = find(*dev, {"remapped_rows"});
  if (v == nullptr)
    return NVML_ERROR_NOT_SUPPORTED;
  if (corrRows == nullptr || uncRows == nullptr || isPending == nullptr ||
      failureOccurred == nullptr)
    return NVML_ERROR_INVALID_ARGUMENT;
  *corrRows = v->value("correctable", 0U);
  *uncRows = v->value("uncorrectable", 0U);
  *isPending = v->value("pending", false) ? 1U : 0U;
  *failureOccurred = v->value("failure", false) ? 1U : 0U;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPcieReplayCounter(nvmlDevice_t device, unsigned int* value) {
  return number(device, "nvmlDeviceGetPcieReplayCounter", value, {"pcie_replay"});
}

nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t device, unsigned int link,
                                      nvmlEnableState_t* isActive) {
  const json* dev = nullptr;
  if (const nvmlReturn_t g = gate(device, "nvmlDeviceGetNvLinkState", dev); g != NVML_SUCCESS)
    return g;
  const json* links = find(*dev, {"nvlink"});
  if (links == nullptr)
    return NVML_ERROR_NOT_SUPPORTED;
  if (link >= links->size() || link >= NVML_NVLINK_MAX_LINKS)
    return NVML_ERROR_INVALID_ARGUMENT;
  if (isActive == nullptr)
    return NVML_ERROR_INVALID_ARGUMENT;
  *isActive = enable_state((*links)[link].value("active", false));
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetNvLinkErrorCounter(nvmlDevice_t device, unsigned int link,
                                             nvmlNvLinkErrorCounter_t counter,
                                             unsigned long long* counterValue) {
  const json* dev = nullptr;
  if (const nvmlReturn_t g = gate(device, "nvmlDeviceGetNvLinkErrorCounter", dev);
      g != NVML_SUCCESS)
    return g;
  const json* links = find(*dev, {"nvlink"});
  if (links == nullptr)
    return NVML_ERROR_NOT_SUPPORTED;
  if (link >= links->size() || counterValue == nullptr)
    return NVML_ERROR_INVALID_ARGUMENT;
  const char* key = nullptr;
  switch (counter) {
  case NVML_NVLINK_ERROR_DL_REPLAY:
    key = "replay";
    break;
  case NVML_NVLINK_ERROR_DL_RECOVERY:
    key = "recovery";
    break;
  case NVML_NVLINK_ERROR_DL_CRC_FLIT:
    key = "crc_flit";
    break;
  case NVML_NVLINK_ERROR_DL_CRC_DATA:
    key = "crc_data";
    break;
  default:
    return NVML_ERROR_NOT_SUPPORTED;
  }
  *counterValue = (*links)[link].value(key, 0ULL);
  return NVML_SUCCESS;
}

/// The fixture's "processes" of one kind ("compute" unless said), NVML's two-call contract: a
/// buffer too small (or none) gets the count and INSUFFICIENT_SIZE.
nvmlReturn_t running_processes(nvmlDevice_t device, const char* query, const char* kind,
                               unsigned int* infoCount, nvmlProcessInfo_t* infos) {
  const json* dev = nullptr;
  if (const nvmlReturn_t g = gate(device, query, dev); g != NVML_SUCCESS)
    return g;
  if (infoCount == nullptr)
    return NVML_ERROR_INVALID_ARGUMENT;
  std::vector<const json*> mine;
  if (const json* list = find(*dev, {"processes"}); list != nullptr)
    for (const json& p : *list)
      if (p.value("kind", "compute") == kind)
        mine.push_back(&p);
  const bool fits = *infoCount >= mine.size();
  if (fits && infos != nullptr)
    for (std::size_t i = 0; i < mine.size(); ++i) {
      infos[i].pid = mine[i]->value("pid", 0U);
      infos[i].usedGpuMemory = mine[i]->value("used_memory_mib", 0ULL) << 20;
      infos[i].gpuInstanceId = 0xFFFFFFFFU;
      infos[i].computeInstanceId = 0xFFFFFFFFU;
    }
  *infoCount = static_cast<unsigned int>(mine.size());
  return fits ? NVML_SUCCESS : NVML_ERROR_INSUFFICIENT_SIZE;
}

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device, unsigned int* infoCount,
                                                     nvmlProcessInfo_t* infos) {
  return running_processes(device, "nvmlDeviceGetComputeRunningProcesses_v3", "compute", infoCount,
                           infos);
}

nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v3(nvmlDevice_t device, unsigned int* infoCount,
                                                      nvmlProcessInfo_t* infos) {
  return running_processes(device, "nvmlDeviceGetGraphicsRunningProcesses_v3", "graphics",
                           infoCount, infos);
}

nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t* utilization) {
  const json* dev = nullptr;
  if (const nvmlReturn_t g = gate(device, "nvmlDeviceGetUtilizationRates", dev); g != NVML_SUCCESS)
    return g;
  if (utilization == nullptr)
    return NVML_ERROR_INVALID_ARGUMENT;
  const json* u = find(*dev, {"utilization"});
  utilization->gpu = u == nullptr ? 0U : u->value("gpu", 0U);
  utilization->memory = u == nullptr ? 0U : u->value("memory", 0U);
  return NVML_SUCCESS;
}

/// "fabric": {"state", "status", "cluster_uuid", "clique_id", "health_mask", "health_summary",
/// "struct_version"}: nvmlDeviceGetGpuFabricInfoV of v2 or v3 (struct_version, default 3: a
/// caller asking v3 of a v2 driver gets ARGUMENT_VERSION_MISMATCH, as NVML answers).
nvmlReturn_t nvmlDeviceGetGpuFabricInfoV(nvmlDevice_t device, nvmlGpuFabricInfoV_t* info) {
  const json* dev = nullptr;
  if (const nvmlReturn_t g = gate(device, "nvmlDeviceGetGpuFabricInfoV", dev); g != NVML_SUCCESS)
    return g;
  const json* f = find(*dev, {"fabric"});
  if (f == nullptr)
    return NVML_ERROR_NOT_SUPPORTED;
  if (info == nullptr)
    return NVML_ERROR_INVALID_ARGUMENT;
  const unsigned supported = f->value("struct_version", 3U);
  const unsigned asked = info->version >> 24U;
  if (asked < 2 || asked > supported)
    return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
  const std::string state = f->value("state", std::string("completed"));
  info->state = state == "not_started"   ? NVML_GPU_FABRIC_STATE_NOT_STARTED
                : state == "in_progress" ? NVML_GPU_FABRIC_STATE_IN_PROGRESS
                : state == "completed"   ? NVML_GPU_FABRIC_STATE_COMPLETED
                                         : NVML_GPU_FABRIC_STATE_NOT_SUPPORTED;
  info->status = f->contains("status") ? parse_error((*f)["status"]) : NVML_SUCCESS;
  std::string hex;
  for (const char c : f->value("cluster_uuid", std::string()))
    if (c != '-')
      hex += c;
  for (std::size_t i = 0; i < NVML_GPU_FABRIC_UUID_LEN; ++i)
    info->clusterUuid[i] = static_cast<unsigned char>(
        2 * i + 2 <= hex.size() ? std::stoul(hex.substr(2 * i, 2), nullptr, 16) : 0);
  info->cliqueId = f->value("clique_id", 0U);
  info->healthMask = f->value("health_mask", 0U);
  if (asked >= 3) {
    const std::string summary = f->value("health_summary", std::string());
    info->healthSummary = summary == "healthy"     ? NVML_GPU_FABRIC_HEALTH_SUMMARY_HEALTHY
                          : summary == "unhealthy" ? NVML_GPU_FABRIC_HEALTH_SUMMARY_UNHEALTHY
                          : summary == "limited_capacity"
                              ? NVML_GPU_FABRIC_HEALTH_SUMMARY_LIMITED_CAPACITY
                              : NVML_GPU_FABRIC_HEALTH_SUMMARY_NOT_SUPPORTED;
  }
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetNvLinkVersion(nvmlDevice_t device, unsigned int link,
                                        unsigned int* version) {
  const json* entry = nullptr;
  if (const nvmlReturn_t r = nvlink_entry(device, "nvmlDeviceGetNvLinkVersion", link, entry);
      r != NVML_SUCCESS)
    return r;
  const json* v = find(*entry, {"version"});
  if (v == nullptr)
    return NVML_ERROR_NOT_SUPPORTED;
  if (version == nullptr)
    return NVML_ERROR_INVALID_ARGUMENT;
  *version = v->get<unsigned>();
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t device, unsigned int link,
                                                 nvmlPciInfo_t* pci) {
  const json* entry = nullptr;
  if (const nvmlReturn_t r =
          nvlink_entry(device, "nvmlDeviceGetNvLinkRemotePciInfo_v2", link, entry);
      r != NVML_SUCCESS)
    return r;
  const json* v = find(*entry, {"remote_bus_id"});
  if (v == nullptr)
    return NVML_ERROR_NOT_SUPPORTED;
  if (pci == nullptr)
    return NVML_ERROR_INVALID_ARGUMENT;
  *pci = nvmlPciInfo_t{};
  std::snprintf(pci->busId, sizeof(pci->busId), "%s", v->get<std::string>().c_str());
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetNvLinkRemoteDeviceType(nvmlDevice_t device, unsigned int link,
                                                 nvmlIntNvLinkDeviceType_t* type) {
  const json* entry = nullptr;
  if (const nvmlReturn_t r =
          nvlink_entry(device, "nvmlDeviceGetNvLinkRemoteDeviceType", link, entry);
      r != NVML_SUCCESS)
    return r;
  const json* v = find(*entry, {"remote_type"});
  if (v == nullptr)
    return NVML_ERROR_NOT_SUPPORTED;
  if (type == nullptr)
    return NVML_ERROR_INVALID_ARGUMENT;
  const std::string name = v->get<std::string>();
  *type = name == "gpu"      ? NVML_NVLINK_DEVICE_TYPE_GPU
          : name == "switch" ? NVML_NVLINK_DEVICE_TYPE_SWITCH
          : name == "ibmnpu" ? NVML_NVLINK_DEVICE_TYPE_IBMNPU
                             : NVML_NVLINK_DEVICE_TYPE_UNKNOWN;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetTopologyCommonAncestor(nvmlDevice_t device1, nvmlDevice_t device2,
                                                 nvmlGpuTopologyLevel_t* pathInfo) {
  const json* dev = nullptr;
  for (nvmlDevice_t d : {device1, device2})
    if (const nvmlReturn_t g = gate(d, "nvmlDeviceGetTopologyCommonAncestor", dev);
        g != NVML_SUCCESS)
      return g;
  if (pathInfo == nullptr)
    return NVML_ERROR_INVALID_ARGUMENT;
  const json* cell = pair_cell({"common_ancestor"}, device1->index, device2->index);
  if (cell == nullptr)
    return NVML_ERROR_NOT_SUPPORTED;
  // nvidia-smi topo -m's abbreviations.
  static const std::map<std::string, nvmlGpuTopologyLevel_t> levels = {
      {"X", NVML_TOPOLOGY_INTERNAL},     {"INT", NVML_TOPOLOGY_INTERNAL},
      {"PIX", NVML_TOPOLOGY_SINGLE},     {"PXB", NVML_TOPOLOGY_MULTIPLE},
      {"PHB", NVML_TOPOLOGY_HOSTBRIDGE}, {"NODE", NVML_TOPOLOGY_NODE},
      {"SYS", NVML_TOPOLOGY_SYSTEM}};
  const auto it = levels.find(cell->get<std::string>());
  if (it == levels.end())
    return NVML_ERROR_UNKNOWN;
  *pathInfo = it->second;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetP2PStatus(nvmlDevice_t device1, nvmlDevice_t device2,
                                    nvmlGpuP2PCapsIndex_t p2pIndex, nvmlGpuP2PStatus_t* p2pStatus) {
  const json* dev = nullptr;
  for (nvmlDevice_t d : {device1, device2})
    if (const nvmlReturn_t g = gate(d, "nvmlDeviceGetP2PStatus", dev); g != NVML_SUCCESS)
      return g;
  if (p2pStatus == nullptr)
    return NVML_ERROR_INVALID_ARGUMENT;
  const char* key = p2pIndex == NVML_P2P_CAPS_INDEX_READ     ? "read"
                    : p2pIndex == NVML_P2P_CAPS_INDEX_WRITE  ? "write"
                    : p2pIndex == NVML_P2P_CAPS_INDEX_NVLINK ? "nvlink"
                                                             : nullptr;
  if (key == nullptr)
    return NVML_ERROR_NOT_SUPPORTED;
  const json* cell = pair_cell({"p2p_status", key}, device1->index, device2->index);
  if (cell == nullptr)
    return NVML_ERROR_NOT_SUPPORTED;
  static const std::map<std::string, nvmlGpuP2PStatus_t> statuses = {
      {"OK", NVML_P2P_STATUS_OK},
      {"CHIPSET_NOT_SUPPORTED", NVML_P2P_STATUS_CHIPSET_NOT_SUPPORTED},
      {"GPU_NOT_SUPPORTED", NVML_P2P_STATUS_GPU_NOT_SUPPORTED},
      {"TOPOLOGY_NOT_SUPPORTED", NVML_P2P_STATUS_IOH_TOPOLOGY_NOT_SUPPORTED},
      {"DISABLED_BY_REGKEY", NVML_P2P_STATUS_DISABLED_BY_REGKEY},
      {"NOT_SUPPORTED", NVML_P2P_STATUS_NOT_SUPPORTED},
      {"UNKNOWN", NVML_P2P_STATUS_UNKNOWN}};
  const auto it = statuses.find(cell->get<std::string>());
  *p2pStatus = it == statuses.end() ? NVML_P2P_STATUS_UNKNOWN : it->second;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t device,
                                                       unsigned long long* clocksThrottleReasons) {
  return number(device, "nvmlDeviceGetCurrentClocksThrottleReasons", clocksThrottleReasons,
                {"clocks_event_reasons"});
}

// --- events: "supported_events" and "events" of a device (README) ---------------------------

} // extern "C"

namespace {

/// The NVML bit of an event type named in a fixture; 0 for a name it does not know.
unsigned long long event_bit(const std::string& name) {
  if (name == "xid")
    return nvmlEventTypeXidCriticalError;
  if (name == "single_bit_ecc")
    return nvmlEventTypeSingleBitEccError;
  if (name == "double_bit_ecc")
    return nvmlEventTypeDoubleBitEccError;
  if (name == "clock")
    return nvmlEventTypeClock;
  std::fprintf(stderr, "fake NVML: unknown event type '%s' in the configuration\n", name.c_str());
  return 0;
}

} // namespace

extern "C" {

nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t* set) {
  if (state().init_count == 0)
    return NVML_ERROR_UNINITIALIZED;
  if (set == nullptr)
    return NVML_ERROR_INVALID_ARGUMENT;
  *set = new nvmlEventSet_st();
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t set) {
  if (set == nullptr)
    return NVML_ERROR_INVALID_ARGUMENT;
  delete set;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetSupportedEventTypes(nvmlDevice_t device, unsigned long long* eventTypes) {
  const json* dev = nullptr;
  if (const nvmlReturn_t g = gate(device, "nvmlDeviceGetSupportedEventTypes", dev);
      g != NVML_SUCCESS)
    return g;
  if (eventTypes == nullptr)
    return NVML_ERROR_INVALID_ARGUMENT;
  const json* v = find(*dev, {"supported_events"});
  if (v == nullptr)
    return NVML_ERROR_NOT_SUPPORTED;
  unsigned long long mask = 0;
  for (const auto& name : *v)
    mask |= event_bit(name.get<std::string>());
  *eventTypes = mask;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceRegisterEvents(nvmlDevice_t device, unsigned long long eventTypes,
                                      nvmlEventSet_t set) {
  const json* dev = nullptr;
  if (const nvmlReturn_t g = gate(device, "nvmlDeviceRegisterEvents", dev); g != NVML_SUCCESS)
    return g;
  if (set == nullptr || eventTypes == 0)
    return NVML_ERROR_INVALID_ARGUMENT;
  unsigned long long supported = 0;
  if (nvmlDeviceGetSupportedEventTypes(device, &supported) != NVML_SUCCESS ||
      (eventTypes & ~supported) != 0)
    return NVML_ERROR_NOT_SUPPORTED; // as NVML: none of the types is registered then
  const std::lock_guard lock(set->mutex);
  set->registered[device->index] |= eventTypes;
  return NVML_SUCCESS;
}

} // extern "C"

namespace {

/// The first fixture event due and not yet delivered on a registered device, delivered now.
bool take_due_event(nvmlEventSet_t set, nvmlEventData_t* data) {
  const auto& s = state();
  const std::lock_guard lock(set->mutex);
  const double now_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - set->created).count();
  for (const auto& [index, mask] : set->registered) {
    const json* events = find(s.config["devices"][index], {"events"});
    if (events == nullptr)
      continue;
    for (std::size_t i = 0; i < events->size(); ++i) {
      const json& e = (*events)[i];
      const unsigned long long bit = event_bit(e.at("type").get<std::string>());
      if ((mask & bit) == 0 || e.value("at_s", 0.0) > now_s || set->delivered.contains({index, i}))
        continue;
      set->delivered.insert({index, i});
      data->device = &state().handles[index];
      data->eventType = bit;
      data->eventData = bit == nvmlEventTypeXidCriticalError ? e.value("data", 0ULL) : 0ULL;
      data->gpuInstanceId = 0xFFFFFFFFU;
      data->computeInstanceId = 0xFFFFFFFFU;
      return true;
    }
  }
  return false;
}

} // namespace

extern "C" {

nvmlReturn_t nvmlEventSetWait_v2(nvmlEventSet_t set, nvmlEventData_t* data,
                                 unsigned int timeoutms) {
  if (state().init_count == 0)
    return NVML_ERROR_UNINITIALIZED;
  if (set == nullptr || data == nullptr)
    return NVML_ERROR_INVALID_ARGUMENT;
  // Polls every 5 ms until an event is due or the timeout passes, as NVML sleeps till one comes.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutms);
  for (;;) {
    if (take_due_event(set, data))
      return NVML_SUCCESS;
    if (std::chrono::steady_clock::now() >= deadline)
      return NVML_ERROR_TIMEOUT;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

// NVLink-C2C (Grace-based GPUs): "c2c": {"enabled": true, "addressing_mode": "ats"}; absent
// keys answer NOT_SUPPORTED, as NVML does on a GPU without the link.
nvmlReturn_t nvmlDeviceGetC2cModeInfoV(nvmlDevice_t device, nvmlC2cModeInfo_v1_t* c2cModeInfo) {
  const json* dev = nullptr;
  if (const nvmlReturn_t g = gate(device, "nvmlDeviceGetC2cModeInfoV", dev); g != NVML_SUCCESS)
    return g;
  const json* v = find(*dev, {"c2c", "enabled"});
  if (v == nullptr)
    return NVML_ERROR_NOT_SUPPORTED;
  if (c2cModeInfo == nullptr)
    return NVML_ERROR_INVALID_ARGUMENT;
  c2cModeInfo->isC2cEnabled = enable_state(*v) == NVML_FEATURE_ENABLED ? 1 : 0;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetAddressingMode(nvmlDevice_t device, nvmlDeviceAddressingMode_t* mode) {
  const json* dev = nullptr;
  if (const nvmlReturn_t g = gate(device, "nvmlDeviceGetAddressingMode", dev); g != NVML_SUCCESS)
    return g;
  const json* v = find(*dev, {"c2c", "addressing_mode"});
  if (v == nullptr)
    return NVML_ERROR_NOT_SUPPORTED;
  if (mode == nullptr)
    return NVML_ERROR_INVALID_ARGUMENT;
  const std::string m = v->get<std::string>();
  mode->value = m == "ats"   ? NVML_DEVICE_ADDRESSING_MODE_ATS
                : m == "hmm" ? NVML_DEVICE_ADDRESSING_MODE_HMM
                             : NVML_DEVICE_ADDRESSING_MODE_NONE;
  return NVML_SUCCESS;
}

} // extern "C"
