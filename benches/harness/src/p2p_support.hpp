#pragma once
/// What the peer benchmarks (transfer.p2p, transfer.p2p_latency) share: peer access for the
/// length of a case, and the node's topology as this worker's NVML sees it.

#include <optional>
#include <vector>

#include "gpuspec/benches/node_state.hpp"
#include "gpuspec/reports/model/topology.hpp"

namespace gpuspec::benches {

/// Peer access from `device` to `peer` (CUDA ordinals) for a scope; disabled again at its end
/// if this scope enabled it, so that no other case runs with it on.
class peer_access_scope {
public:
  peer_access_scope(int device, int peer);
  ~peer_access_scope();
  peer_access_scope(const peer_access_scope&) = delete;
  peer_access_scope& operator=(const peer_access_scope&) = delete;
  peer_access_scope(peer_access_scope&&) = delete;
  peer_access_scope& operator=(peer_access_scope&&) = delete;

private:
  int m_device, m_peer;
  bool m_enabled = false;
};

/// The two GPUs of a case's `pair` axis ("src->dst", NVML indices).
struct peer_pair {
  int src_index = -1, dst_index = -1;
  const node_device* src = nullptr;
  const node_device* dst = nullptr;
};
/// The pair of the case, or nothing when it cannot run here (a pair not among the selected
/// GPUs, one GPU: "one GPU: no pair"), in which case `state` is already skipped with the reason.
/// Throws std::invalid_argument for an axis value that is not "src->dst".
[[nodiscard]] std::optional<peer_pair> resolve_pair(node_state& state);

/// The node's topology, asked of NVML in this worker (the same probe as the inventory's); empty
/// when NVML cannot be opened.
[[nodiscard]] reports::topology_info node_topology(const std::vector<node_device>& devices);

} // namespace gpuspec::benches
