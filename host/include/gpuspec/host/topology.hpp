#pragma once
/// The node's GPU topology for the inventory (reports/topology.hpp): each GPU's NUMA node and
/// local CPUs from sysfs, its NVLinks from NVML, and for each ordered pair the PCIe common
/// ancestor, the NVLinks between the two and NVML's peer-to-peer verdicts. Host only; NVML
/// opened at run time, so tests use the fake (tests/fakes/README.md).

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuspec/host/nvml_library.hpp"
#include "gpuspec/reports/model/report.hpp"

namespace gpuspec::host {

/// One NVLink generation: its name and one link's data rate per direction, with the vendor
/// document the rate is derived from.
struct nvlink_generation {
  std::string_view version; ///< "4.0"
  double link_gbs = 0;      ///< per link, per direction, GB/s (1e9 bytes/s)
  std::string_view source;  ///< the document and how the per-link figure follows from it
};

/// The generation of NVML's nvmlNvlinkVersion_t value (NVML_NVLINK_VERSION_1_0 = 1 ... 5_0 =
/// 7), or nullopt for a value nvml.h does not list.
[[nodiscard]] std::optional<nvlink_generation> nvlink_generation_of(unsigned nvml_version);

/// NVML's common-ancestor level as the report names it ("single_switch", ..., "system").
[[nodiscard]] std::string_view pcie_path_name(nvmlGpuTopologyLevel_t level);
/// NVML's P2P status as the report words it ("ok", "chipset not supported", ...).
[[nodiscard]] std::string_view p2p_status_name(nvmlGpuP2PStatus_t status);

/// The active NVLinks that carry traffic from `a` to `b` (`b_bus`: b's PCI bus id in NVML's or
/// CUDA's spelling): links of `a` whose far end is `b` itself; where there are none and both reach
/// NVSwitches, the fewer of their links to a switch (an NVSwitch fabric gives every pair the
/// bandwidth of the narrower side).
[[nodiscard]] int nvlink_links_between(const reports::gpu_topology& a,
                                       const reports::gpu_topology& b, const std::string& b_bus);

/// The topology of `devices` (the inventory's, NVML order): sysfs under `root` ("/" on a real
/// machine, a fixture tree in tests) for NUMA nodes and CPUs, NVML for the rest. A failing
/// query leaves its field empty and is named in `problems`; never throws.
[[nodiscard]] reports::topology_info
probe_topology(const nvml_library& nvml, const std::vector<reports::device_info>& devices,
               const std::filesystem::path& root = "/");

/// The NUMA node a host thread driving a copy between `src` and `dst` should run on: the
/// source GPU's node, else the destination's (nvbandwidth binds to the GPU that is read from);
/// nullopt when neither is known.
[[nodiscard]] std::optional<int> driver_numa_node(const reports::topology_info& t, int src,
                                                  int dst);

} // namespace gpuspec::host
