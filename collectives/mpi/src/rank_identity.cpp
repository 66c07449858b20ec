#include "gpuspec/collectives/mpi/rank_identity.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <map>

#include <fmt/format.h>

#include "gpuspec/host/pci_bus_id.hpp"
#include "gpuspec/reports/model/json_reader.hpp"
#include "gpuspec/reports/model/report_json.hpp"

namespace gpuspec::collectives::mpi {

environment_lookup process_environment() {
  return [](std::string_view name) -> std::optional<std::string> {
    const char* v = std::getenv(std::string(name).c_str());
    if (v == nullptr)
      return std::nullopt;
    return std::string(v);
  };
}

std::optional<launcher_local_rank> local_rank_from_environment(const environment_lookup& env) {
  for (const char* name : {"OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID", "MPI_LOCALRANKID"}) {
    const auto value = env(name);
    if (!value || value->empty() || value->size() > 6 ||
        !std::all_of(value->begin(), value->end(),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }))
      continue;
    return launcher_local_rank{std::stoi(*value), name};
  }
  return std::nullopt;
}

namespace {

/// The node's inventory travels as a report without results: the one JSON mapping of host and
/// device records (report_json.hpp), not a second one.
nlohmann::ordered_json inventory_json(const reports::host_info& host,
                                      const std::vector<reports::device_info>& devices) {
  reports::report r;
  r.host = host;
  r.devices = devices;
  return reports::to_json(r);
}

/// NVML writes every bus id of one host the same way ("00000000:3B:00.0"): compared without
/// case, they order the GPUs as the PCI topology does.
bool bus_id_less(const reports::device_info& a, const reports::device_info& b) {
  return std::lexicographical_compare(a.pci_bus_id.begin(), a.pci_bus_id.end(),
                                      b.pci_bus_id.begin(), b.pci_bus_id.end(), [](char x, char y) {
                                        return std::tolower(static_cast<unsigned char>(x)) <
                                               std::tolower(static_cast<unsigned char>(y));
                                      });
}

} // namespace

nlohmann::ordered_json to_json(const rank_hello& h) {
  nlohmann::ordered_json local = nullptr;
  if (h.local_rank)
    local = {{"local_rank", h.local_rank->local_rank}, {"variable", h.local_rank->variable}};
  return {{"rank", h.rank},
          {"host", h.host},
          {"pid", h.pid},
          {"local_rank", local},
          {"no_gpu_reason", h.no_gpu_reason},
          {"inventory", inventory_json(h.host_info, h.devices)}};
}

namespace {

using reports::detail::element;
using reports::detail::object_reader;
using reports::detail::presence;

constexpr std::array<std::string_view, 6> hello_keys{"rank",       "host",          "pid",
                                                     "local_rank", "no_gpu_reason", "inventory"};
constexpr std::array<std::string_view, 2> local_rank_keys{"local_rank", "variable"};
constexpr std::array<std::string_view, 6> assignment_keys{
    "rank", "host", "local_rank", "local_ranks", "no_device_reason", "inventory"};

/// The node's inventory, a report without results, read by the report's own reader.
reports::report read_inventory(const object_reader& o, std::string_view file) {
  const std::string path = o.path_of("inventory");
  return reports::detail::read_nested(
      reports::report_from_json(reports::detail::to_json_value(o.at("inventory"), path), file),
      path);
}

rank_hello read_hello(element e) {
  const object_reader o(e, "", hello_keys, presence::optional_keys);
  rank_hello h;
  h.rank = o.integer<int>("rank");
  h.host = o.string("host");
  h.pid = o.integer<long>("pid");
  if (o.has("local_rank")) {
    const object_reader l(o.at("local_rank"), o.path_of("local_rank"), local_rank_keys,
                          presence::optional_keys);
    h.local_rank = launcher_local_rank{l.integer<int>("local_rank"), l.string("variable")};
  } else {
    (void)o.at("local_rank"); // null, not absent
  }
  h.no_gpu_reason = o.string("no_gpu_reason");
  auto inventory = read_inventory(o, "hello");
  h.host_info = std::move(inventory.host);
  h.devices = std::move(inventory.devices);
  return h;
}

rank_assignment read_assignment(element e) {
  const object_reader o(e, "", assignment_keys, presence::optional_keys);
  rank_assignment a;
  a.rank = o.integer<int>("rank");
  a.host = o.string("host");
  a.local_rank = o.integer<int>("local_rank");
  a.local_ranks = o.integer<int>("local_ranks");
  a.no_device_reason = o.string("no_device_reason");
  if (o.has("inventory")) {
    const auto inventory = read_inventory(o, "assignment");
    if (inventory.devices.size() != 1)
      reports::detail::fail(o.path_of("inventory") + ".devices",
                            fmt::format("expected one GPU, got {}", inventory.devices.size()));
    a.device = inventory.devices.front();
  } else {
    (void)o.at("inventory"); // null, not absent
  }
  return a;
}

} // namespace

