// The health judge (health.hpp). The inventory and counter rules are the check's, run over the
// inventory with its counters as the state "after" and no run window (so no "during the run"
// rule fires on a node that ran nothing); the rules below are the ones only a passive health
// check has, each one small function.

#include "gpuspec/reports/health.hpp"

#include <algorithm>
#include <map>
#include <unordered_map>

#include <fmt/format.h>

#include "gpuspec/reports/diagnosis.hpp"

namespace gpuspec::reports {

namespace {

std::string model_key(const device_info& d) { return d.spec_id.empty() ? d.name : d.spec_id; }

/// What NVML's own message says when the kernel module and the user-space library differ
/// (NVML_ERROR_LIB_RM_VERSION_MISMATCH: "RM has detected an NVML/RM version mismatch.").
bool says_version_mismatch(const std::string& status) {
  return status.find("version mismatch") != std::string::npos ||
         status.find("LIB_RM_VERSION_MISMATCH") != std::string::npos;
}

void rule_driver_consistency(const health_input& in, std::vector<diagnosis>& out) {
  const auto& host = in.inventory.host;
  if (says_version_mismatch(host.gpu_status)) {
    auto d = make_diagnosis(
        "GPUSPEC-DRIVER-MISMATCH", verdict_status::fail,
        fmt::format("NVML cannot start: {} (the loaded kernel module is not the installed "
                    "driver's: updated without a reboot?)",
                    host.gpu_status),
        nullptr, host);
    d.evidence["host.gpu_status"] = host.gpu_status;
    out.push_back(std::move(d));
    return;
  }
  if (in.kernel_module_version.empty() || host.driver_version.empty() ||
      in.kernel_module_version == host.driver_version)
    return;
  auto d = make_diagnosis("GPUSPEC-DRIVER-MISMATCH", verdict_status::fail,
                          fmt::format("the loaded kernel module is {} (/proc/driver/nvidia/version)"
                                      ", NVML reports driver {}",
                                      in.kernel_module_version, host.driver_version),
                          nullptr, host);
  d.evidence["kernel_module"] = in.kernel_module_version;
  d.evidence["nvml_driver"] = host.driver_version;
  out.push_back(std::move(d));
}

void rule_kernel_log(const kernel_log_reading& log, const host_info& host,
                     std::vector<diagnosis>& out) {
  if (log.state != kernel_log_state::not_read)
    return;
  auto d = make_diagnosis("GPUSPEC-KERNEL-LOG-UNREAD", verdict_status::inconclusive,
                          fmt::format("the kernel log could not be read, so Xids since boot are "
                                      "not known: {}",
                                      log.why.empty() ? "no reason given" : log.why),
                          nullptr, host);
  d.evidence["tried"] = log.why;
  out.push_back(std::move(d));
}

/// Among GPUs of one model, a VBIOS that differs from the one most of them run.
void rule_vbios_mixed(const device_info& d, const std::vector<const device_info*>& siblings,
                      const host_info& host, std::vector<diagnosis>& out) {
  if (d.vbios.empty() || siblings.size() < 2)
    return;
  std::map<std::string, int> count;
  for (const auto* s : siblings)
    if (!s->vbios.empty())
      ++count[s->vbios];
  const auto most = std::max_element(
      count.begin(), count.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  if (count.size() < 2 || d.vbios == most->first || count[d.vbios] >= most->second)
    return;
  auto diag = make_diagnosis("GPUSPEC-VBIOS-MIXED", verdict_status::warn,
                             fmt::format("VBIOS {}, while {} of the {} identical GPUs run {}",
                                         d.vbios, most->second, siblings.size(), most->first),
                             &d, host);
  diag.evidence["majority_vbios"] = most->first;
  out.push_back(std::move(diag));
}

/// Uncorrectable ECC errors since the driver loaded (the volatile count is cleared by a GPU
/// reset): the GPU has not been reset since its memory failed.
void rule_ecc_since_load(const device_info& d, const host_info& host, std::vector<diagnosis>& out) {
  const auto it = d.counters_before.find("ecc.volatile.uncorrected");
  if (it == d.counters_before.end() || !it->second.value || *it->second.value <= 0)
    return;
  auto diag = make_diagnosis(
      "GPUSPEC-ECC-UNCORRECTED", verdict_status::fail,
      fmt::format("{} uncorrectable ECC error(s) since the driver loaded (not reset since)",
                  *it->second.value),
      &d, host);
  diag.evidence["counters.ecc.volatile.uncorrected"] = std::to_string(*it->second.value);
  out.push_back(std::move(diag));
}

/// One diagnosis per Xid number per GPU (a storm of one Xid is one finding, with its count).
void rule_xids(const std::vector<classified_xid>& xids, const device_info* device,
               const host_info& host, std::vector<diagnosis>& out) {
  std::map<int, std::vector<const classified_xid*>> by_xid;
  for (const auto& x : xids)
    if (x.device == (device ? std::optional(device->index) : std::nullopt))
      by_xid[x.event.xid].push_back(&x);
  for (const auto& [xid, list] : by_xid) {
    const xid_entry& e = list.front()->entry;
    if (e.severity == verdict_status::pass)
      continue; // reported with the Xids, not held against the GPU
    const auto& last = list.back()->event;
    std::string cause = fmt::format(
        "Xid {} ({}, {}) {} time{} since boot{}: {}", xid, e.description, to_string(e.kind),
        list.size(), list.size() == 1 ? "" : "s",
        device ? "" : fmt::format(" at PCI {}, which no GPU of the inventory has", last.pci_bus_id),
        last.text);
    auto d = make_diagnosis(xid_reason_code(e.kind), e.severity, std::move(cause), device, host);
    d.action = fmt::format("{} (NVIDIA: {}{}{})", e.action, e.immediate_action,
                           e.investigatory_action.empty() ? "" : ", then ", e.investigatory_action);
    d.step = e.step;
    d.evidence["xid"] = std::to_string(xid);
    d.evidence["xid.count"] = std::to_string(list.size());
    d.evidence["xid.mnemonic"] = std::string(e.mnemonic);
    d.evidence["xid.last_line"] = last.text;
    if (last.seconds_since_boot)
      d.evidence["xid.last_seconds_since_boot"] = fmt::format("{:.6f}", *last.seconds_since_boot);
    out.push_back(std::move(d));
  }
}

} // namespace

std::string_view to_string(kernel_log_state s) {
  switch (s) {
  case kernel_log_state::read:
    return "read";
  case kernel_log_state::not_read:
    return "not read";
  case kernel_log_state::skipped:
    return "skipped";
  }
  return "not read";
}

std::string drain_reason_of(const check_outcome& outcome) {
  // A reason for a failing node (the one a scheduler drains) and for a warning one (to log, or
  // to drain by a site's own choice); none for a pass, nor for a node that could not be judged.
  const verdict_status target = outcome.status;
  if (target != verdict_status::fail && target != verdict_status::warn)
    return "";
  for (const auto& node : outcome.nodes) {
    for (const auto& g : node.gpus)
      for (const auto& d : g.diagnoses)
        if (d.severity == target)
          return fmt::format("gpuspec:{}:gpu{}", d.code, g.index);
    for (const auto& d : node.diagnoses)
      if (d.severity == target)
        return fmt::format("gpuspec:{}:node", d.code);
  }
  return "";
}

health_outcome judge_health(const health_input& in, const spec_table& specs,
                            const expectation_settings& settings) {
  // The inventory as a report with no run: the counters read now are the state the rules see
  // as "after", and nothing happened "during" a run.
  report r = in.inventory;
  for (auto& d : r.devices) {
    d.counters_after = d.counters_before;
    d.counters_delta.clear();
  }

  health_outcome out;
  out.kernel_log = in.kernel_log.state;
  out.kernel_log_source = in.kernel_log.source;
  out.kernel_log_why = in.kernel_log.why;
  for (const auto& e : in.kernel_log.events) {
    classified_xid x{e, classify_xid(e.xid), std::nullopt};
    if (e.address)
      for (const auto& d : r.devices)
        if (parse_pci_address(d.pci_bus_id) == e.address)
          x.device = d.index;
    out.xids.push_back(std::move(x));
  }

  node_verdict node;
  node.hostname = r.host.hostname;
  node.driver_version = r.host.driver_version;
  node.cuda_driver_version = r.host.cuda_driver_version;
  node.diagnoses = diagnose_host(r);
  rule_driver_consistency(in, node.diagnoses);
  rule_kernel_log(in.kernel_log, r.host, node.diagnoses);
  rule_xids(out.xids, nullptr, r.host, node.diagnoses);
  node.status = verdict_status::pass;
  for (const auto& d : node.diagnoses)
    node.status = worst(node.status, d.severity);

  if (r.devices.empty() || r.host.gpu_status != "ok") {
    // No GPU to judge: no verdict on the GPUs can be reached, whatever the host says.
    node.message = r.host.gpu_status.empty() || r.host.gpu_status == "ok" ? "NVML lists no GPU"
                                                                          : r.host.gpu_status;
    node.status = worst(node.status, verdict_status::inconclusive);
  }

  std::unordered_map<std::string, std::vector<const device_info*>> by_model;
  for (const auto& d : r.devices)
    by_model[model_key(d)].push_back(&d);
  for (const auto& d : r.devices) {
    gpu_verdict g;
    g.index = d.index;
    g.name = d.name;
    g.uuid = d.uuid;
    g.serial = d.serial;
    g.pci_bus_id = d.pci_bus_id;
    const gpu_spec* spec = spec_of(specs, d);
    g.spec_id = spec ? spec->id : d.spec_id;
    const auto& siblings = by_model[model_key(d)];
    const gpu_facts facts{r, d, spec, siblings, std::nullopt, settings};
    g.diagnoses = diagnose_device(facts);
    if (spec == nullptr)
      g.diagnoses.push_back(make_diagnosis(
          "GPUSPEC-NO-SPEC-ROW", verdict_status::warn,
          fmt::format("no spec-table row matches '{}': the PCIe link is judged against NVML's "
                      "maximum only",
                      d.name),
          &d, r.host));
    rule_ecc_since_load(d, r.host, g.diagnoses);
    rule_vbios_mixed(d, siblings, r.host, g.diagnoses);
    rule_xids(out.xids, &d, r.host, g.diagnoses);
    g.status = verdict_status::pass;
    for (const auto& diag : g.diagnoses)
      g.status = worst(g.status, diag.severity);
    node.status = worst(node.status, g.status);
    node.gpus.push_back(std::move(g));
  }

  out.check.status = node.status;
  out.check.nodes.push_back(std::move(node));
  if (in.kernel_log.state == kernel_log_state::skipped)
    out.check.notes.push_back("kernel log not read (--no-kernel-log): Xids since boot not checked");
  out.drain_reason = drain_reason_of(out.check);
  return out;
}

} // namespace gpuspec::reports
