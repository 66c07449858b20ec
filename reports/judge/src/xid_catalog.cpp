// NVIDIA's Xid catalog as data (xid_catalog.hpp).
//
// Source: NVIDIA, "Analyzing Xid Errors with the Xid Catalog", Table 1 "Xid Catalog
// Reference" (Ampere and newer GPUs, PCIe form factors included),
// https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html, catalog as published
// on 2025-10-29 (the date of the copy of its spreadsheet we read the columns from). The
// mnemonic, the description and the two resolution buckets (immediate, investigatory) are
// NVIDIA's, as written there. The catalog has no "class" column: class, severity, the ladder
// rung and the action are gpuspec's reading of the buckets, by these rules, reviewed entry by
// entry:
//   - immediate RESTART_APP (the job is what failed) -> application, pass; except a memory
//     error the GPU contained (94), which is the hardware's and warns;
//   - immediate RESET_GPU, RESTART_BM (restart the bare-metal node), CHECK_MECHANICALS or a
//     hardware WORKFLOW_* -> fail (the GPU takes no work until then), hardware or driver as the
//     description says (GSP, firmware, context switch: driver);
//   - immediate IGNORE with CONTACT_SUPPORT (or INVESTIGATE_*) -> warn: nothing to do now, an
//     investigation to open; IGNORE with IGNORE -> pass.
// Lines that say more than their number (classify_xid(xid, message), read on 2026-12-01):
//   - recovery actions (Xid 154): NVML's nvmlDeviceGpuRecoveryAction_t numbering (0 none, 1 GPU
//     reset, 2 node reboot, 3 drain P2P, 4 drain and reset, 5 recover IMEX domain, 6 bus reset,
//     7 system reboot), as NVIDIA's cuda-python bindings document it
//     (cuda.bindings.nvml.DeviceGpuRecoveryAction), and NVIDIA, "Error Recovery and Response
//     Flags", https://docs.nvidia.com/deploy/a100-gpu-mem-error-mgmt/error-recovery-and-response-
//     flags.html (reset: terminate the GPU processes and reset; reboot: the OS may be
//     inconsistent);
//   - the NVLink 5 Xids 144-150: the catalog's Xid 144-150 decode tells a fatal link error (reset
//     the GPU) from a non-fatal one by the line's subtype and severity ("NETIR_LINK_EVT Fatal XC0
//     i0 Link 00 (0x...)"), the form leptonai/gpud #1160 and #1174 decode too; gpuspec reads the
//     severity word and leaves the sub-code (interrupt word bits 20-25) undecoded.
// The older catalog (Volta and before, docs.nvidia.com/deploy/xid-errors/index.html) and
// NVIDIA's k8s-device-plugin (its list of application Xids: 13, 31, 43, 45, 68) agree with the
// application class given here. Entries the catalog marks "Unused" are left out (so they
// classify as unknown), except 61, which operators still meet on older GPUs.

#include "gpuspec/reports/judge/xid_catalog.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>

