// The link ceiling of a collective's busbw (collective_ceiling.hpp).

#include "gpuspec/host/collective_ceiling.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "gpuspec/host/pcie_link.hpp"
#include "gpuspec/reports/model/network_ceiling.hpp"

namespace gpuspec::host {
namespace {

using reports::network_bound;
using reports::one_port_per_rank_text;
using reports::slowest_node_network;

/// The datasheet the row's figures come from: the rows carry no source of their own for the
/// NVLink and PCIe figures, which sit in the same datasheet as the peaks.
std::string row_source(const reports::gpu_spec& spec) {
  for (const char* group : {"nvlink", "pcie", "peaks", "memory"})
    if (const auto it = spec.sources.find(group); it != spec.sources.end())
      return it->second;
  return "no source recorded";
}

std::optional<std::int64_t> links_active(const reports::device_info& d) {
  const auto it = d.counters_before.find("nvlink.links_active");
  if (it == d.counters_before.end())
    return std::nullopt;
  return it->second.value;
}

std::string gpu_list(const std::vector<int>& indices) {
  return fmt::format("{}", fmt::join(indices, ", "));
}

/// The GPU of the collective whose row states the lowest figure `value_of` gives.
template <class F>
const collective_gpu* slowest(const std::vector<collective_gpu>& gpus, F value_of) {
  const collective_gpu* low = nullptr;
  for (const auto& g : gpus)
    if (!low || value_of(g) < value_of(*low))
      low = &g;
  return low;
}

collective_ceiling_choice nvlink_ceiling(const collective_ceiling_inputs& in,
                                         const std::vector<int>& down) {
  const auto per_direction = [](const collective_gpu& g) { return *g.spec->nvlink_gbs / 2.0; };
  const collective_gpu& low = *slowest(in.gpus, per_direction);
  const double gbs = per_direction(low);
  collective_ceiling_choice out;
  out.link = collective_link::nvlink;
  auto& c = out.ceiling;
  c.spec_figure = "nvlink_gbs";
  c.datasheet = gbs;
  c.datasheet_source = fmt::format(
      "spec row {}: NVLink {:g} GB/s per GPU, both directions together, / 2 = {:g} GB/s per "
      "direction, which busbw is held to (nccl-tests doc/PERFORMANCE.md: each rank's bandwidth "
      "to the outside world) (row source: {})",
      low.spec->id, *low.spec->nvlink_gbs, gbs, row_source(*low.spec));
  const double factor = std::max(1.0, in.in_switch_factor);
  c.clock_adjusted = gbs * factor;
  c.clock_adjusted_source =
      factor > 1.0
          ? fmt::format("the most busbw can show over these links: {:g} GB/s per direction x "
                        "{:.4g}, since NVLink SHARP reduces in the NVSwitch and each GPU then "
                        "sends and receives the data once (nccl-tests' all-reduce factor "
                        "2(n-1)/n assumes point-to-point transfers)",
                        gbs, factor)
          : fmt::format("the links as the datasheet states them, {:g} GB/s per direction: NVML "
                        "reports no NVLink rate that depends on the run",
                        gbs);
  out.why = fmt::format("NVLink: links active on {} of {} GPUs", in.gpus.size() - down.size(),
                        in.gpus.size());
  if (!down.empty())
    out.why += fmt::format("; no link active on GPU {} (GPUSPEC-NVLINK-DOWN): the collective "
                           "is held to what the node offers when its links are up",
                           gpu_list(down));
  return out;
}

collective_ceiling_choice pcie_ceiling(const collective_ceiling_inputs& in) {
  collective_ceiling_choice out;
  out.link = collective_link::pcie;
  auto& c = out.ceiling;

  // The judge: the slowest card's own link as its datasheet states it.
  const bool rows = std::all_of(in.gpus.begin(), in.gpus.end(), [](const collective_gpu& g) {
    return g.spec != nullptr && pcie_link_gbs(g.spec->pcie_gen, g.spec->pcie_width);
  });
  if (rows) {
    const auto card = [](const collective_gpu& g) {
      return *pcie_link_gbs(g.spec->pcie_gen, g.spec->pcie_width);
    };
    const collective_gpu& low = *slowest(in.gpus, card);
    c.spec_figure = "pcie_gbs";
    c.datasheet = card(low);
    c.datasheet_source =
        fmt::format("spec row {}: the card's own link, {} (row source: {}); busbw is held to one "
                    "direction of the slowest GPU's link (nccl-tests doc/PERFORMANCE.md)",
                    low.spec->id, pcie_link_formula(low.spec->pcie_gen, low.spec->pcie_width, 1),
                    row_source(*low.spec));
  } else {
    c.datasheet_source = "a GPU of the collective has no spec-table row stating its PCIe link";
  }

  // Beside it: the links as the inventory read them. The generation the card and its slot can
  // reach (the lower of NVML's GPU and system maxima, reports::pcie_reachable_link: an idle
  // link downtrains its generation for power saving), the width as trained.
  std::optional<double> trained;
  std::string trained_text;
  for (const auto& g : in.gpus) {
    const auto [gen, width] = pcie_link_for_ceiling(g.device->pcie);
    const auto gbs = gen && width ? pcie_link_gbs(*gen, *width) : std::nullopt;
    if (!gbs) {
      trained.reset();
      trained_text =
          fmt::format("GPU {}: NVML reported no PCIe generation and width", g.device->index);
      break;
    }
    if (!trained || *gbs < *trained) {
      trained = gbs;
      trained_text = fmt::format("GPU {}: {}", g.device->index, pcie_link_formula(*gen, *width, 1));
    }
  }
  if (trained) {
    c.clock_adjusted = trained;
    c.clock_adjusted_source = fmt::format(
        "the slowest GPU's link as the inventory read it before the run, at the generation the "
        "card and its slot can reach (the lower of NVML's GPU and system maxima) and the width "
        "as trained: {}",
        trained_text);
  } else {
    c.clock_adjusted_source = "no link ceiling: " + trained_text;
  }
  out.why = "PCIe: no GPU of the collective has an NVLink link active";
  return out;
}

} // namespace

std::string_view to_string(collective_link link) {
  switch (link) {
  case collective_link::nvlink:
    return "NVLink";
  case collective_link::pcie:
    return "PCIe";
  case collective_link::network:
    return "network";
  case collective_link::none:
    break;
  }
  return "none";
}

namespace {

collective_ceiling_choice intra_node_ceiling(const collective_ceiling_inputs& in);

/// The network between nodes against the link inside them: the lower bounds the collective.
collective_ceiling_choice across_nodes(const collective_ceiling_inputs& in) {
  collective_ceiling_choice inside = intra_node_ceiling(in);
  const network_bound net = slowest_node_network(in.node_ports, in.node_names, in.node_ranks);
  if (!net.idle.empty()) {
    // No figure for the path between nodes: held to nothing rather than to the link inside.
    collective_ceiling_choice out;
    const std::string why =
        fmt::format("across nodes, but {} has no active InfiniBand or RoCE port in its inventory "
                    "(host.network_ports): NCCL's path between nodes has no rate to hold busbw to",
                    fmt::join(net.idle, ", "));
    out.ceiling.datasheet_source = why;
    out.ceiling.clock_adjusted_source = why;
    out.why = why;
    return out;
  }
  const double slowest_gbs = *net.gbs;
  const std::string& slowest_text = net.slowest;
  // The figure that judges inside the node (the datasheet where there is one).
  const auto inside_value =
      inside.ceiling.datasheet ? inside.ceiling.datasheet : inside.ceiling.clock_adjusted;
  if (inside_value && *inside_value <= slowest_gbs) {
    inside.why += fmt::format("; across {} nodes, whose network is not slower (slowest: {} = "
                              "{:g} GB/s)",
                              in.node_ports.size(), slowest_text, slowest_gbs);
    return inside;
  }
  collective_ceiling_choice out;
  out.link = collective_link::network;
  out.ceiling.datasheet_source = "no datasheet figure for the network between nodes: the ports' "
                                 "rate as found judges";
  out.ceiling.clock_adjusted = slowest_gbs;
  out.ceiling.clock_adjusted_source = fmt::format(
      "the network between nodes, the slowest node's active InfiniBand / RoCE ports together as "
      "the kernel reports their rate (sysfs ports/<n>/rate, Gb/s / 8): {} = {:g} GB/s; busbw is "
      "held to the bottleneck of the path (nccl-tests doc/PERFORMANCE.md), here below the link "
      "inside the nodes ({})",
      slowest_text, slowest_gbs, inside.why);
  if (net.fewer_ranks_than_ports)
    out.ceiling.clock_adjusted_source += fmt::format("; {}", one_port_per_rank_text);
  out.why = fmt::format("network: across {} nodes, {} is the slowest link on the path",
                        in.node_ports.size(), slowest_text);
  out.network_transport = net.transport;
  return out;
}

} // namespace

namespace {

/// "cluster <uuid> clique <id>" when every GPU registered in that one NVLink domain, else "".
std::string one_nvlink_domain(const std::vector<collective_gpu>& gpus) {
  std::string domain;
  for (const auto& g : gpus) {
    const auto& f = g.device->fabric;
    if (!f || f->state != "completed" || f->status != "success" || f->cluster_uuid.empty())
      return "";
    const std::string mine = fmt::format("cluster {} clique {}", f->cluster_uuid, f->clique_id);
    if (!domain.empty() && mine != domain)
      return "";
    domain = mine;
  }
  return domain;
}

} // namespace

collective_ceiling_choice collective_link_ceiling(const collective_ceiling_inputs& in) {
  if (in.node_ports.size() >= 2 && in.gpus.size() >= 2) {
    // Ranks on several nodes whose GPUs all registered in one NVLink domain (NVL72's trays):
    // NCCL's multi-node NVLink carries the traffic, not the NICs.
    if (const std::string domain = one_nvlink_domain(in.gpus); !domain.empty()) {
      auto choice = intra_node_ceiling(in);
      choice.why += fmt::format("; across {} nodes, every GPU in one NVLink domain ({}): the "
                                "fabric carries the traffic between nodes, not the network",
                                in.node_ports.size(), domain);
      return choice;
    }
    return across_nodes(in);
  }
  return intra_node_ceiling(in);
}

namespace {

/// One node's GPUs (or a job's, inside each node): NVLink, else PCIe; none for one rank.
collective_ceiling_choice intra_node_ceiling(const collective_ceiling_inputs& in) {
  collective_ceiling_choice out;
  if (in.gpus.size() < 2) {
    const std::string why = "one rank: nothing crosses a bus, so no link ceiling (reported, not "
                            "judged)";
    out.ceiling.datasheet_source = why;
    out.ceiling.clock_adjusted_source = why;
    out.why = why;
    return out;
  }
  for (const auto& g : in.gpus)
    if (g.device == nullptr)
      throw std::invalid_argument("collective_link_ceiling: a GPU without its inventory record");

  std::vector<int> up, down;
  for (const auto& g : in.gpus) {
    const auto links = links_active(*g.device);
    (links && *links > 0 ? up : down).push_back(g.device->index);
  }
  if (up.empty())
    return pcie_ceiling(in);

  const bool figures = std::all_of(in.gpus.begin(), in.gpus.end(), [](const collective_gpu& g) {
    return g.spec != nullptr && g.spec->nvlink_gbs && *g.spec->nvlink_gbs > 0;
  });
  if (figures)
    return nvlink_ceiling(in, down);

  const std::string why = fmt::format(
      "NVLink links are active on GPU {}, but a GPU of the collective has no spec-table row "
      "stating its NVLink bandwidth: no ceiling (the PCIe link would be far below what NVLink "
      "carries)",
      gpu_list(up));
  out.ceiling.datasheet_source = why;
  out.ceiling.clock_adjusted_source = why;
  out.why = why;
  return out;
}

} // namespace

} // namespace gpuspec::host
