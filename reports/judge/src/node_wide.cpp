// The actions of a reason code found on every GPU of a node (node_wide.hpp). docs/check.md, "One
// cause on every GPU", lists the same codes in the same order (a test holds the two together).

#include "gpuspec/reports/judge/node_wide.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace gpuspec::reports::inline judge {
namespace {

using entry = std::pair<std::string_view, std::string_view>;

constexpr std::array actions = {
    entry{"GPUSPEC-POWER-LIMIT-LOW",
          "every GPU capped alike: find the node-wide cap (the BMC's power capping, a boot or job "
          "prolog script running nvidia-smi -pl, a DCGM configuration) and remove it, then "
          "restore the default limit on every GPU (nvidia-smi -pl)"},
    entry{"GPUSPEC-POWER-THROTTLE",
          "every GPU capped alike: the node's power budget, not a GPU: the BMC's capping policy "
          "and logs, the PSUs and the power brake signal"},
    entry{"GPUSPEC-SM-CLOCK-LOW",
          "every GPU's clock held low alike: clocks locked node-wide (a boot or job prolog "
          "script, a DCGM configuration); reset them on every GPU (nvidia-smi -rgc), find what "
          "locked them, rerun"},
    entry{"GPUSPEC-MEMORY-CLOCK-LOW",
          "every GPU's memory clock held low alike: reset them on every GPU (nvidia-smi -rmc) "
          "and find the script or configuration that locks them node-wide"},
    entry{"GPUSPEC-THERMAL-THROTTLE",
          "every GPU hot alike: the node's cooling, not a GPU: inlet temperature, the chassis "
          "fans and the BMC's fan policy, blanking panels, the rack's airflow"},
    entry{"GPUSPEC-GPU-TEMPERATURE-HIGH",
          "every GPU hot alike: the node's cooling, not a GPU: inlet temperature, the chassis "
          "fans and the BMC's fan policy, blanking panels, the rack's airflow"},
    entry{"GPUSPEC-HW-SLOWDOWN",
          "every GPU slowed alike: the node's power delivery or cooling: the PSUs, the power "
          "brake signal and the BMC's logs"},
    entry{"GPUSPEC-PCIE-LINK-DEGRADED",
          "every GPU's link alike: a platform setting, not a seat: the BIOS PCIe link-speed and "
          "bifurcation settings, the BIOS and retimer firmware; reseat only a GPU that differs"},
    entry{"GPUSPEC-PCIE-LINK-CAPPED",
          "every GPU's link alike: the BIOS PCIe link-speed and bifurcation settings, the "
          "platform's risers or retimers and their firmware"},
    entry{"GPUSPEC-PCIE-REPLAYS",
          "replays on every GPU: the platform before any GPU: the BIOS PCIe settings, the PCIe "
          "switch or retimer firmware, the risers"},
    entry{"GPUSPEC-PERSISTENCE-OFF",
          "persistence off on every GPU: enable the node's nvidia-persistenced service "
          "(systemctl enable --now nvidia-persistenced)"},
    entry{"GPUSPEC-ECC-DISABLED",
          "ECC off on every GPU: a provisioning choice; enable it on every GPU (nvidia-smi -e 1) "
          "and reboot"},
    entry{"GPUSPEC-NVLINK-DOWN",
          "links down on every GPU: the fabric, not a GPU: restart nvidia-fabricmanager, then "
          "check the NVSwitch trays; reboot if the links stay down"},
    entry{"GPUSPEC-TELEMETRY-MISSING",
          "no telemetry from any GPU: NVML, not the GPUs: check that it loads (host.gpu_status) "
          "and rerun"},
    entry{"GPUSPEC-FLEET-OUTLIER",
          "the whole node below the fleet: its settings, not one GPU: compare its power caps, "
          "clocks, BIOS and driver with a passing node's"},
    entry{"GPUSPEC-BELOW-SPEC",
          "every GPU below its reference alike: check the spec row they matched (gpuspec specs), "
          "the node's power caps, clocks and driver before servicing any GPU"},
};

constexpr auto node_wide_code_list = [] {
  std::array<std::string_view, actions.size()> out{};
  for (std::size_t k = 0; k < actions.size(); ++k)
    out[k] = actions[k].first;
  return out;
}();

} // namespace

std::string_view node_wide_action(std::string_view code) {
  const auto it = std::find_if(actions.begin(), actions.end(),
                               [code](const entry& e) { return e.first == code; });
  return it == actions.end() ? std::string_view{} : it->second;
}

std::span<const std::string_view> node_wide_codes() { return node_wide_code_list; }

} // namespace gpuspec::reports::judge