namespace gpuspec::reports::inline judge {

namespace {

using enum xid_class;
constexpr auto pass = verdict_status::pass;
constexpr auto warn = verdict_status::warn;
constexpr auto fail = verdict_status::fail;

constexpr std::string_view app_action =
    "the application's fault: nothing to do on the node; look at the job if it recurs on "
    "unrelated jobs on this GPU";

constexpr std::array entries = {
    xid_entry{8, "ROBUST_CHANNEL_FIFO_ERROR_IDLE_TIMEOUT", "GPU stopped processing", "RESTART_APP",
              "CONTACT_SUPPORT", application, pass, remediation::rerun, app_action},
    xid_entry{11, "ROBUST_CHANNEL_GR_ERROR_MISSING_HW", "Invalid or corrupted push buffer stream",
              "RESTART_APP", "CHECK_APP/CUDA", application, pass, remediation::rerun, app_action},
    xid_entry{13, "ROBUST_CHANNEL_GR_EXCEPTION / ROBUST_CHANNEL_GR_ERROR_SW_NOTIFY",
              "Graphics Engine Exception", "RESTART_APP", "WORKFLOW_XID_13", application, pass,
              remediation::rerun, app_action},
    xid_entry{25, "ROBUST_CHANNEL_GR_ILLEGAL_NOTIFY", "Invalid or illegal push buffer stream",
              "RESTART_APP", "CHECK_APP/CUDA", application, pass, remediation::rerun, app_action},
    xid_entry{31, "ROBUST_CHANNEL_FIFO_ERROR_MMU_ERR_FLT", "GPU memory page fault", "RESTART_APP",
              "WORKFLOW_XID_31", application, pass, remediation::rerun, app_action},
    xid_entry{32, "ROBUST_CHANNEL_PBDMA_ERROR", "Invalid or corrupted push buffer stream",
              "RESTART_APP", "CHECK_APP/CUDA", application, pass, remediation::rerun, app_action},
    xid_entry{37, "ROBUST_CHANNEL_FECS_ERR_UNIMP_FIRMWARE_METHOD", "Driver firmware error",
              "IGNORE", "CHECK_APP/CUDA", driver, pass, remediation::none,
              "nothing to do now; check the application and CUDA version if it recurs"},
    xid_entry{38, "ROBUST_CHANNEL_FECS_ERR_WATCHDOG_TIMEOUT", "Driver firmware error", "IGNORE",
              "CONTACT_SUPPORT", driver, warn, remediation::reset_gpu,
              "reset the GPU if jobs fail on it; report the driver version to NVIDIA support"},
    xid_entry{39, "ROBUST_CHANNEL_CE0_ERROR", "Copy Engine Exception", "RESTART_APP",
              "CONTACT_SUPPORT", application, pass, remediation::rerun, app_action},
    xid_entry{40, "ROBUST_CHANNEL_CE1_ERROR", "Copy Engine Exception", "RESTART_APP",
              "CONTACT_SUPPORT", application, pass, remediation::rerun, app_action},
    xid_entry{41, "ROBUST_CHANNEL_CE2_ERROR", "Copy Engine Exception", "RESTART_APP",
              "CONTACT_SUPPORT", application, pass, remediation::rerun, app_action},
    xid_entry{43, "ROBUST_CHANNEL_RESETCHANNEL_VERIF_ERROR", "GPU stopped processing", "IGNORE",
              "CONTACT_SUPPORT", application, pass, remediation::rerun, app_action},
    xid_entry{44, "ROBUST_CHANNEL_GR_FAULT_DURING_CTXSW",
              "Graphics Engine fault during context switch", "IGNORE", "CONTACT_SUPPORT", driver,
              warn, remediation::reset_gpu,
              "reset the GPU if jobs fail on it; report it to NVIDIA support if it recurs"},
    xid_entry{45, "ROBUST_CHANNEL_PREEMPTIVE_REMOVAL", "Preemptive cleanup, due to previous errors",
              "WORKFLOW_XID_45", "Solo: RESTART_FM; Not Solo: IGNORE (follow other Xid)",
              application, pass, remediation::rerun,
              "a channel torn down after another error: follow the other Xids of this GPU; alone, "
              "restart the fabric manager"},
    xid_entry{46, "ROBUST_CHANNEL_GPU_TIMEOUT_ERROR", "GPU stopped processing", "RESET_GPU",
              "CONTACT_SUPPORT", hardware, fail, remediation::reset_gpu,
              "drain, reset the GPU; service it if it recurs"},
    xid_entry{48, "ROBUST_CHANNEL_GPU_ECC_DBE", "Double Bit ECC Error", "WORKFLOW_XID_48",
              "WORKFLOW_XID_48", hardware, fail, remediation::reset_gpu,
              "drain, reset the GPU so the row is remapped; RMA if it recurs"},
    xid_entry{54, "SILENT_RUNNING_PWR_REDUCED_CLOCKING",
              "Auxiliary power is not connected to the GPU board", "CHECK_MECHANICALS",
              "CONTACT_SUPPORT", hardware, fail, remediation::reseat_or_service,
              "drain, check the GPU's auxiliary power cables and the PSU"},
    xid_entry{60, "ROBUST_CHANNEL_SEC2_ERROR", "Video processor exception", "RESTART_APP",
              "INVESTIGATE_SW", application, pass, remediation::rerun, app_action},
    // Unused on Ampere and newer (the catalog says so); an internal micro-controller breakpoint
    // on older GPUs.
    xid_entry{61, "PMU_BREAKPOINT",
              "Unused on Ampere and newer (internal micro-controller "
              "breakpoint on older GPUs)",
              "CONTACT_SUPPORT", "", driver, warn, remediation::reset_gpu,
              "reset the GPU if jobs fail on it; report it to NVIDIA support"},
    xid_entry{62, "PMU_HALT_ERROR", "Internal micro-controller halt", "RESET_GPU",
              "CONTACT_SUPPORT", driver, fail, remediation::reset_gpu,
              "drain, reset the GPU; report it to NVIDIA support if it recurs"},
    xid_entry{63, "INFOROM_DRAM_RETIREMENT_EVENT", "GPU memory remapping event", "IGNORE", "IGNORE",
              hardware, pass, remediation::none,
              "a row was marked for remapping: the pending remap itself is judged from NVML "
              "(GPUSPEC-ROW-REMAP-PENDING)"},
    xid_entry{64, "INFOROM_DRAM_RETIREMENT_FAILURE", "GPU memory remapping failure", "RESET_GPU",
              "CONTACT_SUPPORT", hardware, fail, remediation::reset_gpu,
              "drain, reset the GPU; RMA if the remapping fails again"},
    xid_entry{66, "ROBUST_CHANNEL_FECS_ERR_REG_ACCESS_VIOLATION", "Illegal access by driver",
              "IGNORE", "INVESTIGATE_SW", driver, warn, remediation::none,
              "nothing to do now; compare the driver version with NVIDIA's known issues"},
    xid_entry{67, "ROBUST_CHANNEL_FECS_ERR_VERIF_VIOLATION", "Illegal access by driver", "IGNORE",
              "CONTACT_SUPPORT", driver, warn, remediation::none,
              "nothing to do now; report it to NVIDIA support if it recurs"},
    xid_entry{68, "ROBUST_CHANNEL_NVDEC0_ERROR", "NVDEC0 Exception", "RESTART_APP",
              "CONTACT_SUPPORT", application, pass, remediation::rerun, app_action},
    xid_entry{69, "ROBUST_CHANNEL_GR_CLASS_ERROR", "Graphics Engine class error", "RESTART_APP",
              "CHECK_APP/CUDA", application, pass, remediation::rerun, app_action},
    xid_entry{74, "NVLINK_ERROR", "NVLINK Error", "WORKFLOW_NVLINK_ERR", "CONTACT_SUPPORT",
              hardware, fail, remediation::reset_gpu,
              "drain, reset the GPUs of the link; service the baseboard or bridge if it recurs"},
    xid_entry{79, "ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS", "GPU has fallen off the bus",
              "RESTART_BM", "CONTACT_SUPPORT", hardware, fail, remediation::reboot,
              "drain and reboot the node; reseat the GPU if it recurs, RMA after that"},
    xid_entry{80, "PBDMA_PUSHBUFFER_CRC_MISMATCH", "Corrupted data sent to GPU", "RESTART_APP",
              "CHECK_APP/CUDA", application, pass, remediation::rerun, app_action},
    xid_entry{92, "EXCESSIVE_SBE_INTERRUPTS", "High single-bit ECC error rate", "IGNORE",
              "CONTACT_SUPPORT", hardware, warn, remediation::reset_gpu,
              "watch the corrected ECC count; reset the GPU at the next window, RMA if it keeps "
              "rising"},
    xid_entry{93, "INFOROM_ERASE_LIMIT_EXCEEDED",
              "Non-fatal violation of provisioned InfoROM wear limit", "IGNORE", "CONTACT_SUPPORT",
              hardware, warn, remediation::rma, "report it to NVIDIA support"},
    xid_entry{94, "ROBUST_CHANNEL_CONTAINED_ERROR", "Contained memory error", "RESTART_APP",
              "IGNORE (sympathetic)", hardware, warn, remediation::reset_gpu,
              "the memory error was contained to the job that hit it: restart the application; "
              "reset the GPU when convenient so the row is remapped"},
    xid_entry{95, "ROBUST_CHANNEL_UNCONTAINED_ERROR", "Uncontained memory error", "RESET_GPU",
              "IGNORE (sympathetic)", hardware, fail, remediation::reset_gpu,
              "drain, reset the GPU so the row is remapped; RMA if it recurs"},
    xid_entry{109, "ROBUST_CHANNEL_CTXSW_TIMEOUT_ERROR", "Context Switch Timeout Error",
              "RESET_GPU", "CONTACT_SUPPORT", driver, fail, remediation::reset_gpu,
              "drain, reset the GPU; report it to NVIDIA support if it recurs"},
    xid_entry{110, "SEC_FAULT_ERROR", "Security Fault Error", "RESET_GPU", "INVESTIGATE_SW", driver,
              fail, remediation::reset_gpu,
              "drain, reset the GPU; compare the driver and firmware versions with NVIDIA's"},
    xid_entry{119, "GSP_RPC_TIMEOUT", "GSP RPC Timeout", "RESET_GPU", "INVESTIGATE_SW", driver,
              fail, remediation::reset_gpu,
              "drain, reset the GPU; update the driver if NVIDIA lists it as a known issue"},
    xid_entry{120, "GSP_ERROR", "GSP Error", "RESET_GPU", "INVESTIGATE_SW", driver, fail,
              remediation::reset_gpu,
              "drain, reset the GPU; update the driver if NVIDIA lists it as a known issue"},
    xid_entry{121, "C2C_ERROR", "C2C Error", "IGNORE", "CONTACT_SUPPORT", hardware, warn,
              remediation::reseat_or_service,
              "nothing to do now; report the chip-to-chip link errors to NVIDIA support if they "
              "recur"},
    xid_entry{136, "ALI_TRAINING_FAIL", "Link Training Failed", "RESET_GPU", "INVESTIGATE_LINK_SI",
              hardware, fail, remediation::reset_gpu,
              "drain, reset the GPU; service the link (signal integrity) if it recurs"},
    xid_entry{137, "NVLINK_PRIV_ERR", "NVLink Privilege Error", "IGNORE", "XID_137_FLOW", driver,
              warn, remediation::none, "nothing to do now; follow the catalog's Xid 137 flow"},
    xid_entry{140, "UNRECOVERABLE_ECC_ERROR_ESCAPE", "ECC Unrecovered Error", "RESET_GPU",
              "CONTACT_SUPPORT", hardware, fail, remediation::reset_gpu,
              "drain, reset the GPU; RMA if it recurs"},
    xid_entry{143, "GPU_INIT_ERROR", "GPU Initialization Error", "RESET_GPU", "CONTACT_SUPPORT",
              hardware, fail, remediation::reset_gpu,
              "drain, reset the GPU; service it if it does not initialise after that"},
    // NVLink 5 (Blackwell): the line names the unit's subtype and its severity ("NETIR_LINK_EVT
    // Fatal XC0 i0 Link 00 (0x...)"); classify_xid(xid, message) judges a Fatal one a failure
    // (reset the GPU) and a Nonfatal one a warning. The entry's own severity, warn, is for a line
    // that says neither (and for NVML's event, which has no text).
    xid_entry{144, "NVLINK_SAW_ERROR", "NVLINK: SAW Error", "WORKFLOW_NVLINK5_ERR",
              "WORKFLOW_NVLINK5_ERR", hardware, warn, remediation::reset_gpu,
              "decode the status with the catalog's Xid 144-150 sheet; a fatal one needs a reset"},
    xid_entry{145, "NVLINK_RLW_ERROR", "NVLINK: RLW Error", "WORKFLOW_NVLINK5_ERR",
              "WORKFLOW_NVLINK5_ERR", hardware, warn, remediation::reset_gpu,
              "decode the status with the catalog's Xid 144-150 sheet; a fatal one needs a reset"},
    xid_entry{146, "NVLINK_TLW_ERROR", "NVLINK: TLW Error", "WORKFLOW_NVLINK5_ERR",
              "WORKFLOW_NVLINK5_ERR", hardware, warn, remediation::reset_gpu,
              "decode the status with the catalog's Xid 144-150 sheet; a fatal one needs a reset"},
    xid_entry{147, "NVLINK_TREX_ERROR", "NVLINK: TREX Error", "WORKFLOW_NVLINK5_ERR",
              "WORKFLOW_NVLINK5_ERR", hardware, warn, remediation::reset_gpu,
              "decode the status with the catalog's Xid 144-150 sheet; a fatal one needs a reset"},
    xid_entry{148, "NVLINK_NVLPW_CTRL_ERROR", "NVLINK: NVLPW_CTRL Error", "WORKFLOW_NVLINK5_ERR",
              "WORKFLOW_NVLINK5_ERR", hardware, warn, remediation::reset_gpu,
              "decode the status with the catalog's Xid 144-150 sheet; a fatal one needs a reset"},
    xid_entry{149, "NVLINK_NETIR_ERROR", "NVLINK: NETIR Error", "WORKFLOW_NVLINK5_ERR",
              "WORKFLOW_NVLINK5_ERR", hardware, warn, remediation::reset_gpu,
              "decode the status with the catalog's Xid 144-150 sheet; a fatal one needs a reset"},
    xid_entry{150, "NVLINK_MSE_ERROR", "NVLINK: MSE Error", "WORKFLOW_NVLINK5_ERR",
              "WORKFLOW_NVLINK5_ERR", hardware, warn, remediation::reset_gpu,
              "decode the status with the catalog's Xid 144-150 sheet; a fatal one needs a reset"},
    // The driver's own recovery action; classify_xid(xid, message) judges a line by the action it
    // names (a reset or a reboot fails). The entry's warn is for a line that names none.
    xid_entry{154, "GPU_RECOVERY_ACTION_CHANGED", "GPU Recovery Action Changed", "XID_154",
              "N/A Informational only regarding another Xid", driver, warn, remediation::reset_gpu,
              "the message names the recovery the driver asks for (a GPU reset, a node reboot): "
              "do that"},
    xid_entry{155, "NVLINK_SW_DEFINED_ERROR", "NVLINK: SW Defined Error", "RESET_GPU",
              "INVESTIGATE_SW_USER", driver, fail, remediation::reset_gpu,
              "drain, reset the GPU; look at the software that configured the link"},
    xid_entry{156, "RESOURCE_RETIREMENT_EVENT", "Resource Retirement Event", "RESET_GPU", "IGNORE",
              hardware, fail, remediation::reset_gpu,
              "drain, reset the GPU so the retirement takes effect"},
    xid_entry{157, "RESOURCE_RETIREMENT_FAILURE", "Resource Retirement Failure", "IGNORE",
              "CONTACT_SUPPORT", hardware, warn, remediation::rma,
              "report it to NVIDIA support; RMA if retirements keep failing"},
    xid_entry{158, "GPU_FATAL_TIMEOUT", "GPU Fatal Timeout", "RESET_GPU", "CONTACT_SUPPORT",
              hardware, fail, remediation::reset_gpu,
              "drain, reset the GPU; service it if it recurs"},
};

constexpr bool ascending_and_unique() {
  for (std::size_t i = 1; i < entries.size(); ++i)
    if (entries[i - 1].xid >= entries[i].xid)
      return false;
  return true;
}
static_assert(ascending_and_unique(), "the Xid catalog is kept in ascending order, once each");

} // namespace

std::string_view to_string(xid_class c) {
  switch (c) {
  case xid_class::hardware:
    return "hardware";
  case xid_class::application:
    return "application";
  case xid_class::driver:
    return "driver";
  case xid_class::unknown:
    return "unknown";
  }
  return "unknown";
}

std::span<const xid_entry> xid_catalog() { return entries; }

const xid_entry* find_xid(int xid) {
  const auto it = std::lower_bound(entries.begin(), entries.end(), xid,
                                   [](const xid_entry& e, int x) { return e.xid < x; });
  return it != entries.end() && it->xid == xid ? &*it : nullptr;
}

xid_entry classify_xid(int xid) {
  if (const auto* e = find_xid(xid))
    return *e;
  xid_entry unknown_entry;
  unknown_entry.xid = xid;
  unknown_entry.description = "not in gpuspec's copy of NVIDIA's Xid catalog";
  unknown_entry.kind = xid_class::unknown;
  unknown_entry.severity = verdict_status::warn;
  unknown_entry.step = remediation::none;
  unknown_entry.action = "look the Xid up in NVIDIA's current catalog (docs.nvidia.com/deploy/"
                         "xid-errors) and add it to reports/judge/src/xid_catalog.cpp";
  return unknown_entry;
}

namespace {

std::string_view trim_spaces(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

/// The words of an NVLink 5 line ("NETIR_LINK_EVT  Fatal   XC0 i0 Link 01 (0x...)", after an
/// optional "pid=..., name=..., "): the unit's subtype, then its severity word.
std::optional<bool> nvlink5_fatal(std::string_view message) {
  for (int skip = 0; skip < 2; ++skip) {
    message = trim_spaces(message);
    if (message.substr(0, 4) != "pid=" && message.substr(0, 5) != "name=")
      break;
    const auto comma = message.find(',');
    if (comma == std::string_view::npos)
      return std::nullopt;
    message.remove_prefix(comma + 1);
  }
  message = trim_spaces(message);
  const auto subtype_end = message.find_first_of(" \t");
  if (subtype_end == std::string_view::npos || subtype_end == 0)
    return std::nullopt;
  const std::string_view subtype = message.substr(0, subtype_end);
  if (!std::all_of(subtype.begin(), subtype.end(), [](char c) {
        return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '/';
      }))
    return std::nullopt;
  message = trim_spaces(message.substr(subtype_end));
  const std::string_view word = message.substr(0, message.find_first_of(" \t,"));
  if (word == "Fatal" || word == "fatal" || word == "FATAL")
    return true;
  if (word == "Nonfatal" || word == "Non-fatal" || word == "nonfatal" || word == "NonFatal")
    return false;
  return std::nullopt;
}

} // namespace

std::optional<unsigned> recovery_action_of(std::string_view message) {
  constexpr std::string_view said = "recovery action changed";
  const auto at = message.find(said);
  if (at == std::string_view::npos)
    return std::nullopt;
  const auto to = message.find(" to 0x", at);
  if (to == std::string_view::npos)
    return std::nullopt;
  const std::string_view hex = message.substr(to + 6);
  std::size_t digits = 0;
  while (digits < hex.size() && digits < 8 &&
         std::isxdigit(static_cast<unsigned char>(hex[digits])))
    ++digits;
  unsigned v = 0;
  const auto [end, ec] = std::from_chars(hex.data(), hex.data() + digits, v, 16);
  if (digits == 0 || ec != std::errc{})
    return std::nullopt;
  return v;
}

xid_entry classify_xid(int xid, std::string_view message) {
  xid_entry e = classify_xid(xid);
  if (const auto action = recovery_action_of(message)) {
    // NVML's GPU recovery actions (nvmlDeviceGpuRecoveryAction_t; NVIDIA, "Error Recovery and
    // Response Flags", A100 GPU memory error management): the driver's own word on what the
    // GPU needs now.
    switch (*action) {
    case 0: // none: the GPU can take work again
      e.severity = verdict_status::pass;
      e.step = remediation::none;
      e.action = "the driver says no recovery is needed now (the earlier action was done)";
      break;
    case 2: // node reboot
    case 7: // system reboot
      e.severity = verdict_status::fail;
      e.step = remediation::reboot;
      e.action = "the driver asks for a reboot: drain the node and reboot it";
      break;
    case 5: // recover the IMEX domain: the fabric's, not this GPU's
      e.severity = verdict_status::warn;
      e.step = remediation::none;
      e.action = "the driver asks for the IMEX domain to be recovered (restart the IMEX "
                 "daemons of the domain); the GPU itself needs nothing";
      break;
    default: // 1 GPU reset, 3 drain P2P, 4 drain and reset, 6 bus reset, and any newer one
      e.severity = verdict_status::fail;
      e.step = remediation::reset_gpu;
      e.action = "the driver asks for a GPU reset: drain the GPU (stop its peer-to-peer "
                 "traffic first where it says so) and reset it (nvidia-smi -r)";
      break;
    }
    return e;
  }
  if (xid >= 144 && xid <= 150) {
    if (const auto fatal = nvlink5_fatal(message)) {
      if (*fatal) {
        e.severity = verdict_status::fail;
        e.step = remediation::reset_gpu;
        e.action = "a fatal NVLink error: drain and reset the GPU; service the link (tray, "
                   "cable cartridge) if it recurs";
      } else {
        e.severity = verdict_status::warn;
        e.step = remediation::none;
        e.action = "a non-fatal NVLink error: nothing to do now; reset the GPU at the next window "
                   "if it recurs";
      }
    }
  }
  return e;
}

std::string_view xid_reason_code(xid_class c) {
  switch (c) {
  case xid_class::hardware:
    return "GPUSPEC-XID-HARDWARE";
  case xid_class::driver:
    return "GPUSPEC-XID-DRIVER";
  case xid_class::application:
  case xid_class::unknown:
    break;
  }
  return "GPUSPEC-XID-UNKNOWN";
}

} // namespace gpuspec::reports::judge
