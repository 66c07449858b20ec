#pragma once
/// NCCL's log over a worker's life: read as it grows, and switched so that the timed calls run
/// without NCCL's per-call TUNING line while one untimed call (the check's) runs with it.
/// CUDA-free and NCCL-free: setting a variable and asking NCCL to read them again come in as
/// functions (setenv and ncclResetDebugInit in the worker; a map and a counter in tests).
///
/// Why a switch, and this one. NCCL keeps its log level and subsystems in process-wide globals
/// read once per process (src/debug.cc: ncclDebugInit runs at the first log line; nothing per
/// communicator), so a second communicator with the log on would not help, and a second
/// process would pay a second NCCL init per case. NCCL exports ncclResetDebugInit from 2.24
/// (still in 2.29), which makes NCCL read NCCL_DEBUG* again at its next line, reopening
/// NCCL_DEBUG_FILE with fopen "w" (deprecated in 2.28, "will be removed in the future"). So, where
/// the worker owns the variables (nccl_debug_setup::switchable) and NCCL exports the reset:
///  - timed calls: NCCL_DEBUG_SUBSYS=INIT,GRAPH, NCCL_DEBUG_FILE = the main log;
///  - tuning(true), before the untimed call: INIT,GRAPH,TUNING to the probe log, reset;
///  - tuning(false), after it: what remains of the main log is read (NCCL closed it when it
///    opened the probe log), then the probe log; the main log is emptied (NCCL empties it too
///    when it reopens it) and read from its start again; INIT,GRAPH to the main log, reset.
/// Elsewhere nothing is switched and `why_no_probe` says why there is no algorithm line.
/// setenv is not safe against a concurrent getenv of another thread: NCCL reads its variables
/// at communicator init and in this reset, both from the thread that switches here.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "gpuspec/collectives/nccl_debug_log.hpp"
#include "gpuspec/collectives/nccl_debug_setup.hpp"

namespace gpuspec::collectives {

class nccl_log_session {
public:
  using set_variable = std::function<void(const std::string& name, const std::string& value)>;
  /// Asks NCCL to read its variables again (ncclResetDebugInit); empty where NCCL cannot.
  using reset_log = std::function<void()>;

  nccl_log_session(nccl_debug_setup setup, set_variable set, reset_log reset);

  [[nodiscard]] const nccl_debug_setup& setup() const { return m_setup; }
  /// True when an untimed call can be run with the tuning log on (tuning() switches it).
  [[nodiscard]] bool probes() const { return m_setup.switchable && static_cast<bool>(m_reset); }
  /// Why probes() is false: a sentence for the result's nccl_algorithm; "" when it is true.
  [[nodiscard]] std::string why_no_probe() const;
  /// collective_request::tuning_log: the log with TUNING on (true) or off (false). Nothing
  /// where probes() is false.
  void tuning(bool on);
  /// The calls' choices NCCL logged since the last read (the untimed call's, when switched);
  /// connections, version and NVLS state accumulate in facts().
  [[nodiscard]] std::vector<nccl_tuning_choice> read_new();
  [[nodiscard]] const nccl_debug_facts& facts() const { return m_facts; }

private:
  /// Reads the complete lines of `path` from `offset` on into m_facts and m_choices.
  void read_file(const std::string& path, std::uint64_t& offset);

  nccl_debug_setup m_setup;
  set_variable m_set;
  reset_log m_reset;
  std::uint64_t m_offset = 0;                ///< read so far of the main log
  nccl_debug_facts m_facts;                  ///< connections, version, NVLS: every read so far
  std::vector<nccl_tuning_choice> m_choices; ///< read since the last read_new()
};

} // namespace gpuspec::collectives
