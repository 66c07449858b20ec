// The network between nodes as a collective's ceiling (network_ceiling.hpp).

#include "gpuspec/reports/model/network_ceiling.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace gpuspec::reports::inline model {

active_ports active_network_ports(const std::vector<network_port>& ports,
                                  std::optional<int> ranks) {
  std::vector<const network_port*> active;
  for (const auto& p : ports)
    if (p.state == "ACTIVE" && p.rate_gbps && *p.rate_gbps > 0)
      active.push_back(&p);
  // The fastest first, so that a rank is held to the best NIC it may be nearest: the inventory
  // does not record which NIC sits by which GPU.
  std::stable_sort(active.begin(), active.end(),
                   [](const auto* a, const auto* b) { return *a->rate_gbps > *b->rate_gbps; });
  active_ports a;
  a.available = static_cast<int>(active.size());
  const std::size_t used =
      ranks ? std::min(active.size(), static_cast<std::size_t>(std::max(*ranks, 0)))
            : active.size();
  for (std::size_t i = 0; i < used; ++i) {
    ++a.count;
    a.gbps += *active[i]->rate_gbps;
    a.link_layer = i == 0 || a.link_layer == active[i]->link_layer ? active[i]->link_layer : "";
  }
  return a;
}

network_bound slowest_node_network(const std::vector<std::vector<network_port>>& node_ports,
                                   const std::vector<std::string>& node_names,
                                   const std::vector<int>& node_ranks) {
  const auto name = [&](std::size_t n) {
    return n < node_names.size() ? node_names[n] : fmt::format("node {}", n);
  };
  network_bound out;
  std::vector<std::string> layers;
  for (std::size_t n = 0; n < node_ports.size(); ++n) {
    const auto ranks = n < node_ranks.size() ? std::optional<int>(node_ranks[n]) : std::nullopt;
    const auto active = active_network_ports(node_ports[n], ranks);
    if (active.count == 0) {
      out.idle.push_back(name(n));
      continue;
    }
    layers.push_back(active.link_layer);
    const double gbs = active.gbps / 8.0;
    out.fewer_ranks_than_ports = out.fewer_ranks_than_ports || active.count < active.available;
    if (!out.gbs || gbs < *out.gbs) {
      out.gbs = gbs;
      out.slowest =
          active.count < active.available
              ? fmt::format("{}: {} of its {} active ports (one per rank there), {:g} Gb/s "
                            "together",
                            name(n), active.count, active.available, active.gbps)
              : fmt::format("{}: {} active port(s), {:g} Gb/s together", name(n), active.count,
                            active.gbps);
    }
  }
  if (!out.idle.empty())
    out.gbs.reset();
  const bool one_layer =
      !layers.empty() && std::all_of(layers.begin(), layers.end(),
                                     [&](const std::string& l) { return l == layers.front(); });
  if (one_layer && layers.front() == "InfiniBand")
    out.transport = "InfiniBand";
  else if (one_layer && layers.front() == "Ethernet")
    out.transport = "RoCE";
  return out;
}

std::map<std::string, int> ranks_per_host(const result& x) {
  std::map<std::string, int> out;
  const auto it = x.observations.find("ranks");
  if (it == x.observations.end() || !it->is_array())
    return {};
  for (const auto& rank : *it) {
    if (!rank.is_object() || !rank.contains("host") || !rank.at("host").is_string())
      return {};
    ++out[rank.at("host").get<std::string>()];
  }
  return out;
}

} // namespace gpuspec::reports::model
