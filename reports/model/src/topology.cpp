// Look-ups over the topology model (topology.hpp).

#include "gpuspec/reports/model/topology.hpp"

#include <fmt/format.h>

#include "gpuspec/reports/model/text_table.hpp"

namespace gpuspec::reports::inline model {

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

std::string topology_matrix_text(const topology_info& t) {
  std::vector<std::string> header{""};
  for (const gpu_topology& g : t.gpus)
    header.push_back(fmt::format("GPU{}", g.device));
  for (const char* column : {"NUMA", "CPU affinity", "NVLink"})
    header.emplace_back(column);
  text_table table(header);
  for (const gpu_topology& row : t.gpus) {
    std::vector<std::string> cells{fmt::format("GPU{}", row.device)};
    for (const gpu_topology& column : t.gpus) {
      const gpu_pair* p = find_pair(t, row.device, column.device);
      cells.push_back(row.device == column.device ? "X" : p ? topology_matrix_cell(*p) : "?");
    }
    cells.push_back(row.numa_node ? std::to_string(*row.numa_node) : "N/A");
    cells.push_back(row.cpu_list.empty() ? "N/A" : row.cpu_list);
    cells.push_back(
        row.nvlink_version.empty()
            ? "none"
            : fmt::format("{} ({} GB/s per link each way)", row.nvlink_version,
                          row.nvlink_link_gbs ? fmt::format("{:g}", *row.nvlink_link_gbs) : "?"));
    table.add_row(cells);
  }
  return table.render() +
         "  NV#  NVLinks between the two (through NVSwitches: the fewer of the two GPUs' links)\n"
         "  PIX  one PCIe switch   PXB  several PCIe switches   PHB  a PCIe host bridge\n"
         "  NODE the same NUMA node, several host bridges   SYS  across sockets\n";
}

} // namespace gpuspec::reports::model
