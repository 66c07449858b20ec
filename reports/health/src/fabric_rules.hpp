#pragma once
/// Internal to the health judge: the services an NVLink fabric needs, judged from the fabric
/// services health reads (/proc) and the PCI bus: nvidia-fabricmanager where NVSwitches are on
/// the node's own bus (HGX, DGX), IMEX on an NVL72-like tray (docs/health.md).

#include <string_view>
#include <vector>

#include "gpuspec/reports/health/health.hpp"

namespace gpuspec::reports::inline health::detail {

/// "fabric manager", "imex", or "" for a node that needs neither (PCIe).
[[nodiscard]] std::string_view fabric_need(const health_input& in, const report& r);

/// GPUSPEC-FABRIC-MANAGER-DOWN: NVSwitches on the bus and no nv-fabricmanager process.
void rule_fabric_manager(const health_input& in, const report& r, std::vector<diagnosis>& out);

/// GPUSPEC-IMEX-DOWN and GPUSPEC-IMEX-NODE-MISSING on a tray with IMEX configured.
void rule_imex(const health_input& in, const report& r, std::vector<diagnosis>& out);

/// The notes of what the fabric rules did not look at, or found not needed.
void add_fabric_notes(const health_input& in, health_outcome& out);

} // namespace gpuspec::reports::health::detail
