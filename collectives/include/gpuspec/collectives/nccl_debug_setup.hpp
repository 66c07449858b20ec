#pragma once
/// How the worker asks NCCL for the log that nccl_debug_log.hpp reads, without overriding what
/// the user set. CUDA-free and pure: the environment comes in as a lookup, the variables to set
/// go out, so the rules are tested without a process.
///
/// Rules (NCCL reads these at its first log line, so the worker applies them before its first
/// call; src/debug.cc ncclDebugInit):
///  - NCCL_DEBUG unset: INFO. Set by the user: kept; below INFO (WARN, VERSION) the channels and
///    the choices are not printed, and `limitation` says so.
///  - NCCL_DEBUG_SUBSYS unset: INIT,GRAPH (the channel lines are INIT), without TUNING: NCCL
///    writes its TUNING line, the algorithm and protocol, on the host inside every call, so the
///    timed calls run without it; nccl_log_session turns it on for one untimed call. Set: kept;
///    `limitation` names what the user's list leaves out ("^" lists what NCCL leaves out, "ALL"
///    is everything), or that it has TUNING inside the timed calls.
///  - NCCL_DEBUG_FILE unset: the worker's own file. This matters beyond parsing: without a file
///    NCCL prints to stdout, which is the worker's channel to the coordinator. Set: kept, and
///    the file read is the user's, with NCCL's %h (hostname) and %p (pid) filled in.
///  - `switchable` when the worker set both NCCL_DEBUG_SUBSYS and NCCL_DEBUG_FILE and the level
///    prints INFO: only then may it switch the log for the untimed call (switching reopens the
///    file with fopen "w", which would empty a user's file; a user's subsystems are theirs).

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpuspec::collectives {

/// The subsystems of the timed calls and of the one untimed call that reads NCCL's choice.
inline constexpr std::string_view timing_subsystems = "INIT,GRAPH";
inline constexpr std::string_view probe_subsystems = "INIT,GRAPH,TUNING";

struct nccl_debug_setup {
  /// Variables to set (none of them set by the user), in order.
  std::vector<std::pair<std::string, std::string>> to_set;
  /// The log file to read after the collectives ran.
  std::string log_path;
  /// The untimed call's own log (own_log_path + ".tuning"), used when `switchable`.
  std::string probe_log_path;
  /// The worker owns NCCL_DEBUG_SUBSYS and NCCL_DEBUG_FILE at a level that prints INFO.
  bool switchable = false;
  /// "" when the log holds every fact read, else a sentence saying which it lacks and why.
  std::string limitation;
};

using environment_lookup = std::function<std::optional<std::string>(std::string_view name)>;

[[nodiscard]] nccl_debug_setup plan_nccl_debug(const environment_lookup& environment,
                                               const std::string& own_log_path,
                                               std::string_view hostname, long pid);

} // namespace gpuspec::collectives
