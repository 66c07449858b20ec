#pragma once
/// The host checks of DESIGN.md, as a pure function of the inventory.

#include <vector>

#include "gpuspec/reports/report.hpp"

namespace gpuspec::benches {

struct host_check_options {
  int temperature_limit_c = 85;
  double ram_to_gpu_memory_ratio = 2.0;
  /// GPUs drop their PCIe generation at idle to save power, so a link below its maximum
  /// generation is normal at idle: gpu.pcie_link then passes with a note, and only a width
  /// below the maximum warns. Set when the inventory was taken while the GPUs were busy: a
  /// generation below the maximum then warns too.
  bool pcie_under_load = false;
};

/// Check ids (stable): host.nouveau, host.memory_ratio, gpu.pcie_link, gpu.persistence_mode,
/// gpu.power_limit, gpu.temperature. GPU checks are one entry per device. A check whose inputs
/// are unknown is `skipped` with the reason, never `pass`.
[[nodiscard]] std::vector<reports::host_check>
evaluate_host_checks(const reports::host_info& host,
                     const std::vector<reports::device_info>& devices,
                     const host_check_options& options = {});

} // namespace gpuspec::benches
