#pragma once
/// The wire between the coordinator (`gpuspec run`) and its workers (`gpuspec __worker`, one
/// process per GPU). Host types only; every message is one line of JSON.
///
///   coordinator                          worker
///   spawn `<worker> --plan ...`     ->   the plan (one JSON document on stdout), exit 0
///   spawn `<worker>`, write the
///   assignment on its stdin, close  ->   {"msg":"hello", ...}   (once its GPU is opened)
///                                        {"msg":"start","case":0}
///                                        {"msg":"progress","case":0,...}   (zero or more)
///                                        {"msg":"result","case":0,"result":{...}}
///                                        ... one start/result pair per case, in order ...
///                                        {"msg":"done"}, exit 0
///
/// A worker that is lost (crashed, killed by the watchdog, or exited with
/// sticky_error_exit_code after a case left its CUDA context unusable) is followed by one fresh
/// worker whose assignment starts at the next case (worker_assignment::first_case).
///
/// Anything else on the worker's stdout (a line that is not one of these, a case out of order,
/// a line cut short by the worker's death) is a protocol violation: the coordinator stops the
/// worker and fails its unfinished cases. The worker's stderr is its log.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpuspec/host/measurement_options.hpp"
#include "gpuspec/reports/model/outcome.hpp"
#include "gpuspec/reports/model/report.hpp"
#include "gpuspec/reports/model/statistics.hpp"
#include "gpuspec/spine/deadlines.hpp"

namespace gpuspec::spine {

inline constexpr std::string_view protocol_version = "gpuspec.worker.v1";

/// One case of the plan: a benchmark with one value per axis.
struct planned_case {
  std::string bench_id;
  std::vector<std::pair<std::string, std::string>> axes; ///< (axis, value), in axis order
  double setup_allowance_s = default_setup_allowance_s;
  /// Runs once over every selected GPU in one worker, after the one-GPU cases (a collective, a
  /// peer copy: registry::add_node), instead of once on each GPU.
  bool node_wide = false;
  /// The case runs for the burn-in's --duration whatever the stopping rule (its benchmark says
  /// so at registration): its deadline grows by the duration (deadlines.hpp). Optional on the
  /// wire, written only when true.
  bool runs_for_duration = false;

  /// "dtype=fp32 size=1024" ("" without axes).
  [[nodiscard]] std::string axes_text() const;
  /// "memory.stream.triad dtype=fp32": the case as messages name it.
  [[nodiscard]] std::string label() const;
  /// The case's deadline under the run's options (case_deadline_s): its setup allowance, the
  /// stopping rule's cap, and the burn-in's duration when the case runs for it.
  [[nodiscard]] double deadline_s(const host::measurement_options& options) const;
  friend bool operator==(const planned_case&, const planned_case&) = default;
};

/// What `<worker> --plan --suite S --filter F` answers: the backend the worker measures with,
/// whether it can, and the cases of the suite.
struct worker_plan {
  std::string backend;     ///< "cuda", "stand-in" (tests) or "none" (a host-only build)
  std::string unavailable; ///< why this worker cannot measure; "" when it can
  /// Longest a worker may take from its start to its hello (CUDA context creation).
  double startup_allowance_s = 120.0;
  std::vector<planned_case> cases;
  friend bool operator==(const worker_plan&, const worker_plan&) = default;
};

/// What a worker is given on its stdin: one GPU and its cases, or the node-wide cases and every
/// selected GPU, and how to measure them.
struct worker_assignment {
  reports::device_info device; ///< the worker's GPU; for node-wide cases the first of `devices`
  /// Every GPU of the assignment, `device` first: one for a one-GPU assignment, the selected
  /// GPUs for the node-wide cases. Filled by the reader; a writer may leave it empty for one GPU.
  std::vector<reports::device_info> devices;
  std::vector<planned_case> cases;
  /// How the cases are measured: the run's options, on the wire as one object ("options").
  host::measurement_options options;
  /// The spec-table rows the device matched, as a spec document ({"schema", "rows"}), so the
  /// worker attaches datasheet ceilings without reading the table again; null when none.
  nlohmann::ordered_json spec_rows;
  /// The run's time origin: steady_clock's count in nanoseconds when the run started. Every
  /// process of the run reads the same monotonic clock (CLOCK_MONOTONIC), so windows stated
  /// relative to it line up across GPUs.
  std::int64_t clock_origin_ns = 0;
  std::string nvml_library; ///< the NVML the worker opens for its own telemetry
  /// The index of the first case this worker measures: 0, or, for the fresh worker that takes
  /// over from a lost one, the case after the last one its predecessor reached. The cases before
  /// it are not measured again; every message names cases by their index in `cases`. Optional
  /// on the wire, written only when not 0.
  int first_case = 0;
  /// The MIG device of `device` the worker measures ("MIG-<uuid>", one of
  /// device.mig_instances; docs/mig.md); "" for a whole GPU. Optional on the wire, written only
  /// when set.
  std::string mig_uuid;
};

/// A worker's exit status after a case left its GPU's context unusable (a sticky CUDA error:
/// every later case on it would fail): it has returned that case's result, naming the error,
/// and measures nothing more; the coordinator starts a fresh worker for the remaining cases.
inline constexpr int sticky_error_exit_code = 4;

enum class message_kind { hello, start, progress, result, done };

/// One line from a worker.
struct worker_message {
  message_kind kind = message_kind::hello;
  // hello
  std::string backend;
  int pid = 0;
  int device = 0;
  // start, progress, result
  int case_index = -1;
  // progress: timed runs so far (warm-up and samples) and the longest one, in seconds
  int runs = 0;
  double longest_run_s = 0;
  // result
  std::optional<reports::result> result;
};

// The plan and the assignment as JSON documents. Read with the report loader's own reader
// (reports' json_reader.hpp): strict (every key, exact types, no unknown or repeated keys) and
// every error names the source and the field path ("options.stopping.min_samples").
[[nodiscard]] std::string plan_to_text(const worker_plan& plan);
[[nodiscard]] reports::outcome<worker_plan> plan_from_text(std::string_view text,
                                                           std::string_view source);
[[nodiscard]] std::string assignment_to_text(const worker_assignment& a);
[[nodiscard]] reports::outcome<worker_assignment> assignment_from_text(std::string_view text,
                                                                       std::string_view source);

/// One message as a line, '\n' included.
[[nodiscard]] std::string message_line(const worker_message& m);
/// Parses one line (without its '\n'); errors name `source` and the field.
[[nodiscard]] reports::outcome<worker_message> message_from_line(std::string_view line,
                                                                 std::string_view source);

} // namespace gpuspec::spine
