#include "gpuspec/reports/diagnosis.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>

#include <fmt/format.h>

namespace gpuspec::reports {

namespace {

// The documented table (docs/check.md lists the same, in the same order). Adding a cause is
// one entry here and one small rule below.
constexpr std::array<reason_code, 25> codes = {{
    {"GPUSPEC-PCIE-LINK-DEGRADED", remediation::reseat_or_service,
     "PCIe link narrower than the card's maximum",
     "reseat the GPU, check the riser and the slot's BIOS setting; service if it persists"},
    {"GPUSPEC-PCIE-REPLAYS", remediation::reseat_or_service, "PCIe replays during the run",
     "reseat the GPU and check the riser or cable; service if replays keep counting"},
    {"GPUSPEC-POWER-LIMIT-LOW", remediation::none, "power limit below the card's default",
     "restore the default limit (nvidia-smi -pl) and check the BMC's power capping"},
    {"GPUSPEC-PERSISTENCE-OFF", remediation::none, "persistence mode off",
     "enable nvidia-persistenced (or nvidia-smi -pm 1)"},
    {"GPUSPEC-GPU-TEMPERATURE-HIGH", remediation::reseat_or_service,
     "GPU temperature near or above its limit",
     "check fans, airflow, blanking panels and the heatsink; service if it persists"},
    {"GPUSPEC-THERMAL-THROTTLE", remediation::reseat_or_service,
     "thermal throttling during the measurement",
     "check fans, airflow and inlet temperature, then the heatsink and thermal paste"},
    {"GPUSPEC-POWER-THROTTLE", remediation::none, "power capping or power brake during the run",
     "check the power limit, the BMC's capping and the PSUs (hw_power_brake is asserted by the "
     "system)"},
    {"GPUSPEC-SM-CLOCK-LOW", remediation::rerun,
     "SM clock under 75% of its maximum without a throttle reason",
     "check locked or application clocks (nvidia-smi -rgc) and other load on the GPU, rerun"},
    {"GPUSPEC-MEMORY-CLOCK-LOW", remediation::reset_gpu,
     "memory clock below its maximum during the run",
     "reset locked memory clocks (nvidia-smi -rmc); reset the GPU if it persists"},
    {"GPUSPEC-ECC-UNCORRECTED", remediation::reset_gpu, "uncorrectable ECC errors during the run",
     "drain the node, reset the GPU so the row is remapped, rerun; RMA if errors recur"},
    {"GPUSPEC-ROW-REMAP-PENDING", remediation::reset_gpu, "a row remapping is pending",
     "reset the GPU (or reboot) to apply the pending remap"},
    {"GPUSPEC-ROW-REMAP-FAILURE", remediation::rma, "row remapping failed: no spare rows",
     "open an RMA with the evidence below"},
    {"GPUSPEC-PAGE-RETIREMENT-PENDING", remediation::reset_gpu, "a page retirement is pending",
     "reset the GPU (or reboot) to retire the page"},
    {"GPUSPEC-NVLINK-DOWN", remediation::reboot,
     "fewer NVLink links active than expected: collectives take a slower path",
     "reset the GPUs or reboot (restart the fabric manager); reseat or service if still down"},
    {"GPUSPEC-NVLINK-ERRORS", remediation::reseat_or_service,
     "NVLink CRC, replay or recovery errors during the run",
     "reset and rerun; service the baseboard or bridge if errors keep counting"},
    {"GPUSPEC-NOUVEAU-LOADED", remediation::reboot, "the nouveau driver is loaded",
     "blacklist nouveau, rebuild the initramfs, reboot"},
    {"GPUSPEC-HOST-MEMORY-LOW", remediation::reseat_or_service,
     "host RAM under twice the total GPU memory",
     "add host memory (or check for failed DIMMs the BIOS disabled)"},
    {"GPUSPEC-SIBLING-OUTLIER", remediation::reseat_or_service,
     "slower than identical GPUs in the same node",
     "look at this GPU's other diagnoses; swap slots to see whether the fault follows the GPU"},
    {"GPUSPEC-FLEET-OUTLIER", remediation::reseat_or_service,
     "slower than the fleet median of its model (modified z-score)",
     "compare with the node's other diagnoses; service the GPU or node if it persists"},
    {"GPUSPEC-BELOW-SPEC", remediation::rerun,
     "below the expected fraction of the datasheet, with no other cause found",
     "rerun on an idle node; if it persists, compare with siblings and service"},
    {"GPUSPEC-BELOW-BASELINE", remediation::rerun, "below the baseline beyond the tolerance",
     "rerun; compare driver and firmware versions with the baseline's"},
    {"GPUSPEC-NO-SPEC-ROW", remediation::none,
     "no spec-table row for this GPU: judged by clock-adjusted efficiency only",
     "add the model to specs/gpus.json from its datasheet"},
    {"GPUSPEC-RESULT-FAILED", remediation::rerun, "the benchmark failed",
     "read the result's reason; rerun"},
    {"GPUSPEC-VERIFICATION-FAILED", remediation::reset_gpu, "the benchmark computed wrong results",
     "reset the GPU and rerun; RMA if wrong results recur"},
    {"GPUSPEC-RUN-INCOMPLETE", remediation::rerun, "the run did not finish",
     "read incomplete_reason; rerun"},
}};

std::optional<std::int64_t> value_of(const counter_set& set, const std::string& name) {
  const auto it = set.find(name);
  return it == set.end() ? std::nullopt : it->second.value;
}

const host_check* find_check(const report& r, std::string_view id, std::optional<int> device) {
  for (const auto& c : r.host.checks)
    if (c.id == id && c.device == device)
      return &c;
  return nullptr;
}

/// A host check that warned or failed, as a diagnosis; nullopt when it passed or was skipped.
std::optional<diagnosis> from_check(const host_check& c, std::string_view code,
                                    const device_info* device, const host_info& host) {
  if (c.status != check_status::warn && c.status != check_status::fail)
    return std::nullopt;
  auto d = make_diagnosis(
      code, c.status == check_status::fail ? verdict_status::fail : verdict_status::warn, c.message,
      device, host);
  d.evidence["host_check"] = c.id;
  return d;
}

// ---- device rules: each one small function --------------------------------------------

using device_rule = void (*)(const report&, const device_info&, std::span<const device_info* const>,
                             const expectation_settings&, std::vector<diagnosis>&);

void rule_pcie_link(const report& r, const device_info& d, std::span<const device_info* const>,
                    const expectation_settings&, std::vector<diagnosis>& out) {
  if (const auto* c = find_check(r, "gpu.pcie_link", d.index)) {
    if (auto diag = from_check(*c, "GPUSPEC-PCIE-LINK-DEGRADED", &d, r.host))
      out.push_back(*diag);
    return;
  }
  // No harness check (an older report): the same rule, width only (links downshift their
  // generation at idle).
  if (d.pcie.width_current && d.pcie.width_max && *d.pcie.width_current < *d.pcie.width_max) {
    auto diag = make_diagnosis("GPUSPEC-PCIE-LINK-DEGRADED", verdict_status::warn,
                               fmt::format("PCIe link x{}, the card's maximum is x{}",
                                           *d.pcie.width_current, *d.pcie.width_max),
                               &d, r.host);
    out.push_back(diag);
  }
}

void rule_power_limit(const report& r, const device_info& d, std::span<const device_info* const>,
                      const expectation_settings&, std::vector<diagnosis>& out) {
  if (const auto* c = find_check(r, "gpu.power_limit", d.index)) {
    if (auto diag = from_check(*c, "GPUSPEC-POWER-LIMIT-LOW", &d, r.host))
      out.push_back(*diag);
    return;
  }
  if (d.power_limit_w && d.power_limit_default_w &&
      *d.power_limit_w < 0.99 * *d.power_limit_default_w)
    out.push_back(make_diagnosis(
        "GPUSPEC-POWER-LIMIT-LOW", verdict_status::warn,
        fmt::format("power limit {} W, default {} W", *d.power_limit_w, *d.power_limit_default_w),
        &d, r.host));
}

void rule_persistence(const report& r, const device_info& d, std::span<const device_info* const>,
                      const expectation_settings&, std::vector<diagnosis>& out) {
  if (const auto* c = find_check(r, "gpu.persistence_mode", d.index)) {
    if (auto diag = from_check(*c, "GPUSPEC-PERSISTENCE-OFF", &d, r.host))
      out.push_back(*diag);
    return;
  }
  if (d.persistence_mode == "disabled")
    out.push_back(make_diagnosis("GPUSPEC-PERSISTENCE-OFF", verdict_status::warn,
                                 "persistence mode is disabled", &d, r.host));
}

void rule_temperature(const report& r, const device_info& d, std::span<const device_info* const>,
                      const expectation_settings&, std::vector<diagnosis>& out) {
  if (const auto* c = find_check(r, "gpu.temperature", d.index))
    if (auto diag = from_check(*c, "GPUSPEC-GPU-TEMPERATURE-HIGH", &d, r.host))
      out.push_back(*diag);
}

void rule_ecc(const report& r, const device_info& d, std::span<const device_info* const>,
              const expectation_settings&, std::vector<diagnosis>& out) {
  std::vector<std::string> seen;
  std::map<std::string, std::string> counters;
  for (const char* name : {"ecc.volatile.uncorrected", "ecc.aggregate.uncorrected",
                           "retired_pages.double_bit", "remapped_rows.uncorrectable"}) {
    const auto v = value_of(d.counters_delta, name);
    if (v && *v > 0) {
      seen.push_back(fmt::format("{} +{}", name, *v));
      counters[std::string("counters_delta.") + name] = std::to_string(*v);
    }
  }
  if (seen.empty())
    return;
  std::string cause = "during the run:";
  for (const auto& s : seen)
    cause += " " + s;
  auto diag = make_diagnosis("GPUSPEC-ECC-UNCORRECTED", verdict_status::fail, cause, &d, r.host);
  diag.evidence.merge(counters);
  out.push_back(diag);
}

void rule_row_remap(const report& r, const device_info& d, std::span<const device_info* const>,
                    const expectation_settings&, std::vector<diagnosis>& out) {
  auto state = [&](const char* name) { return value_of(d.counters_after, name); };
  if (const auto v = state("remapped_rows.failure"); v && *v > 0) {
    auto diag = make_diagnosis("GPUSPEC-ROW-REMAP-FAILURE", verdict_status::fail,
                               "the GPU reports a row-remapping failure", &d, r.host);
    diag.evidence["counters_after.remapped_rows.failure"] = std::to_string(*v);
    for (const char* n : {"remapped_rows.correctable", "remapped_rows.uncorrectable"})
      if (const auto c = state(n))
        diag.evidence[std::string("counters_after.") + n] = std::to_string(*c);
    out.push_back(diag);
  }
  if (const auto v = state("remapped_rows.pending"); v && *v > 0) {
    auto diag = make_diagnosis("GPUSPEC-ROW-REMAP-PENDING", verdict_status::warn,
                               "a row remapping is pending until the GPU is reset", &d, r.host);
    diag.evidence["counters_after.remapped_rows.pending"] = std::to_string(*v);
    out.push_back(diag);
  }
  if (const auto v = state("retired_pages.pending"); v && *v > 0) {
    auto diag = make_diagnosis("GPUSPEC-PAGE-RETIREMENT-PENDING", verdict_status::warn,
                               "a page retirement is pending until the GPU is reset", &d, r.host);
    diag.evidence["counters_after.retired_pages.pending"] = std::to_string(*v);
    out.push_back(diag);
  }
}

void rule_nvlink_down(const report& r, const device_info& d,
                      std::span<const device_info* const> siblings, const expectation_settings&,
                      std::vector<diagnosis>& out) {
  const auto active = value_of(d.counters_after, "nvlink.links_active");
  const auto delta = value_of(d.counters_delta, "nvlink.links_active");
  if (!active)
    return;
  std::int64_t sibling_max = *active;
  for (const auto* s : siblings)
    if (const auto v = value_of(s->counters_after, "nvlink.links_active"))
      sibling_max = std::max(sibling_max, *v);
  std::string cause;
  if (delta && *delta < 0)
    cause = fmt::format("{} NVLink link(s) went down during the run ({} active after it)", -*delta,
                        *active);
  else if (*active < sibling_max)
    cause = fmt::format("{} NVLink links active, identical GPUs in this node have {}", *active,
                        sibling_max);
  if (cause.empty())
    return;
  auto diag = make_diagnosis("GPUSPEC-NVLINK-DOWN", verdict_status::fail, cause, &d, r.host);
  diag.evidence["counters_after.nvlink.links_active"] = std::to_string(*active);
  out.push_back(diag);
}

void rule_nvlink_errors(const report& r, const device_info& d, std::span<const device_info* const>,
                        const expectation_settings&, std::vector<diagnosis>& out) {
  std::string cause;
  std::map<std::string, std::string> counters;
  for (const char* name :
       {"nvlink.crc_flit", "nvlink.crc_data", "nvlink.replay", "nvlink.recovery"}) {
    const auto v = value_of(d.counters_delta, name);
    if (v && *v > 0) {
      cause += fmt::format("{}{} +{}", cause.empty() ? "during the run: " : ", ", name, *v);
      counters[std::string("counters_delta.") + name] = std::to_string(*v);
    }
  }
  if (cause.empty())
    return;
  auto diag = make_diagnosis("GPUSPEC-NVLINK-ERRORS", verdict_status::warn, cause, &d, r.host);
  diag.evidence.merge(counters);
  out.push_back(diag);
}

void rule_pcie_replays(const report& r, const device_info& d, std::span<const device_info* const>,
                       const expectation_settings&, std::vector<diagnosis>& out) {
  const auto v = value_of(d.counters_delta, "pcie.replay");
  if (!v || *v <= 0)
    return;
  auto diag = make_diagnosis("GPUSPEC-PCIE-REPLAYS", verdict_status::warn,
                             fmt::format("{} PCIe replays during the run", *v), &d, r.host);
  diag.evidence["counters_delta.pcie.replay"] = std::to_string(*v);
  out.push_back(diag);
}

constexpr std::array<device_rule, 9> device_rules = {
    rule_pcie_link, rule_pcie_replays, rule_power_limit, rule_persistence,   rule_temperature,
    rule_ecc,       rule_row_remap,    rule_nvlink_down, rule_nvlink_errors,
};

bool has_reason(const telemetry_summary& t, std::initializer_list<std::string_view> names) {
  return std::any_of(t.throttle_reasons.begin(), t.throttle_reasons.end(), [&](const auto& r) {
    return std::find(names.begin(), names.end(), r) != names.end();
  });
}

std::string reasons_text(const telemetry_summary& t) {
  std::string out;
  for (const auto& r : t.throttle_reasons) {
    out += out.empty() ? "" : ",";
    out += r;
  }
  return out;
}

} // namespace

std::span<const reason_code> reason_codes() { return codes; }

const reason_code& find_reason(std::string_view code) {
  for (const auto& c : codes)
    if (c.code == code)
      return c;
  throw std::out_of_range("unknown reason code " + std::string(code));
}

diagnosis make_diagnosis(std::string_view code, verdict_status severity, std::string cause,
                         const device_info* device, const host_info& host) {
  const auto& info = find_reason(code);
  diagnosis d;
  d.code = std::string(info.code);
  d.severity = severity;
  d.cause = cause.empty() ? std::string(info.summary) : std::move(cause);
  d.action = std::string(info.action);
  d.step = info.step;
  d.evidence["hostname"] = host.hostname;
  d.evidence["driver"] = host.driver_version;
  if (device != nullptr) {
    d.device = device->index;
    d.evidence["gpu"] = std::to_string(device->index);
    d.evidence["name"] = device->name;
    d.evidence["serial"] = device->serial;
    d.evidence["uuid"] = device->uuid;
    d.evidence["pci_bus_id"] = device->pci_bus_id;
    d.evidence["vbios"] = device->vbios;
  }
  return d;
}

std::vector<diagnosis> diagnose_host(const report& r) {
  std::vector<diagnosis> out;
  if (const auto* c = find_check(r, "host.nouveau", std::nullopt)) {
    if (auto d = from_check(*c, "GPUSPEC-NOUVEAU-LOADED", nullptr, r.host))
      out.push_back(*d);
  } else if (r.host.nouveau_loaded.value_or(false)) {
    out.push_back(make_diagnosis("GPUSPEC-NOUVEAU-LOADED", verdict_status::fail,
                                 "the nouveau module is loaded", nullptr, r.host));
  }
  if (const auto* c = find_check(r, "host.memory_ratio", std::nullopt)) {
    if (auto d = from_check(*c, "GPUSPEC-HOST-MEMORY-LOW", nullptr, r.host))
      out.push_back(*d);
  } else if (r.host.memory_bytes && !r.devices.empty()) {
    std::int64_t gpu = 0;
    for (const auto& d : r.devices)
      gpu += d.memory_bytes.value_or(0);
    if (*r.host.memory_bytes < 2 * gpu)
      out.push_back(make_diagnosis(
          "GPUSPEC-HOST-MEMORY-LOW", verdict_status::warn,
          fmt::format("host memory {:.1f} GiB, under twice the GPU memory {:.1f} GiB",
                      static_cast<double>(*r.host.memory_bytes) / (1 << 30),
                      static_cast<double>(gpu) / (1 << 30)),
          nullptr, r.host));
  }
  return out;
}

std::vector<diagnosis> diagnose_device(const report& r, const device_info& device,
                                       std::span<const device_info* const> siblings,
                                       const expectation_settings& settings) {
  std::vector<diagnosis> out;
  for (const auto rule : device_rules)
    rule(r, device, siblings, settings, out);
  return out;
}

std::vector<diagnosis> diagnose_result(const report& r, const result& res,
                                       const device_info* device,
                                       const expectation_settings& settings,
                                       verdict_status severity) {
  std::vector<diagnosis> out;
  const auto& t = res.telemetry;
  auto add = [&](std::string_view code, std::string cause) {
    auto d = make_diagnosis(code, severity, std::move(cause), device, r.host);
    d.evidence["bench_id"] = res.bench_id;
    if (!t.throttle_reasons.empty())
      d.evidence["throttle_reasons"] = reasons_text(t);
    out.push_back(std::move(d));
  };
  const bool thermal = has_reason(t, {"hw_thermal", "sw_thermal", "hw_slowdown"});
  const bool power = has_reason(t, {"sw_power_cap", "hw_power_brake"});
  if (thermal)
    add("GPUSPEC-THERMAL-THROTTLE",
        fmt::format("throttle reasons during the measurement: {}{}", reasons_text(t),
                    t.temperature_c_max ? fmt::format(" (max {:.0f} °C)", *t.temperature_c_max)
                                        : std::string()));
  if (power)
    add("GPUSPEC-POWER-THROTTLE",
        fmt::format("throttle reasons during the measurement: {}{}", reasons_text(t),
                    t.power_w_max ? fmt::format(" (max {:.0f} W)", *t.power_w_max)
                                  : std::string()));
  if (!thermal && !power && t.low_clock_fraction &&
      *t.low_clock_fraction > settings.low_clock_fraction)
    add("GPUSPEC-SM-CLOCK-LOW",
        fmt::format("{:.0f}% of telemetry samples had the SM clock under 75% of its maximum",
                    100 * *t.low_clock_fraction));
  if (device != nullptr && t.mem_clock_mhz_median && device->mem_clock_max_mhz &&
      *t.mem_clock_mhz_median < settings.mem_clock_fraction * *device->mem_clock_max_mhz)
    add("GPUSPEC-MEMORY-CLOCK-LOW",
        fmt::format("memory clock median {:.0f} MHz, maximum {} MHz", *t.mem_clock_mhz_median,
                    *device->mem_clock_max_mhz));
  return out;
}

} // namespace gpuspec::reports
