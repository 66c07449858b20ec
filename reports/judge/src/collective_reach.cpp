// What NCCL's algorithm lets a collective's busbw reach above the single-path bound
// (diagnosis.hpp collective_reach_of; docs/check.md, "Collectives: what the algorithm can
// reach"). busbw assumes each GPU sends and receives over its own links (a ring); NVLink SHARP
// reduces in the NVSwitch and tree, NVLS-tree and CollNet reduce per node before the network,
// so each GPU (or node) moves the data once, and all-reduce's busbw can reach its bus factor
// 2(n-1)/n times the link: 8 H100 SXM "a peak busBw of ~480GB/s" against a 450 GB/s link
// (NVIDIA/nccl-tests#212), NVLS raising 8x H100 from 330 to 430 GB/s (NVIDIA/nccl#1221); two
// A3 Mega nodes (8 NICs of 200 Gb/s each, 200 GB/s together) at 338.8 GB/s
// (tests/fixtures/import/nccl-tests/h100x16-2node-all_reduce-a3mega-tcpxo.log).

#include <algorithm>
#include <array>
#include <set>
#include <string>

#include <fmt/format.h>

#include "gpuspec/reports/judge/diagnosis.hpp"

namespace gpuspec::reports::inline judge {
namespace {

std::string observed_text(const result& res, const char* key) {
  const auto it = res.observations.find(key);
  return it != res.observations.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::optional<std::int64_t> observed_integer(const result& res, const char* key) {
  const auto it = res.observations.find(key);
  if (it == res.observations.end() || !it->is_number_integer())
    return std::nullopt;
  return it->get<std::int64_t>();
}

/// Ranks on more than one host: the `ranks` observation (ours and imported logs alike) or the
/// network ceiling our multi-node launcher chose.
bool across_nodes(const result& res) {
  if (observed_text(res, "ceiling_link") == "network")
    return true;
  const auto it = res.observations.find("ranks");
  if (it == res.observations.end() || !it->is_array())
    return false;
  std::set<std::string> hosts;
  for (const auto& rank : *it)
    if (rank.is_object())
      if (const auto h = rank.find("host"); h != rank.end() && h->is_string())
        hosts.insert(h->get<std::string>());
  return hosts.size() > 1;
}

/// NVLink SHARP needs third-generation NVSwitch, which Hopper and later GPUs attach to (NCCL's
/// NCCL_NVLS_ENABLE: "NVLink SHARP is available in third-generation NVSwitch systems (NVLink4)
/// with Hopper and later GPU architectures").
bool nvls_capable(std::string_view arch) { return arch == "hopper" || arch == "blackwell"; }

} // namespace

std::optional<collective_reach> collective_reach_of(const result& res, std::string_view arch) {
  if (!res.bench_id.starts_with("collective."))
    return std::nullopt;
  const auto n =
      observed_integer(res, "nranks").value_or(static_cast<std::int64_t>(res.devices.size()));
  const bool all_reduce = res.bench_id == "collective.all_reduce";
  const double reduced = all_reduce && n >= 2 ? 2.0 * static_cast<double>(n - 1) / n : 1.0;
  const bool across = across_nodes(res);
  collective_reach out;
  const std::string named = observed_text(res, "nccl_algorithm");
  static constexpr std::array<std::string_view, 7> known{
      "RING", "PAT", "TREE", "NVLS", "NVLS_TREE", "COLLNET_DIRECT", "COLLNET_CHAIN"};
  if (std::find(known.begin(), known.end(), named) != known.end()) {
    out.stated = true;
    out.algorithm = named;
    const bool reduces_once = named == "NVLS" || named == "NVLS_TREE" ||
                              named.starts_with("COLLNET") || (named == "TREE" && across);
    out.factor = reduces_once ? reduced : 1.0;
    out.why =
        reduces_once && all_reduce
            ? fmt::format("NCCL ran {}, which reduces {} so each GPU moves the data "
                          "once: all-reduce's busbw can reach 2(n-1)/n = {:.3g} x the link",
                          named, across ? "per node before the network" : "in the switch", reduced)
            : fmt::format("NCCL ran {}: each GPU sends and receives over its own links, "
                          "so busbw cannot exceed them",
                          named);
    return out;
  }
  const auto nvls_channels = observed_integer(res, "nccl_nvls_channels");
  const auto multicast = res.observations.find("nccl_nvls_multicast");
  const bool no_nvls =
      (nvls_channels && *nvls_channels == 0) ||
      (multicast != res.observations.end() && multicast->is_boolean() && !multicast->get<bool>());
  if (across && all_reduce) {
    out.factor = reduced;
    out.algorithm = "TREE, NVLS_TREE or COLLNET";
    out.why = fmt::format("across nodes NCCL's tree, NVLS-tree and CollNet reduce per node "
                          "before the network, so all-reduce's busbw can reach 2(n-1)/n = {:.3g} "
                          "x the network; {}",
                          reduced,
                          named.empty() ? "the log does not say which algorithm ran"
                                        : "NCCL's log names none: " + named);
  } else if (all_reduce && observed_text(res, "ceiling_link") != "PCIe" && nvls_capable(arch) &&
             !no_nvls) {
    out.factor = reduced;
    out.algorithm = "NVLS";
    out.why = fmt::format("on an NVSwitch node of {} GPUs NVLink SHARP (NVLS) reduces in the "
                          "switch, so all-reduce's busbw can reach 2(n-1)/n = {:.3g} x the link; "
                          "{}",
                          arch, reduced,
                          named.empty() ? "the log does not say which algorithm ran"
                                        : "NCCL's log names none: " + named);
  } else {
    out.algorithm = "RING";
    out.why = no_nvls ? "NCCL counted no NVLS channel (or no multicast), so no algorithm "
                        "reduces in the switch: busbw cannot exceed the link"
                      : "no algorithm NCCL has for this collective and path reduces in the "
                        "switch or the network: busbw cannot exceed the link";
  }
  return out;
}

} // namespace gpuspec::reports::judge
