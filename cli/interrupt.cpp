#include "interrupt.hpp"

#include <csignal>

namespace gpuspec::cli {

namespace {
// A signal handler can reach nothing but static storage; this flag is the one piece of it,
// and only interrupt_guard touches it. std::atomic<bool> is lock-free here (checked below),
// which is what makes it safe to store to from a handler.
std::atomic<bool>& flag() {
  static std::atomic<bool> requested{false};
  return requested;
}
static_assert(std::atomic<bool>::is_always_lock_free);

extern "C" void on_signal(int signal_number) {
  flag().store(true);
  std::signal(signal_number, SIG_DFL); // a second Ctrl-C ends the process
}
} // namespace

interrupt_guard::interrupt_guard() {
  flag().store(false);
  m_previous_int = std::signal(SIGINT, on_signal);
  m_previous_term = std::signal(SIGTERM, on_signal);
}

interrupt_guard::~interrupt_guard() {
  std::signal(SIGINT, m_previous_int);
  std::signal(SIGTERM, m_previous_term);
}

const std::atomic<bool>& interrupt_guard::requested() const { return flag(); }

} // namespace gpuspec::cli
