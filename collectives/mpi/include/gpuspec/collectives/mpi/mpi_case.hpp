#pragma once
/// What the ranks of a multi-node run measure, case by case: the plan rank 0 makes and sends to
/// every rank, one case at a time (docs/multi-node.md). Pure: no MPI here.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpuspec/reports/model/outcome.hpp"

namespace gpuspec::collectives::mpi {

/// One case: a collective at one size over a group of ranks (every rank, or one pair of
/// nodes in --pairwise), with the deadline every rank's reply must meet.
struct mpi_case {
  int index = 0;        ///< its place in the plan, from 0
  std::string bench_id; ///< "collective.all_reduce"
  /// What was asked, as the one-node family names it: {"dtype": "fp32", "size": "1MiB",
  /// "placement": "out_of_place"}.
  nlohmann::ordered_json axes;
  std::vector<int> group;         ///< the world ranks taking part, ascending
  std::string pair;               ///< --pairwise: "hostA+hostB"; "" otherwise
  double deadline_s = 60;         ///< from the case's start, for every rank's reply
  std::string nccl_unique_id_hex; ///< rank 0's ncclGetUniqueId for this group; "" without NCCL
  /// Seconds added to the deadline for making the group's communicator, on the first case with
  /// this id (every rank then joins it once, and reuses it for the group's next cases); 0 when
  /// the ranks hold the communicator already. A large job's init has its own allowance, not a
  /// share of the collective's.
  double init_allowance_s = 0;
  friend bool operator==(const mpi_case&, const mpi_case&) = default;
};

[[nodiscard]] nlohmann::ordered_json to_json(const mpi_case& c);
/// The inverse, read as every message is (reports' json_reader.hpp): strict, every key, no
/// unknown ones; an error names the field (a bug on the sender's side: the caller says which
/// rank sent it; the error's file is "case message").
[[nodiscard]] reports::outcome<mpi_case> case_from_json(const nlohmann::ordered_json& j);

/// What the run was asked to measure.
struct plan_options {
  std::vector<std::string> collectives = {"all_reduce"};
  std::vector<std::int64_t> sizes = {std::int64_t{1} << 20, std::int64_t{64} << 20};
  double case_timeout_s = 60;
};

/// The cases of one group: every collective at every size, in that order, numbered from
/// `first_index`.
[[nodiscard]] std::vector<mpi_case> plan_cases(const plan_options& options, std::vector<int> group,
                                               std::string pair = {}, int first_index = 0);

/// "1M,64M,1G" or "1048576": bytes, with the binary suffixes K, M, G (KiB, MiB, GiB). Throws
/// std::invalid_argument naming the item that is not a size.
[[nodiscard]] std::vector<std::int64_t> parse_sizes(std::string_view text);

} // namespace gpuspec::collectives::mpi
