#include "gpuspec/spine/stop_signals.hpp"

#include <csignal>

namespace gpuspec::spine {
namespace {

// A signal handler can reach nothing but static storage; these two are that storage, and only
// stop_signal_guard touches them. std::atomic<bool> is lock-free here (checked below), which
// is what makes it safe to store to from a handler.
std::atomic<bool>& flag() {
  static std::atomic<bool> requested{false};
  return requested;
}
std::atomic<bool>& second_ends_process() {
  static std::atomic<bool> ends{true};
  return ends;
}
static_assert(std::atomic<bool>::is_always_lock_free);

extern "C" void on_stop_signal(int signal_number) {
  flag().store(true);
  if (second_ends_process().load())
    std::signal(signal_number, SIG_DFL);
}

} // namespace

stop_signal_guard::stop_signal_guard(second_signal then) {
  flag().store(false);
  second_ends_process().store(then == second_signal::ends_process);
  m_previous_int = std::signal(SIGINT, on_stop_signal);
  m_previous_term = std::signal(SIGTERM, on_stop_signal);
}

stop_signal_guard::~stop_signal_guard() {
  std::signal(SIGINT, m_previous_int);
  std::signal(SIGTERM, m_previous_term);
}

const std::atomic<bool>& stop_signal_guard::requested() const { return flag(); }

} // namespace gpuspec::spine
