#pragma once
/// The ceiling of an NCCL collective's busbw (collective.*, issue 11): which link bounds it, from
/// the inventory and the spec rows of the collective's GPUs. A pure function, host only: tested
/// without a GPU.
///
/// busbw is compared with one direction of one GPU's links. nccl-tests' doc/PERFORMANCE.md
/// (NVIDIA/nccl-tests, 2.19.6) derives its factors assuming "each rank has a bandwidth to the
/// outside world of B": a ring all-reduce sends 2(n-1)/n x S out of each rank, so busbw = algbw x
/// 2(n-1)/n is that rank's outgoing rate, to be held to "the hardware peak bandwidth" of the
/// bottleneck, "NVLink, PCI, QPI, or network". The spec rows' nvlink_gbs is the total of both
/// directions (H100 SXM: 900 GB/s, 18 links); NCCL's maintainer confirms "900 GB/s is the sum of
/// both directions, at the wire speed" and that the target of busbw is one direction
/// (NVIDIA/nccl#1442). So the NVLink datasheet ceiling is nvlink_gbs / 2 per GPU (450 GB/s on an
/// H100 SXM), and the PCIe one is the link's per-direction rate (pcie_link.hpp).
///
/// Which link: NVLink when at least one GPU of the collective has NVLink links active
/// (`nvlink.links_active` > 0 in the inventory: the node was built with NVLink) and every GPU's
/// spec row states an NVLink figure; a GPU whose links are down then makes the collective slow
/// against what the node offers, which is what the check must see (its own diagnosis is
/// GPUSPEC-NVLINK-DOWN). PCIe when no GPU has an NVLink link up. No ceiling for one rank
/// (nothing crosses a bus), and none where NVLink is up but a spec row has no NVLink figure (a
/// PCIe figure would be far below what the links carry: a healthy result would read as
/// impossible).
///
/// Across nodes (gpuspec-mpi): the slowest link on the path, the one above inside each node, or
/// the network between nodes, whichever is lower. The network's figure is the slowest node's
/// active InfiniBand / RoCE ports together (network_ports.hpp: the rate the kernel reports for
/// each ACTIVE port, Gb/s / 8 = GB/s): NCCL spreads its channels over a node's NICs, each
/// channel's hop between nodes on one NIC, but a rank's traffic leaves through the NIC nearest
/// its GPU (its rail), so a node's ranks use as many ports as there are ranks on it: eight ranks
/// of a node use its eight ports, and a sendrecv between one GPU on each of two nodes is held to
/// one port, not to the sum of the node's ports (docs/check.md, "Collectives", "The links a
/// path can use"). The inventory does not record which NIC is nearest which GPU, so the fastest
/// active ports are counted, and the ceiling says so. It is a figure as found (the rate each port
/// trained at), so it is the clock-adjusted ceiling, with no datasheet figure beside it. A node
/// without an active port: no network ceiling (NCCL then falls back to TCP sockets, for which sysfs
/// states no rate), and the result is not judged against one. Limitations: in-network reductions
/// (SHARP, NCCL's CollNet) can carry an all-reduce above the ports' rate, and a port NCCL does not
/// use (NCCL_IB_HCA) still counts.
///
/// One NVLink domain across nodes (GB200/GB300 NVL72: GPUs of several trays in one NVLink fabric):
/// when every GPU of the collective registered with the fabric (devices[].fabric completed with
/// success) in the same cluster UUID and clique, NCCL's multi-node NVLink carries the traffic
/// between the nodes, so the collective is held to NVLink as inside one node; ranks of several
/// domains, or a GPU without a registered fabric, are held to the network as above.
///
/// Limitation: the inventory counts links, not the peers they reach, so GPUs joined in pairs by
/// NVLink bridges look like an NVSwitch node, and a collective over more than one pair is held to
/// the NVLink figure though its traffic between pairs crosses PCIe.

#include <string>
#include <vector>

#include "gpuspec/reports/model/report.hpp"
#include "gpuspec/reports/model/spec_table.hpp"

namespace gpuspec::host {

/// One GPU of a collective, as the inventory recorded it.
struct collective_gpu {
  const reports::device_info* device = nullptr;
  const reports::gpu_spec* spec = nullptr; ///< its matched row, or nullptr
};

struct collective_ceiling_inputs {
  std::vector<collective_gpu> gpus; ///< the collective's GPUs, one per rank
  /// How far above one direction of the link the busbw of this collective can go: busbw assumes
  /// point-to-point transfers, but NVLink SHARP (NVLS) reduces in the NVSwitch, where an
  /// all-reduce sends and receives each byte once, so its busbw can reach 2(n-1)/n x the link
  /// (NVIDIA/nccl-tests#212: on 8 H100s "a peak busBw of ~480GB/s" against a 450 GB/s line
  /// rate). The caller passes nccl-tests' all-reduce factor for all-reduce, 1 otherwise; it widens
  /// the clock-adjusted bound, never the datasheet figure that judges. The check's "impossible"
  /// for a collective is the reference x what NCCL's algorithm can reach instead
  /// (reports/judge collective_reach_of), since a ring cannot use this factor.
  double in_switch_factor = 1.0;
  /// A collective across nodes: each node's InfiniBand / RoCE ports (its inventory's
  /// host.network_ports), one entry per node of the collective. Empty (or one node): the
  /// collective stays inside one node.
  std::vector<std::vector<reports::network_port>> node_ports;
  std::vector<std::string> node_names; ///< the nodes' host names, as node_ports
  /// How many of the collective's ranks run on each node, as node_ports: a node's ranks use that
  /// many of its ports. Empty: every active port of each node counts.
  std::vector<int> node_ranks;
};

/// The link a collective's ceiling stands for.
enum class collective_link { none, nvlink, pcie, network };

struct collective_ceiling_choice {
  collective_link link = collective_link::none;
  /// datasheet: the figure that judges (spec_figure "nvlink_gbs" or "pcie_gbs", per direction,
  /// the slowest GPU's); clock_adjusted: the most the links as found can carry for this
  /// collective (NVLink: the datasheet figure x in_switch_factor; PCIe: the slowest GPU's link as
  /// the inventory read it, at NVML's maximum generation). Empty for one rank.
  reports::ceiling ceiling;
  std::string why; ///< one sentence: which link and why, for the result's observations
  /// Across nodes, the ports' kind when they all share one link layer: "InfiniBand", or "RoCE"
  /// (an Ethernet link layer); else "". Which pass and warn lines apply (expect.json's paths).
  std::string network_transport;
};

[[nodiscard]] collective_ceiling_choice
collective_link_ceiling(const collective_ceiling_inputs& in);

/// "NVLink", "PCIe", "network", "none".
[[nodiscard]] std::string_view to_string(collective_link link);

} // namespace gpuspec::host
