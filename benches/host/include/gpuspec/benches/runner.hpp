#pragma once
/// What the device side offers the host side: the measurement options a benchmark reads, the
/// listing of the registry, and the inventory's CUDA enrichment. Host types only, so the CLI's
/// .cpp files include it without CUDA headers. Measuring goes through the worker spine
/// (gpuspec/spine/worker.hpp, cuda_worker.hpp).

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gpuspec/reports/report.hpp"
#include "gpuspec/reports/spec_table.hpp"
#include "gpuspec/reports/statistics.hpp"

namespace gpuspec::benches {

/// How one worker measures its GPU's cases (made from its assignment).
struct run_options {
  std::string suite = "quick"; ///< quick | standard | burnin | full
  std::string filter;          ///< ECMAScript regex on the dotted id; "" = all
  std::vector<int> devices;    ///< NVML indices; empty = every GPU
  std::chrono::milliseconds telemetry_period{20};
  reports::stopping_rule stopping;
  /// Bytes per array for the STREAM family (1 GiB by default, shrunk to fit free memory).
  std::int64_t stream_array_bytes = std::int64_t{1} << 30;
  /// The burn-in's --duration in seconds (suite burnin); absent otherwise.
  std::optional<double> duration_s;
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

/// One registered benchmark case, for `gpuspec list`.
struct benchmark_listing {
  std::string id;
  std::string description;
  std::vector<std::string> suites;
  std::string parameters; ///< e.g. "dtype=fp32|fp64"
};

[[nodiscard]] std::vector<benchmark_listing> list_benchmarks();

/// Adds what only the CUDA runtime knows: cuda_index (joined by PCI bus id), SM count, L2
/// size, compute capability where NVML lacked it; runtime, cuBLAS and NCCL versions in host.
/// A CUDA error (no device, driver too old) is recorded in host.gpu_status / problems.
void enrich_with_cuda(reports::host_info& host, std::vector<reports::device_info>& devices);

} // namespace gpuspec::benches
