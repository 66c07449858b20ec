#pragma once
/// The host side of the peer benchmarks (transfer.p2p, transfer.p2p_latency): the pairs planned
/// on this node, which pair a case measures (or why none), and the ceiling from the path between
/// the two GPUs. Pure functions, host only: tested without a GPU.
///
/// The pair axis fits the node: the coordinator asks the worker's plan for the GPUs it measures
/// (`--plan --gpus 0,1,...`, spine::plan_request), and the axis is planned from them, any
/// count: every ordered pair in standard and full; in quick a ring (p2p_planned_pairs). One GPU
/// has no pair, and so no case.

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpuspec/reports/model/report.hpp"

namespace gpuspec::host {

/// The pairs planned over `gpus` (NVML indices; sorted and made unique first) in `suite`:
///  - standard, full: every ordered pair, src-major: "0->1", "0->2", ..., N·(N-1) of N GPUs;
///  - quick (and any other suite): a ring in index order, each GPU to the next and the last to
///    the first, then the same ring backwards: "0->1", "1->2", ..., "7->0", "1->0", ..., "0->7":
///    every GPU sends to and receives from both its neighbours, 2·N pairs of N ≥ 3 GPUs (2 of 2:
///    the ring's two directions are its only pairs), within the quick suite's budget.
/// Fewer than two GPUs: none.
[[nodiscard]] std::vector<std::string> p2p_planned_pairs(std::vector<int> gpus,
                                                         std::string_view suite);
/// What the plan measured, for the results' observations: "every ordered pair of the 8 GPUs
/// (56)", or "a ring over the 8 GPUs, each to the next and back: 16 of the 56 ordered pairs
/// (quick suite)".
[[nodiscard]] std::string p2p_plan_text(int gpu_count, std::string_view suite);
/// (src, dst) of "3->5"; nullopt for text that is not one, or a pair of one GPU with itself.
[[nodiscard]] std::optional<std::pair<int, int>> parse_p2p_pair(std::string_view text);

/// Why the case for (src, dst) cannot run over `selected` (NVML indices of the case's GPUs), or
/// "" when it can: "one GPU: no pair", "GPU 5 is not among the selected GPUs (0, 1): no pair
/// 0->5".
[[nodiscard]] std::string p2p_pair_skip_reason(const std::vector<int>& selected, int src, int dst);

/// The ceiling of a peer copy in GB/s, moving data in `directions` (1 or 2) at once:
///  - over NVLink (the topology's pair has nvlink_links > 0): links x the source GPU's
///    per-link, per-direction rate x directions, with the rate's vendor source;
///  - else over PCIe: the slower of the two GPUs' links as the inventory read them, at NVML's
///    maximum generation and the width as trained (pcie_link_for_ceiling, as the collective
///    ceiling reads them: an idle link downtrains) x directions;
///  - nothing (reference none) when neither is known.
/// The figure is the path's, so it is the reference (clock_adjusted: what this node's links
/// allow), and spec_figure is "" (no spec-table row describes a pair).
[[nodiscard]] reports::ceiling p2p_ceiling(const reports::topology_info& topology,
                                           const reports::device_info& src,
                                           const reports::device_info& dst, int directions);

/// The observation naming the path: "NVLink 4.0 x18 (through NVSwitches)", "PCIe, one switch
/// (PIX)", "PCIe across sockets (SYS)", or "unknown".
[[nodiscard]] std::string p2p_path_text(const reports::topology_info& topology, int src, int dst);

} // namespace gpuspec::host
