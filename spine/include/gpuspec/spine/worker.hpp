#pragma once
/// The worker's side of the spine: `gpuspec __worker` measures one GPU's cases and tells the
/// coordinator as it goes (protocol.hpp). What measures is a backend: the CUDA harness in a
/// CUDA build, nothing in a host-only build, a scripted stand-in in the tests.

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuspec/host/mig_ceilings.hpp"
#include "gpuspec/reports/model/report.hpp"
#include "gpuspec/spine/cuda_probe.hpp"
#include "gpuspec/spine/protocol.hpp"

namespace gpuspec::spine {

/// Told by the measurement after each timed run (warm-up or sample); the worker turns it into
/// progress messages, at most every 250 ms and whenever the longest run grows.
using progress_callback = std::function<void(int runs, double run_seconds)>;

/// Measures the cases of one assignment, one after another.
class case_executor {
public:
  virtual ~case_executor() = default;
  /// Measures one case. Never throws for the case's own failures: they are the result's status
  /// and reason. The result's telemetry window is stated against the assignment's clock origin.
  [[nodiscard]] virtual reports::result run(const planned_case& c,
                                            const progress_callback& progress) = 0;
  /// Asked after a case failed: the name of an error that leaves this executor's GPU context
  /// unusable for every later case (a sticky CUDA error, "cudaErrorIllegalAddress"), or "" when
  /// the next case can run here. The worker then says so in the case's result and exits with
  /// sticky_error_exit_code, so that a fresh worker (a fresh context) measures the rest.
  [[nodiscard]] virtual std::string sticky_error() { return {}; }
};

/// What a plan is asked for: the suite, the filter, and the node it is for.
struct plan_request {
  std::string suite;
  std::string filter; ///< an ECMAScript regex on the bench id; "" = every one
  /// NVML indices of the GPUs the run measures (the inventory's, less those deselected or
  /// refused): the node-wide cases run over them, and a benchmark whose axis depends on the node
  /// (transfer.p2p's pairs) is planned from them. Empty: such a benchmark has no case.
  std::vector<int> gpus;
};

/// The longest filter and the deepest nesting of its groups (parentheses and brackets) a run
/// accepts. std::regex compiles and matches by recursion: a 40 kB filter of nested groups
/// overflowed the stack. A benchmark id is under 100 characters, so a filter over 1024 is no
/// selection anyone needs; 32 levels is more than any alternation of ids.
inline constexpr std::size_t max_filter_length = 1024;
inline constexpr int max_filter_nesting = 32;

/// Why `filter` is refused (too long, nested too deep, or not an ECMAScript regular expression),
/// in words for a usage error; "" when it may be compiled.
[[nodiscard]] std::string filter_problem(std::string_view filter);

struct worker_backend {
  std::string name; ///< "cuda", "none", "stand-in": the plan's and the hello's backend
  /// The cases of the request's suite whose id matches its filter, for its GPUs, and whether
  /// this backend can measure at all. Throws std::invalid_argument for a bad suite or filter.
  std::function<worker_plan(const plan_request& request)> plan;
  /// Opens the assignment's GPU. A GPU that cannot be started is not an exception: the executor
  /// then returns failed results (failure gpu_start) for every case.
  std::function<std::unique_ptr<case_executor>(const worker_assignment& assignment,
                                               const std::atomic<bool>& interrupted)>
      open;
  /// `--probe-mig` (cuda_probe.hpp): asks the CUDA runtime, in this process and as the
  /// environment's CUDA_VISIBLE_DEVICES shows it, how many devices it sees and device 0's UUID.
  /// No context, no kernel. Never throws: a CUDA error is the answer's `error`.
  std::function<cuda_probe_answer()> probe;
};

/// `<worker> --plan --suite S --filter F --gpus 0,1,...`: prints the plan on stdout. Exit code
/// 0, or 3 with a message on stderr for a bad suite or filter.
int worker_plan_main(const worker_backend& backend, const plan_request& request);

/// `<worker> --probe-mig`: prints the backend's probe answer as one line on stdout; exit code 0.
int worker_probe_main(const worker_backend& backend);

/// The GPUs of `--gpus`: "0,1,7" -> {0, 1, 7}; "" -> {}. Throws std::invalid_argument for text
/// that is not a comma-separated list of indices of 0 or more.
[[nodiscard]] std::vector<int> parse_plan_gpus(std::string_view text);
/// The text of `--gpus` for `gpus`: {0, 1, 7} -> "0,1,7".
[[nodiscard]] std::string plan_gpus_text(const std::vector<int>& gpus);

/// `<worker>`: reads the assignment on stdin, measures its cases, speaks the protocol on stdout
/// and exits 0. Stray output of libraries goes to stderr (stdout is kept for the protocol).
/// SIGTERM or SIGINT stops it between samples: the case in progress is returned (skipped,
/// interrupted) and no further case starts. It dies with the coordinator (PR_SET_PDEATHSIG).
/// A malformed assignment is exit code 2 with the reason on stderr. It measures the cases from
/// the assignment's first_case on. After a failed case whose executor reports a sticky error,
/// it returns that case's result (its reason names the error) and exits with
/// sticky_error_exit_code without starting another case.
int worker_main(const worker_backend& backend);

/// For a MIG device's assignment (`mig_uuid` set): the instance's share of its GPU (mig_
/// ceilings.hpp), taken before `a.device` is made to show the instance's SM count and memory,
/// as the instance's CUDA device does. Every result of the worker has its ceilings scaled by the
/// share. Nullopt for a whole GPU.
[[nodiscard]] std::optional<host::mig_share> take_mig_device(worker_assignment& a);

/// worker_main with the assignment already read (a test's stand-in reads it first).
int serve_assignment(const worker_backend& backend, const std::string& assignment_text);

} // namespace gpuspec::spine
