#pragma once
/// NVIDIA's Xid catalog as a reviewed data table: each Xid the driver writes to the kernel log
/// ("NVRM: Xid (PCI:0000:3b:00): 79, ...") with NVIDIA's mnemonic, description and resolution
/// buckets, and gpuspec's reading of them: a class (whose fault: the hardware, the application,
/// the driver) and a severity for a node's health. `gpuspec health` judges the Xids of this
/// boot by it, and burn-in will too: one table, every user.
///
/// An Xid the table does not hold is `unknown`, never benign.

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "gpuspec/reports/judge/verdict.hpp"

namespace gpuspec::reports::inline judge {

/// Whose fault an Xid points at, as the catalog's resolution buckets read.
enum class xid_class {
  hardware,    ///< the GPU, its memory, its links or its board: the node needs service
  application, ///< the workload (a fault the job caused): the GPU stays usable
  driver,      ///< the driver or the GPU's firmware (GSP, PMU, FECS)
  unknown,     ///< not in the catalog (or "unused" there): judged, never ignored
};

[[nodiscard]] std::string_view to_string(xid_class c);

struct xid_entry {
  int xid = 0;
  std::string_view mnemonic;    ///< NVIDIA's, e.g. "ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS"
  std::string_view description; ///< NVIDIA's, e.g. "GPU has fallen off the bus"
  /// The catalog's resolution buckets: immediate ("RESET_GPU", "RESTART_APP", "RESTART_BM",
  /// "IGNORE", "WORKFLOW_XID_48", ...) and investigatory ("CONTACT_SUPPORT", ...).
  std::string_view immediate_action, investigatory_action;
  xid_class kind = xid_class::unknown;
  /// What one occurrence since boot does to the GPU's health verdict: fail (drain: the GPU needs
  /// a reset, a reboot or service before it takes work), warn (look at it), pass (recorded and
  /// reported, not held against the node: an application's own fault, or an event the catalog
  /// says to ignore).
  verdict_status severity = verdict_status::warn;
  remediation step = remediation::none; ///< the first rung of gpuspec's ladder it calls for
  std::string_view action;              ///< for the operator, in gpuspec's words
};

/// Where the table comes from, recorded next to it (xid_catalog.cpp says how it was read).
inline constexpr std::string_view xid_catalog_source =
    "NVIDIA, \"Analyzing Xid Errors with the Xid Catalog\", Table 1 (Xid Catalog Reference), "
    "https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html, catalog as published "
    "on 2025-10-29";

/// Every entry, by ascending Xid.
[[nodiscard]] std::span<const xid_entry> xid_catalog();

/// The entry of `xid`; nullopt when the catalog does not hold it.
[[nodiscard]] const xid_entry* find_xid(int xid);

/// The entry of `xid`, or one of class unknown, severity warn, that says the Xid is not in the
/// catalog (so it is looked up, not ignored).
[[nodiscard]] xid_entry classify_xid(int xid);

/// The entry of `xid` as one line of the kernel log judges it, where the line says more than the
/// number does (the rest of the entry is the catalog's):
///   - a recovery action ("GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset
///     Required)", Xid 154, and any Xid whose line names one): judged by the action it names, as
///     NVML's nvmlDeviceGpuRecoveryAction_t numbers them: a GPU reset, a bus reset or a P2P drain
///     fail with a reset, a node or system reboot fails with a reboot, none passes;
///   - the NVLink 5 Xids 144-150 ("NETIR_LINK_EVT Fatal XC0 i0 Link 00 (0x...)"): the severity
///     word after the unit's subtype: Fatal fails (reset the GPU), Nonfatal warns.
/// `message` is xid_event::text (the part after "<xid>,"); "" gives classify_xid(xid).
[[nodiscard]] xid_entry classify_xid(int xid, std::string_view message);

/// The recovery action a line names (NVML's numbering: 0 none, 1 GPU reset, 2 node reboot, 3
/// drain P2P, 4 drain and reset, 5 recover the IMEX domain, 6 bus reset, 7 system reboot), read
/// from "... to 0x<n> (<name>)"; nullopt when the line names none.
[[nodiscard]] std::optional<unsigned> recovery_action_of(std::string_view message);

/// The reason code of a class, wherever the Xid was seen (`gpuspec health`'s kernel log since
/// boot, a result's events): GPUSPEC-XID-HARDWARE, -DRIVER, else -UNKNOWN (an application-class
/// Xid that is judged at all is judged as one the table does not explain).
[[nodiscard]] std::string_view xid_reason_code(xid_class c);

} // namespace gpuspec::reports::judge
