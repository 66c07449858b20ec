#pragma once
/// SIGINT and SIGTERM as a request to stop between samples and keep what was measured: the
/// coordinator's (Ctrl-C on `gpuspec run`) and each worker's (the coordinator's SIGTERM).

#include <atomic>

namespace gpuspec::spine {

enum class second_signal {
  ends_process, ///< the coordinator: a second Ctrl-C ends it the default way (its journal stays)
  ignored,      ///< a worker: it is returning its case; the watchdog SIGKILLs one that does not
};

/// RAII: installs the handlers, restores the previous ones on destruction. One at a time per
/// process: the flag is the one piece of static storage a signal handler can reach.
class stop_signal_guard {
public:
  explicit stop_signal_guard(second_signal then);
  ~stop_signal_guard();
  stop_signal_guard(const stop_signal_guard&) = delete;
  stop_signal_guard& operator=(const stop_signal_guard&) = delete;

  /// Becomes true at the first SIGINT or SIGTERM.
  [[nodiscard]] const std::atomic<bool>& requested() const;

private:
  using handler = void (*)(int);
  handler m_previous_int;
  handler m_previous_term;
};

} // namespace gpuspec::spine
