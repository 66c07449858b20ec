#include "gpuspec/collectives/nccl_debug_setup.hpp"

#include <algorithm>
#include <cctype>

namespace gpuspec::collectives {

namespace {

std::string upper(std::string_view s) {
  std::string u(s);
  std::transform(u.begin(), u.end(), u.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return u;
}

/// True if NCCL_DEBUG_SUBSYS `list` lets `subsystem` print (NCCL's rule: a comma-separated
/// list, ALL for all, a leading '^' for all but those listed).
bool subsystem_on(std::string_view list, std::string_view subsystem) {
  const std::string u = upper(list);
  std::string_view names = u;
  const bool inverted = names.starts_with('^');
  if (inverted)
    names.remove_prefix(1);
  bool listed = false;
  while (!names.empty()) {
    const auto comma = names.find(',');
    const std::string_view name = names.substr(0, comma);
    if (name == subsystem || name == "ALL")
      listed = true;
    if (comma == std::string_view::npos)
      break;
    names.remove_prefix(comma + 1);
  }
  return inverted ? !listed : listed;
}

std::string fill_pattern(std::string_view pattern, std::string_view hostname, long pid) {
  std::string out;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '%' && i + 1 < pattern.size() && pattern[i + 1] == 'h') {
      out += hostname;
      ++i;
    } else if (pattern[i] == '%' && i + 1 < pattern.size() && pattern[i + 1] == 'p') {
      out += std::to_string(pid);
      ++i;
    } else {
      out += pattern[i];
    }
  }
  return out;
}

void add_limit(std::string& limitation, const std::string& sentence) {
  if (!limitation.empty())
    limitation += "; ";
  limitation += sentence;
}

} // namespace

nccl_debug_setup plan_nccl_debug(const environment_lookup& environment,
                                 const std::string& own_log_path, std::string_view hostname,
                                 long pid) {
  nccl_debug_setup s;
  bool prints_info = true;
  const auto level = environment("NCCL_DEBUG");
  if (!level) {
    s.to_set.emplace_back("NCCL_DEBUG", "INFO");
  } else if (const std::string u = upper(*level); u != "INFO" && u != "TRACE") {
    prints_info = false;
    add_limit(s.limitation,
              "NCCL_DEBUG=" + *level +
                  " was set by the user, so NCCL's log has no channel or algorithm lines");
  }

  const auto subsys = environment("NCCL_DEBUG_SUBSYS");
  if (!subsys) {
    s.to_set.emplace_back("NCCL_DEBUG_SUBSYS", std::string(timing_subsystems));
  } else {
    if (!subsystem_on(*subsys, "INIT") && !subsystem_on(*subsys, "P2P"))
      add_limit(s.limitation, "NCCL_DEBUG_SUBSYS=" + *subsys +
                                  " (set by the user) leaves out INIT: no transport lines");
    if (!subsystem_on(*subsys, "TUNING"))
      add_limit(s.limitation, "NCCL_DEBUG_SUBSYS=" + *subsys +
                                  " (set by the user) leaves out TUNING: no algorithm lines");
    else if (prints_info)
      add_limit(s.limitation, "NCCL_DEBUG_SUBSYS=" + *subsys +
                                  " (set by the user) has TUNING: NCCL writes a log line inside "
                                  "every timed call");
  }

  const auto file = environment("NCCL_DEBUG_FILE");
  if (!file) {
    s.to_set.emplace_back("NCCL_DEBUG_FILE", own_log_path);
    s.log_path = own_log_path;
  } else {
    s.log_path = fill_pattern(*file, hostname, pid);
    if (!subsys && prints_info)
      add_limit(s.limitation, "NCCL_DEBUG_FILE was set by the user, so NCCL's log is not switched "
                              "for an untimed call (NCCL would reopen and empty that file): no "
                              "algorithm lines");
  }
  s.switchable = !subsys && !file && prints_info;
  if (s.switchable)
    s.probe_log_path = own_log_path + ".tuning";
  return s;
}

} // namespace gpuspec::collectives
