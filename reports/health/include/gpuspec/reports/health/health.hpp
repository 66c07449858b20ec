#pragma once
/// `gpuspec health`'s judge (docs/health.md): the check's own inventory and counter rules
/// (diagnosis.hpp) applied to an inventory taken without a run, plus what only a passive health
/// check adds: the Xids of this boot classified by NVIDIA's catalog (xid_catalog.hpp), the
/// kernel log that could or could not be read, the driver's consistency, and the error counters
/// since the driver loaded. A pure function: no I/O, tested without a GPU.

#include <optional>
#include <string>
#include <vector>

#include "gpuspec/reports/judge/expectations.hpp"
#include "gpuspec/reports/judge/mig_layout.hpp"
#include "gpuspec/reports/judge/verdict.hpp"
#include "gpuspec/reports/judge/xid_catalog.hpp"
#include "gpuspec/reports/judge/xid_log.hpp"
#include "gpuspec/reports/model/report.hpp"
#include "gpuspec/reports/model/spec_table.hpp"

namespace gpuspec::reports::inline health {

/// What became of the kernel log.
enum class kernel_log_state {
  read,     ///< read: its Xid lines are judged
  not_read, ///< could not be read: the Xid check is inconclusive, never passed
  skipped,  ///< not asked for (--no-kernel-log): the Xid check is skipped, and says so
};

[[nodiscard]] std::string_view to_string(kernel_log_state s);

struct kernel_log_reading {
  kernel_log_state state = kernel_log_state::not_read;
  std::string source;             ///< where it was read from
  std::string why;                ///< why not read or skipped
  std::vector<xid_event> events;  ///< this boot's Xid lines: judged
  std::vector<xid_event> history; ///< the Xid lines of earlier boots the log spans: reported only
  std::vector<sxid_event> sxids;  ///< this boot's NVSwitch SXid lines: a fatal one is judged
  std::vector<gpu_bus_message> gpu_messages; ///< this boot's "RmInitAdapter failed" and the like
  std::size_t boots = 1;                     ///< how many boots the log spans
};

/// A kernel log's text read from `source`, parsed (parse_kernel_log): this boot's lines as
/// events, the earlier boots' as history; a text that is not a readable log (UTF-16, mostly
/// bytes that are not text) is `not_read`, with why, never a log without Xids. `span` is
/// log_span::one_boot for /dev/kmsg and dmesg: nothing in them starts another boot.
[[nodiscard]] kernel_log_reading kernel_log_from_text(std::string source, std::string_view text,
                                                      log_span span = log_span::saved);

/// The NVIDIA GPUs on the PCI bus (sysfs: vendor 0x10de, class 0x0300 VGA or 0x0302 3D), read
/// apart from NVML so that a GPU the driver never brought up is still seen.
struct pci_bus_reading {
  bool read = false;
  std::string source;            ///< the folder read ("/sys/bus/pci/devices")
  std::string why;               ///< when not read
  std::vector<std::string> gpus; ///< their bus ids ("0000:3b:00.0"), bound to nvidia or to none
  /// GPUs bound to another driver (vfio-pci for a VM, say): not NVML's to list, so not judged;
  /// "0000:3b:00.0 (vfio-pci)".
  std::vector<std::string> other_driver;
  /// NVIDIA NVSwitches on the bus (vendor 0x10de, class 0x0680 bridge): an HGX/DGX baseboard,
  /// whose fabric the host's nvidia-fabricmanager runs. An NVL72 compute tray has none (its
  /// NVSwitches are in the switch trays).
  std::vector<std::string> nvswitches;
};

/// The NVLink fabric's services on this node, read passively: the processes in /proc and IMEX's
/// configuration in /etc (host fabric_services.hpp). Nothing is asked of the services.
struct fabric_services_reading {
  bool read = false;  ///< /proc could be listed
  std::string source; ///< the /proc folder listed
  std::string why;    ///< when not read
  /// Running NVIDIA Fabric Manager and IMEX daemons, "1234 (nv-fabricmanager)".
  std::vector<std::string> fabric_manager, imex;
  /// The IMEX configuration file found (/etc/nvidia-imex/config.cfg); "" when IMEX is not
  /// configured on this node.
  std::string imex_config;
  std::string imex_nodes_file; ///< its IMEX_NODE_CONFIG_FILE (default .../nodes_config.cfg)
  bool imex_nodes_read = false;
  std::string imex_nodes_why;              ///< when the node list could not be read
  std::vector<std::string> imex_nodes;     ///< the node list's entries (addresses or host names)
  std::vector<std::string> node_addresses; ///< this node's addresses (/proc/net)
  /// The node list's entry that names this node (one of its addresses, or its host name); ""
  /// when none does.
  std::string imex_node_entry;
};

/// What the CUDA runtime answered for one MIG device, in a short child process started with
/// CUDA_VISIBLE_DEVICES=MIG-<uuid> that calls cudaGetDeviceCount and reads device 0's UUID (no
/// context, no kernel: docs/health.md, "MIG devices and CUDA").
enum class mig_probe_outcome {
  opened,       ///< CUDA sees one device, the MIG device (or, by the runtime's UUID, its GPU)
  not_visible,  ///< CUDA answered: no device, or an error
  other_device, ///< CUDA opened a device whose UUID is neither the MIG device's nor its GPU's
  timed_out,    ///< no answer within the probe's time; killed
  no_answer,    ///< the probe ended without an answer (it died, or wrote no answer)
};

[[nodiscard]] std::string_view to_string(mig_probe_outcome o);

struct mig_cuda_probe {
  int gpu = 0;          ///< NVML index of the MIG device's GPU
  std::string mig_uuid; ///< the MIG device probed, "MIG-..."
  mig_probe_outcome outcome = mig_probe_outcome::no_answer;
  int cuda_devices = 0;   ///< what cudaGetDeviceCount counted
  std::string cuda_error; ///< its error, "cudaErrorNoDevice: no CUDA-capable device is detected"
  std::string uuid_seen;  ///< device 0's UUID as CUDA gave it
  std::string detail;     ///< timed out or no answer: what happened, and the probe's last stderr
  double seconds = 0;     ///< from start to answer (or to the kill)
};

/// The CUDA probe of every MIG device of the inventory, all at once under one timeout.
struct mig_cuda_probe_reading {
  bool run = false; ///< false: not probed, `why` says why (a note, not a finding)
  std::string why;
  std::string program; ///< the worker program that probed
  double timeout_s = 0;
  double seconds = 0; ///< wall time of the whole probe
  std::vector<mig_cuda_probe> probes;
};

struct health_input {
  /// host and devices as the inventory found them; each device's counters in
  /// `counters_before` (what `gpuspec info` takes), no results.
  report inventory;
  kernel_log_reading kernel_log;
  /// The loaded kernel module's version (/proc/driver/nvidia/version); "" when unknown.
  std::string kernel_module_version;
  /// The GPUs the PCI bus has; not read: the bus rule is skipped, and a note says so.
  pci_bus_reading pci_bus;
  /// Fabric Manager and IMEX; not read: the fabric-service rules are skipped, with a note.
  fabric_services_reading fabric_services;
  /// The CUDA runtime's answer for each MIG device; not run (no worker installed, no driver,
  /// --no-mig-probe, no MIG device): the rule is skipped, and a note says why where MIG devices
  /// were there to probe.
  mig_cuda_probe_reading mig_probe;
  /// The layouts the site's rules file declares ("mig_layout", mig_layout.hpp); empty: none.
  std::vector<mig_layout_rule> mig_layouts;
};

/// One Xid line of this boot with the catalog's word on it (for the line: classify_xid(xid,
/// text)) and the GPU it names.
struct classified_xid {
  xid_event event;
  xid_entry entry;
  std::optional<int> device; ///< NVML index of the GPU at its PCI address; none if no GPU is
};

struct health_outcome {
  /// One node with its GPUs and their diagnoses, as `gpuspec check` gives them (no results), so
  /// its printers and its roll-up are the check's.
  check_outcome check;
  std::vector<classified_xid> xids;
  /// Xid lines of earlier boots (a saved log that spans reboots): reported, never judged.
  std::vector<classified_xid> xid_history;
  std::vector<sxid_event> sxids; ///< this boot's NVSwitch SXid lines
  std::size_t kernel_log_boots = 1;
  pci_bus_reading pci_bus;
  /// What the node's NVLink fabric needs of it: "fabric manager" (NVSwitches on its own PCI bus:
  /// HGX/DGX), "imex" (GPUs in a fabric with a cluster UUID and no NVSwitch on its bus: an NVL72
  /// tray), "" (no fabric: PCIe). With the services as read, so that the JSON shows what the
  /// fabric-service rules saw, finding or not.
  std::string fabric_need;
  fabric_services_reading fabric_services;
  kernel_log_state kernel_log = kernel_log_state::not_read;
  std::string kernel_log_source, kernel_log_why;
  /// "gpuspec:<reason-code>:gpu<N>" (":node" for a host finding) naming the gravest finding of
  /// the node's severity (graver_finding: untrusted answers, such as an uncorrected ECC error,
  /// before a temperature; then the costlier remedy) when it fails or warns; "" for a pass and
  /// for a node that could not be judged. One word, so a scheduler can take it as a drain reason.
  std::string drain_reason;
};

/// Judges the node. `specs` gives the PCIe rule the card's own link; `settings` the thresholds.
[[nodiscard]] health_outcome judge_health(const health_input& input, const spec_table& specs,
                                          const expectation_settings& settings);

/// The drain reason of an outcome (see health_outcome::drain_reason).
[[nodiscard]] std::string drain_reason_of(const check_outcome& outcome);

} // namespace gpuspec::reports::health
