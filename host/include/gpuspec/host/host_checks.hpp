#pragma once
/// The host checks of docs/design.md, as a pure function of the inventory: the rules themselves are
/// reports/host_rules.hpp's, written once, so that `gpuspec check` judges a report by the same
/// rules and thresholds the run recorded.

#include <vector>

#include "gpuspec/reports/judge/host_rules.hpp"
#include "gpuspec/reports/model/report.hpp"
#include "gpuspec/reports/model/spec_table.hpp"

namespace gpuspec::host {

/// temperature_limit_c (85 °C by default) and pcie_under_load: see reports::host_rule_settings.
using host_check_options = reports::host_rule_settings;

/// Check ids (stable): host.nouveau, host.memory_ratio, gpu.pcie_link, gpu.persistence_mode,
/// gpu.power_limit, gpu.temperature, gpu.ecc_mode. GPU checks are one entry per device. A check
/// whose inputs are unknown is `skipped` with the reason, never `pass`. `specs` (optional)
/// lets gpu.pcie_link judge the link against the card's own generation and width.
[[nodiscard]] std::vector<reports::host_check> evaluate_host_checks(
    const reports::host_info& host, const std::vector<reports::device_info>& devices,
    const host_check_options& options = {}, const reports::spec_table* specs = nullptr);

} // namespace gpuspec::host
