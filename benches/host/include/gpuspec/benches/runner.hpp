#pragma once
/// The entry point from the CLI into the device side: list, enrich the inventory, run.
/// Host types only, so the CLI's .cpp files include it without CUDA headers.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "gpuspec/reports/report.hpp"
#include "gpuspec/reports/spec_table.hpp"
#include "gpuspec/reports/statistics.hpp"

namespace gpuspec::benches {

class nvml_library;

struct run_options {
  std::string suite = "quick"; ///< quick | standard | burnin | full
  std::string filter;          ///< ECMAScript regex on the dotted id; "" = all
  std::vector<int> devices;    ///< NVML indices; empty = every GPU
  std::chrono::milliseconds telemetry_period{20};
  reports::stopping_rule stopping;
  /// Bytes per array for the STREAM family (1 GiB by default, shrunk to fit free memory).
  std::int64_t stream_array_bytes = std::int64_t{1} << 30;
  /// The spec-table rows the devices matched, by spec id (device_info::spec_id): the datasheet
  /// ceilings the benchmarks attach. Empty: results carry clock-adjusted ceilings only.
  std::map<std::string, reports::gpu_spec> spec_rows;
};

/// One registered benchmark case, for `gpuspec list`.
struct benchmark_listing {
  std::string id;
  std::string description;
  std::vector<std::string> suites;
  std::string parameters; ///< e.g. "dtype=fp32|fp64"
};

/// Told as the run goes, for the progress display.
class run_observer {
public:
  virtual ~run_observer() = default;
  virtual void on_start(const std::string& bench_id, int device, const std::string& params) = 0;
  virtual void on_result(const reports::result& r) = 0;
};

[[nodiscard]] std::vector<benchmark_listing> list_benchmarks();

/// Adds what only the CUDA runtime knows: cuda_index (joined by PCI bus id), SM count, L2
/// size, compute capability where NVML lacked it; runtime, cuBLAS and NCCL versions in host.
/// A CUDA error (no device, driver too old) is recorded in host.gpu_status / problems.
void enrich_with_cuda(reports::host_info& host, std::vector<reports::device_info>& devices);

/// Runs the selected cases on the selected devices, appending each result to `report.results`
/// as soon as it is measured, so an interruption keeps what was done. Stops early (between
/// samples) when `interrupted` becomes true. One device's failure never hides the others:
/// its cases get status failed with the reason, and the run goes on.
void run_benchmarks(const run_options& options, const nvml_library* nvml, reports::report& report,
                    run_observer& observer, const std::atomic<bool>& interrupted);

} // namespace gpuspec::benches
