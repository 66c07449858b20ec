#include "gpuspec/collectives/mpi/rank_merge.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpuspec/collectives/bandwidth.hpp"
#include "gpuspec/collectives/collective_kind.hpp"
#include "gpuspec/host/collective_ceiling.hpp"
#include "gpuspec/host/telemetry.hpp"        // merge_gpu_summaries
#include "gpuspec/kernels/pointer_chase.hpp" // parse_size_text
#include "gpuspec/reports/model/reference.hpp"
#include "gpuspec/reports/model/report_json.hpp"
#include "gpuspec/reports/model/statistics.hpp"

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

/// Who a rank is, for the observations: its node and its GPU (NVML index, PCI bus id, serial,
/// UUID), so that a check of the report names the GPU at fault on its own node.
nlohmann::ordered_json rank_entry(int rank, std::span<const rank_assignment> ranks) {
  const auto* a = assignment_of(rank, ranks);
  const bool gpu = a != nullptr && a->device.has_value();
  return {{"rank", rank},
          {"host", a ? a->host : std::string("?")},
          {"gpu", gpu ? nlohmann::ordered_json(a->device->index) : nullptr},
          {"pci_bus_id", gpu ? a->device->pci_bus_id : std::string()},
          {"serial", gpu ? a->device->serial : std::string()},
          {"uuid", gpu ? a->device->uuid : std::string()}};
}

/// Every rank's own disposition and figure, for the observations (missing ranks last, status
/// "missing").
nlohmann::ordered_json ranks_observation(std::span<const rank_reply> replies,
                                         std::span<const rank_assignment> ranks,
                                         std::span<const int> missing = {}) {
  auto out = nlohmann::ordered_json::array();
  for (const auto& reply : replies) {
    const auto& r = reply.result;
    const bool ok = r.status == reports::result_status::ok;
    auto e = rank_entry(reply.rank, ranks);
    e["status"] = reports::to_string(r.status);
    e["median"] = ok ? nlohmann::ordered_json(r.stats.median) : nullptr;
    if (r.status == reports::result_status::failed)
      e["failure"] = reports::to_string(r.failure);
    if (!ok)
      e["reason"] = r.reason;
    if (const auto w = r.observations.find("wrong"); w != r.observations.end())
      e["wrong"] = *w;
    if (ok || r.status == reports::result_status::failed) {
      e["telemetry"] = r.telemetry.status;
      if (r.telemetry.temperature_c_max)
        e["temperature_c_max"] = *r.telemetry.temperature_c_max;
      if (r.telemetry.sm_clock_mhz_median)
        e["sm_clock_mhz_median"] = *r.telemetry.sm_clock_mhz_median;
    }
    out.push_back(std::move(e));
  }
  for (int rank : missing) {
    auto e = rank_entry(rank, ranks);
    e["status"] = "missing";
    e["median"] = nullptr;
    out.push_back(std::move(e));
  }
  return out;
}

