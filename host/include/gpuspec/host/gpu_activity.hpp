#pragma once
/// The idle precondition's facts: the processes NVML lists on a GPU (compute and graphics
/// contexts) and its utilisation, read before a run measures it.

#include <filesystem>
#include <optional>
#include <string>

#include "gpuspec/host/nvml_library.hpp"
#include "gpuspec/reports/model/report.hpp"

namespace gpuspec::host {

/// The processes on GPU `index` and its utilisation. Process names come from
/// `<root>/proc/<pid>/comm` ("" when unreadable: a process of another PID namespace, a
/// container's). A query that fails is the status ("the process list could not be read:
/// ..."), never an empty list claimed as idle.
[[nodiscard]] reports::gpu_activity read_gpu_activity(const nvml_library& nvml, int index,
                                                      const std::filesystem::path& root = "/");

/// A GPU's state just before a case starts: recorded with the result (observations
/// `utilization_before_pct`, `temperature_before_c`), so that a result measured on a GPU still
/// busy or hot from what ran before it can be told from one measured from idle.
struct idle_snapshot {
  std::optional<int> utilization_pct;
  std::optional<int> temperature_c;
};
[[nodiscard]] idle_snapshot read_idle_snapshot(const nvml_library& nvml, int index);

} // namespace gpuspec::host
