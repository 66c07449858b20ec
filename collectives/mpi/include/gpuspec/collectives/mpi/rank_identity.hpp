#pragma once
/// Who each rank is: its place in the job and on its node, and the GPU it measures (one rank
/// per GPU, docs/multi-node.md). Every rank tells rank 0 what it sees (a hello); rank 0 decides
/// for all (assign_ranks), so that no rank waits on a collective without a deadline. Pure: the
/// environment is read through a function, the inventories are passed in.

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpuspec/reports/model/outcome.hpp"
#include "gpuspec/reports/model/report.hpp"

namespace gpuspec::collectives::mpi {

/// getenv, or a test's table.
using environment_lookup = std::function<std::optional<std::string>(std::string_view name)>;
[[nodiscard]] environment_lookup process_environment();

/// The local rank the launcher set: OpenMPI's OMPI_COMM_WORLD_LOCAL_RANK, Slurm's
/// SLURM_LOCALID, MPICH's MPI_LOCALRANKID, in that order; std::nullopt when none holds a
/// number (rank 0 then numbers the ranks of each host itself).
struct launcher_local_rank {
  int local_rank = 0;
  std::string variable;
  friend bool operator==(const launcher_local_rank&, const launcher_local_rank&) = default;
};
[[nodiscard]] std::optional<launcher_local_rank>
local_rank_from_environment(const environment_lookup& env);

/// What one rank tells rank 0 at the start.
struct rank_hello {
  int rank = 0;
  std::string host;
  long pid = 0;
  std::optional<launcher_local_rank> local_rank;
  /// Its node's inventory (host and GPUs as NVML lists them).
  reports::host_info host_info;
  std::vector<reports::device_info> devices;
  /// "" when the GPUs are usable; else why not ("no NVIDIA driver ...", "no GPU ...").
  std::string no_gpu_reason;
  friend bool operator==(const rank_hello&, const rank_hello&) = default;
};
[[nodiscard]] nlohmann::ordered_json to_json(const rank_hello& h);
/// The inverse, read as every message is (reports' json_reader.hpp): strict, every key; an
/// error names the field (file "hello").
[[nodiscard]] reports::outcome<rank_hello> hello_from_json(const nlohmann::ordered_json& j);

/// What rank 0 decided for one rank.
struct rank_assignment {
  int rank = 0;
  std::string host;
  int local_rank = 0;  ///< its place among the ranks of its host, from 0
  int local_ranks = 1; ///< how many ranks its host runs
  /// Its GPU: the local_rank-th of its host's GPUs in PCI bus id order (never by
  /// CUDA_VISIBLE_DEVICES, docs/design.md's pitfalls); empty when the host has none usable.
  std::optional<reports::device_info> device;
  std::string no_device_reason; ///< why `device` is empty
  friend bool operator==(const rank_assignment&, const rank_assignment&) = default;
};
[[nodiscard]] nlohmann::ordered_json to_json(const rank_assignment& a);
/// The inverse, read as hello_from_json reads (file "assignment"); its inventory holds one GPU.
[[nodiscard]] reports::outcome<rank_assignment>
assignment_from_json(const nlohmann::ordered_json& j);

struct assignment_outcome {
  std::vector<rank_assignment> ranks; ///< by rank; empty when `error` is set
  /// More ranks on a host than it has GPUs (NCCL refuses two ranks on one GPU): named with the
  /// host, the counts and what to do; "" otherwise.
  std::string error;
};

/// One assignment per hello, `hellos` indexed by rank. Local ranks come from the launcher when
/// every rank of a host has one and they number that host's ranks 0..n-1; otherwise the ranks
/// of a host are numbered in rank order.
[[nodiscard]] assignment_outcome assign_ranks(std::span<const rank_hello> hellos);

/// The distinct hosts of the job, in the order of their first rank.
[[nodiscard]] std::vector<std::string> hosts_of(std::span<const rank_assignment> ranks);

} // namespace gpuspec::collectives::mpi
