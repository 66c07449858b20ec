// The health judge (health.hpp). The inventory and counter rules are the check's, run over the
// inventory with its counters as the state "after" and no run window (so no "during the run"
// rule fires on a node that ran nothing); the rules below are the ones only a passive health
// check has, each one small function.

#include "gpuspec/reports/health/health.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpuspec/reports/judge/diagnosis.hpp"

#include "fabric_rules.hpp"
#include "mig_rules.hpp"

namespace gpuspec::reports::inline health {

namespace {

using detail::add_fabric_notes;
using detail::add_mig_notes;
using detail::fabric_need;
using detail::rule_fabric_manager;
using detail::rule_imex;
using detail::rule_mig_cuda;
using detail::rule_mig_layout;
using detail::rule_mig_pending;

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

/// The Xid lines of this boot on `device` with Xid `xid`.
std::size_t xid_count(const std::vector<classified_xid>& xids, int device, int xid) {
  return static_cast<std::size_t>(std::count_if(xids.begin(), xids.end(), [&](const auto& x) {
    return x.device == device && x.event.xid == xid;
  }));
}

/// Uncorrectable ECC errors since the driver loaded (the volatile count is cleared by a GPU
/// reset): the GPU has not been reset since its memory failed. When every one of them is
/// accounted for by a contained-error Xid (94: the error was contained to the job that hit it;
/// NVIDIA's catalog: restart the application, reset the GPU when convenient) and none was
/// uncontained (95) or a double-bit error (48), the GPU warns instead: it takes work, and is
/// reset at the next window. "Accounted for" is at least as many Xid 94 lines this boot as
/// uncorrected errors: an initial policy (the driver writes one line per contained error).
void rule_ecc_since_load(const device_info& d, const std::vector<classified_xid>& xids,
                         const host_info& host, std::vector<diagnosis>& out) {
  const auto it = d.counters_before.find("ecc.volatile.uncorrected");
  if (it == d.counters_before.end() || !it->second.value || *it->second.value <= 0)
    return;
  const double uncorrected = *it->second.value;
  const std::size_t contained = xid_count(xids, d.index, 94);
  const bool accounted = contained > 0 && static_cast<double>(contained) >= uncorrected &&
                         xid_count(xids, d.index, 95) == 0 && xid_count(xids, d.index, 48) == 0;
  if (accounted) {
    auto diag = make_diagnosis(
        "GPUSPEC-ECC-UNCORRECTED", verdict_status::warn,
        fmt::format("{} uncorrectable ECC error(s) since the driver loaded, each accounted for by "
                    "a contained-error Xid 94 ({} line{} this boot): contained to the jobs that "
                    "hit them; reset when convenient",
                    uncorrected, contained, contained == 1 ? "" : "s"),
        &d, host);
    diag.action = "reset the GPU when convenient (at the next drain or maintenance window) so the "
                  "row is remapped; RMA if contained errors keep recurring";
    diag.evidence["counters.ecc.volatile.uncorrected"] = fmt::format("{}", uncorrected);
    diag.evidence["xid94.count"] = std::to_string(contained);
    out.push_back(std::move(diag));
    return;
  }
  auto diag = make_diagnosis(
      "GPUSPEC-ECC-UNCORRECTED", verdict_status::fail,
      fmt::format("{} uncorrectable ECC error(s) since the driver loaded (not reset since)",
                  uncorrected),
      &d, host);
  diag.evidence["counters.ecc.volatile.uncorrected"] = fmt::format("{}", uncorrected);
  if (contained > 0)
    diag.evidence["xid94.count"] = std::to_string(contained);
  out.push_back(std::move(diag));
}

/// The line of a group that judges it: the last for a recovery action (the driver's current
/// word), else the worst (a Fatal NVLink line among Nonfatal ones).
const classified_xid& judging_line(const std::vector<const classified_xid*>& list) {
  if (recovery_action_of(list.back()->event.text))
    return *list.back();
  const classified_xid* judged = list.front();
  for (const auto* x : list)
    if (worst(judged->entry.severity, x->entry.severity) != judged->entry.severity)
      judged = x;
  return *judged;
}

/// "GPU instance 5", "GPU instances 1, 5": the MIG instances the lines name; "" for none.
std::string mig_instances(const std::vector<const classified_xid*>& list) {
  std::set<int> instances;
  for (const auto* x : list)
    if (x->event.gpu_instance)
      instances.insert(*x->event.gpu_instance);
  if (instances.empty())
    return "";
  return fmt::format("MIG GPU instance{} {}", instances.size() == 1 ? "" : "s",
                     fmt::join(instances, ", "));
}

/// One diagnosis per Xid number per GPU (a storm of one Xid is one finding, with its count).
void rule_xids(const std::vector<classified_xid>& xids, const device_info* device,
               const host_info& host, std::vector<diagnosis>& out) {
  std::map<int, std::vector<const classified_xid*>> by_xid;
  for (const auto& x : xids)
    if (x.device == (device ? std::optional(device->index) : std::nullopt))
      by_xid[x.event.xid].push_back(&x);
  for (const auto& [xid, list] : by_xid) {
    const classified_xid& judged = judging_line(list);
    const xid_entry& e = judged.entry;
    if (e.severity == verdict_status::pass)
      continue; // reported with the Xids, not held against the GPU
    const auto& last = list.back()->event;
    const std::string instances = mig_instances(list);
    std::string cause = fmt::format(
        "Xid {} ({}, {}) {} time{} since boot{}{}: {}", xid, e.description, to_string(e.kind),
        list.size(), list.size() == 1 ? "" : "s",
        device ? "" : fmt::format(" at PCI {}, which no GPU of the inventory has", last.pci_bus_id),
        instances.empty() ? "" : " on " + instances, judged.event.text);
    auto d = make_diagnosis(xid_reason_code(e.kind), e.severity, std::move(cause), device, host);
    d.action = fmt::format("{} (NVIDIA: {}{}{})", e.action, e.immediate_action,
                           e.investigatory_action.empty() ? "" : ", then ", e.investigatory_action);
    d.step = e.step;
    d.evidence["xid"] = std::to_string(xid);
    d.evidence["xid.count"] = std::to_string(list.size());
    d.evidence["xid.mnemonic"] = std::string(e.mnemonic);
    d.evidence["xid.last_line"] = last.text;
    if (&judged.event != &last)
      d.evidence["xid.judged_line"] = judged.event.text;
    if (!instances.empty())
      d.evidence["xid.mig"] = instances;
    if (last.seconds_since_boot)
      d.evidence["xid.last_seconds_since_boot"] = fmt::format("{:.6f}", *last.seconds_since_boot);
    out.push_back(std::move(d));
  }
}

/// A fatal NVSwitch SXid since boot: the fabric's finding (the node's), one per switch and SXid.
/// Non-fatal ones are listed, not judged.
void rule_sxids(const std::vector<sxid_event>& sxids, const host_info& host,
                std::vector<diagnosis>& out) {
  std::map<std::pair<std::string, int>, std::vector<const sxid_event*>> fatal;
  for (const auto& x : sxids)
    if (x.fatal)
      fatal[{x.pci_bus_id, x.sxid}].push_back(&x);
  for (const auto& [key, list] : fatal) {
    const auto& last = *list.back();
    auto d = make_diagnosis(
        "GPUSPEC-SXID-FATAL", verdict_status::fail,
        fmt::format("fatal SXid {} {} time{} since boot on NVSwitch {}{}at PCI {}: {}", key.second,
                    list.size(), list.size() == 1 ? "" : "s", last.nvswitch,
                    last.nvswitch.empty() ? "" : " ", last.pci_bus_id, last.text),
        nullptr, host);
    d.evidence["sxid"] = std::to_string(key.second);
    d.evidence["sxid.count"] = std::to_string(list.size());
    d.evidence["sxid.pci_bus_id"] = last.pci_bus_id;
    d.evidence["sxid.last_line"] = last.text;
    out.push_back(std::move(d));
  }
}

/// Whether NVML lists the GPU at `address`.
bool nvml_lists(const report& r, const std::optional<pci_address>& address) {
  return std::any_of(r.devices.begin(), r.devices.end(), [&](const auto& d) {
    return address && parse_pci_address(d.pci_bus_id) == address;
  });
}

/// The driver's "fallen off the bus" message of this boot for a GPU that NVML does not list and
/// the bus listing does not show (rule_pci_bus judges one it shows): at probe time the driver
/// gives it no Xid and NVML simply lists one GPU fewer. Only the driver's own message counts:
/// the parser takes "NVRM:" where a kernel message starts, never inside another line (a
/// process's name or file, which an unprivileged user chooses: xid_log.hpp), nor from a
/// user-space syslog line.
void rule_fallen_off_bus(const pci_bus_reading& bus, const report& r,
                         const std::vector<gpu_bus_message>& messages,
                         std::vector<diagnosis>& out) {
  std::vector<std::string> named;
  for (const auto& m : messages) {
    if (!m.address || m.text.find("fallen off the bus") == std::string::npos ||
        nvml_lists(r, m.address) ||
        std::find(named.begin(), named.end(), m.pci_bus_id) != named.end())
      continue;
    const bool on_bus =
        bus.read && std::any_of(bus.gpus.begin(), bus.gpus.end(), [&](const std::string& id) {
          return parse_pci_address(id) == m.address;
        });
    if (on_bus)
      continue; // rule_pci_bus names it, with this message
    named.push_back(m.pci_bus_id);
    auto d = make_diagnosis(
        "GPUSPEC-GPU-NOT-IN-NVML", verdict_status::fail,
        fmt::format("the NVIDIA GPU at PCI {} has fallen off the bus (the driver's message in "
                    "this boot's kernel log) and NVML does not list it ({} GPU{} listed{}): {}",
                    m.pci_bus_id, r.devices.size(), r.devices.size() == 1 ? "" : "s",
                    bus.read ? "; not on the PCI bus either" : "; the PCI bus was not read",
                    m.text),
        nullptr, r.host);
    d.evidence["pci_bus_id"] = m.pci_bus_id;
    d.evidence["nvml.gpus"] = std::to_string(r.devices.size());
    d.evidence["kernel_log.message"] = m.text;
    out.push_back(std::move(d));
  }
}

/// A GPU the PCI bus has and NVML does not list: the driver never brought it up (it fell off
/// the bus before the driver bound it, RmInitAdapter failed). No GPU index to give it, so the
/// node's finding, naming the bus id and what the kernel log said about it.
void rule_pci_bus(const pci_bus_reading& bus, const report& r,
                  const std::vector<gpu_bus_message>& messages, std::vector<diagnosis>& out) {
  if (r.host.gpu_status != "ok")
    return; // without NVML nothing is listed to compare with: the node is inconclusive already
  rule_fallen_off_bus(bus, r, messages, out);
  if (!bus.read)
    return;
  for (const auto& id : bus.gpus) {
    const auto address = parse_pci_address(id);
    const bool listed = std::any_of(r.devices.begin(), r.devices.end(), [&](const auto& d) {
      return address && parse_pci_address(d.pci_bus_id) == address;
    });
    if (listed)
      continue;
    std::string said;
    for (const auto& m : messages)
      if (address && m.address == address)
        said = m.text; // the last the log says of it
    auto d = make_diagnosis(
        "GPUSPEC-GPU-NOT-IN-NVML", verdict_status::fail,
        fmt::format("the NVIDIA GPU at PCI {} is on the bus but NVML does not list it ({} of {} "
                    "GPUs listed){}",
                    id, r.devices.size(), bus.gpus.size(),
                    said.empty() ? "" : fmt::format("; the kernel log says: {}", said)),
        nullptr, r.host);
    d.evidence["pci_bus_id"] = id;
    d.evidence["pci.gpus_on_bus"] = std::to_string(bus.gpus.size());
    d.evidence["nvml.gpus"] = std::to_string(r.devices.size());
    if (!said.empty())
      d.evidence["kernel_log.message"] = said;
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
  // The gravest finding of the verdict's severity (graver_finding: an uncorrected ECC error
  // over a temperature); among equals, the first in the GPUs' order, then the node's.
  const diagnosis* chosen = nullptr;
  std::string where;
  const auto consider = [&](const diagnosis& d, std::string place) {
    if (d.severity == target && (chosen == nullptr || graver_finding(d, *chosen))) {
      chosen = &d;
      where = std::move(place);
    }
  };
  for (const auto& node : outcome.nodes) {
    for (const auto& g : node.gpus)
      for (const auto& d : g.diagnoses)
        consider(d, fmt::format("gpu{}", g.index));
    for (const auto& d : node.diagnoses)
      consider(d, "node");
  }
  return chosen == nullptr ? "" : fmt::format("gpuspec:{}:{}", chosen->code, where);
}

kernel_log_reading kernel_log_from_text(std::string source, std::string_view text, log_span span) {
  kernel_log_reading out;
  out.source = std::move(source);
  auto parsed = parse_kernel_log(text, span);
  if (!parsed.undecodable.empty()) {
    out.state = kernel_log_state::not_read;
    out.why = fmt::format("{}: {}", out.source, parsed.undecodable);
    return out;
  }
  out.state = kernel_log_state::read;
  out.events = std::move(parsed.xids);
  out.history = std::move(parsed.earlier_xids);
  out.sxids = std::move(parsed.sxids);
  out.gpu_messages = std::move(parsed.gpu_messages);
  out.boots = parsed.boots;
  return out;
}

namespace {

/// The inventory as a report with no run: the counters read now are the state the rules see as
/// "after", and nothing happened "during" a run.
report health_snapshot(const health_input& in) {
  report r = in.inventory;
  for (auto& d : r.devices) {
    d.counters_after = d.counters_before;
    d.counters_delta.clear();
  }
  return r;
}

/// The kernel log's Xids classified by the catalog and placed on a GPU of `r` by PCI address.
void classify_kernel_log(const health_input& in, const report& r, health_outcome& out) {
  out.kernel_log = in.kernel_log.state;
  out.kernel_log_source = in.kernel_log.source;
  out.kernel_log_why = in.kernel_log.why;
  const auto classify = [&](const std::vector<xid_event>& events,
                            std::vector<classified_xid>& into) {
    for (const auto& e : events) {
      classified_xid x{e, classify_xid(e.xid, e.text), std::nullopt};
      if (e.address)
        for (const auto& d : r.devices)
          if (parse_pci_address(d.pci_bus_id) == e.address)
            x.device = d.index;
      into.push_back(std::move(x));
    }
  };
  classify(in.kernel_log.events, out.xids);
  classify(in.kernel_log.history, out.xid_history);
  out.sxids = in.kernel_log.sxids;
  out.kernel_log_boots = in.kernel_log.boots;
  out.pci_bus = in.pci_bus;
}

/// The node's own rules (host, driver, kernel log, Xids on no GPU, SXids, the PCI bus).
node_verdict judge_health_node(const health_input& in, const report& r, const health_outcome& out) {
  node_verdict node;
  node.hostname = r.host.hostname;
  node.driver_version = r.host.driver_version;
  node.cuda_driver_version = r.host.cuda_driver_version;
  node.diagnoses = diagnose_host(r);
  rule_driver_consistency(in, node.diagnoses);
  rule_kernel_log(in.kernel_log, r.host, node.diagnoses);
  rule_xids(out.xids, nullptr, r.host, node.diagnoses);
  rule_sxids(out.sxids, r.host, node.diagnoses);
  rule_pci_bus(in.pci_bus, r, in.kernel_log.gpu_messages, node.diagnoses);
  rule_fabric_manager(in, r, node.diagnoses);
  rule_imex(in, r, node.diagnoses);
  node.status = verdict_status::pass;
  for (const auto& d : node.diagnoses)
    node.status = worst(node.status, d.severity);

  if (r.devices.empty() || r.host.gpu_status != "ok") {
    // No GPU to judge: no verdict on the GPUs can be reached, whatever the host says.
    node.message = r.host.gpu_status.empty() || r.host.gpu_status == "ok" ? "NVML lists no GPU"
                                                                          : r.host.gpu_status;
    node.status = worst(node.status, verdict_status::inconclusive);
  }
  return node;
}

/// One GPU's rules: the device's own, its spec-table row, ECC since load, VBIOS among its
/// siblings, its Xids, its MIG mode, MIG devices and layout (mig_rules.hpp).
gpu_verdict judge_health_gpu(const device_info& d, const report& r, const spec_table& specs,
                             const expectation_settings& settings,
                             const std::vector<const device_info*>& siblings,
                             const health_input& in, const health_outcome& out) {
  const gpu_spec* spec = spec_of(specs, d);
  gpu_verdict g = gpu_verdict_of(d, spec);
  const gpu_facts facts{r, d, spec, siblings, std::nullopt, settings};
  g.diagnoses = diagnose_device(facts);
  // As in check: a GPU NVML lost before it could name it has nothing to match a row by, and
  // GPU-LOST already says what is wrong with it.
  const bool unnamed_and_lost = gpu_is_lost(d) && d.name.empty() && !d.pci_device_id;
  if (spec == nullptr && !unnamed_and_lost)
    g.diagnoses.push_back(make_diagnosis(
        "GPUSPEC-NO-SPEC-ROW", verdict_status::warn,
        fmt::format("no spec-table row matches '{}': the PCIe link is judged against NVML's "
                    "maximum only",
                    d.name),
        &d, r.host));
  rule_ecc_since_load(d, out.xids, r.host, g.diagnoses);
  rule_vbios_mixed(d, siblings, r.host, g.diagnoses);
  rule_xids(out.xids, &d, r.host, g.diagnoses);
  rule_mig_pending(d, r.host, g.diagnoses);
  rule_mig_cuda(d, in.mig_probe, r.host, g.diagnoses);
  rule_mig_layout(d, in.mig_layouts, r.host, g.diagnoses);
  g.status = verdict_status::pass;
  for (const auto& diag : g.diagnoses)
    g.status = worst(g.status, diag.severity);
  return g;
}

/// What the verdict did not look at: a log not read, earlier boots, the PCI bus.
void add_health_notes(const health_input& in, health_outcome& out) {
  if (in.kernel_log.state == kernel_log_state::skipped)
    out.check.notes.push_back("kernel log not read (--no-kernel-log): Xids since boot not checked");
  if (!out.xid_history.empty())
    out.check.notes.push_back(fmt::format(
        "the kernel log spans {} boots: {} Xid line{} of earlier boots listed as history, not "
        "judged (a reboot ended them)",
        out.kernel_log_boots, out.xid_history.size(), out.xid_history.size() == 1 ? "" : "s"));
  if (!in.pci_bus.read)
    out.check.notes.push_back(fmt::format(
        "the PCI bus was not read ({}): a GPU the driver never brought up would not be seen",
        in.pci_bus.why.empty() ? "no reason given" : in.pci_bus.why));
  add_fabric_notes(in, out);
  add_mig_notes(in, out);
  for (const auto& other : in.pci_bus.other_driver)
    out.check.notes.push_back(fmt::format(
        "the NVIDIA GPU at PCI {} is bound to another driver: not NVML's to list, not judged",
        other));
}

} // namespace

health_outcome judge_health(const health_input& in, const spec_table& specs,
                            const expectation_settings& settings) {
  const report r = health_snapshot(in);
  health_outcome out;
  classify_kernel_log(in, r, out);
  node_verdict node = judge_health_node(in, r, out);

  std::unordered_map<std::string, std::vector<const device_info*>> by_model;
  for (const auto& d : r.devices)
    by_model[model_key(d)].push_back(&d);
  for (const auto& d : r.devices) {
    auto g = judge_health_gpu(d, r, specs, settings, by_model[model_key(d)], in, out);
    node.status = worst(node.status, g.status);
    node.gpus.push_back(std::move(g));
  }

  out.check.status = node.status;
  out.check.nodes.push_back(std::move(node));
  out.fabric_need = std::string(fabric_need(in, r));
  out.fabric_services = in.fabric_services;
  add_health_notes(in, out);
  out.drain_reason = drain_reason_of(out.check);
  return out;
}

} // namespace gpuspec::reports::health
