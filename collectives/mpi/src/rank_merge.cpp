#include "gpuspec/collectives/mpi/rank_merge.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpuspec/kernels/pointer_chase.hpp" // parse_size_text
#include "gpuspec/reports/report_json.hpp"
#include "gpuspec/reports/statistics.hpp"

namespace gpuspec::collectives::mpi {

namespace {

const rank_assignment* assignment_of(int rank, std::span<const rank_assignment> ranks) {
  for (const auto& a : ranks)
    if (a.rank == rank)
      return &a;
  return nullptr;
}

std::string host_of(int rank, std::span<const rank_assignment> ranks) {
  const auto* a = assignment_of(rank, ranks);
  return a ? a->host : std::string("?");
}

/// The slowest rank is the one with the lowest figure where higher is better.
bool slower(const reports::result& a, const reports::result& b) {
  return a.higher_is_better ? a.stats.median < b.stats.median : a.stats.median > b.stats.median;
}

/// Every rank's own figure, for the observations.
nlohmann::ordered_json ranks_observation(std::span<const rank_reply> replies,
                                         std::span<const rank_assignment> ranks) {
  auto out = nlohmann::ordered_json::array();
  for (const auto& reply : replies) {
    const auto* a = assignment_of(reply.rank, ranks);
    const auto& r = reply.result;
    const bool ok = r.status == reports::result_status::ok;
    out.push_back({{"rank", reply.rank},
                   {"host", a ? a->host : std::string("?")},
                   {"gpu", a && a->device ? nlohmann::ordered_json(a->device->index) : nullptr},
                   {"pci_bus_id", a && a->device ? a->device->pci_bus_id : std::string()},
                   {"status", reports::to_string(r.status)},
                   {"median", ok ? nlohmann::ordered_json(r.stats.median) : nullptr}});
  }
  return out;
}

nlohmann::ordered_json nodes_observation(const mpi_case& c,
                                         std::span<const rank_assignment> ranks) {
  std::vector<std::string> hosts;
  for (int rank : c.group) {
    const std::string h = host_of(rank, ranks);
    if (std::find(hosts.begin(), hosts.end(), h) == hosts.end())
      hosts.push_back(h);
  }
  return hosts;
}

/// The GPUs of the group's ranks on the report's host, in rank order.
std::vector<int> report_devices(const mpi_case& c, std::span<const rank_assignment> ranks,
                                const std::string& report_host) {
  std::vector<int> out;
  for (int rank : c.group)
    if (const auto* a = assignment_of(rank, ranks); a && a->host == report_host && a->device)
      out.push_back(a->device->index);
  return out;
}

int severity(reports::result_status s) {
  switch (s) {
  case reports::result_status::failed:
    return 3;
  case reports::result_status::not_supported:
    return 2;
  case reports::result_status::skipped:
    return 1;
  case reports::result_status::ok:
    break;
  }
  return 0;
}

/// "ranks 0, 1 on vm; rank 2 on b": the ranks of one reason, by host.
std::string ranks_text(const std::vector<int>& list, std::span<const rank_assignment> ranks) {
  std::map<std::string, std::vector<int>> by_host;
  std::vector<std::string> order;
  for (int r : list) {
    const std::string h = host_of(r, ranks);
    if (!by_host.contains(h))
      order.push_back(h);
    by_host[h].push_back(r);
  }
  std::vector<std::string> parts;
  for (const auto& h : order) {
    const auto& rs = by_host[h];
    parts.push_back(
        fmt::format("rank{} {} on {}", rs.size() == 1 ? "" : "s", fmt::join(rs, ", "), h));
  }
  return fmt::format("{}", fmt::join(parts, "; "));
}

std::string size_text(const mpi_case& c) {
  const auto it = c.axes.find("size");
  if (it == c.axes.end() || !it->is_string())
    return "?";
  try {
    return fmt::format("{} bytes", kernels::parse_size_text(it->get<std::string>()));
  } catch (const std::invalid_argument&) {
    return it->get<std::string>();
  }
}

} // namespace

std::string rank_name(int rank, std::span<const rank_assignment> ranks) {
  return fmt::format("rank {} ({})", rank, host_of(rank, ranks));
}

std::optional<rank_spread> spread_of(std::span<const rank_reply> replies,
                                     std::span<const rank_assignment> ranks) {
  const rank_reply* slowest = nullptr;
  std::vector<double> medians;
  for (const auto& reply : replies) {
    if (reply.result.status != reports::result_status::ok)
      continue;
    medians.push_back(reply.result.stats.median);
    if (slowest == nullptr || slower(reply.result, slowest->result) ||
        (reply.result.stats.median == slowest->result.stats.median && reply.rank < slowest->rank))
      slowest = &reply;
  }
  if (slowest == nullptr)
    return std::nullopt;
  rank_spread s;
  s.slowest_rank = slowest->rank;
  s.slowest_host = host_of(slowest->rank, ranks);
  s.slowest_median = slowest->result.stats.median;
  s.median = reports::median_of(medians);
  if (s.median > 0 && s.slowest_median > 0)
    s.behind = slowest->result.higher_is_better ? (s.median - s.slowest_median) / s.median
                                                : (s.slowest_median - s.median) / s.median;
  return s;
}

reports::result merge_case(const mpi_case& c, std::span<const rank_reply> replies,
                           std::span<const rank_assignment> ranks, const std::string& report_host) {
  reports::result out;
  const auto spread = spread_of(replies, ranks);
  // The worst disposition decides; among ok results, the slowest rank's figure stands.
  const rank_reply* worst = nullptr;
  for (const auto& reply : replies)
    if (worst == nullptr || severity(reply.result.status) > severity(worst->result.status))
      worst = &reply;
  if (worst != nullptr && worst->result.status == reports::result_status::ok && spread) {
    for (const auto& reply : replies)
      if (reply.rank == spread->slowest_rank)
        out = reply.result;
  } else if (worst != nullptr) {
    // Each reason of that disposition once, with the ranks that gave it.
    std::vector<std::pair<std::string, std::vector<int>>> reasons;
    for (const auto& reply : replies) {
      if (reply.result.status != worst->result.status)
        continue;
      auto it = std::find_if(reasons.begin(), reasons.end(),
                             [&](const auto& p) { return p.first == reply.result.reason; });
      if (it == reasons.end())
        reasons.emplace_back(reply.result.reason, std::vector<int>{reply.rank});
      else
        it->second.push_back(reply.rank);
    }
    std::vector<std::string> parts;
    for (const auto& [reason, rs] : reasons)
      parts.push_back(fmt::format("{} ({})", reason, ranks_text(rs, ranks)));
    out.status = worst->result.status;
    out.failure = worst->result.failure;
    out.reason = fmt::format("{}", fmt::join(parts, "; "));
    out.check = worst->result.check;
  }
  out.bench_id = c.bench_id;
  out.axes = c.axes;
  out.devices = report_devices(c, ranks, report_host);
  if (out.status == reports::result_status::failed && out.failure == reports::failure_kind::none)
    out.failure = reports::failure_kind::benchmark;
  out.observations["ranks"] = ranks_observation(replies, ranks);
  out.observations["nodes"] = nodes_observation(c, ranks);
  if (!c.pair.empty())
    out.observations["pair"] = c.pair;
  if (spread) {
    out.observations["slowest_rank"] = spread->slowest_rank;
    out.observations["slowest_host"] = spread->slowest_host;
    out.observations["rank_spread"] = spread->behind;
  }
  return out;
}

reports::result missing_ranks_result(const mpi_case& c, std::span<const missing_rank> missing,
                                     std::span<const rank_reply> arrived,
                                     std::span<const rank_assignment> ranks,
                                     const std::string& report_host, const std::string& ended_by) {
  reports::result out;
  out.bench_id = c.bench_id;
  out.axes = c.axes;
  out.devices = report_devices(c, ranks, report_host);
  out.status = reports::result_status::failed;
  bool any_died = false;
  std::vector<std::string> names;
  for (const auto& m : missing) {
    any_died = any_died || m.died;
    names.push_back(fmt::format("{}{}", rank_name(m.rank, ranks),
                                m.detail.empty() ? "" : fmt::format(": {}", m.detail)));
  }
  out.failure =
      any_died ? reports::failure_kind::worker_exit : reports::failure_kind::worker_timeout;
  out.reason = fmt::format("{} at {}: {} of {} rank{} had not arrived when {}: {}", c.bench_id,
                           size_text(c), missing.size(), c.group.size(),
                           c.group.size() == 1 ? "" : "s", ended_by, fmt::join(names, "; "));
  out.observations["ranks"] = ranks_observation(arrived, ranks);
  out.observations["nodes"] = nodes_observation(c, ranks);
  if (!c.pair.empty())
    out.observations["pair"] = c.pair;
  std::vector<int> missing_ranks;
  for (const auto& m : missing)
    missing_ranks.push_back(m.rank);
  out.observations["missing_ranks"] = missing_ranks;
  return out;
}

} // namespace gpuspec::collectives::mpi
