#pragma once
/// Diagnosis rules (docs/check.md): each rule is one small function over the inventory,
/// the counters, the host checks or one result's telemetry, and each cause has a stable,
/// documented reason code that fleet tooling can count.

#include <span>
#include <string_view>
#include <vector>

#include "gpuspec/reports/expectations.hpp"
#include "gpuspec/reports/report.hpp"
#include "gpuspec/reports/verdict.hpp"

namespace gpuspec::reports {

/// One documented reason code: the code, its rung on the remediation ladder, and the
/// generic action (rules add the values they saw to `cause`).
struct reason_code {
  std::string_view code;
  remediation step;
  std::string_view summary;
  std::string_view action;
};

/// Every reason code gpuspec emits, in the order docs/check.md lists them.
[[nodiscard]] std::span<const reason_code> reason_codes();
/// The entry of `code`; throws std::out_of_range for a code not in the table (a bug).
[[nodiscard]] const reason_code& find_reason(std::string_view code);

/// A diagnosis of `code` with its table action and step, the device's identity as evidence
/// (when `device` is given) and `cause`.
[[nodiscard]] diagnosis make_diagnosis(std::string_view code, verdict_status severity,
                                       std::string cause, const device_info* device,
                                       const host_info& host);

/// Host-level rules (nouveau, host memory ratio), from the harness's host checks.
[[nodiscard]] std::vector<diagnosis> diagnose_host(const report& r);

/// Inventory- and counter-level rules of one GPU: PCIe link, power limit, persistence,
/// temperature, ECC, row remapping, NVLink links and errors, PCIe replays. `siblings` are the
/// devices of the same model in the report (for NVLink links active), including `device`.
[[nodiscard]] std::vector<diagnosis> diagnose_device(const report& r, const device_info& device,
                                                     std::span<const device_info* const> siblings,
                                                     const expectation_settings& settings);

/// Telemetry rules of one result on one device (thermal and power throttling, low SM clock,
/// memory clock below maximum): the probable causes of a slow result, each with `severity`
/// (the result's own warn or fail).
[[nodiscard]] std::vector<diagnosis> diagnose_result(const report& r, const result& res,
                                                     const device_info* device,
                                                     const expectation_settings& settings,
                                                     verdict_status severity);

} // namespace gpuspec::reports
