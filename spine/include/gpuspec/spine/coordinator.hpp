#pragma once
/// The coordinator: one worker process per GPU, all at once (or `concurrency` at a time), and
/// the watchdog that stops a worker that hangs, dies or babbles without touching the others.
///
/// Deadlines (docs/architecture.md, "Deadlines"), with A the case's setup allowance, T the
/// stopping rule's time cap (--max-time) and L the longest timed run the worker has reported
/// for the case so far:
///   - from its start to its hello, a worker has the plan's startup allowance;
///   - between two cases (after a result), A of the next case;
///   - inside a case, at most A + 2 L between two messages (progress comes after every timed
///     run, at most every 250 ms), and at most A + 2 T + 3 L in all.
/// A worker past a deadline, dead on a signal, exiting before it has finished, or sending a
/// line that is not a well-formed message in its turn is stopped (SIGTERM, then SIGKILL after
/// the grace period); its unfinished cases become failed results that name the GPU, the case,
/// what happened and after how long. The other workers go on.
///
/// A lost worker (dead on a signal, exited early, killed by the watchdog, or exited with
/// sticky_error_exit_code after a case left its CUDA context unusable) is followed by one fresh
/// worker that measures the job's remaining cases, from the case after the one it was lost in
/// (or after its last result); that case keeps its failed result, and what was measured before
/// is kept. No fresh worker when NVML says the GPU is lost (coordinator_options::gpu_lost), after
/// an interrupt, or after a second loss: the remaining cases then fail, saying why.

#include <atomic>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gpuspec/host/measurement_options.hpp"
#include "gpuspec/reports/model/report.hpp"
#include "gpuspec/spine/journal.hpp"
#include "gpuspec/spine/protocol.hpp"

namespace gpuspec::spine {

/// One worker's share of the run: one GPU's cases, or the node-wide cases over several GPUs.
struct worker_job {
  int device = 0;                  ///< NVML index: the GPU the worker's hello names
  std::vector<planned_case> cases; ///< the assignment's cases, in order
  std::string assignment;          ///< assignment_to_text, written to the worker's stdin
  /// A node-wide job's GPUs (`device` first), which every one of its results covers; empty for
  /// a one-GPU job.
  std::vector<int> devices;
  /// The MIG device of a partitioned GPU the job measures (docs/mig.md): its worker is started
  /// with CUDA_VISIBLE_DEVICES naming it, and every result of the job carries it. Unset for a
  /// whole GPU and for the node-wide job.
  std::optional<reports::mig_ref> mig;

  [[nodiscard]] bool node_wide() const { return !devices.empty(); }
  /// "GPU 3", "GPU 0 MIG 1g.10gb, GI 7 CI 0", or "GPUs 0,1,2,3 (node-wide)": how messages name
  /// the job.
  [[nodiscard]] std::string label() const;
};

struct coordinator_options {
  std::vector<std::string> worker_command; ///< argv of a worker (the plan's program)
  std::string backend;                     ///< the plan's backend: every hello must say it
  int concurrency = 0;                     ///< GPUs measured at once; 0: all
  /// The run's measurement options: the stopping rule's cap (T above) and the burn-in's
  /// --duration, added to the deadline of its cases (planned_case::deadline_s).
  host::measurement_options measurement;
  double startup_allowance_s = 120.0;
  double kill_grace_s = 5.0; ///< SIGTERM to SIGKILL
  /// After an interrupt, how long a worker has to return its case (stopped between samples).
  double interrupt_grace_s = 30.0;
  std::size_t max_line_bytes = std::size_t{64} << 20;
  /// Fresh workers a job may get after lost ones: the first loss is followed by one, a second
  /// loss ends the job's GPU.
  int fresh_workers = 1;
  /// Asked before a lost worker is followed by a fresh one: true when NVML says the GPU is lost
  /// (fallen off the bus), which no fresh worker can measure. Unset: never.
  std::function<bool(int device)> gpu_lost;
};

/// Told as the run goes. Called on the coordinator's thread, one call at a time. A worker's
/// events name its job: its GPU, and the MIG device it measures when its GPU is partitioned
/// (several workers share one GPU then).
class coordinator_observer {
public:
  virtual ~coordinator_observer() = default;
  virtual void on_worker_started(const worker_job& /*job*/, int /*pid*/) {}
  virtual void on_case_started(const worker_job& /*job*/, int /*case_index*/,
                               const planned_case& /*c*/) {}
  virtual void on_progress(const worker_job& /*job*/, int /*case_index*/, int /*runs*/) {}
  /// A result, measured by a worker or written by the watchdog for a case it could not finish.
  virtual void on_result(const journal_entry& entry) = 0;
  /// A worker was stopped or died before it finished: `what` says how, `log_tail` holds the
  /// last lines it wrote on stderr.
  virtual void on_worker_lost(const worker_job& /*job*/, const std::string& /*what*/,
                              const std::string& /*log_tail*/) {}
  virtual void on_worker_finished(const worker_job& /*job*/) {}
};

/// The environment a job's worker is started with, over the coordinator's own: for a MIG
/// device, CUDA_VISIBLE_DEVICES=MIG-<uuid>; nothing for a whole GPU.
[[nodiscard]] std::vector<std::string> worker_environment(const worker_job& job);

/// Runs every job to its end and returns when all workers have ended. Each case of each job gets
/// exactly one on_result, except after an interrupt: cases not started then get none. Throws
/// only for the observer's own exceptions.
void run_workers(const coordinator_options& options, const std::vector<worker_job>& jobs,
                 coordinator_observer& observer, const std::atomic<bool>& interrupted);

/// A result for a case the worker did not measure: its id and axes, the status and the reason;
/// failed results carry `failure`. Telemetry and verification say "not measured".
[[nodiscard]] reports::result unmeasured_result(const planned_case& c, int device,
                                                reports::result_status status,
                                                reports::failure_kind failure, std::string reason);

} // namespace gpuspec::spine