reports::outcome<rank_hello> hello_from_json(const nlohmann::ordered_json& j) {
  return reports::detail::read_json_value(j, "hello", "hello", read_hello);
}

nlohmann::ordered_json to_json(const rank_assignment& a) {
  return {{"rank", a.rank},
          {"host", a.host},
          {"local_rank", a.local_rank},
          {"local_ranks", a.local_ranks},
          {"no_device_reason", a.no_device_reason},
          {"inventory", a.device ? inventory_json({}, {*a.device}) : nlohmann::ordered_json()}};
}

reports::outcome<rank_assignment> assignment_from_json(const nlohmann::ordered_json& j) {
  return reports::detail::read_json_value(j, "assignment", "assignment", read_assignment);
}

namespace {

/// Which of the host's GPUs (bus-id order) this rank's own CUDA runtime sees: those its own
/// inventory gave a CUDA ordinal. A rank whose inventory gave none (a build without CUDA, whose
/// measure skips anyway) is taken to see them all.
std::vector<bool> visible_to(const rank_hello& h, const std::vector<reports::device_info>& gpus) {
  const bool any = std::any_of(h.devices.begin(), h.devices.end(),
                               [](const reports::device_info& d) { return d.cuda_index; });
  std::vector<bool> out(gpus.size(), !any);
  if (!any)
    return out;
  for (std::size_t g = 0; g < gpus.size(); ++g)
    for (const auto& d : h.devices)
      if (d.cuda_index && host::normalize_pci_bus_id(d.pci_bus_id) ==
                              host::normalize_pci_bus_id(gpus[g].pci_bus_id))
        out[g] = true;
  return out;
}

/// The rank's own inventory record of `gpu` (its own CUDA ordinal), else the host's.
reports::device_info own_record(const rank_hello& h, const reports::device_info& gpu) {
  for (const auto& d : h.devices)
    if (host::normalize_pci_bus_id(d.pci_bus_id) == host::normalize_pci_bus_id(gpu.pci_bus_id))
      return d;
  return gpu;
}

/// True when the launcher numbers this host's ranks 0..n-1 exactly (its local rank is then
/// each rank's place on the host).
bool launcher_numbers(const std::vector<const rank_hello*>& ranks) {
  std::vector<int> sorted;
  for (const auto* h : ranks)
    if (h->local_rank)
      sorted.push_back(h->local_rank->local_rank);
  std::sort(sorted.begin(), sorted.end());
  bool use_launcher = sorted.size() == ranks.size();
  for (std::size_t i = 0; use_launcher && i < sorted.size(); ++i)
    use_launcher = sorted[i] == static_cast<int>(i);
  return use_launcher;
}

/// The GPU a rank takes: the `wanted`-th, or else the first one still free, among those its own
/// CUDA sees.
std::optional<std::size_t> pick_gpu(const std::vector<bool>& visible,
                                    const std::vector<bool>& taken, std::size_t wanted) {
  if (wanted < visible.size() && visible[wanted] && !taken[wanted])
    return wanted;
  for (std::size_t g = 0; g < visible.size(); ++g)
    if (visible[g] && !taken[g])
      return g;
  return std::nullopt;
}

/// One host's ranks (sorted by rank) given its GPUs, into out.ranks; the error when the host
/// has more ranks than GPUs ("" otherwise).
std::string assign_host(const std::string& host, const std::vector<const rank_hello*>& ranks,
                        std::size_t hello_count, assignment_outcome& out) {
  const bool use_launcher = launcher_numbers(ranks);
  // Every rank of a host sees the same GPUs; the first rank's inventory stands for them.
  const rank_hello& first = *ranks.front();
  std::vector<reports::device_info> gpus =
      first.no_gpu_reason.empty() ? first.devices : std::vector<reports::device_info>{};
  std::sort(gpus.begin(), gpus.end(), bus_id_less);
  const std::string no_gpu = !first.no_gpu_reason.empty() ? first.no_gpu_reason
                             : gpus.empty()               ? "no GPU in the inventory"
                                                          : "";
  const int n = static_cast<int>(ranks.size());
  if (!gpus.empty() && n > static_cast<int>(gpus.size()))
    return fmt::format(
        "host {}: {} ranks but {} GPU{}: one rank per GPU (NCCL refuses two ranks on one GPU); "
        "start at most {} rank{} on it (mpirun --map-by ppr:{}:node, srun "
        "--ntasks-per-node={})",
        host, n, gpus.size(), gpus.size() == 1 ? "" : "s", gpus.size(), gpus.size() == 1 ? "" : "s",
        gpus.size(), gpus.size());
  // In local-rank order, each rank takes the local_rank-th GPU, or else the first one still
  // free, among those its own CUDA sees (per-rank CUDA_VISIBLE_DEVICES, srun
  // --gpus-per-task=1), and its own inventory's record of it (its own CUDA ordinal).
  std::vector<std::size_t> order(ranks.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  const auto local_of = [&](std::size_t i) {
    return use_launcher ? ranks[i]->local_rank->local_rank : static_cast<int>(i);
  };
  std::sort(order.begin(), order.end(),
            [&](std::size_t x, std::size_t y) { return local_of(x) < local_of(y); });
  std::vector<bool> taken(gpus.size(), false);
  for (const std::size_t i : order) {
    const rank_hello& h = *ranks[i];
    if (h.rank < 0 || h.rank >= static_cast<int>(hello_count))
      continue; // hellos are indexed by rank; the launcher never sends another
    rank_assignment& a = out.ranks[static_cast<std::size_t>(h.rank)];
    a.rank = h.rank;
    a.host = host;
    a.local_rank = local_of(i);
    a.local_ranks = n;
    if (gpus.empty()) {
      a.no_device_reason = no_gpu;
      continue;
    }
    const auto pick = pick_gpu(visible_to(h, gpus), taken, static_cast<std::size_t>(a.local_rank));
    if (!pick) {
      a.no_device_reason =
          fmt::format("rank {}'s CUDA runtime sees none of host {}'s GPUs that no other rank took "
                      "(CUDA_VISIBLE_DEVICES of this rank, or MIG mode)",
                      h.rank, host);
      continue;
    }
    taken[*pick] = true;
    a.device = own_record(h, gpus[*pick]);
  }
  return "";
}

} // namespace

assignment_outcome assign_ranks(std::span<const rank_hello> hellos) {
  std::map<std::string, std::vector<const rank_hello*>> by_host;
  for (const auto& h : hellos)
    by_host[h.host].push_back(&h);

  assignment_outcome out;
  out.ranks.resize(hellos.size());
  for (auto& [host, ranks] : by_host) {
    std::sort(ranks.begin(), ranks.end(),
              [](const rank_hello* a, const rank_hello* b) { return a->rank < b->rank; });
    if (auto error = assign_host(host, ranks, hellos.size(), out); !error.empty()) {
      out.ranks.clear();
      out.error = std::move(error);
      return out;
    }
  }
  return out;
}

std::vector<std::string> hosts_of(std::span<const rank_assignment> ranks) {
  std::vector<std::string> out;
  for (const auto& r : ranks)
    if (std::find(out.begin(), out.end(), r.host) == out.end())
      out.push_back(r.host);
  return out;
}

} // namespace gpuspec::collectives::mpi
