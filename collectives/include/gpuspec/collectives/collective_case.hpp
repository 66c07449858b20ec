#pragma once
/// One measured collective case, the same for every path that runs one: the one-node family
/// (benches/families/collective.cpp, over every GPU of the node) and gpuspec-mpi's rank
/// (collectives/mpi/src/collective_measure_nccl.cpp, over its one rank of a job-wide
/// communicator). Each path gives its communicator and a case_sink (where its result goes:
/// node_state, or a reports::result), and the body does the rest: the axes read, the in-place
/// rule, the request, the run, the parameters under nccl-tests' names, the timeout's words, the
/// figures and the check. CUDA-free header.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpuspec/collectives/collective_figures.hpp"
#include "gpuspec/collectives/collective_kind.hpp"
#include "gpuspec/collectives/collective_run.hpp"

namespace gpuspec::collectives {

/// The seed of every collective's inputs, one-node and multi-node alike, so that the two check
/// the same inputs.
inline constexpr std::uint64_t collective_seed = 0x676375737065636bull;

/// A case's axes, read.
struct collective_case {
  collective_kind kind = collective_kind::all_reduce;
  element_type type = element_type::fp32;
  std::string size_text; ///< the size axis as given ("1GiB")
  std::uint64_t size_bytes = 0;
  bool in_place = false;
};

/// Why `kind` cannot run in place over `nranks` ranks (the row's in_place_over_ranks: a rank's
/// buffer would be overwritten while it is sent), or "" when it can.
[[nodiscard]] std::string in_place_refusal(collective_kind kind, bool in_place, int nranks);

/// The request of a case: collective_seed, more calls per sample at small sizes (20 to 200, so
/// that the events' resolution does not dominate), `samples` samples, `deadline_s`.
[[nodiscard]] collective_request case_request(const collective_case& c, int samples,
                                              double deadline_s);

/// Where one path puts what the body reports.
class case_sink {
public:
  virtual ~case_sink() = default;
  /// An observation, in the order the body gives them.
  virtual void parameter(const std::string& name, nlohmann::ordered_json value) = 0;
  /// What NCCL says it used for a call of `call_bytes` bytes, after the call's parameters.
  virtual void nccl_facts(collective_kind kind, std::uint64_t call_bytes) = 0;
  /// "rank 0 (GPU 1), rank 1 (GPU 2)": the ranks (the communicator's) that had not finished.
  [[nodiscard]] virtual std::string not_arrived(const std::vector<int>& ranks) = 0;
  /// "communicators" or "communicator": what was aborted, for the timeout's words.
  [[nodiscard]] virtual std::string communicators() const = 0;
  virtual void not_supported(std::string why) = 0;
  virtual void failed(std::string why) = 0;
  /// The figures of the timed samples (busbw per sample, algbw bytes per call), after the time,
  /// algbw and bus factor observations and before the #wrong ones.
  virtual void figures(const collective_case& c, const collective_outcome& o,
                       collective_figures f) = 0;
  /// The check's outcome: #wrong in total and per rank this process holds.
  virtual void checked(std::int64_t wrong, const std::vector<std::int64_t>& per_rank) = 0;
};

/// What the body is given besides the case: its request and, for a rank of a many-process
/// communicator, its rank in the group (observed as group_rank after nranks).
struct case_run {
  collective_request request;
  std::optional<int> group_rank;
};

/// Reports an outcome of run_collective for `c` to `sink`: the call's parameters (nranks,
/// [group_rank], size_bytes, count, nccl_tests_type, redop, root, iterations_per_sample), NCCL's
/// facts, then a timeout, an empty call (count 0: not supported) or the figures and the check.
void report_case(case_sink& sink, const collective_case& c, const case_run& run,
                 const collective_outcome& o);

/// The body: run_collective over `comms` with run.request, then report_case. An exception of
/// the run (nccl_error, a CUDA error) goes to the caller, which owns the communicators.
void run_collective_case(node_communicators& comms, case_sink& sink, const collective_case& c,
                         const case_run& run);

} // namespace gpuspec::collectives
