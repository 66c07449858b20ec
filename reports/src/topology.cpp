// Look-ups over the topology model (topology.hpp).

#include "gpuspec/reports/topology.hpp"

#include <fmt/format.h>

namespace gpuspec::reports {

const gpu_pair* find_pair(const topology_info& t, int src, int dst) {
  for (const gpu_pair& p : t.pairs)
    if (p.src == src && p.dst == dst)
      return &p;
  return nullptr;
}

const gpu_topology* find_gpu(const topology_info& t, int device) {
  for (const gpu_topology& g : t.gpus)
    if (g.device == device)
      return &g;
  return nullptr;
}

std::string topology_matrix_cell(const gpu_pair& p) {
  if (p.nvlink_links > 0)
    return fmt::format("NV{}", p.nvlink_links);
  // nvidia-smi topo -m's legend, one abbreviation per common-ancestor level.
  if (p.pcie_path == "internal")
    return "PIX";
  if (p.pcie_path == "single_switch")
    return "PIX";
  if (p.pcie_path == "multiple_switches")
    return "PXB";
  if (p.pcie_path == "host_bridge")
    return "PHB";
  if (p.pcie_path == "numa_node")
    return "NODE";
  if (p.pcie_path == "system")
    return "SYS";
  return "?";
}

} // namespace gpuspec::reports