/// The job's telemetry over the ranks that sampled (the worst rank for each figure,
/// merge_gpu_summaries), and a note for each rank that could not: a rank without telemetry is
/// said, not made to turn a verified result into an unknown one. No rank sampled: the first
/// rank's status stands (the check then says the telemetry is missing).
void merge_telemetry(reports::result& out, std::span<const rank_reply> replies,
                     std::span<const rank_assignment> ranks) {
  std::vector<std::pair<int, reports::telemetry_summary>> sampled;
  auto missing = nlohmann::ordered_json::array();
  for (const auto& reply : replies) {
    if (reply.result.status != reports::result_status::ok)
      continue;
    if (reply.result.telemetry.status == "ok" && reply.result.telemetry.samples > 0)
      sampled.emplace_back(reply.rank, reply.result.telemetry);
    else
      missing.push_back(fmt::format("{}: {}", rank_gpu_name(reply.rank, ranks),
                                    reply.result.telemetry.status == "ok"
                                        ? std::string("no sample in its measurement window")
                                        : reply.result.telemetry.status));
  }
  if (sampled.empty())
    return;
  out.telemetry = host::merge_gpu_summaries(sampled);
  if (!missing.empty())
    out.observations["telemetry_missing"] = std::move(missing);
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

/// "rank 1 on b, GPU 0 (00000000:18:00.0, serial X)": each rank of a failure by its GPU.
std::string gpus_text(const std::vector<int>& list, std::span<const rank_assignment> ranks) {
  std::vector<std::string> parts;
  for (int r : list)
    parts.push_back(rank_gpu_name(r, ranks));
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

std::vector<reports::node_inventory> other_nodes(std::span<const rank_hello> hellos,
                                                 std::span<const rank_assignment> ranks,
                                                 const std::string& report_host) {
  std::vector<reports::node_inventory> out;
  for (const auto& host : hosts_of(ranks)) {
    if (host == report_host)
      continue;
    reports::node_inventory n;
    for (const auto& h : hellos)
      if (h.host == host) {
        n.host = h.host_info;
        n.host.hostname = host;
        n.devices = h.devices;
        break;
      }
    for (const auto& a : ranks)
      if (a.host == host && a.device)
        n.run_devices.push_back(a.device->index);
    std::sort(n.run_devices.begin(), n.run_devices.end());
    out.push_back(std::move(n));
  }
  return out;
}

void attach_ceiling(reports::result& r, const mpi_case& c, std::span<const rank_assignment> ranks,
                    std::span<const rank_hello> hellos, const reports::spec_table* specs) {
  host::collective_ceiling_inputs in;
  std::vector<std::string> hosts;
  for (int rank : c.group) {
    const auto* a = assignment_of(rank, ranks);
    if (a == nullptr || !a->device)
      return; // a rank without a GPU: nothing to hold the group to
    const auto* spec =
        specs != nullptr && !a->device->spec_id.empty() ? specs->find(a->device->spec_id) : nullptr;
    in.gpus.push_back({&*a->device, spec});
    if (std::find(hosts.begin(), hosts.end(), a->host) == hosts.end())
      hosts.push_back(a->host);
  }
  if (hosts.size() >= 2) {
    for (const auto& host : hosts) {
      const auto hello = std::find_if(hellos.begin(), hellos.end(),
                                      [&](const rank_hello& h) { return h.host == host; });
      in.node_ports.push_back(hello != hellos.end() && hello->host_info.network_ports
                                  ? *hello->host_info.network_ports
                                  : std::vector<reports::network_port>{});
      in.node_names.push_back(host);
      // The node's ranks in this group use one port each (collective_ceiling.hpp).
      in.node_ranks.push_back(
          static_cast<int>(std::count_if(c.group.begin(), c.group.end(), [&](int rank) {
            const auto* a = assignment_of(rank, ranks);
            return a != nullptr && a->host == host;
          })));
    }
  } else {
    // One node: a collective the switch reduces (the row's switch_reduces: all-reduce) may gain
    // from it, as for the one-node family.
    const std::string prefix = "collective.";
    const auto kind = c.bench_id.starts_with(prefix)
                          ? parse_collective(std::string_view(c.bench_id).substr(prefix.size()))
                          : std::nullopt;
    if (kind)
      in.in_switch_factor = in_switch_factor(*kind, static_cast<int>(in.gpus.size()));
  }
  const auto choice = host::collective_link_ceiling(in);
  r.observations["ceiling_link"] = std::string(host::to_string(choice.link));
  r.observations["ceiling_why"] = choice.why;
  if (!choice.network_transport.empty())
    r.observations["network_transport"] = choice.network_transport;
  r.ceiling_value = choice.ceiling;
  r.ceiling_value.reference = reports::choose_reference(r.ceiling_value);
  // As the harness's one builder: against the reference, the clock-adjusted ceiling apart.
  r.efficiency.reset();
  r.efficiency_clock_adjusted.reset();
  if (r.status == reports::result_status::ok)
    reports::settle_efficiency(r);
}

std::string rank_name(int rank, std::span<const rank_assignment> ranks) {
  return fmt::format("rank {} ({})", rank, host_of(rank, ranks));
}

std::string rank_gpu_name(int rank, std::span<const rank_assignment> ranks) {
  const auto* a = assignment_of(rank, ranks);
  if (a == nullptr || !a->device)
    return fmt::format("rank {} on {}, no GPU", rank, host_of(rank, ranks));
  const auto& d = *a->device;
  return fmt::format("rank {} on {}, GPU {} ({}{})", rank, a->host, d.index, d.pci_bus_id,
                     d.serial.empty() ? std::string() : ", serial " + d.serial);
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
    merge_telemetry(out, replies, ranks);
    // nccl-tests' own figure (-a 1, its default): the mean of the ranks' times, beside ours.
    std::vector<double> times;
    for (const auto& reply : replies)
      if (const auto t = reply.result.observations.find("time_us");
          t != reply.result.observations.end() && t->is_number())
        times.push_back(t->get<double>());
    if (times.size() == replies.size() && !times.empty()) {
      double sum = 0;
      for (double t : times)
        sum += t;
      out.observations["time_us_rank_mean"] = sum / static_cast<double>(times.size());
    }
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
    // A failure names each GPU at fault; a skip, the ranks by node.
    const bool failed = worst->result.status == reports::result_status::failed;
    for (const auto& [reason, rs] : reasons)
      parts.push_back(
          fmt::format("{} ({})", reason, failed ? gpus_text(rs, ranks) : ranks_text(rs, ranks)));
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
    names.push_back(fmt::format("{}{}", rank_gpu_name(m.rank, ranks),
                                m.detail.empty() ? "" : fmt::format(": {}", m.detail)));
  }
  out.failure =
      any_died ? reports::failure_kind::worker_exit : reports::failure_kind::worker_timeout;
  out.reason = fmt::format("{} at {}: {} of {} rank{} had not arrived when {}: {}", c.bench_id,
                           size_text(c), missing.size(), c.group.size(),
                           c.group.size() == 1 ? "" : "s", ended_by, fmt::join(names, "; "));
  std::vector<int> missing_ranks;
  for (const auto& m : missing)
    missing_ranks.push_back(m.rank);
  out.observations["ranks"] = ranks_observation(arrived, ranks, missing_ranks);
  out.observations["nodes"] = nodes_observation(c, ranks);
  if (!c.pair.empty())
    out.observations["pair"] = c.pair;
  out.observations["missing_ranks"] = missing_ranks;
  return out;
}

} // namespace gpuspec::collectives::mpi
