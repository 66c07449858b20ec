#pragma once
/// How the worker asks NCCL for the log that nccl_debug_log.hpp reads, without overriding what
/// the user set. CUDA-free and pure: the environment comes in as a lookup, the variables to set
/// go out, so the rules are tested without a process.
///
/// Rules (NCCL reads these once, at its first call, so the worker applies them before it):
///  - NCCL_DEBUG unset: INFO. Set by the user: kept; below INFO (WARN, VERSION) the channels and
///    the choices are not printed, and `limitation` says so.
///  - NCCL_DEBUG_SUBSYS unset: INIT,GRAPH,TUNING (the channel lines are INIT, the choices
///    TUNING). Set: kept; `limitation` names what the user's list leaves out ("^" lists what
///    NCCL leaves out, "ALL" is everything).
///  - NCCL_DEBUG_FILE unset: the worker's own file. This matters beyond parsing: without a file
///    NCCL prints to stdout, which is the worker's channel to the coordinator. Set: kept, and
///    the file read is the user's, with NCCL's %h (hostname) and %p (pid) filled in.

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpuspec::collectives {

struct nccl_debug_setup {
  /// Variables to set (none of them set by the user), in order.
  std::vector<std::pair<std::string, std::string>> to_set;
  /// The log file to read after the collectives ran.
  std::string log_path;
  /// "" when the log holds every fact read, else a sentence saying which it lacks and why.
  std::string limitation;
};

using environment_lookup = std::function<std::optional<std::string>(std::string_view name)>;

[[nodiscard]] nccl_debug_setup plan_nccl_debug(const environment_lookup& environment,
                                               const std::string& own_log_path,
                                               std::string_view hostname, long pid);

} // namespace gpuspec::collectives
