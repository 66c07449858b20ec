#pragma once
/// The host side of transfer.p2p (benches/families/transfer_p2p.cpp): the pair axis, which
/// pair a case measures on this node (or why none), and the ceiling from the path between the
/// two GPUs. Pure functions, host only: tested without a GPU.
///
/// The pair axis is static (the registry's axes are fixed when the worker lists its plan,
/// before it knows the node): every ordered pair of NVML indices below p2p_max_gpus, "0->1",
/// "0->2", ..., "7->6". A case whose pair is not among the selected GPUs is skipped with the
/// reason (p2p_pair_skip_reason): one GPU gives "one GPU: no pair" for every case. A node with
/// more GPUs than p2p_max_gpus has its further pairs unmeasured (said in docs/measurement.md).

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpuspec/reports/report.hpp"

namespace gpuspec::benches {

/// The largest node the pair axis covers: an HGX/DGX baseboard's 8 GPUs (56 ordered pairs).
inline constexpr int p2p_max_gpus = 8;

/// "0->1", "0->2", ..., src-major, every ordered pair of indices below p2p_max_gpus.
[[nodiscard]] std::vector<std::string> p2p_pair_axis_values();
/// (src, dst) of "3->5"; nullopt for text that is not one, or a pair of one GPU with itself.
[[nodiscard]] std::optional<std::pair<int, int>> parse_p2p_pair(std::string_view text);

/// Why the case for (src, dst) cannot run over `selected` (NVML indices of the case's GPUs), or
/// "" when it can: "one GPU: no pair", "GPU 5 is not among the selected GPUs (0, 1): no pair
/// 0->5".
[[nodiscard]] std::string p2p_pair_skip_reason(const std::vector<int>& selected, int src, int dst);

/// The ceiling of a peer copy in GB/s, moving data in `directions` (1 or 2) at once:
///  - over NVLink (the topology's pair has nvlink_links > 0): links x the source GPU's
///    per-link, per-direction rate x directions, with the rate's vendor source;
///  - else over PCIe: the slower of the two GPUs' links as the inventory read them
///    (pcie_link_gbs of generation and width) x directions;
///  - nothing (reference none) when neither is known.
/// The figure is the path's, so it is the reference (clock_adjusted: what this node's links
/// allow), and spec_figure is "" (no spec-table row describes a pair).
[[nodiscard]] reports::ceiling p2p_ceiling(const reports::topology_info& topology,
                                           const reports::device_info& src,
                                           const reports::device_info& dst, int directions);

/// The observation naming the path: "NVLink 4.0 x18 (through NVSwitches)", "PCIe, one switch
/// (PIX)", "PCIe across sockets (SYS)", or "unknown".
[[nodiscard]] std::string p2p_path_text(const reports::topology_info& topology, int src, int dst);

} // namespace gpuspec::benches
