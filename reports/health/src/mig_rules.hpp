#pragma once
/// Internal to the health judge: a partitioned GPU's rules (docs/health.md, docs/mig.md): a MIG
/// mode change pending a reset, a MIG device NVML lists that the CUDA runtime cannot open, and a
/// layout other than the one the site's rules file declares.

#include <vector>

#include "gpuspec/reports/health/health.hpp"

namespace gpuspec::reports::inline health::detail {

/// GPUSPEC-MIG-PENDING-RESET: NVML's pending MIG mode differs from the current one.
void rule_mig_pending(const device_info& d, const host_info& host, std::vector<diagnosis>& out);

/// GPUSPEC-MIG-NOT-IN-CUDA: for each of `d`'s MIG devices the CUDA probe could not open.
void rule_mig_cuda(const device_info& d, const mig_cuda_probe_reading& probe, const host_info& host,
                   std::vector<diagnosis>& out);

/// GPUSPEC-MIG-LAYOUT-DIFFERS: `d`'s partition is not the one its declaration gives.
void rule_mig_layout(const device_info& d, const std::vector<mig_layout_rule>& layouts,
                     const host_info& host, std::vector<diagnosis>& out);

/// The notes of what the MIG rules could not look at: the CUDA probe not run, or unable to
/// judge; a declaration naming a GPU NVML does not list.
void add_mig_notes(const health_input& in, health_outcome& out);

} // namespace gpuspec::reports::health::detail
