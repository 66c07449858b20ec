// The GPU topology of the inventory (topology.hpp). Each NVML query is asked on its own: one
// that fails leaves its field empty and is named in `problems`, the others still answer, as in
// device_probe.cpp. Nothing here changes a card's settings.

#include "gpuspec/host/topology.hpp"

#include <algorithm>
#include <array>
#include <utility>

#include <fmt/format.h>

#include "gpuspec/host/numa_placement.hpp"
#include "gpuspec/host/pci_bus_id.hpp"

namespace gpuspec::host {
namespace {

using reports::gpu_pair;
using reports::gpu_topology;
using reports::nvlink_port;

/// Calls an entry point, or answers FUNCTION_NOT_FOUND when the driver lacks it.
template <class Fn, class... Args> nvmlReturn_t call(Fn fn, Args... args) {
  return fn == nullptr ? NVML_ERROR_FUNCTION_NOT_FOUND : fn(args...);
}

bool unsupported(nvmlReturn_t status) {
  return status == NVML_ERROR_NOT_SUPPORTED || status == NVML_ERROR_FUNCTION_NOT_FOUND;
}

std::string status_text(const nvml_library& nvml, nvmlReturn_t status) {
  return status == NVML_ERROR_FUNCTION_NOT_FOUND ? "not exported by this driver"
                                                 : nvml.error_text(status);
}

// Per-link, per-direction rates. NVIDIA gives each generation's total as the GPU's NVLink
// bandwidth over all its links, both directions added; one link's rate per direction is that
// total / links / 2.
constexpr std::array<std::pair<unsigned, nvlink_generation>, 7> generations{{
    {NVML_NVLINK_VERSION_1_0,
     {"1.0", 20.0,
      "NVIDIA Tesla P100 whitepaper (WP-08019-001): 4 NVLinks, 160 GB/s bidirectional in "
      "total; 160 / 4 / 2"}},
    {NVML_NVLINK_VERSION_2_0,
     {"2.0", 25.0,
      "NVIDIA Tesla V100 GPU architecture whitepaper (WP-08608-001): 6 NVLinks, 300 GB/s in "
      "total; 300 / 6 / 2"}},
    {NVML_NVLINK_VERSION_2_2,
     {"2.2", 25.0,
      "NVIDIA Tesla V100 GPU architecture whitepaper (WP-08608-001): 6 NVLinks, 300 GB/s in "
      "total; 300 / 6 / 2 (2.2: the same signalling rate)"}},
    {NVML_NVLINK_VERSION_3_0,
     {"3.0", 25.0,
      "NVIDIA A100 Tensor Core GPU architecture whitepaper (WP-10269-001): 12 NVLinks, 600 GB/s "
      "in total; 600 / 12 / 2"}},
    {NVML_NVLINK_VERSION_3_1,
     {"3.1", 25.0,
      "NVIDIA A100 Tensor Core GPU architecture whitepaper (WP-10269-001): 12 NVLinks, 600 GB/s "
      "in total; 600 / 12 / 2 (3.1: the same per-link rate)"}},
    {NVML_NVLINK_VERSION_4_0,
     {"4.0", 25.0,
      "NVIDIA H100 Tensor Core GPU architecture whitepaper (WP-10792-001): 18 NVLinks, 900 GB/s "
      "in total; 900 / 18 / 2"}},
    {NVML_NVLINK_VERSION_5_0,
     {"5.0", 50.0,
      "NVIDIA Blackwell architecture technical brief: 18 NVLinks, 1.8 TB/s in total per GPU; "
      "1800 / 18 / 2"}},
}};

std::string_view remote_type_name(nvmlIntNvLinkDeviceType_t type) {
  switch (type) {
  case NVML_NVLINK_DEVICE_TYPE_GPU:
    return "gpu";
  case NVML_NVLINK_DEVICE_TYPE_IBMNPU:
    return "ibmnpu";
  case NVML_NVLINK_DEVICE_TYPE_SWITCH:
    return "switch";
  default:
    return "unknown";
  }
}

/// Every NVLink of one GPU, its generation and rate.
void probe_nvlinks(const nvml_library& nvml, nvmlDevice_t device, int index,
                   const std::vector<reports::device_info>& devices, gpu_topology& g,
                   std::vector<std::string>& problems) {
  const nvml_api& api = nvml.api();
  std::optional<unsigned> version;
  for (unsigned link = 0; link < NVML_NVLINK_MAX_LINKS; ++link) {
    nvmlEnableState_t state = NVML_FEATURE_DISABLED;
    const nvmlReturn_t status = call(api.nvlink_state, device, link, &state);
    if (status != NVML_SUCCESS) {
      // No NVLink at all, past the GPU's last link, or a real failure (named).
      if (!unsupported(status) && status != NVML_ERROR_INVALID_ARGUMENT)
        problems.push_back(fmt::format("GPU {}: nvmlDeviceGetNvLinkState(link {}): {}", index, link,
                                       status_text(nvml, status)));
      break;
    }
    nvlink_port& port = g.nvlinks.emplace_back();
    port.link = static_cast<int>(link);
    port.active = state == NVML_FEATURE_ENABLED;
    if (!port.active)
      continue;
    nvmlPciInfo_t pci{};
    if (const nvmlReturn_t s = call(api.nvlink_remote_pci, device, link, &pci); s == NVML_SUCCESS) {
      pci.busId[sizeof(pci.busId) - 1] = '\0';
      port.remote_pci_bus_id = pci.busId;
    } else {
      problems.push_back(fmt::format("GPU {}: nvmlDeviceGetNvLinkRemotePciInfo_v2(link {}): {}",
                                     index, link, status_text(nvml, s)));
    }
    nvmlIntNvLinkDeviceType_t type = NVML_NVLINK_DEVICE_TYPE_UNKNOWN;
    if (call(api.nvlink_remote_type, device, link, &type) == NVML_SUCCESS) {
      port.remote_type = remote_type_name(type);
    } else if (!port.remote_pci_bus_id.empty()) {
      // Drivers before r460 cannot say: a far end that is one of the GPUs is a GPU, anything
      // else an NVSwitch (the only other NVLink peer of a PCIe-attached x86 GPU).
      const std::string far = normalize_pci_bus_id(port.remote_pci_bus_id);
      const bool is_gpu = std::any_of(devices.begin(), devices.end(), [&](const auto& d) {
        return normalize_pci_bus_id(d.pci_bus_id) == far;
      });
      port.remote_type = is_gpu ? "gpu" : "switch";
    }
    unsigned v = 0;
    if (!version && call(api.nvlink_version, device, link, &v) == NVML_SUCCESS)
      version = v;
  }
  if (!version)
    return;
  if (const auto gen = nvlink_generation_of(*version)) {
    g.nvlink_version = std::string(gen->version);
    g.nvlink_link_gbs = gen->link_gbs;
    g.nvlink_link_source = std::string(gen->source);
  } else {
    problems.push_back(fmt::format(
        "GPU {}: nvmlDeviceGetNvLinkVersion answered {}, a version this build does not know", index,
        *version));
  }
}

std::string p2p_text(const nvml_library& nvml, nvmlDevice_t a, nvmlDevice_t b,
                     nvmlGpuP2PCapsIndex_t what) {
  nvmlGpuP2PStatus_t status = NVML_P2P_STATUS_UNKNOWN;
  const nvmlReturn_t r = call(nvml.api().p2p_status, a, b, what, &status);
  if (r == NVML_SUCCESS)
    return std::string(p2p_status_name(status));
  if (unsupported(r))
    return "not supported";
  return "unavailable: " + status_text(nvml, r);
}

} // namespace

std::optional<nvlink_generation> nvlink_generation_of(unsigned nvml_version) {
  for (const auto& [value, gen] : generations)
    if (value == nvml_version)
      return gen;
  return std::nullopt;
}

std::string_view pcie_path_name(nvmlGpuTopologyLevel_t level) {
  switch (level) {
  case NVML_TOPOLOGY_INTERNAL:
    return "internal";
  case NVML_TOPOLOGY_SINGLE:
    return "single_switch";
  case NVML_TOPOLOGY_MULTIPLE:
    return "multiple_switches";
  case NVML_TOPOLOGY_HOSTBRIDGE:
    return "host_bridge";
  case NVML_TOPOLOGY_NODE:
    return "numa_node";
  case NVML_TOPOLOGY_SYSTEM:
    return "system";
  }
  return "";
}

std::string_view p2p_status_name(nvmlGpuP2PStatus_t status) {
  switch (status) {
  case NVML_P2P_STATUS_OK:
    return "ok";
  case NVML_P2P_STATUS_CHIPSET_NOT_SUPPORTED:
    return "chipset not supported";
  case NVML_P2P_STATUS_GPU_NOT_SUPPORTED:
    return "gpu not supported";
  case NVML_P2P_STATUS_IOH_TOPOLOGY_NOT_SUPPORTED:
    return "topology not supported";
  case NVML_P2P_STATUS_DISABLED_BY_REGKEY:
    return "disabled by regkey";
  case NVML_P2P_STATUS_NOT_SUPPORTED:
    return "not supported";
  default:
    return "unknown";
  }
}

int nvlink_links_between(const gpu_topology& a, const gpu_topology& b, const std::string& b_bus) {
  const std::string target = normalize_pci_bus_id(b_bus);
  int direct = 0;
  const auto to_switch = [](const gpu_topology& g) {
    return static_cast<int>(std::count_if(g.nvlinks.begin(), g.nvlinks.end(), [](const auto& l) {
      return l.active && l.remote_type == "switch";
    }));
  };
  for (const nvlink_port& l : a.nvlinks)
    if (l.active && l.remote_type != "switch" && !target.empty() &&
        normalize_pci_bus_id(l.remote_pci_bus_id) == target)
      ++direct;
  if (direct > 0)
    return direct;
  return std::min(to_switch(a), to_switch(b));
}

reports::topology_info probe_topology(const nvml_library& nvml,
                                      const std::vector<reports::device_info>& devices,
                                      const std::filesystem::path& root) {
  const nvml_api& api = nvml.api();
  reports::topology_info t;
  std::vector<nvmlDevice_t> handles(devices.size(), nullptr);
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const reports::device_info& d = devices[i];
    gpu_topology& g = t.gpus.emplace_back();
    g.device = d.index;
    const auto locality = read_gpu_numa_locality(root, normalize_pci_bus_id(d.pci_bus_id));
    g.numa_node = locality.node;
    g.cpu_list = locality.cpus_text;
    if (!locality.node)
      t.problems.push_back(fmt::format("GPU {}: no NUMA node: {}", d.index, locality.why_no_node));
    const nvmlReturn_t h = call(api.handle_by_index, static_cast<unsigned>(d.index), &handles[i]);
    if (h != NVML_SUCCESS) {
      handles[i] = nullptr;
      t.problems.push_back(
          fmt::format("GPU {}: nvmlDeviceGetHandleByIndex_v2: {}", d.index, status_text(nvml, h)));
      continue;
    }
    probe_nvlinks(nvml, handles[i], d.index, devices, g, t.problems);
  }

