#pragma once
/// The network between nodes as the ceiling of a collective across them: one rule for the
/// collectives we run (host collective_ceiling.hpp), the nccl-tests logs `gpuspec import` reads
/// with an inventory, and the older reports `check` recomputes (docs/check.md, "Collectives",
/// "The links a path can use").
///
/// NCCL sends a rank's traffic between nodes through the NIC nearest its GPU (its rail), so a
/// node's ranks use as many of its active InfiniBand / RoCE ports as it has ranks in the job:
/// a sendrecv between one GPU on each of two nodes is held to one port, never to the sum of the
/// node's ports. The inventory does not record which NIC is nearest which GPU, so the fastest
/// active ports are counted. A port's figure is the rate the kernel reports (sysfs
/// ports/<n>/rate, Gb/s; / 8 = GB/s).

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gpuspec/reports/model/report.hpp"

namespace gpuspec::reports::inline model {

/// The active ports' total rate in Gb/s, and how many there are: what the node can send to the
/// other nodes at once. With `ranks`, only as many ports as the node has ranks in the job, the
/// fastest ones.
struct active_ports {
  int count = 0;     ///< the ports counted (at most `ranks`)
  double gbps = 0;   ///< their rates together
  int available = 0; ///< every active port of the node
  /// The counted ports' link layer when they all share one ("InfiniBand", "Ethernet"), else "".
  std::string link_layer;
};
[[nodiscard]] active_ports active_network_ports(const std::vector<network_port>& ports,
                                                std::optional<int> ranks = std::nullopt);

/// The slowest node's ports, for a job across `node_ports.size()` nodes.
struct network_bound {
  std::optional<double> gbs; ///< the slowest node's counted ports, GB/s; empty if a node is idle
  std::string slowest;       ///< "b: 1 of its 8 active ports (one per rank there), 400 Gb/s ..."
  std::vector<std::string> idle;       ///< the nodes without an active port
  bool fewer_ranks_than_ports = false; ///< some node counted fewer ports than it has
  /// "InfiniBand" or "RoCE" when every counted port shares that link layer, else "".
  std::string transport;
};

/// `node_names` and `node_ranks` as `node_ports` (a missing name reads "node <n>"; a missing rank
/// count counts every active port).
[[nodiscard]] network_bound
slowest_node_network(const std::vector<std::vector<network_port>>& node_ports,
                     const std::vector<std::string>& node_names,
                     const std::vector<int>& node_ranks);

/// The sentence a ceiling held to the ports says of the rail inference, for ceiling sources.
inline constexpr const char* one_port_per_rank_text =
    "a rank's traffic leaves through the NIC nearest its GPU (its rail), so a node's ranks use "
    "one port each; which NIC is nearest which GPU is not in the inventory: inferred, the "
    "fastest active ports counted";

/// How many of a collective's ranks ran on each host, from its "ranks" observation (the rank
/// lines our multi-node results and imported nccl-tests logs carry); empty when it has none or
/// a rank names no host.
[[nodiscard]] std::map<std::string, int> ranks_per_host(const result& x);

} // namespace gpuspec::reports::model
