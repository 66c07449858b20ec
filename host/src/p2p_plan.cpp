// The host side of transfer.p2p (p2p_plan.hpp).

#include "gpuspec/host/p2p_plan.hpp"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpuspec/host/pcie_link.hpp"
#include "gpuspec/reports/model/reference.hpp"

namespace gpuspec::host {
namespace {

std::optional<int> parse_index(std::string_view text) {
  int value = -1;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || value < 0)
    return std::nullopt;
  return value;
}

} // namespace

namespace {

bool every_pair(std::string_view suite) { return suite == "standard" || suite == "full"; }

} // namespace

std::vector<std::string> p2p_planned_pairs(std::vector<int> gpus, std::string_view suite) {
  std::sort(gpus.begin(), gpus.end());
  gpus.erase(std::unique(gpus.begin(), gpus.end()), gpus.end());
  std::vector<std::string> values;
  const std::size_t n = gpus.size();
  if (n < 2)
    return values;
  const auto add = [&](int src, int dst) {
    auto v = fmt::format("{}->{}", src, dst);
    if (std::find(values.begin(), values.end(), v) == values.end())
      values.push_back(std::move(v));
  };
  if (every_pair(suite)) {
    for (const int src : gpus)
      for (const int dst : gpus)
        if (src != dst)
          add(src, dst);
    return values;
  }
  for (std::size_t i = 0; i < n; ++i)
    add(gpus[i], gpus[(i + 1) % n]);
  for (std::size_t i = 0; i < n; ++i)
    add(gpus[(i + 1) % n], gpus[i]);
  return values;
}

std::string p2p_plan_text(int gpu_count, std::string_view suite) {
  const int all = gpu_count * (gpu_count - 1);
  if (gpu_count < 2)
    return fmt::format("no pair: {} GPU", gpu_count);
  if (every_pair(suite))
    return fmt::format("every ordered pair of the {} GPUs ({})", gpu_count, all);
  const int ring = gpu_count == 2 ? 2 : 2 * gpu_count;
  return fmt::format("a ring over the {} GPUs, each to the next and back: {} of the {} ordered "
                     "pairs ({} suite)",
                     gpu_count, ring, all, suite);
}

std::optional<std::pair<int, int>> parse_p2p_pair(std::string_view text) {
  const auto arrow = text.find("->");
  if (arrow == std::string_view::npos)
    return std::nullopt;
  const auto src = parse_index(text.substr(0, arrow));
  const auto dst = parse_index(text.substr(arrow + 2));
  if (!src || !dst || *src == *dst)
    return std::nullopt;
  return std::pair{*src, *dst};
}

std::string p2p_pair_skip_reason(const std::vector<int>& selected, int src, int dst) {
  if (selected.size() < 2)
    return "one GPU: no pair";
  for (const int gpu : {src, dst})
    if (std::find(selected.begin(), selected.end(), gpu) == selected.end())
      return fmt::format("GPU {} is not among the selected GPUs ({}): no pair {}->{}", gpu,
                         fmt::join(selected, ", "), src, dst);
  return {};
}

reports::ceiling p2p_ceiling(const reports::topology_info& topology,
                             const reports::device_info& src, const reports::device_info& dst,
                             int directions) {
  reports::ceiling c;
  const auto path = reports::peer_copy_path(topology, src, dst);
  if (!path)
    return c;
  c.clock_adjusted = path->gbs_per_direction * directions;
  if (path->nvlink) {
    const reports::gpu_topology* g = reports::find_gpu(topology, src.index);
    c.clock_adjusted_source = fmt::format(
        "NVLink {}: {} active link(s) between GPU {} and GPU {} x {:g} GB/s per link and "
        "direction{} ({})",
        g->nvlink_version, path->nvlink_links, src.index, dst.index, path->nvlink_link_gbs,
        directions == 2 ? " x 2 directions" : "", g->nvlink_link_source);
  } else {
    c.clock_adjusted_source = fmt::format(
        "no NVLink between GPU {} and GPU {}: the slower PCIe link, GPU {}'s, at NVML's maximum "
        "generation (an idle link downtrains) and the width as trained: {}",
        src.index, dst.index, path->slower, pcie_link_formula(path->gen, path->width, directions));
  }
  c.reference = reports::reference_kind::clock_adjusted;
  return c;
}

std::string p2p_path_text(const reports::topology_info& topology, int src, int dst) {
  const reports::gpu_pair* pair = reports::find_pair(topology, src, dst);
  if (pair == nullptr)
    return "unknown";
  if (pair->nvlink_links > 0) {
    const auto* g = reports::find_gpu(topology, src);
    const bool switched =
        g != nullptr && std::any_of(g->nvlinks.begin(), g->nvlinks.end(), [](const auto& l) {
          return l.active && l.remote_type == "switch";
        });
    return fmt::format("NVLink {} x{}{}", g != nullptr ? g->nvlink_version : "", pair->nvlink_links,
                       switched ? " (through NVSwitches)" : "");
  }
  if (pair->pcie_path.empty())
    return "unknown";
  return fmt::format("PCIe, {} ({})", pair->pcie_path, reports::topology_matrix_cell(*pair));
}

} // namespace gpuspec::host
