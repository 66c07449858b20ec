// Rules of NCCL collectives (docs/check.md, "Collectives"): what the check reads from the
// observations benches/families/collective.cpp writes (nranks, nccl_transports,
// ranks_not_finished) beside the inventory's NVLink state.

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "gpuspec/reports/judge/diagnosis.hpp"
#include "gpuspec/reports/model/identity.hpp"

namespace gpuspec::reports::inline judge {
namespace {

bool is_collective(const result& res) { return res.bench_id.starts_with("collective."); }

/// NCCL's transports (nccl_debug_log.hpp's names) that stage through host memory or go out to a
/// network: on one node, slower than the NVLink the GPUs have. CollNet is left out: it is the
/// network's own reduction between nodes, never a path between GPUs of one node.
bool slower_than_nvlink(const std::string& transport) {
  return transport == "SHM" || transport == "NET/Socket" || transport == "NET/IB" ||
         transport == "NET";
}

std::optional<std::int64_t> links_active(const device_info& d) {
  const auto it = d.counters_before.find("nvlink.links_active");
  return it == d.counters_before.end() ? std::nullopt : it->second.value;
}

} // namespace

std::string collective_not_judged(const result& res) {
  if (!is_collective(res))
    return {};
  // The communicator's ranks where the result says (a multi-node result names one node's GPUs
  // in `devices`, of a collective over more), else its GPUs.
  const auto n = res.observations.find("nranks");
  const bool one_rank = n != res.observations.end() && n->is_number_integer()
                            ? n->get<std::int64_t>() == 1
                            : res.devices.size() == 1;
  if (!one_rank)
    return {};
  return "reported, not judged: one rank, so nothing crosses a bus (nccl-tests' busbw factor "
         "is 0 for all-reduce, all-gather, reduce-scatter and alltoall, 1 for a local copy)";
}

std::optional<diagnosis> collective_timeout(const report& r, const result& res) {
  if (!is_collective(res) || res.status != result_status::failed)
    return std::nullopt;
  const auto who = res.observations.find("ranks_not_finished");
  if (who == res.observations.end() || !who->is_array())
    return std::nullopt;
  // Ranks are positions in the result's devices (the collective's GPUs in the run's order).
  std::vector<int> gpus;
  for (const auto& rank : *who)
    if (rank.is_number_integer()) {
      const auto k = rank.get<std::int64_t>();
      if (k >= 0 && static_cast<std::size_t>(k) < res.devices.size())
        gpus.push_back(res.devices[static_cast<std::size_t>(k)]);
    }
  const device_info* first = gpus.empty() ? nullptr : device_of(r, gpus.front());
  auto d = make_diagnosis("GPUSPEC-COLLECTIVE-TIMEOUT", verdict_status::fail,
                          "failed: " + (res.reason.empty() ? std::string("timed out") : res.reason),
                          first, r.host);
  d.evidence["bench_id"] = res.bench_id;
  d.evidence["ranks_not_finished"] = who->dump();
  d.evidence["gpus_not_finished"] = fmt::format("{}", fmt::join(gpus, ","));
  if (const auto size = res.axes.find("size"); size != res.axes.end() && size->is_string())
    d.evidence["size"] = size->get<std::string>();
  return d;
}

std::vector<diagnosis> collective_findings(const report& r, const result& res,
                                           verdict_status severity) {
  std::vector<diagnosis> out;
  if (!is_collective(res) || res.devices.size() < 2)
    return out;
  const auto used = res.observations.find("nccl_transports");
  if (used == res.observations.end() || !used->is_array())
    return out;
  std::vector<std::string> slow;
  for (const auto& t : *used)
    if (t.is_string() && slower_than_nvlink(t.get<std::string>()))
      slow.push_back(t.get<std::string>());
  if (slow.empty())
    return out;

  // The topology offers NVLink to every GPU of the collective: each has links active. Where one
  // has none, NCCL has to route around it, and GPUSPEC-NVLINK-DOWN says why.
  std::vector<std::string> links;
  for (int index : res.devices) {
    const device_info* d = device_of(r, index);
    const auto active = d ? links_active(*d) : std::nullopt;
    if (!active || *active <= 0)
      return out;
    links.push_back(fmt::format("GPU {}: {}", index, *active));
  }
  const auto size = res.axes.find("size");
  auto d = make_diagnosis(
      "GPUSPEC-NCCL-TRANSPORT-FALLBACK", severity,
      fmt::format("{}{}: NCCL connected GPUs through {} although every GPU of the collective has "
                  "NVLink links active ({}): a slower transport than the topology offers",
                  res.bench_id,
                  size != res.axes.end() && size->is_string() ? " of " + size->get<std::string>()
                                                              : std::string(),
                  fmt::join(slow, ", "), fmt::join(links, "; ")),
      device_of(r, res.devices.front()), r.host);
  d.evidence["bench_id"] = res.bench_id;
  d.evidence["nccl_transports"] = used->dump();
  d.evidence["nvlink.links_active"] = fmt::format("{}", fmt::join(links, "; "));
  out.push_back(std::move(d));
  return out;
}

} // namespace gpuspec::reports::judge
