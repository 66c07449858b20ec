#pragma once
/// The measurement options, declared once: host types only, so the spine and the CLI carry them
/// without CUDA headers.

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gpuspec/reports/model/spec_table.hpp"
#include "gpuspec/reports/model/statistics.hpp"

namespace gpuspec::host {

/// How every case of a run is measured, with the one set of defaults: `gpuspec run` fills it
/// from its flags, the session carries it, and each worker's assignment sends it as one JSON
/// object ("options", spine/protocol.hpp).
struct measurement_options {
  std::string suite = "quick"; ///< quick | standard | burnin | full
  reports::stopping_rule stopping;
  std::chrono::milliseconds telemetry_period{20};
  /// Bytes per array for the STREAM family (1 GiB by default, shrunk to fit free memory).
  std::int64_t stream_array_bytes = std::int64_t{1} << 30;
  /// The burn-in's --duration in seconds (suite burnin); absent otherwise.
  std::optional<double> duration_s;
};

/// What a benchmark reads through its state (bench_state::options()): the run's measurement
/// options and what the worker adds from its assignment.
struct run_options : measurement_options {
  std::vector<int> devices; ///< NVML indices of the worker's GPUs
  /// The spec-table rows the devices matched, by spec id (device_info::spec_id): the datasheet
  /// ceilings the benchmarks attach. Empty: results carry clock-adjusted ceilings only.
  std::map<std::string, reports::gpu_spec> spec_rows;
  /// The run's time origin (the coordinator's start, on the monotonic clock every process of
  /// the run shares): results state their telemetry window relative to it.
  std::chrono::steady_clock::time_point clock_origin{};
  /// Called after each timed run of a case (warm-up or sample) with the runs so far and the
  /// run's device seconds: the worker's progress messages, which the watchdog listens for.
  std::function<void(int runs, double run_seconds)> on_run;
};

} // namespace gpuspec::host
