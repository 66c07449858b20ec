#pragma once
/// The host and inventory rules (docs/design.md, "Host checks"), each written once with its
/// threshold in one place. `gpuspec run` records them in `report.host.checks` while it runs
/// (host/host_checks.hpp forwards here), and `gpuspec check` evaluates the same functions
/// over a report's inventory, with the spec table the run may not have had: a report written
/// before a rule changed is judged by today's rule, never by a second copy of it.
///
/// A rule whose inputs are unknown is `skipped` with the reason, never `pass`.

#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "gpuspec/reports/model/report.hpp"
#include "gpuspec/reports/model/spec_table.hpp"

namespace gpuspec::reports::inline judge {

/// The seed article's alert line for a GPU's temperature, and the default site limit of both
/// the inventory check and the check's telemetry rule (expect.json's `temperature_limit_c`).
inline constexpr int default_temperature_limit_c = 85;
/// Within this many degrees of a limit (the site's, or the GPU's own slowdown threshold) the
/// temperature rules warn.
inline constexpr int temperature_margin_c = 5;
/// A GPU die reading this much (NVML's 255 error value included) is a sensor or driver fault.
inline constexpr int implausible_temperature_c = 255;
/// NVML works in whole milliwatts: a limit within half a watt of the default is the default.
inline constexpr double power_limit_slack_w = 0.5;

struct host_rule_settings {
  int temperature_limit_c = default_temperature_limit_c;
  /// GPUs drop their PCIe generation at idle to save power, so at idle only the width and the
  /// maximum generation are judged. Set when the inventory was read while the GPUs were busy:
  /// the current generation is then judged too.
  bool pcie_under_load = false;
};

/// A system a vendor ships as a reference design: its host RAM against its GPU memory.
struct reference_system {
  std::string_view name;
  int gpus = 0;
  double gpu_memory_gb = 0;  ///< each, as marketed (141 for an H200: NVML reports 140.4 GiB)
  double host_memory_gb = 0; ///< as marketed (1.5 TB = 24 DIMMs of 64 GB = 1536)
  std::string_view source;
};

/// The vendor reference systems the host-memory rule is held to, lowest ratio first.
[[nodiscard]] std::span<const reference_system> reference_systems();
/// The lowest host-to-GPU memory ratio among reference_systems().
[[nodiscard]] double lowest_reference_memory_ratio();
/// Host RAM as /proc/meminfo's MemTotal is below the installed DIMMs by what the firmware and
/// the kernel keep (1.6% on a 2 TB node): the host-memory rule allows this much.
inline constexpr double meminfo_allowance = 0.05;
/// The seed article's advice, host RAM at least twice the GPU memory: kept as a note, since
/// every stock DGX H200 (2 TB for 8 x 141 GB) is below it.
inline constexpr double advised_memory_ratio = 2.0;

/// host.nouveau: the nouveau module is not loaded.
[[nodiscard]] host_check nouveau_check(const host_info& host);
/// Whether the GPU is attached to its CPU by NVLink-C2C: NVML's answer where it gave one
/// (devices[].c2c.mode "enabled", nvmlDeviceGetC2cModeInfoV), else the spec row's
/// host_interconnect (`spec`: a GB200 or GB300 is attached to Grace by design, and a driver
/// before r550 or a report that lacks the key says nothing). "disabled" or "not supported" from
/// NVML is an answer: not attached. Such a GPU (GH200, GB200, GB300) crosses the C2C link for
/// its host transfers and has no PCIe host link to judge.
[[nodiscard]] bool is_c2c_attached(const device_info& d, const gpu_spec* spec = nullptr);
/// Whether is_c2c_attached rests on the spec row alone (NVML gave no C2C answer).
[[nodiscard]] bool is_c2c_attached_by_spec_only(const device_info& d, const gpu_spec* spec);
/// Whether every GPU of `devices` shares coherent memory with its CPU: attached by NVLink-C2C
/// with NVML's addressing mode ATS (the GPU reads host memory through the CPU's page tables),
/// or, where NVML read no addressing mode, attached by the spec row's NVLink-C2C, which is
/// coherent by design (docs/check.md, "Host memory"). `specs` may be null (NVML only). False
/// for an empty list.
[[nodiscard]] bool is_coherent_memory_system(std::span<const device_info> devices,
                                             const spec_table* specs = nullptr);
/// host.memory_ratio: warn only below lowest_reference_memory_ratio() x (1 - meminfo_allowance)
/// of the total GPU memory; between that and advised_memory_ratio the message notes the advice.
/// On a coherent-memory system (is_coherent_memory_system, with `specs`) it passes, with the
/// figures: the 2x advice is for PCIe nodes, whose GPUs copy through pinned host memory; a stock
/// GB200 or GB300 tray has less host RAM than twice its GPU memory by design.
[[nodiscard]] host_check memory_ratio_check(const host_info& host,
                                            std::span<const device_info> devices,
                                            const spec_table* specs = nullptr);

/// The lowest PCIe link seen while the GPU was busy (results' telemetry), and where.
struct pcie_under_load {
  std::optional<int> gen, width;
  std::string_view where; ///< the bench id of the result it was seen in
};

/// The PCIe link a GPU can train in the slot it is in: for the generation and for the width, the
/// lower of what the card can do and what the system allows. One definition, used by the link
/// rules below and by the transfer ceiling (host/pcie_link.hpp), so a transfer is judged
/// against the link the card and its slot can reach, never against the link as trained.
struct pcie_reach {
  /// The card's own: the generation is NVML's GPU maximum (nvmlDeviceGetGpuMaxPcieLinkGeneration),
  /// else the spec row's; the width is the spec row's (NVML has no GPU-only width call).
  std::optional<int> card_gen, card_width;
  std::string card_gen_source, card_width_source; ///< "NVML", "spec row <id>", or ""
  /// What this device and system allow (nvmlDeviceGetMaxPcieLinkGeneration, ...Width).
  std::optional<int> system_gen, system_width;
  /// The lower of each pair where both are known, else the one that is; nullopt: neither.
  std::optional<int> gen, width;
  /// The generation of the host CPU's root ports where the table of host platforms knows it
  /// (host_platforms.hpp) and it is below `gen`: the GPU's link ends at a PCIe switch that
  /// trains higher than the host (a Gen6 B300 under a ConnectX-8 switch in a Gen5 Xeon 6
  /// host), and a host transfer crosses both hops. nullopt: no lower host hop known.
  std::optional<int> host_gen;
  std::string host_gen_source; ///< the CPU family and the document that gives its generation
  /// The generation a host transfer can reach: the lower of `gen` and `host_gen`.
  [[nodiscard]] std::optional<int> transfer_gen() const { return host_gen ? host_gen : gen; }
};
/// `host` (may be null) adds the host CPU's root-port generation (host_gen) where it is lower.
[[nodiscard]] pcie_reach pcie_reachable_link(const device_info& d, const gpu_spec* spec,
                                             const host_info* host = nullptr);
/// "Gen5 x16 (GPU Gen5 (NVML), card x16 (spec row h200-sxm-141gb); system Gen4 x16 (NVML))".
[[nodiscard]] std::string pcie_reach_text(const pcie_reach& r);

/// gpu.pcie_link: the link as trained against the link the card and its slot can reach
/// (pcie_reachable_link). The width is judged at idle (a link does not narrow to save power) and
/// under load; the generation under load only (`load`, or settings.pcie_under_load for an
/// inventory read while busy), since an idle link at a lower generation is power saving. Below
/// the reachable link under load fails; a narrower width seen at idle only warns. The message
/// says which reading was judged: at idle or under load.
[[nodiscard]] host_check pcie_link_check(const device_info& d, const gpu_spec* spec,
                                         const pcie_under_load* load,
                                         const host_rule_settings& settings = {});
/// gpu.pcie_slot: the system's maxima against the card's: NVML's maximum generation with this
/// system below the GPU's own (or, with a spec row, its maximum width below the card's) means a
/// slot, riser or BIOS setting caps the link; warns, from idle readings alone (no load needed).
/// Skipped when NVML did not give the system's maximum or the card's is unknown.
[[nodiscard]] host_check pcie_slot_check(const device_info& d, const gpu_spec* spec);
/// gpu.persistence_mode: enabled.
[[nodiscard]] host_check persistence_check(const device_info& d);
/// gpu.power_limit: at its default (within power_limit_slack_w).
[[nodiscard]] host_check power_limit_check(const device_info& d);
/// gpu.temperature: under the site limit, and under the GPU's own slowdown threshold when NVML
/// reported it; warn within temperature_margin_c of either, fail at or above the site limit.
[[nodiscard]] host_check temperature_check(const device_info& d, int limit_c);
/// gpu.ecc_mode: ECC on, where the GPU has it ("not supported" is skipped).
[[nodiscard]] host_check ecc_mode_check(const device_info& d);

/// Every rule above, in this order: host.nouveau, host.memory_ratio, then per device
/// gpu.pcie_link, gpu.pcie_slot, gpu.persistence_mode, gpu.power_limit, gpu.temperature,
/// gpu.ecc_mode. `specs` (may be null) gives the PCIe rule the card's own generation and width.
[[nodiscard]] std::vector<host_check> evaluate_host_checks(const host_info& host,
                                                           std::span<const device_info> devices,
                                                           const host_rule_settings& settings = {},
                                                           const spec_table* specs = nullptr);

/// True when NVML said the GPU is lost ("GPU is lost": fallen off the bus) for any of its
/// queries or counters.
[[nodiscard]] bool gpu_is_lost(const device_info& d);

} // namespace gpuspec::reports::judge
