// Peer paths between the GPUs of one node (docs/check.md, "Peer paths"), read from the report's
// host.topology: every `gpuspec run` records it, so a node is judged whether or not it ran
// transfer.p2p. Two findings, each given to the GPU a fault is most likely on:
//  - GPUSPEC-P2P-NOT-NVLINK: a pair of GPUs of one model on an NVSwitch node (the model's GPUs
//    have active links to switches and some of their pairs use NVLink) whose topology says
//    PCIe: on an HGX baseboard every pair reaches every other through the switches, so a pair
//    without NVLink is a broken switch tray or links down. The inventory is the evidence; the
//    spec row's nvlink_gbs, where it states one, is named beside it, and a row that states none
//    (an identity-only row: H20, H800, A800) does not hide the fault. Nodes whose GPUs are joined
//    directly (bridges, hybrid cube mesh) are left out: there, pairs without NVLink are the
//    design, and the inventory cannot say which pairs the bridges were meant to join.
//  - GPUSPEC-P2P-UNAVAILABLE: a pair whose NVML P2P read or write status is not "ok" while
//    pairs of the same GPUs' model over the same kind of path (NVLink, or PCIe through the same
//    kind of ancestor) have it: their copies go through host memory. Across sockets on a PCIe
//    node no pair has P2P, and that is the platform, not a fault: nothing is said.
// Blame: of a faulty pair, the GPU with more faulty pairs of the same kind carries it (GPU 3
// with its links down, not its seven peers); with as many, both do (one broken pair).

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "gpuspec/reports/judge/diagnosis.hpp"

namespace gpuspec::reports::inline judge {
namespace {

bool model_has_nvlink(const gpu_spec* spec) {
  return spec != nullptr && spec->nvlink_gbs && *spec->nvlink_gbs > 0;
}

bool links_to_switches(const gpu_topology& g) {
  for (const auto& l : g.nvlinks)
    if (l.active && l.remote_type == "switch")
      return true;
  return false;
}

/// The GPUs a rule compares: `gpu`'s model's, by NVML index, in the report's order.
std::vector<int> sibling_indices(const gpu_facts& g) {
  std::vector<int> out;
  for (const auto* s : g.siblings)
    out.push_back(s->index);
  return out;
}

/// "NVLink" or "PCIe NODE": the kind of path a pair goes over, nvidia-smi topo -m's words.
std::string path_kind(const gpu_pair& p) {
  return p.transport == "nvlink" ? std::string("NVLink")
                                 : fmt::format("PCIe {}", topology_matrix_cell(p));
}

bool p2p_ok(const gpu_pair& p) { return p.p2p_read == "ok" && p.p2p_write == "ok"; }

/// The pairs from `device` to its siblings that are `faulty` and whose blame `device` carries:
/// those where it has at least as many faulty pairs among the siblings as the peer has.
template <typename Faulty>
std::vector<const gpu_pair*> blamed_pairs(const topology_info& t, int device,
                                          const std::vector<int>& siblings, Faulty faulty) {
  std::map<int, int> count;
  for (int a : siblings)
    for (int b : siblings)
      if (a != b)
        if (const auto* p = find_pair(t, a, b); p != nullptr && faulty(*p))
          ++count[a];
  std::vector<const gpu_pair*> out;
  for (int peer : siblings) {
    if (peer == device)
      continue;
    const auto* p = find_pair(t, device, peer);
    if (p != nullptr && faulty(*p) && count[device] >= count[peer])
      out.push_back(p);
  }
  return out;
}

std::string pairs_text(const std::vector<const gpu_pair*>& pairs, bool with_p2p) {
  std::string out;
  for (const auto* p : pairs) {
    out += out.empty() ? "" : "; ";
    out += fmt::format("GPU {} -> GPU {}: {}", p->src, p->dst, path_kind(*p));
    if (with_p2p)
      out += fmt::format(" (P2P read: {}, write: {})", p->p2p_read, p->p2p_write);
  }
  return out;
}

std::string pairs_evidence(const std::vector<const gpu_pair*>& pairs) {
  std::string out;
  for (const auto* p : pairs)
    out += fmt::format("{}{}->{}", out.empty() ? "" : ",", p->src, p->dst);
  return out;
}

} // namespace

std::vector<diagnosis> diagnose_peer_paths(const gpu_facts& g) {
  std::vector<diagnosis> out;
  const auto& topology = g.r.host.topology;
  const auto siblings = sibling_indices(g);
  if (!topology || siblings.size() < 2)
    return out; // one GPU of its model: no pair
  const topology_info& t = *topology;

  bool switched = false, any_nvlink = false;
  for (int s : siblings)
    if (const auto* gt = find_gpu(t, s); gt != nullptr && links_to_switches(*gt))
      switched = true;
  for (int a : siblings)
    for (int b : siblings)
      if (const auto* p = a != b ? find_pair(t, a, b) : nullptr; p && p->transport == "nvlink")
        any_nvlink = true;
  if (switched && any_nvlink) {
    const auto pcie = blamed_pairs(t, g.device.index, siblings,
                                   [](const gpu_pair& p) { return p.transport == "pcie"; });
    if (!pcie.empty()) {
      const std::string row =
          model_has_nvlink(g.spec)
              ? fmt::format("the model has NVLink (spec row {}: {:g} GB/s) and ", g.spec->id,
                            *g.spec->nvlink_gbs)
              : std::string();
      auto d = make_diagnosis(
          "GPUSPEC-P2P-NOT-NVLINK", verdict_status::fail,
          fmt::format("GPU {} reaches {} peer(s) over PCIe, not NVLink, although {}the node's "
                      "GPUs of that model are joined through NVSwitches (active NVLink links to "
                      "switches, NVLink between other pairs): {}",
                      g.device.index, pcie.size(), row, pairs_text(pcie, false)),
          &g.device, g.r.host);
      d.evidence["pairs"] = pairs_evidence(pcie);
      d.evidence["paths"] = pairs_text(pcie, false);
      out.push_back(std::move(d));
    }
  }

  // The kinds of path over which some pair of the model has P2P.
  std::map<std::string, bool> kind_has_p2p;
  for (int a : siblings)
    for (int b : siblings)
      if (const auto* p = a != b ? find_pair(t, a, b) : nullptr; p && !p->transport.empty())
        kind_has_p2p[path_kind(*p)] = kind_has_p2p[path_kind(*p)] || p2p_ok(*p);
  const auto host_staged = blamed_pairs(t, g.device.index, siblings, [&](const gpu_pair& p) {
    return !p.transport.empty() && !p2p_ok(p) && kind_has_p2p[path_kind(p)];
  });
  if (!host_staged.empty()) {
    auto d = make_diagnosis(
        "GPUSPEC-P2P-UNAVAILABLE", verdict_status::warn,
        fmt::format("GPU {} has no peer-to-peer access to {} peer(s) that other GPUs of its model "
                    "reach over the same kind of path with it: their copies go through host "
                    "memory; {}",
                    g.device.index, host_staged.size(), pairs_text(host_staged, true)),
        &g.device, g.r.host);
    d.evidence["pairs"] = pairs_evidence(host_staged);
    out.push_back(std::move(d));
  }
  return out;
}

} // namespace gpuspec::reports::judge
