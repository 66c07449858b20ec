#pragma once
/// Rank 0's side of a case: the replies of every rank of its group made into the case's one
/// result (a collective is as fast as its slowest rank, nccl-tests' convention), with every
/// rank's own figure and the slowest rank and node kept as observations; and the failed result
/// of a case some ranks never answered. Pure: the launcher feeds it what arrived.

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gpuspec/collectives/mpi/mpi_case.hpp"
#include "gpuspec/collectives/mpi/rank_identity.hpp"
#include "gpuspec/reports/model/report.hpp"
#include "gpuspec/reports/model/spec_table.hpp"

namespace gpuspec::collectives::mpi {

/// One rank's reply to one case.
struct rank_reply {
  int rank = 0;
  reports::result result;
};

/// Where the slowest rank of a case sits against the others (its ok results only).
struct rank_spread {
  int slowest_rank = 0;
  std::string slowest_host;
  double slowest_median = 0; ///< the slowest rank's median, in the result's unit
  double median = 0;         ///< the median over the ranks' medians
  /// How far the slowest rank is behind the median of the ranks, as a fraction of it: 0.2 is
  /// 20% slower (lower bandwidth, or a longer time for a metric where lower is better).
  double behind = 0;
};
/// std::nullopt when no reply is ok. Ties go to the lowest rank.
[[nodiscard]] std::optional<rank_spread> spread_of(std::span<const rank_reply> replies,
                                                   std::span<const rank_assignment> ranks);

/// The case's result in rank 0's report, from a reply of every rank of `c.group`:
///  - every rank ok: the slowest rank's result (samples, statistics, ceiling, telemetry);
///  - else the worst disposition (failed, then not supported, then skipped), its reason naming
///    the ranks of each reason: "not built with CUDA and NCCL (ranks 0, 1 on vm)".
/// `devices` are the GPUs of the ranks on `report_host` (the report's inventory is that node's;
/// the other ranks' GPUs are named in the observations; `gpuspec check` judges each node with
/// its own ranks, reports/multi_node.hpp). A failure's reason names each GPU at fault
/// (rank_gpu_name). Observations: the slowest rank's own, then "ranks" (each rank's rank, host,
/// gpu, pci_bus_id, serial, uuid, status, median, and where they apply failure, reason, wrong,
/// telemetry status, temperature_c_max, sm_clock_mhz_median), "nodes", and, when any rank is
/// ok, "slowest_rank", "slowest_host", "rank_spread" (its `behind`). Telemetry, when every rank
/// is ok: the worst rank's figure of every rank that sampled; a rank that could not is named in
/// "telemetry_missing" and does not make the telemetry missing.
[[nodiscard]] reports::result merge_case(const mpi_case& c, std::span<const rank_reply> replies,
                                         std::span<const rank_assignment> ranks,
                                         const std::string& report_host);

/// A rank that did not answer a case in time.
struct missing_rank {
  int rank = 0;
  bool died = false;  ///< its process is known to be gone (a pid on rank 0's host)
  std::string detail; ///< "pid 4711 is gone", "" when nothing more is known
};

/// The failed result of a case whose ranks `missing` never answered: its reason names the
/// size, each missing rank with its host and what is known of it, and why the wait ended
/// (`ended_by`: "its 3 s deadline passed", "the launcher stopped the job (SIGTERM)"). Failure
/// kind: worker_exit when a missing rank is known to have died, else worker_timeout. The
/// replies that did arrive are kept in the "ranks" observation as merge_case keeps them, and the
/// missing ranks after them with status "missing".
[[nodiscard]] reports::result
missing_ranks_result(const mpi_case& c, std::span<const missing_rank> missing,
                     std::span<const rank_reply> arrived, std::span<const rank_assignment> ranks,
                     const std::string& report_host, const std::string& ended_by);

/// The case's link ceiling and its reference (host collective_ceiling.hpp, the one-node
/// family's, over the group's GPUs): NVLink or PCIe inside a node, the slowest node's active
/// InfiniBand / RoCE ports between nodes (each node's host.network_ports from its hello),
/// whichever is lower, with its source; "ceiling_link" and "ceiling_why" observations; the
/// efficiency against it as the one-node family's builder derives it. `specs` (may be null) gives
/// each GPU's spec row by its inventory's spec_id.
void attach_ceiling(reports::result& r, const mpi_case& c, std::span<const rank_assignment> ranks,
                    std::span<const rank_hello> hellos, const reports::spec_table* specs);

/// The report's `nodes`: every host of the job but `report_host`, in the order of its first rank,
/// with the inventory its first rank sent and the GPUs its ranks measure (NVML indices, sorted).
[[nodiscard]] std::vector<reports::node_inventory>
other_nodes(std::span<const rank_hello> hellos, std::span<const rank_assignment> ranks,
            const std::string& report_host);

/// "rank 1 (node-b)": how every message names a rank.
[[nodiscard]] std::string rank_name(int rank, std::span<const rank_assignment> ranks);
/// "rank 1 on node-b, GPU 0 (00000000:18:00.0, serial 1654...)": how a failure names the GPU at
/// fault, so that the operator needs nothing else to find it.
[[nodiscard]] std::string rank_gpu_name(int rank, std::span<const rank_assignment> ranks);

} // namespace gpuspec::collectives::mpi
