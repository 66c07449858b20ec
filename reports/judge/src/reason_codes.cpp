// The documented table of reason codes (docs/check.md lists the same, in the same order; a
// test holds the two together). Adding a cause is one entry here and one small rule.

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string_view>

#include "gpuspec/reports/judge/diagnosis.hpp"

namespace gpuspec::reports::inline judge {
namespace {

constexpr std::array codes = {
    // --- no verdict without evidence ------------------------------------------------------
    reason_code{"GPUSPEC-STAND-IN", remediation::none,
                "synthetic results from a stand-in worker: nothing was measured",
                "run again with the CUDA backend on the real GPUs; a stand-in report never passes"},
    reason_code{"GPUSPEC-GPU-NOT-MEASURED", remediation::rerun,
                "a GPU the run was asked to measure has no measured result",
                "rerun the suite on this GPU (or name the GPUs to measure with --devices); a GPU "
                "is never passed without evidence"},
    reason_code{"GPUSPEC-GPU-BUSY", remediation::rerun,
                "the run refused a GPU that other processes were using (the idle precondition)",
                "wait for the processes named to end, or drain the node, and rerun; --allow-busy "
                "measures a shared GPU anyway, with its results warned"},
    reason_code{"GPUSPEC-GPU-SHARED", remediation::rerun,
                "the GPU was measured while other processes used it (--allow-busy)",
                "rerun on an idle GPU before judging its figures: a shared GPU's are low, and the "
                "run disturbed those processes"},
    reason_code{"GPUSPEC-RUN-INCOMPLETE", remediation::rerun, "the run did not finish",
                "read incomplete_reason; rerun"},
    reason_code{"GPUSPEC-NO-RESULTS", remediation::rerun,
                "the report has no results, or none was judged (every one skipped)",
                "rerun; check that the suite and filter select benchmarks for this GPU"},
    reason_code{"GPUSPEC-TOOL-TEST-SKIPPED", remediation::rerun,
                "a foreign tool skipped one of its own tests (dcgmi diag's Skip): that test "
                "neither passed nor failed",
                "read the tool's reason; run the test where it can run (DCGM: the level, the "
                "permissions or the allowlist it needs), or accept the gap knowingly"},
    reason_code{"GPUSPEC-LOG-NAMES-NO-GPU", remediation::none,
                "a foreign tool's log names no GPU (nccl-tests without its \"# Using devices\" "
                "lines): its figures have no model and no link to be held to",
                "import it with the node's inventory (--inventory, from gpuspec info --json on "
                "that node), or rerun the tool so that its log names the GPUs"},
    reason_code{"GPUSPEC-NO-WORK", remediation::rerun,
                "the result measured no work (no samples, or a median of 0 or less)",
                "rerun; if it recurs, report the benchmark: its timer saw nothing"},
    reason_code{"GPUSPEC-TELEMETRY-MISSING", remediation::rerun,
                "no telemetry during the measurement: clocks and throttling cannot be ruled out",
                "check that NVML is loadable (host.gpu_status) and rerun"},
    reason_code{"GPUSPEC-TELEMETRY-IMPOSSIBLE", remediation::reset_gpu,
                "telemetry no working GPU reports (0 W, 0 MHz, a sensor error value)",
                "check nvidia-smi -q for sensor errors, reset the GPU and rerun"},
    reason_code{"GPUSPEC-IMPOSSIBLE-RESULT", remediation::rerun,
                "impossible: faster than the hardware allows",
                "rerun; a figure above the ceiling at the clock seen means the timer saw less work "
                "than was done (report the benchmark if it recurs)"},
    reason_code{"GPUSPEC-REPORT-INCONSISTENT", remediation::rerun,
                "the report contradicts itself: the field named is not judged",
                "rerun and keep the report as written; a report edited by hand is not evidence"},
    // --- failures -------------------------------------------------------------------------
    reason_code{"GPUSPEC-GPU-LOST", remediation::reboot,
                "the GPU is lost: it fell off the bus (NVML: GPU is lost)",
                "read the kernel log for Xid 79 / 74 / 48 (dmesg | grep -i xid), reboot; reseat "
                "the GPU if it recurs, RMA if it recurs after reseating"},
    reason_code{"GPUSPEC-GPU-NOT-IN-NVML", remediation::reboot,
                "an NVIDIA GPU on the PCI bus that NVML does not list: the driver never brought "
                "it up",
                "read the kernel log at its bus id (RmInitAdapter failed, fallen off the bus), "
                "reboot; reseat the GPU if it recurs, RMA if it recurs after reseating"},
    reason_code{"GPUSPEC-WORKER-HUNG", remediation::reset_gpu,
                "the GPU's worker missed its case's deadline and was killed",
                "read the kernel log for Xid errors, reset the GPU (nvidia-smi -r) and rerun; RMA "
                "if it recurs"},
    reason_code{"GPUSPEC-WORKER-CRASHED", remediation::reset_gpu,
                "the GPU's worker died on a signal",
                "read the kernel log for Xid errors, reset the GPU (nvidia-smi -r) and rerun; RMA "
                "if it recurs"},
    reason_code{"GPUSPEC-WORKER-EXITED", remediation::reset_gpu,
                "the GPU's worker exited before finishing its cases",
                "read the worker's reason and the kernel log for Xid errors, reset the GPU and "
                "rerun; RMA if it recurs"},
    reason_code{"GPUSPEC-WORKER-PROTOCOL", remediation::reset_gpu,
                "the GPU's worker sent something that is not a well-formed message",
                "read the kernel log for Xid errors, reset the GPU and rerun; RMA if it recurs"},
    reason_code{"GPUSPEC-GPU-START-FAILED", remediation::reset_gpu, "the GPU could not be started",
                "read the reason (CUDA context, device handles) and the kernel log for Xid "
                "errors, reset the GPU and rerun; RMA if it recurs"},
    reason_code{"GPUSPEC-VERIFICATION-FAILED", remediation::reset_gpu,
                "wrong results: a possible silent data corruption",
                "drain the node, reset the GPU and rerun; RMA if wrong results recur"},
    reason_code{"GPUSPEC-RESULT-FAILED", remediation::rerun, "the benchmark failed",
                "read the result's reason; rerun"},
    // --- burn-in (docs/burnin.md) ---------------------------------------------------------
    reason_code{"GPUSPEC-BURNIN-CHECKSUM-MISMATCH", remediation::reset_gpu,
                "a burn-in GEMM iteration's output differs from the first iteration's on the "
                "same GPU: silent data corruption",
                "reset, rerun; RMA if it recurs"},
    reason_code{"GPUSPEC-BURNIN-CHECKSUM-DIFFERS", remediation::reset_gpu,
                "the burn-in GEMM's output differs from the other GPUs' (same inputs, shape, "
                "algorithm and model): silent data corruption",
                "reset, rerun; RMA if it recurs"},
    reason_code{"GPUSPEC-MEMORY-BAD-WORDS", remediation::reset_gpu,
                "the memory test read back words it did not write",
                "reset (so failing rows are remapped), rerun; RMA if it recurs"},
    reason_code{"GPUSPEC-BURNIN-DRIFT", remediation::reseat_or_service,
                "the burn-in's throughput fell over the run",
                "compare the intervals' clocks, temperatures and throttle reasons; check airflow "
                "and power delivery, rerun"},
    reason_code{"GPUSPEC-BURNIN-TOO-LITTLE-WORK", remediation::rerun,
                "the burn-in did less work than its duration implies",
                "rerun for the whole duration on an idle GPU; a burn-in that did not load the "
                "GPU proves nothing"},
    reason_code{"GPUSPEC-BURNIN-TOO-SHORT", remediation::rerun,
                "the burn-in ran for less than the acceptance minimum (burnin_min_duration_s)",
                "rerun with a --duration of at least the minimum (10m by default); a shorter "
                "burn-in is reported, not passed"},
    reason_code{"GPUSPEC-BURNIN-NO-MEMORY-PASS", remediation::rerun,
                "the burn-in completed no memory-test pass: no word of device memory was checked",
                "rerun for longer than one GEMM phase (45 s) on a GPU with free memory; a burn-in "
                "without a memory pass proves nothing about the memory"},
    reason_code{"GPUSPEC-COLLECTIVE-TIMEOUT", remediation::reset_gpu,
                "a collective did not finish within its deadline: some ranks never arrived",
                "read the kernel log for Xid errors on the GPUs named, check NVLink "
                "(nvidia-smi nvlink -s) and the fabric manager, and NCCL's WARN lines "
                "(NCCL_DEBUG=INFO); reset the GPUs and rerun; service a GPU that keeps not "
                "arriving"},
    // --- inventory ------------------------------------------------------------------------
    reason_code{"GPUSPEC-PCIE-LINK-DEGRADED", remediation::reseat_or_service,
                "PCIe link trained below what the card and its slot can reach (width, or "
                "generation under load)",
                "reseat the GPU, check the riser, the slot and the BIOS PCIe settings; service if "
                "it persists"},
    reason_code{"GPUSPEC-PCIE-LINK-CAPPED", remediation::reseat_or_service,
                "the slot, riser or BIOS caps the PCIe link below the card's own maximum (NVML's "
                "maximum with this system below the GPU's)",
                "check the BIOS PCIe link-speed and bifurcation settings, the riser or retimer, "
                "and that the slot is wired for the card's generation and width; move the card "
                "if the slot cannot do more"},
    reason_code{"GPUSPEC-POWER-LIMIT-LOW", remediation::none,
                "power limit below the card's default",
                "restore the default limit (nvidia-smi -pl) and check the BMC's power capping"},
    reason_code{"GPUSPEC-PERSISTENCE-OFF", remediation::none, "persistence mode off",
                "enable nvidia-persistenced (or nvidia-smi -pm 1)"},
    reason_code{"GPUSPEC-MIG-PENDING-RESET", remediation::reset_gpu,
                "a MIG mode change waits for a GPU reset: the GPU runs in its old mode",
                "reset the GPU when it is idle (nvidia-smi -r) or reboot, so the MIG mode the site "
                "set applies; or set the mode back"},
    reason_code{"GPUSPEC-MIG-NOT-IN-CUDA", remediation::reset_gpu,
                "a MIG device NVML lists cannot be opened by the CUDA runtime (no device, an "
                "error, another device, or no answer): a job given it cannot use it",
                "check the MIG device's capability files (/dev/nvidia-caps, nvidia-smi mig -lgi "
                "-lci), destroy and recreate its compute and GPU instances when the GPU is idle; "
                "reset the GPU if it persists"},
    reason_code{"GPUSPEC-MIG-LAYOUT-DIFFERS", remediation::none,
                "a GPU's MIG partition is not the layout the site's rules file declares (MIG "
                "devices missing or not declared, another profile, MIG off where declared on "
                "or on where declared whole)",
                "repartition the idle GPU to the declared layout (nvidia-smi mig -dci, -dgi, then "
                "-cgi <profiles> -C; nvidia-smi -mig 1 or 0 and a GPU reset to change the mode), "
                "or correct the rules file's mig_layout"},
    reason_code{"GPUSPEC-GPU-TEMPERATURE-HIGH", remediation::reseat_or_service,
                "GPU temperature at or near the site limit or its own slowdown threshold",
                "check fans, airflow, inlet temperature, blanking panels and the heatsink; service "
                "if it persists"},
    reason_code{"GPUSPEC-ECC-DISABLED", remediation::reset_gpu,
                "ECC is disabled on a GPU that supports it",
                "enable ECC (nvidia-smi -e 1) and reset the GPU or reboot; without ECC a memory "
                "error is silent"},
    reason_code{"GPUSPEC-NOUVEAU-LOADED", remediation::reboot, "the nouveau driver is loaded",
                "blacklist nouveau, rebuild the initramfs, reboot"},
    reason_code{"GPUSPEC-HOST-MEMORY-LOW", remediation::reseat_or_service,
                "host RAM below what vendor reference systems ship for this much GPU memory",
                "add host memory (or check for failed DIMMs the BIOS disabled)"},
    reason_code{"GPUSPEC-NO-SPEC-ROW", remediation::none,
                "no spec-table row for this GPU: judged by clock-adjusted efficiency only",
                "add the model to specs/gpus.json from its datasheet"},
    // --- counters -------------------------------------------------------------------------
    reason_code{"GPUSPEC-ECC-UNCORRECTED", remediation::reset_gpu,
                "uncorrectable ECC errors during the run",
                "drain the node, reset the GPU so the row is remapped, rerun; RMA if errors recur"},
    reason_code{"GPUSPEC-ECC-CORRECTED-STORM", remediation::reset_gpu,
                "a storm of corrected ECC errors during the run",
                "reset the GPU so failing rows are remapped and rerun; RMA if the storm recurs"},
    reason_code{"GPUSPEC-ROW-REMAP-PENDING", remediation::reset_gpu, "a row remapping is pending",
                "reset the GPU (or reboot) to apply the pending remap"},
    reason_code{"GPUSPEC-ROW-REMAP-FAILURE", remediation::rma,
                "row remapping failed: no spare rows", "open an RMA with the evidence below"},
    reason_code{"GPUSPEC-PAGE-RETIREMENT-PENDING", remediation::reset_gpu,
                "a page retirement is pending", "reset the GPU (or reboot) to retire the page"},
    reason_code{"GPUSPEC-PCIE-REPLAYS", remediation::reseat_or_service,
                "PCIe replays during the run",
                "reseat the GPU and check the riser or cable; service if replays keep counting"},
    reason_code{"GPUSPEC-NVLINK-DOWN", remediation::reboot,
                "fewer NVLink links active than expected: collectives take a slower path",
                "reset the GPUs or reboot (restart the fabric manager); reseat or service if still "
                "down"},
    reason_code{"GPUSPEC-NVLINK-ERRORS", remediation::reseat_or_service,
                "NVLink CRC, replay or recovery errors during the run",
                "reset and rerun; service the baseboard or bridge if errors keep counting"},
    reason_code{"GPUSPEC-P2P-NOT-NVLINK", remediation::reboot,
                "a pair of GPUs of an NVSwitch node goes over PCIe, not NVLink: peer copies and "
                "collectives between them run at a fraction of the fabric's rate",
                "nvidia-smi topo -m and nvidia-smi nvlink -s on the GPUs named; restart the "
                "fabric manager or reboot; if the links stay down, service the NVSwitch tray or "
                "the baseboard"},
    reason_code{"GPUSPEC-P2P-UNAVAILABLE", remediation::none,
                "no peer-to-peer access between two GPUs whose siblings on the same kind of path "
                "have it: their copies are staged through host memory",
                "nvidia-smi topo -p2p rw; on PCIe switches disable ACS and set the IOMMU to "
                "passthrough (iommu=pt); where NVML says \"disabled by regkey\", remove the "
                "driver registry key that disables it; reboot after the change"},
    reason_code{"GPUSPEC-NCCL-TRANSPORT-FALLBACK", remediation::none,
                "NCCL moved data through host memory or the network between GPUs whose NVLink "
                "is up: a slower transport than the topology offers",
                "check NVLink state (nvidia-smi nvlink -s); unset NCCL_P2P_DISABLE, "
                "NCCL_SHM_DISABLE or NCCL_P2P_LEVEL left in the environment; do not hide peers "
                "with CUDA_VISIBLE_DEVICES (NCCL then stages through host memory); on PCIe "
                "switches disable ACS and set the IOMMU to passthrough; rerun with "
                "NCCL_DEBUG=INFO and read the channel lines"},
    // --- telemetry ------------------------------------------------------------------------
    reason_code{"GPUSPEC-THERMAL-THROTTLE", remediation::reseat_or_service,
                "thermal slowdown during the measurement",
                "check fans, airflow and inlet temperature, then the heatsink and thermal paste"},
    reason_code{"GPUSPEC-HW-SLOWDOWN", remediation::reseat_or_service,
                "hardware slowdown during the measurement (temperature, power brake or the PSU)",
                "check temperatures, the PSUs and the power brake signal (BMC logs); service if it "
                "recurs"},
    reason_code{"GPUSPEC-POWER-THROTTLE", remediation::none,
                "power capping below the default limit, short of the limit, or a power brake",
                "check the power limit, the BMC's capping and the PSUs (hw_power_brake is "
                "asserted by the system)"},
    reason_code{"GPUSPEC-SM-CLOCK-LOW", remediation::rerun,
                "SM clock under 75% of its maximum without a throttle reason",
                "check locked or application clocks (nvidia-smi -rgc) and other load on the GPU, "
                "rerun"},
    reason_code{"GPUSPEC-MEMORY-CLOCK-LOW", remediation::reset_gpu,
                "memory clock below its maximum during the run",
                "reset locked memory clocks (nvidia-smi -rmc); reset the GPU if it persists"},
    // --- frames ---------------------------------------------------------------------------
    reason_code{"GPUSPEC-SM-CLOCK-BELOW-SIBLINGS", remediation::reseat_or_service,
                "SM clock far below identical GPUs' on the same case",
                "compare the GPUs' temperatures, power limits and throttle reasons; swap slots "
                "to see whether the fault follows the GPU"},
    reason_code{"GPUSPEC-SIBLING-OUTLIER", remediation::reseat_or_service,
                "slower than identical GPUs in the same node",
                "look at this GPU's other diagnoses; swap slots to see whether the fault follows "
                "the GPU"},
    reason_code{"GPUSPEC-FLEET-OUTLIER", remediation::reseat_or_service,
                "slower than the fleet median of its model (modified z-score)",
                "compare with the node's other diagnoses; service the GPU or node if it persists"},
    reason_code{"GPUSPEC-BELOW-SPEC", remediation::rerun,
                "below the expected fraction of its reference, with no other cause found",
                "rerun on an idle node; if it persists, compare with siblings and service"},
    reason_code{"GPUSPEC-BELOW-BASELINE", remediation::rerun,
                "below the baseline beyond the tolerance",
                "rerun; compare driver and firmware versions with the baseline's"},
    // --- health (gpuspec health: the kernel log, the driver) -------------------------------
    reason_code{"GPUSPEC-XID-HARDWARE", remediation::reset_gpu,
                "a hardware-class Xid since boot or in a result (NVIDIA's Xid catalog)",
                "follow the Xid's action: a reset, a reboot or service; RMA if it recurs"},
    reason_code{"GPUSPEC-XID-DRIVER", remediation::reset_gpu,
                "a driver- or firmware-class Xid since boot or in a result (Xid catalog)",
                "reset the GPU; compare the driver version with NVIDIA's known issues"},
    reason_code{"GPUSPEC-XID-UNKNOWN", remediation::none,
                "an Xid (since boot, in a result) that gpuspec's Xid catalog does not hold",
                "look it up in NVIDIA's current Xid catalog and add it to reports/judge/src/"
                "xid_catalog.cpp"},
    reason_code{"GPUSPEC-SXID-FATAL", remediation::reboot,
                "a fatal NVSwitch SXid since boot: the NVLink fabric's finding",
                "drain the node; reset the GPUs and NVSwitches (reboot the node) and restart the "
                "fabric manager; service the NVSwitch tray or baseboard if it recurs"},
    reason_code{"GPUSPEC-KERNEL-LOG-UNREAD", remediation::none,
                "the kernel log could not be read: Xids since boot are not known",
                "run as root (or allow reading /dev/kmsg: kernel.dmesg_restrict), or pass a saved "
                "log with GPUSPEC_KERNEL_LOG"},
    reason_code{"GPUSPEC-DRIVER-MISMATCH", remediation::reboot,
                "the loaded NVIDIA kernel module is not the installed driver's version",
                "reboot (or unload and reload the nvidia modules) so the kernel module matches the "
                "driver libraries"},
    reason_code{"GPUSPEC-VBIOS-MIXED", remediation::none,
                "a VBIOS other than the one most identical GPUs of the node run",
                "update the GPU's firmware to the node's (or the vendor's current) VBIOS"},
    reason_code{"GPUSPEC-C2C-DOWN", remediation::reboot,
                "the GPU's NVLink-C2C link to its Grace CPU is not enabled while identical GPUs "
                "of the tray have it: its host transfers and coherent CPU-memory access do not "
                "go over the C2C",
                "nvidia-smi c2c -s on the GPU named; reset the GPU or reboot the tray; if it stays "
                "down, service the compute tray (board or firmware)"},
    // --- the NVLink fabric (NVSwitch nodes, NVL72's multi-node NVLink domain) ---------------
    reason_code{"GPUSPEC-FABRIC-NOT-REGISTERED", remediation::reboot,
                "the GPU has not registered with its NVLink fabric (NVML's fabric state is not "
                "completed, or completed with an error): no NVLink peer traffic",
                "HGX: check that nvidia-fabricmanager runs and its log; NVL72: check the NVLink "
                "switch trays' fabric manager (NVOS / NMX-C) for this tray; then reset the GPU "
                "or reboot"},
    reason_code{"GPUSPEC-FABRIC-UNHEALTHY", remediation::reboot,
                "NVML's fabric health says the GPU's NVLink routes are unhealthy or its fabric "
                "configuration is wrong",
                "read the fabric manager's log (NVL72: the switch trays' NMX-C) for this GPU; "
                "reset the GPU or reboot; service the tray or its NVLink cable cartridge if it "
                "recurs"},
    reason_code{"GPUSPEC-FABRIC-DEGRADED", remediation::none,
                "NVML's fabric health says the GPU's NVLink bandwidth is degraded or a route "
                "recovery is under way",
                "drain when convenient and check the NVLink links of the GPU named (nvidia-smi "
                "nvlink -s) and the fabric manager's log"},
    reason_code{"GPUSPEC-FABRIC-DOMAIN-SPLIT", remediation::reboot,
                "the GPU is in another NVLink domain (cluster UUID or clique) than the other GPUs "
                "of the node",
                "check the fabric manager's partition for this tray (NVL72: NMX-C); reset the "
                "GPU or reboot so that it registers in the node's domain"},
    reason_code{"GPUSPEC-FABRIC-MANAGER-DOWN", remediation::reboot,
                "the node has NVSwitches on its PCI bus and nvidia-fabricmanager is not running: "
                "the GPUs cannot use NVLink",
                "systemctl start nvidia-fabricmanager (its version must be the driver's); read "
                "journalctl -u nvidia-fabricmanager if it does not stay up"},
    reason_code{"GPUSPEC-IMEX-DOWN", remediation::none,
                "the IMEX service is configured on this NVLink-domain tray but not running: "
                "memory cannot be shared across trays",
                "systemctl start nvidia-imex, or let the job launcher start it (a site that runs "
                "IMEX per job passes this warning between jobs)"},
    reason_code{"GPUSPEC-IMEX-NODE-MISSING", remediation::none,
                "the IMEX node list does not name this node: its IMEX cannot join the domain's",
                "add this node's address to the IMEX node list (IMEX_NODE_CONFIG_FILE, "
                "/etc/nvidia-imex/nodes_config.cfg) on every node of the domain, and restart "
                "nvidia-imex"},
};

} // namespace

std::span<const reason_code> reason_codes() { return codes; }

const reason_code& find_reason(std::string_view code) {
  const auto it = std::find_if(codes.begin(), codes.end(),
                               [code](const reason_code& c) { return c.code == code; });
  if (it == codes.end())
    throw std::out_of_range("unknown reason code " + std::string(code));
  return *it;
}

bool untrusted_answers(std::string_view code) {
  constexpr std::array<std::string_view, 9> untrusted = {
      "GPUSPEC-GPU-LOST",
      "GPUSPEC-GPU-NOT-IN-NVML",
      "GPUSPEC-ECC-UNCORRECTED",
      "GPUSPEC-ROW-REMAP-FAILURE",
      "GPUSPEC-VERIFICATION-FAILED",
      "GPUSPEC-MEMORY-BAD-WORDS",
      "GPUSPEC-XID-HARDWARE",
      "GPUSPEC-BURNIN-CHECKSUM-MISMATCH",
      "GPUSPEC-BURNIN-CHECKSUM-DIFFERS",
  };
  return std::find(untrusted.begin(), untrusted.end(), code) != untrusted.end();
}

bool graver_finding(const diagnosis& a, const diagnosis& b) {
  if (a.severity != b.severity)
    return a.severity > b.severity;
  const bool ua = untrusted_answers(a.code);
  if (ua != untrusted_answers(b.code))
    return ua;
  return a.step > b.step;
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

} // namespace gpuspec::reports::judge
