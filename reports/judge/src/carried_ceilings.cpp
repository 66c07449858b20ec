// Recomputing the ceilings a report carries from its own inventory (carried_ceilings.hpp).

#include "carried_ceilings.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "gpuspec/reports/judge/host_rules.hpp"
#include "gpuspec/reports/model/network_ceiling.hpp"
#include "gpuspec/reports/model/reference.hpp"

namespace gpuspec::reports::inline judge::check_detail {
namespace {

const device_info* carried_device_at(const report& r, int index) {
  const auto it = std::find_if(r.devices.begin(), r.devices.end(),
                               [&](const device_info& d) { return d.index == index; });
  return it == r.devices.end() ? nullptr : &*it;
}

bool is_carried_host_transfer(const result& x) {
  return x.devices.size() == 1 && (x.bench_id == "transfer.h2d" || x.bench_id == "transfer.d2h" ||
                                   x.bench_id == "transfer.bidir");
}

int peer_directions(const result& x) {
  return x.axes.contains("direction") && x.axes["direction"] == "both_ways" ? 2 : 1;
}

/// A carried ceiling is replaced only where it is lower than the recomputed one by more than
/// `tolerance`: a lower bar is what made healthy figures "impossible" and let links trained
/// below their reach pass; a higher one only holds the result to more.
bool ceiling_differs(std::optional<double> carried, double now, double tolerance) {
  return !carried || *carried < now * (1 - tolerance);
}

std::string carried_text(const ceiling& c) {
  if (c.clock_adjusted)
    return fmt::format("{:.4g} GB/s ({})", *c.clock_adjusted, c.clock_adjusted_source);
  if (c.datasheet)
    return fmt::format("{:.4g} GB/s ({})", *c.datasheet, c.datasheet_source);
  return "no ceiling";
}

void mark_recomputed(result& x, const std::string& carried, const std::string& now) {
  settle_efficiency(x);
  x.observations[recomputed_ceiling_key] =
      fmt::format("the report carried {}; recomputed from its own inventory: {}", carried, now);
}

/// A host transfer on a GPU attached by NVLink-C2C crossed the C2C link, not PCIe: the C2C link
/// of the check's own spec table, whatever the report carries.
bool recompute_c2c(result& x, const device_info& dev, const spec_table& specs) {
  ceiling c = c2c_transfer_ceiling(spec_of(specs, dev), x.bench_id == "transfer.bidir" ? 2 : 1);
  if (c == x.ceiling_value)
    return false;
  const std::string carried = carried_text(x.ceiling_value);
  const bool had = x.ceiling_value.datasheet || x.ceiling_value.clock_adjusted;
  x.ceiling_value = std::move(c);
  mark_recomputed(x, had ? carried : "no ceiling", x.ceiling_value.datasheet_source);
  return true;
}

/// A host transfer over PCIe: its clock-adjusted ceiling is the link the card and its slot can
/// reach (host pcie_link.hpp pcie_transfer_ceiling's rule), never an idle reading, and no more
/// than the host CPU's root ports where a switch trains the GPU's link higher than the host
/// (pcie_reach::host_gen): a carried ceiling above that hop is lowered to it, as the harness
/// does not know the host's generation.
bool recompute_host_link(result& x, const device_info& dev, const report& r,
                         const spec_table& specs, double tolerance) {
  const pcie_reach reach = pcie_reachable_link(dev, spec_of(specs, dev), &r.host);
  const auto gen = reach.transfer_gen();
  if (!gen || !reach.width)
    return false;
  const auto per_direction = pcie_bandwidth_gbs(*gen, *reach.width);
  if (!per_direction)
    return false;
  const int directions = x.bench_id == "transfer.bidir" ? 2 : 1;
  const double now = *per_direction * directions;
  const auto& carried_now = x.ceiling_value.clock_adjusted;
  const bool above_host = reach.host_gen && carried_now && *carried_now > now * (1 + tolerance);
  if (!ceiling_differs(carried_now, now, tolerance) && !above_host)
    return false;
  const std::string carried = carried_text(x.ceiling_value);
  x.ceiling_value.clock_adjusted = now;
  x.ceiling_value.clock_adjusted_source = fmt::format(
      "{}, {}: {:.2f} GB/s per direction{}",
      reach.host_gen ? "the slower hop of the host path (the GPU's link, then the host CPU's "
                       "root ports)"
                     : "the link the card and its slot can reach",
      pcie_reach_text(reach), *per_direction,
      directions == 2 ? fmt::format(" x 2 directions = {:.2f} GB/s", now) : "");
  x.ceiling_value.reference = choose_reference(x.ceiling_value);
  mark_recomputed(x, carried, x.ceiling_value.clock_adjusted_source);
  return true;
}

/// A peer copy: NVLink where the pair has it, else the slower GPU's PCIe link at its maximum
/// generation (reference.hpp peer_copy_path).
bool recompute_peer(result& x, const report& r, double tolerance) {
  if (!r.host.topology || x.devices.size() != 2)
    return false;
  const device_info* src = carried_device_at(r, x.devices[0]);
  const device_info* dst = carried_device_at(r, x.devices[1]);
  if (src == nullptr || dst == nullptr)
    return false;
  const auto path = peer_copy_path(*r.host.topology, *src, *dst);
  if (!path)
    return false;
  const int directions = peer_directions(x);
  const double now = path->gbs_per_direction * directions;
  if (!ceiling_differs(x.ceiling_value.clock_adjusted, now, tolerance))
    return false;
  const std::string carried = carried_text(x.ceiling_value);
  x.ceiling_value.clock_adjusted = now;
  x.ceiling_value.clock_adjusted_source =
      path->nvlink
          ? fmt::format("NVLink: {} active link(s) between GPU {} and GPU {} x {:g} GB/s per "
                        "link and direction{}",
                        path->nvlink_links, src->index, dst->index, path->nvlink_link_gbs,
                        directions == 2 ? " x 2 directions" : "")
          : fmt::format("no NVLink between GPU {} and GPU {}: the slower PCIe link, GPU {}'s, "
                        "at NVML's maximum generation (an idle link downtrains) and the width "
                        "as trained, PCIe Gen{} x{}: {:.2f} GB/s per direction{}",
                        src->index, dst->index, path->slower, path->gen, path->width,
                        path->gbs_per_direction,
                        directions == 2 ? fmt::format(" x 2 directions = {:.2f} GB/s", now) : "");
  x.ceiling_value.reference = reference_kind::clock_adjusted;
  mark_recomputed(x, carried, x.ceiling_value.clock_adjusted_source);
  return true;
}

const host_info* host_named(const report& r, const std::string& name) {
  if (r.host.hostname == name)
    return &r.host;
  for (const auto& n : r.nodes)
    if (n.host.hostname == name)
      return &n.host;
  return nullptr;
}

/// A collective across nodes held to the network: its ports recounted one per rank from the
/// report's own inventories (network_ceiling.hpp). Only a carried figure above the recomputed
/// one is replaced: an earlier gpuspec summed every active port of a node, so a one-GPU path
/// was held to eight NICs; a figure below would need the link inside the nodes weighed again.
bool recompute_network(result& x, const report& r, double tolerance) {
  const auto link = x.observations.find("ceiling_link");
  if (link == x.observations.end() || *link != "network" || !x.ceiling_value.clock_adjusted)
    return false;
  const auto per_host = ranks_per_host(x);
  if (per_host.size() < 2)
    return false;
  std::vector<std::vector<network_port>> ports;
  std::vector<std::string> names;
  std::vector<int> ranks;
  for (const auto& [host, count] : per_host) {
    const host_info* h = host_named(r, host);
    if (h == nullptr || !h->network_ports)
      return false;
    ports.push_back(*h->network_ports);
    names.push_back(host);
    ranks.push_back(count);
  }
  const network_bound net = slowest_node_network(ports, names, ranks);
  const double carried = *x.ceiling_value.clock_adjusted;
  if (!net.gbs || carried <= *net.gbs * (1 + tolerance))
    return false;
  const std::string was = carried_text(x.ceiling_value);
  x.ceiling_value.clock_adjusted = net.gbs;
  x.ceiling_value.clock_adjusted_source = fmt::format(
      "the network between nodes, the slowest node's active InfiniBand / RoCE ports its ranks "
      "can use, one port per rank, as the kernel reports their rate (sysfs ports/<n>/rate, Gb/s "
      "/ 8): {} = {:g} GB/s; {}",
      net.slowest, *net.gbs, one_port_per_rank_text);
  x.ceiling_value.reference = choose_reference(x.ceiling_value);
  mark_recomputed(x, was, x.ceiling_value.clock_adjusted_source);
  return true;
}

} // namespace

recomputed_ceilings recompute_carried_ceilings(report& r, const spec_table& specs,
                                               double tolerance) {
  recomputed_ceilings out;
  for (auto& x : r.results) {
    if (x.status != result_status::ok)
      continue;
    if (x.bench_id == "transfer.p2p") {
      out.peer += recompute_peer(x, r, tolerance) ? 1 : 0;
      continue;
    }
    if (!is_carried_host_transfer(x))
      continue;
    const device_info* dev = carried_device_at(r, x.devices.front());
    if (dev == nullptr)
      continue;
    if (is_c2c_attached(*dev, spec_of(specs, *dev)))
      out.c2c += recompute_c2c(x, *dev, specs) ? 1 : 0;
    else
      out.host_link += recompute_host_link(x, *dev, r, specs, tolerance) ? 1 : 0;
  }
  return out;
}

std::size_t recompute_network_ceilings(report& r, double tolerance) {
  std::size_t changed = 0;
  for (auto& x : r.results)
    if (x.status == result_status::ok && x.bench_id.starts_with("collective."))
      changed += recompute_network(x, r, tolerance) ? 1 : 0;
  return changed;
}

} // namespace gpuspec::reports::judge::check_detail
