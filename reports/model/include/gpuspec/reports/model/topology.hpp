#pragma once
/// The node's GPU topology in the report model (`host.topology`, v1.1, optional): where each
/// GPU sits (NUMA node, local CPUs, NVLinks) and what joins each ordered pair of GPUs (the
/// PCIe path, the NVLinks between them, NVML's peer-to-peer verdicts). Plain structs; the
/// inventory fills them (host topology.hpp), report_json writes and reads them, and
/// `gpuspec info` prints them as a matrix like `nvidia-smi topo -m`.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuspec::reports::inline model {

/// One NVLink of a GPU, as NVML reports it.
struct nvlink_port {
  int link = 0;        ///< link number, 0 .. NVML_NVLINK_MAX_LINKS - 1
  bool active = false; ///< nvmlDeviceGetNvLinkState
  /// What is at the other end: "gpu", "switch" (an NVSwitch), "ibmnpu", "unknown", or "" when
  /// it could not be asked (nvmlDeviceGetNvLinkRemoteDeviceType).
  std::string remote_type;
  /// PCI bus id of the other end (nvmlDeviceGetNvLinkRemotePciInfo_v2), "" when not known.
  std::string remote_pci_bus_id;
  friend bool operator==(const nvlink_port&, const nvlink_port&) = default;
};

/// Where one GPU sits.
struct gpu_topology {
  int device = 0;               ///< NVML index
  std::optional<int> numa_node; ///< sysfs numa_node; null when the platform gives none
  std::string cpu_list;         ///< its local CPUs as sysfs writes them ("0-31,64-95"), or ""
  /// The NVLink generation ("4.0"), from nvmlDeviceGetNvLinkVersion; "" without NVLink.
  std::string nvlink_version;
  /// One link's data rate per direction for that generation, GB/s, and the vendor document it
  /// comes from (nvlink_rates.hpp); null and "" when the generation is not known.
  std::optional<double> nvlink_link_gbs;
  std::string nvlink_link_source;
  std::vector<nvlink_port> nvlinks; ///< every link NVML lists, active or not
  friend bool operator==(const gpu_topology&, const gpu_topology&) = default;
};

/// What joins GPU `src` to GPU `dst` (an ordered pair; NVML's answers are symmetric, the
/// transfers measured over the pair are not).
struct gpu_pair {
  int src = 0, dst = 0; ///< NVML indices
  /// The closest common PCIe ancestor (nvmlDeviceGetTopologyCommonAncestor): "internal" (one
  /// board), "single_switch" (PIX), "multiple_switches" (PXB), "host_bridge" (PHB),
  /// "numa_node" (NODE: same CPU, several host bridges), "system" (SYS: across sockets); ""
  /// when not known.
  std::string pcie_path;
  /// Active NVLinks that carry this pair's traffic: links of `src` whose far end is `dst`, or,
  /// through NVSwitches, the fewer of the two GPUs' links to switches.
  int nvlink_links = 0;
  /// The way a peer copy goes: "nvlink" (nvlink_links > 0), "pcie" (no NVLink, a PCIe path is
  /// known), "" when neither is known.
  std::string transport;
  /// nvmlDeviceGetP2PStatus for reads, writes and NVLink: "ok", "chipset not supported", "gpu
  /// not supported", "topology not supported", "disabled by regkey", "not supported",
  /// "unknown", or "unavailable: <NVML's words>".
  std::string p2p_read, p2p_write, p2p_nvlink;
  friend bool operator==(const gpu_pair&, const gpu_pair&) = default;
};

struct topology_info {
  std::vector<gpu_topology> gpus;    ///< NVML order
  std::vector<gpu_pair> pairs;       ///< every ordered pair (src != dst), src-major
  std::vector<std::string> problems; ///< queries that failed, with the library's words
  friend bool operator==(const topology_info&, const topology_info&) = default;
};

/// The pair (src, dst) of `t`, or null.
[[nodiscard]] const gpu_pair* find_pair(const topology_info& t, int src, int dst);
/// The GPU `device` of `t`, or null.
[[nodiscard]] const gpu_topology* find_gpu(const topology_info& t, int device);

/// nvidia-smi topo -m's legend for a pair: "NV18", "PIX", "PXB", "PHB", "NODE", "SYS", "?".
[[nodiscard]] std::string topology_matrix_cell(const gpu_pair& p);

/// The matrix `gpuspec info` prints, like `nvidia-smi topo -m` but from our own data: one row
/// per GPU, a column per GPU ("X" on the diagonal), then its NUMA node, its local CPUs and its
/// NVLink generation with the per-link rate; then the legend.
[[nodiscard]] std::string topology_matrix_text(const topology_info& t);

} // namespace gpuspec::reports::model
