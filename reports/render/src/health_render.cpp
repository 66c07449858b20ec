// The layouts of a health outcome (health.hpp): text, JSON and Prometheus, which the table, json
// and prom renderers print (render.hpp). The node's verdicts and diagnoses are the check's
// structures, so their JSON is the check's own.

#include <map>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpuspec/reports/health/health.hpp"
#include "gpuspec/reports/model/text_format.hpp"
#include "gpuspec/reports/model/text_table.hpp"
#include "gpuspec/reports/render/health_render.hpp"
#include "prometheus_text.hpp"
#include "render_detail.hpp"

namespace gpuspec::reports::inline render {

namespace {

std::string gpu_text(const std::optional<int>& device) {
  return device ? std::to_string(*device) : "-";
}

/// Xids counted per GPU, number: (count, entry, last event).
struct xid_group {
  std::size_t count = 0;
  const classified_xid* last = nullptr;
};
std::map<std::tuple<int, int>, xid_group> group_xids(const health_outcome& h) {
  std::map<std::tuple<int, int>, xid_group> out;
  for (const auto& x : h.xids) {
    auto& g = out[{x.device.value_or(-1), x.event.xid}];
    ++g.count;
    g.last = &x;
  }
  return out;
}

std::string kernel_log_line(const health_outcome& h) {
  switch (h.kernel_log) {
  case kernel_log_state::read:
    return fmt::format("read from {} ({} Xid line{})", escape_control(h.kernel_log_source),
                       h.xids.size(), h.xids.size() == 1 ? "" : "s");
  case kernel_log_state::skipped:
    return fmt::format("not read ({}): Xids since boot not checked",
                       escape_control(h.kernel_log_why));
  case kernel_log_state::not_read:
    break;
  }
  return fmt::format("NOT READ: {} -- Xids since boot are not known",
                     escape_control(h.kernel_log_why));
}

nlohmann::ordered_json null_if_empty(const std::string& s) {
  return s.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(s);
}

/// What the NVLink fabric needs of the node and its services as read (docs/health.md, "The
/// NVLink fabric"); `needs` null for a node with no fabric.
nlohmann::ordered_json fabric_json(const health_outcome& h) {
  const auto& fs = h.fabric_services;
  nlohmann::ordered_json j;
  j["needs"] = null_if_empty(h.fabric_need);
  j["services_read"] = fs.read;
  j["source"] = fs.source;
  j["why"] = fs.why;
  j["fabric_manager"] = fs.fabric_manager;
  j["imex"] = fs.imex;
  j["imex_config"] = null_if_empty(fs.imex_config);
  j["imex_nodes_file"] = null_if_empty(fs.imex_nodes_file);
  j["imex_nodes"] = fs.imex_nodes;
  j["imex_node_entry"] = null_if_empty(fs.imex_node_entry);
  return j;
}

/// One line on the fabric's services, for a node that needs one; "" for one that does not.
std::string fabric_line(const health_outcome& h) {
  const auto& fs = h.fabric_services;
  if (h.fabric_need.empty())
    return "";
  if (!fs.read)
    return fmt::format("fabric: needs {}; services not read ({})\n", h.fabric_need,
                       escape_control(fs.why));
  const auto& running = h.fabric_need == "imex" ? fs.imex : fs.fabric_manager;
  return fmt::format("fabric: needs {}; {}\n", h.fabric_need,
                     running.empty()
                         ? std::string("not running")
                         : escape_control(fmt::format("running: {}", fmt::join(running, ", "))));
}

/// The node, its driver and GPUs, what was read of the kernel log, the fabric's services.
std::string health_header(const health_outcome& h, std::size_t width) {
  const auto& node = h.check.nodes.front();
  std::string out = fmt::format(
      "gpuspec health: {}, driver {}, CUDA {}, {} GPU{}\n",
      node.hostname.empty() ? "unknown host" : escape_control(node.hostname),
      node.driver_version.empty() ? "unknown" : escape_control(node.driver_version),
      node.cuda_driver_version.empty() ? "unknown" : escape_control(node.cuda_driver_version),
      node.gpus.size(), node.gpus.size() == 1 ? "" : "s");
  out += detail::wrap_hanging("kernel log: ", kernel_log_line(h), width, 4);
  out += fabric_line(h);
  if (!node.message.empty())
    out += detail::wrap_hanging("GPUs: ", escape_control(node.message), width, 4);
  return out;
}

std::string gpus_table(const node_verdict& node, std::size_t width) {
  if (node.gpus.empty())
    return "";
  text_table gpus({"gpu", "name", "pci bus id", "status", "findings"});
  gpus.set_shrinkable({4, 1});
  for (const auto& g : node.gpus) {
    std::string codes;
    for (const auto& d : g.diagnoses) {
      if (!codes.empty())
        codes += ' ';
      codes += d.code;
    }
    gpus.add_row(
        {std::to_string(g.index), g.name, g.pci_bus_id, std::string(to_string(g.status)), codes});
  }
  std::string out = "\n";
  out += gpus.render(width);
  return out;
}

/// This boot's Xids (grouped by GPU and number), NVSwitch SXids, and earlier boots' Xids.
std::string kernel_log_tables(const health_outcome& h, std::size_t width) {
  std::string out;
  if (!h.xids.empty()) {
    text_table xids({"gpu", "xid", "class", "counts as", "times", "name", "last message"});
    xids.set_shrinkable({6, 5});
    for (const auto& [key, g] : group_xids(h)) {
      const auto& e = g.last->entry;
      xids.add_row({gpu_text(g.last->device), std::to_string(e.xid), std::string(to_string(e.kind)),
                    std::string(to_string(e.severity)), std::to_string(g.count),
                    std::string(e.description), g.last->event.text});
    }
    out += "\nXids since boot\n";
    out += xids.render(width);
  }
  if (!h.sxids.empty()) {
    text_table sxids({"nvswitch", "pci bus id", "sxid", "counts as", "message"});
    sxids.set_shrinkable({4});
    for (const auto& x : h.sxids)
      sxids.add_row(
          {x.nvswitch, x.pci_bus_id, std::to_string(x.sxid), x.fatal ? "fail" : "listed", x.text});
    out += "\nNVSwitch SXids since boot\n";
    out += sxids.render(width);
  }
  if (!h.xid_history.empty()) {
    text_table history({"gpu", "xid", "class", "when", "message"});
    history.set_shrinkable({4});
    for (const auto& x : h.xid_history)
      history.add_row({gpu_text(x.device), std::to_string(x.event.xid),
                       std::string(to_string(x.entry.kind)),
                       x.event.seconds_since_boot
                           ? fmt::format("{:.3f} s after its boot", *x.event.seconds_since_boot)
                           : x.event.time_text,
                       x.event.text});
    out += fmt::format("\nXids of earlier boots ({} boots in the log; history, not judged)\n",
                       h.kernel_log_boots);
    out += history.render(width);
  }
  return out;
}

/// Each diagnosis once, the notes, the verdict and the drain reason.
/// Wrapped to `width` (0: one line each) with a hanging indent, as check's diagnoses are.
std::string health_verdict_lines(const health_outcome& h, double elapsed_s, std::size_t width) {
  std::string out;
  const auto diagnoses = detail::unique_diagnoses(h.check.nodes.front());
  if (!diagnoses.empty()) {
    out += "\nDiagnosis\n";
    for (const auto* d : diagnoses) {
      out += detail::wrap_hanging(fmt::format("  {} {}{}: ", detail::upper(to_string(d->severity)),
                                              d->code,
                                              d->device ? fmt::format(" gpu {}", *d->device) : ""),
                                  escape_control(d->cause), width, 6);
      out += detail::wrap_hanging(
          "      action: ", detail::action_text(escape_control(d->action), d->step), width, 10);
    }
  }
  for (const auto& note : h.check.notes)
    out += "\n" + detail::wrap_hanging("note: ", escape_control(note), width, 6);
  out += fmt::format("\nVerdict: {} (exit code {})\n", detail::upper(to_string(h.check.status)),
                     exit_code_of(h.check.status));
  if (!h.drain_reason.empty())
    out += fmt::format("drain reason: {}\n", h.drain_reason);
  out += fmt::format("took {:.3f} s\n", elapsed_s);
  return out;
}

} // namespace

std::string render_health_text(const health_outcome& h, double elapsed_s,
                               const render_options& options) {
  return health_header(h, options.width) + gpus_table(h.check.nodes.front(), options.width) +
         kernel_log_tables(h, options.width) + health_verdict_lines(h, elapsed_s, options.width);
}

nlohmann::ordered_json health_to_json(const health_outcome& h, double elapsed_s) {
  nlohmann::ordered_json j;
  j["schema"] = "gpuspec.health.v1";
  j["status"] = to_string(h.check.status);
  j["exit_code"] = exit_code_of(h.check.status);
  j["drain_reason"] = null_if_empty(h.drain_reason);
  j["elapsed_s"] = elapsed_s;
  j["kernel_log"] = {{"state", to_string(h.kernel_log)},
                     {"source", h.kernel_log_source},
                     {"why", h.kernel_log_why},
                     {"xid_lines", h.xids.size()},
                     {"boots", h.kernel_log_boots}};
  j["xid_catalog_source"] = xid_catalog_source;
  const auto xid_json = [](const classified_xid& x) {
    nlohmann::ordered_json e;
    e["gpu"] = x.device ? nlohmann::ordered_json(*x.device) : nlohmann::ordered_json(nullptr);
    e["pci_bus_id"] = x.event.pci_bus_id;
    if (x.event.gpu_instance)
      e["gpu_instance"] = *x.event.gpu_instance;
    if (x.event.compute_instance)
      e["compute_instance"] = *x.event.compute_instance;
    e["xid"] = x.event.xid;
    e["mnemonic"] = x.entry.mnemonic;
    e["description"] = x.entry.description;
    e["class"] = to_string(x.entry.kind);
    e["counts_as"] = to_string(x.entry.severity);
    e["nvidia_immediate_action"] = x.entry.immediate_action;
    e["text"] = x.event.text;
    e["seconds_since_boot"] = x.event.seconds_since_boot
                                  ? nlohmann::ordered_json(*x.event.seconds_since_boot)
                                  : nlohmann::ordered_json(nullptr);
    if (!x.event.time_text.empty())
      e["time"] = x.event.time_text;
    return e;
  };
  auto xids = nlohmann::ordered_json::array();
  for (const auto& x : h.xids)
    xids.push_back(xid_json(x));
  auto history = nlohmann::ordered_json::array();
  for (const auto& x : h.xid_history)
    history.push_back(xid_json(x));
  auto sxids = nlohmann::ordered_json::array();
  for (const auto& x : h.sxids) {
    nlohmann::ordered_json e;
    e["nvswitch"] = x.nvswitch;
    e["pci_bus_id"] = x.pci_bus_id;
    e["sxid"] = x.sxid;
    e["fatal"] = x.fatal;
    e["text"] = x.text;
    e["seconds_since_boot"] = x.seconds_since_boot ? nlohmann::ordered_json(*x.seconds_since_boot)
                                                   : nlohmann::ordered_json(nullptr);
    if (!x.time_text.empty())
      e["time"] = x.time_text;
    sxids.push_back(std::move(e));
  }
  j["xids"] = std::move(xids);
  j["xid_history"] = std::move(history);
  j["sxids"] = std::move(sxids);
  j["pci_bus"] = {{"read", h.pci_bus.read},
                  {"source", h.pci_bus.source},
                  {"why", h.pci_bus.why},
                  {"gpus", h.pci_bus.gpus},
                  {"other_driver", h.pci_bus.other_driver},
                  {"nvswitches", h.pci_bus.nvswitches}};
  j["fabric"] = fabric_json(h);
  j["check"] = to_json(h.check);
  return j;
}

std::string render_health_prometheus(const health_outcome& h, double elapsed_s) {
  using detail::labels;
  detail::families f;
  f.declare("gpuspec_health_status",
            "gpuspec health verdict of the node (0 pass, 1 warn, 2 fail, 3 unknown)");
  f.declare("gpuspec_health_gpu_status",
            "gpuspec health verdict of one GPU (0 pass, 1 warn, 2 fail, 3 unknown)");
  f.declare("gpuspec_health_diagnosis",
            "A health finding by reason code (1 warn, 2 fail, 3 inconclusive); remediation names "
            "the ladder step");
  f.declare("gpuspec_health_xid_events",
            "Xid lines in the kernel log since boot, by GPU and Xid, with the catalog's class");
  f.declare("gpuspec_health_kernel_log_read",
            "1 when the kernel log was read, 0 when it could not be (Xids unknown) or was skipped");
  f.declare("gpuspec_health_duration_seconds", "How long gpuspec health took");

  const auto& node = h.check.nodes.front();
  const labels host = {{"Hostname", node.hostname}};
  f.add("gpuspec_health_status", host, exit_code_of(h.check.status));
  const auto gpus = detail::node_gpu_labels(node);
  for (const auto& g : node.gpus)
    f.add("gpuspec_health_gpu_status",
          detail::gpu_labels(std::to_string(g.index), g.uuid, g.pci_bus_id, g.name, node.hostname),
          exit_code_of(g.status));
  for (const auto* d : detail::unique_diagnoses(node)) {
    labels l = detail::labels_of(gpus, d->device, host);
    l.emplace_back("code", d->code);
    l.emplace_back("remediation", std::string(to_string(d->step)));
    f.add("gpuspec_health_diagnosis", l, exit_code_of(d->severity));
  }
  for (const auto& [key, g] : group_xids(h)) {
    labels l =
        detail::labels_of(gpus, g.last->device,
                          detail::gpu_labels("", "", g.last->event.pci_bus_id, "", node.hostname));
    l.emplace_back("xid", std::to_string(g.last->event.xid));
    l.emplace_back("class", std::string(to_string(g.last->entry.kind)));
    f.add("gpuspec_health_xid_events", l, static_cast<double>(g.count));
  }
  f.add("gpuspec_health_kernel_log_read", host, h.kernel_log == kernel_log_state::read ? 1 : 0);
  f.add("gpuspec_health_duration_seconds", host, elapsed_s);
  return f.text();
}

} // namespace gpuspec::reports::render
