#pragma once
/// Host and GPU inventory, as `info` prints it and `run` records it.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gpuspec/benches/nvml_library.hpp"
#include "gpuspec/reports/report.hpp"
#include "gpuspec/reports/spec_table.hpp"

namespace gpuspec::cli {

struct inventory {
  reports::host_info host;
  std::vector<reports::device_info> devices;
  std::optional<benches::nvml_library> nvml; ///< empty when there is no driver
  /// The spec-table rows the devices matched, by id: the benchmarks' datasheet ceilings.
  std::map<std::string, reports::gpu_spec> spec_rows;
};

/// The NVML library to open: $GPUSPEC_NVML_LIBRARY if set (tests, unusual installs), else
/// the driver's libnvidia-ml.so.1.
[[nodiscard]] std::string nvml_library_path();

/// Probes the host (under `root`), opens NVML, lists the GPUs, asks the CUDA backend for what
/// only it knows, and evaluates the host checks. Never throws for a missing driver or GPU:
/// host.gpu_status says why there is no GPU part.
[[nodiscard]] inventory take_inventory(const std::string& root = "/");

/// Sets each device's spec_id from the spec table ($GPUSPEC_SPECS, else the source tree's
/// specs/gpus.json); a table that does not load is a warning, and the ids stay empty.
/// Returns the matched rows by id.
std::map<std::string, reports::gpu_spec>
match_spec_rows(std::vector<reports::device_info>& devices);

/// True when NVML lists at least one GPU and nothing (NVML or CUDA) said the GPUs are unusable.
[[nodiscard]] bool has_gpus(const inventory& inv);

} // namespace gpuspec::cli
