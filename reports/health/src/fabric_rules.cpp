// The rules of the services an NVLink fabric needs (fabric_rules.hpp): nvidia-fabricmanager on
// an NVSwitch node, IMEX on an NVL72-like tray.

#include "fabric_rules.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpuspec/reports/judge/diagnosis.hpp"

namespace gpuspec::reports::inline health::detail {

/// The node's NVLink fabric needs: "fabric manager" when NVSwitches are on its own PCI bus
/// (HGX/DGX: the host runs nvidia-fabricmanager), "imex" for an NVL72-like tray (GPUs registered
/// in a fabric with a cluster UUID, no NVSwitch on its own bus: the switch trays run the fabric,
/// the tray runs IMEX for memory shared across trays), "" for a node that needs none (PCIe).
std::string_view fabric_need(const health_input& in, const report& r) {
  if (in.pci_bus.read && !in.pci_bus.nvswitches.empty())
    return "fabric manager";
  const bool domain = std::any_of(r.devices.begin(), r.devices.end(), [](const device_info& d) {
    return d.fabric && !d.fabric->cluster_uuid.empty();
  });
  return domain ? "imex" : "";
}

void rule_fabric_manager(const health_input& in, const report& r, std::vector<diagnosis>& out) {
  const auto& fs = in.fabric_services;
  if (!fs.read || fabric_need(in, r) != "fabric manager" || !fs.fabric_manager.empty())
    return;
  auto d = make_diagnosis(
      "GPUSPEC-FABRIC-MANAGER-DOWN", verdict_status::fail,
      fmt::format("{} NVSwitch(es) on the PCI bus ({}) and no nv-fabricmanager process in {}: the "
                  "GPUs cannot register with the NVLink fabric",
                  in.pci_bus.nvswitches.size(), fmt::join(in.pci_bus.nvswitches, ", "), fs.source),
      nullptr, r.host);
  d.evidence["nvswitches"] = std::to_string(in.pci_bus.nvswitches.size());
  d.evidence["proc"] = fs.source;
  out.push_back(std::move(d));
}

void rule_imex(const health_input& in, const report& r, std::vector<diagnosis>& out) {
  const auto& fs = in.fabric_services;
  if (!fs.read || fabric_need(in, r) != "imex" || fs.imex_config.empty())
    return; // not an NVL72-like tray, or IMEX not configured here (a note says so)
  if (fs.imex.empty()) {
    auto d = make_diagnosis("GPUSPEC-IMEX-DOWN", verdict_status::warn,
                            fmt::format("IMEX is configured ({}) and no nvidia-imex process runs "
                                        "({}): memory cannot be shared with the other trays",
                                        fs.imex_config, fs.source),
                            nullptr, r.host);
    d.evidence["imex_config"] = fs.imex_config;
    out.push_back(std::move(d));
    return;
  }
  if (!fs.imex_node_entry.empty())
    return;
  const std::string cause =
      !fs.imex_nodes_read
          ? fmt::format("IMEX runs ({}) but its node list cannot be read: {}",
                        fmt::join(fs.imex, ", "), fs.imex_nodes_why)
          : fmt::format("IMEX runs ({}) but its node list {} ({} entr{}) names none of this "
                        "node's addresses ({}) nor its host name {}",
                        fmt::join(fs.imex, ", "), fs.imex_nodes_file, fs.imex_nodes.size(),
                        fs.imex_nodes.size() == 1 ? "y" : "ies",
                        fs.node_addresses.empty()
                            ? std::string("none read")
                            : fmt::format("{}", fmt::join(fs.node_addresses, ", ")),
                        r.host.hostname);
  auto d =
      make_diagnosis("GPUSPEC-IMEX-NODE-MISSING", verdict_status::fail, cause, nullptr, r.host);
  d.evidence["imex_nodes_file"] = fs.imex_nodes_file;
  out.push_back(std::move(d));
}

/// What the fabric-service rules did not look at, or found not needed.
void add_fabric_notes(const health_input& in, health_outcome& out) {
  const auto need = fabric_need(in, in.inventory);
  if (need.empty())
    return;
  const auto& fs = in.fabric_services;
  if (!fs.read)
    out.check.notes.push_back(
        fmt::format("the fabric's services were not read ({}): {} not checked",
                    fs.why.empty() ? "no reason given" : fs.why,
                    need == "imex" ? "IMEX" : "nvidia-fabricmanager"));
  else if (need == "imex" && fs.imex_config.empty())
    out.check.notes.push_back(
        "an NVLink-domain tray without IMEX configured (/etc/nvidia-imex/config.cfg): memory "
        "sharing across trays is not checked (a site that starts IMEX per job configures it "
        "then)");
}

} // namespace gpuspec::reports::health::detail