  for (std::size_t a = 0; a < devices.size(); ++a) {
    for (std::size_t b = 0; b < devices.size(); ++b) {
      if (a == b)
        continue;
      gpu_pair& p = t.pairs.emplace_back();
      p.src = devices[a].index;
      p.dst = devices[b].index;
      p.nvlink_links = nvlink_links_between(t.gpus[a], t.gpus[b], devices[b].pci_bus_id);
      if (handles[a] == nullptr || handles[b] == nullptr) {
        p.transport = p.nvlink_links > 0 ? "nvlink" : "";
        continue;
      }
      nvmlGpuTopologyLevel_t level = NVML_TOPOLOGY_SYSTEM;
      const nvmlReturn_t r = call(api.topology_common_ancestor, handles[a], handles[b], &level);
      if (r == NVML_SUCCESS)
        p.pcie_path = std::string(pcie_path_name(level));
      else if (a < b) // symmetric: said once per pair
        t.problems.push_back(fmt::format("GPUs {} and {}: nvmlDeviceGetTopologyCommonAncestor: {}",
                                         p.src, p.dst, status_text(nvml, r)));
      p.transport = p.nvlink_links > 0 ? "nvlink" : (p.pcie_path.empty() ? "" : "pcie");
      p.p2p_read = p2p_text(nvml, handles[a], handles[b], NVML_P2P_CAPS_INDEX_READ);
      p.p2p_write = p2p_text(nvml, handles[a], handles[b], NVML_P2P_CAPS_INDEX_WRITE);
      p.p2p_nvlink = p2p_text(nvml, handles[a], handles[b], NVML_P2P_CAPS_INDEX_NVLINK);
    }
  }
  return t;
}

std::optional<int> driver_numa_node(const reports::topology_info& t, int src, int dst) {
  for (const int device : {src, dst})
    if (const auto* g = reports::find_gpu(t, device); g != nullptr && g->numa_node)
      return g->numa_node;
  return std::nullopt;
}

} // namespace gpuspec::host
