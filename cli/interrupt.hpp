#pragma once
/// Ctrl-C (SIGINT) and SIGTERM during a run: the first one asks the run to stop between
/// samples and keep what was measured; a second one ends the process the default way.

#include <atomic>

namespace gpuspec::cli {

/// RAII: installs the handlers, restores the previous ones on destruction.
class interrupt_guard {
public:
  interrupt_guard();
  ~interrupt_guard();
  interrupt_guard(const interrupt_guard&) = delete;
  interrupt_guard& operator=(const interrupt_guard&) = delete;

  /// Becomes true at the first signal.
  [[nodiscard]] const std::atomic<bool>& requested() const;

private:
  using handler = void (*)(int);
  handler m_previous_int;
  handler m_previous_term;
};

} // namespace gpuspec::cli
