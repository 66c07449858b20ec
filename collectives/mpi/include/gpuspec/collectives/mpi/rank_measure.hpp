#pragma once
/// The seam between the ranks' plumbing (bootstrap, rendezvous, gathering, rank 0's report) and
/// what one rank measures for one case. The launcher knows nothing of NCCL or CUDA; a measure
/// knows nothing of MPI: it is given its communicator's bootstrap (the group, the NCCL unique
/// id rank 0 made for it) and its GPU, and returns its own result.

#include <array>
#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "gpuspec/collectives/mpi/mpi_case.hpp"
#include "gpuspec/collectives/mpi/rank_identity.hpp"
#include "gpuspec/reports/model/report.hpp"

namespace gpuspec::collectives::mpi {

/// ncclUniqueId's size (NCCL_UNIQUE_ID_BYTES in nccl.h), kept here so that this header needs no
/// NCCL.
inline constexpr std::size_t nccl_unique_id_bytes = 128;
using nccl_unique_id = std::array<char, nccl_unique_id_bytes>;

/// What one rank knows when it measures one case.
struct rank_context {
  int rank = 0;   ///< in the job (MPI_COMM_WORLD)
  int nranks = 1; ///< in the job
  rank_assignment self;
  /// This rank's place in the case's group (ncclCommInitRank's rank) and the group's size.
  int group_rank = 0;
  int group_size = 1;
  /// The NCCL unique id of the case's group, made by rank 0 (all zeros without NCCL).
  nccl_unique_id unique_id{};
  /// Every rank's reply is due by then: a collective still running is aborted
  /// (ncclCommAbort) before it, so that its result names what was stuck.
  std::chrono::steady_clock::time_point deadline;
};

/// One rank's result for one case: bench id and axes as asked, `devices` the NVML index of its
/// GPU (empty without one), status and reason always set. The launcher adds the rank and host.
using rank_measure = std::function<reports::result(const rank_context&, const mpi_case&)>;

/// What this build measures with.
struct measure_backend {
  std::string name; ///< run.backend: "cuda" when it measures, "none" when nothing can run
  rank_measure measure;
  /// Rank 0 makes one unique id per group (ncclGetUniqueId); empty without NCCL.
  std::function<std::optional<nccl_unique_id>()> make_unique_id;
  /// Why nothing can be measured ("" when something can): every case is skipped with it.
  std::string unavailable_reason;
};

/// A measure that measures nothing: every case skipped with `reason` (no GPU, no NCCL, a build
/// without CUDA), as every result has a disposition.
[[nodiscard]] measure_backend unavailable_backend(std::string reason);

/// The collective this build runs for one rank: where the NCCL collective runner plugs in
/// (collectives/, the one-node benchmarks' runner, wired at merge). Chosen by CMake, not #if:
/// collective_measure_absent.cpp (no CUDA or no NCCL) gives unavailable_backend with the
/// reason. A rank without a GPU is skipped by the launcher before it asks.
[[nodiscard]] measure_backend collective_rank_backend();

/// The skipped result of `c` with `reason` (what unavailable_backend returns for every case).
[[nodiscard]] reports::result skipped_result(const mpi_case& c, const rank_context& rank,
                                             std::string reason);

/// Hex text of an id and back (the case messages are JSON); std::nullopt for text that is not
/// nccl_unique_id_bytes of hex.
[[nodiscard]] std::string to_hex(const nccl_unique_id& id);
[[nodiscard]] std::optional<nccl_unique_id> unique_id_from_hex(std::string_view hex);

} // namespace gpuspec::collectives::mpi
