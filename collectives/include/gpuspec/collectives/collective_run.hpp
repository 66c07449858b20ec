#pragma once
/// NCCL collectives: communicators over every selected GPU in this one process (as nccl-tests
/// `-g N`: one rank per GPU, launched through ncclGroupStart/End from one thread), or this
/// process's one rank of a communicator over many processes (gpuspec-mpi: one rank per GPU per
/// process), and one timed, checked collective over them. CUDA-free header: the benchmark's
/// host side (benches/families/collective.cpp) and gpuspec-mpi's build with the host compiler.
///
/// Built with NCCL's header: collective_run.cu, over the NCCL opened at run time
/// (nccl_library.hpp; absent at run time: nccl_unavailable with the loader's words). Without
/// the header: collective_run_absent.cpp, whose functions throw
/// nccl_unavailable("gpuspec was built without NCCL"). CMake picks one; no #if.

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpuspec/collectives/collective_kind.hpp"
#include "gpuspec/collectives/collective_sizes.hpp"

namespace gpuspec::collectives {

/// NCCL cannot be used: not built in, or its communicators could not be made. The benchmark
/// turns it into a skipped or not-supported result with this text as the reason.
class nccl_unavailable : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// An NCCL call failed (its name, file, line and NCCL's words in what()).
class nccl_error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// True when this build has NCCL (collective_run.cu); false for collective_run_absent.cpp.
[[nodiscard]] bool built_with_nccl();

/// ncclUniqueId's size (NCCL_UNIQUE_ID_BYTES in nccl.h; collective_run.cu checks it), so that
/// this header needs no NCCL.
inline constexpr std::size_t unique_id_bytes = 128;
using unique_id = std::array<char, unique_id_bytes>;

/// ncclGetUniqueId: the bootstrap of a communicator over several processes, made by one of
/// them (rank 0) and sent to the others. Throws nccl_unavailable (no NCCL, or NCCL refuses).
[[nodiscard]] unique_id make_unique_id();

/// One communicator per GPU, made together, blocking (as nccl-tests'; a watchdog thread aborts
/// them past a deadline: collective_driver.hpp), with a stream per GPU. Move-only; the destructor
/// finalises and destroys the communicators, or aborts them if they were aborted or do not finalise
/// in time.
class node_communicators {
public:
  /// Makes the communicators over `cuda_devices` (one rank each, in that order). Throws
  /// nccl_unavailable if NCCL refuses (with its words) or init does not finish within
  /// `deadline_s` (then the communicators are aborted).
  static std::shared_ptr<node_communicators> create(const std::vector<int>& cuda_devices,
                                                    double deadline_s);
  /// This process's one rank, `rank` of `nranks` processes, on `cuda_device`, from the id
  /// rank 0 made (make_unique_id): ncclCommInitRankConfig, blocking, as create(). Every
  /// process of the group must call it. Throws nccl_unavailable as create() does.
  static std::shared_ptr<node_communicators> join(int cuda_device, const unique_id& id, int nranks,
                                                  int rank, double deadline_s);
  ~node_communicators();
  node_communicators(const node_communicators&) = delete;
  node_communicators& operator=(const node_communicators&) = delete;

  /// The ranks this process holds (one per GPU given to create(); 1 after join()).
  [[nodiscard]] int nranks() const;
  /// The ranks of the whole communicator, every process's (nranks() for create()).
  [[nodiscard]] int group_size() const;
  /// True once abort() ran: the communicators must not be used again.
  [[nodiscard]] bool aborted() const;
  /// ncclCommAbort on every communicator.
  void abort();

  struct impl;
  [[nodiscard]] impl& state() { return *m_impl; }

private:
  explicit node_communicators(std::unique_ptr<impl> state);
  std::unique_ptr<impl> m_impl;
};

struct collective_request {
  collective_kind kind = collective_kind::all_reduce;
  element_type type = element_type::fp32;
  std::uint64_t size_bytes = 0; ///< the nccl-tests size (collective_sizes.hpp)
  bool in_place = false;
  int root = 0;
  std::uint64_t seed = 0;
  int warmup_iterations = 5; ///< nccl-tests' -w default
  int iterations = 20;       ///< per sample (nccl-tests' -n default)
  int samples = 10;
  /// Seconds from the call until the collective is abandoned and the communicators aborted.
  double deadline_s = 60;
  /// Called after each timed run (warm-up or sample): runs so far, its seconds (node_state.ran).
  std::function<void(int, double)> on_run;
  /// Optional: called with true just before the check's one untimed call and with false just
  /// after it, so that NCCL's per-call tuning log is on for that call only (nccl_log_session).
  std::function<void(bool)> tuning_log;
};

struct collective_outcome {
  bool timed_out = false;
  /// The ranks whose GPU had not finished when the deadline passed (empty unless timed_out).
  /// Ranks are the communicator's (join()'s `rank` for a process's one rank).
  std::vector<int> ranks_not_finished;
  /// What was running when it timed out: "warm-up", "sample 3", "check".
  std::string phase;
  std::vector<double> seconds_per_iteration; ///< per sample: the slowest GPU's, as nccl-tests
  std::vector<std::int64_t> wrong_per_rank;  ///< nccl-tests' #wrong, per rank this process holds
  collective_counts counts;
  int nranks = 0; ///< the communicator's (group_size())
};

/// Runs `request` over `comms`: warm-up, timed samples (CUDA events on every GPU's stream,
/// the slowest GPU's time; the calls of a sample back to back, nothing waited for between
/// them), then every receive buffer zeroed, a fresh input under check_seed(seed), one call
/// (with request.tuning_log on), and a device comparison of every output element with
/// expected_values.hpp. Past the deadline the communicators are
/// aborted (comms.aborted() is then true) and the outcome says which ranks had not finished.
/// Throws nccl_error or kernels::cuda_error for a failed call.
[[nodiscard]] collective_outcome run_collective(node_communicators& comms,
                                                const collective_request& request);

/// True when the loaded NCCL exports ncclResetDebugInit (2.24 on), so that its log can be
/// switched after start (nccl_log_session); false without NCCL.
[[nodiscard]] bool nccl_resets_debug();
/// ncclResetDebugInit: NCCL reads NCCL_DEBUG* again at its next log line. Nothing where
/// nccl_resets_debug() is false.
void reset_nccl_debug();

} // namespace gpuspec::collectives
