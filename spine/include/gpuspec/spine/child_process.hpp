#pragma once
/// A child process with its stdin, stdout and stderr on pipes: how the coordinator starts its
/// workers. posix_spawn (fork + exec in one step): a worker is a fresh process, never a fork of
/// one that may have touched CUDA (docs/design.md, "Pitfalls").

#include <sys/types.h>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuspec::spine {

/// How a child ended, from its wait status.
struct exit_status {
  bool signalled = false;
  int code = 0;   ///< the exit code when !signalled
  int signal = 0; ///< the signal when signalled
  /// "exited with status 1", "died on signal 11 (SIGSEGV)"
  [[nodiscard]] std::string describe() const;
  [[nodiscard]] bool clean() const { return !signalled && code == 0; }
};

/// "SIGSEGV" for 11, "signal 99" for a number without a name.
[[nodiscard]] std::string signal_name(int signal);

/// Splits a byte stream into lines. A line longer than `max_line` bytes is an overflow, which
/// the reader treats as garbage (a worker's result is far smaller).
class line_splitter {
public:
  explicit line_splitter(std::size_t max_line) : m_max(max_line) {}
  void feed(std::string_view bytes);
  /// The next complete line, without its '\n'.
  [[nodiscard]] std::optional<std::string> next();
  [[nodiscard]] bool overflowed() const { return m_overflow; }
  /// Bytes received after the last '\n' (a line cut short when the stream ends).
  [[nodiscard]] std::string_view pending() const;

private:
  std::size_t m_max;
  std::string m_buffer;
  std::size_t m_begin = 0;
  bool m_overflow = false;
};

/// Owns a running child: move-only; the destructor kills (SIGKILL) and reaps a child still
/// running, so no worker outlives a coordinator that unwinds.
class child_process {
public:
  /// Starts argv[0] (searched on PATH when it has no '/') with argv and the current
  /// environment, `environment`'s "KEY=value" entries set over it (a MIG device's worker gets
  /// CUDA_VISIBLE_DEVICES). Throws std::system_error naming the program when it cannot be
  /// started.
  [[nodiscard]] static child_process spawn(const std::vector<std::string>& argv,
                                           const std::vector<std::string>& environment = {});

  child_process(child_process&& other) noexcept;
  child_process& operator=(child_process&& other) noexcept;
  child_process(const child_process&) = delete;
  child_process& operator=(const child_process&) = delete;
  ~child_process();

  [[nodiscard]] pid_t pid() const { return m_pid; }
  [[nodiscard]] int stdout_fd() const { return m_out; }
  [[nodiscard]] int stderr_fd() const { return m_err; }

  [[nodiscard]] int stdin_fd() const { return m_in; }
  /// Writes what the child's stdin takes now (it is non-blocking) and removes it from `pending`;
  /// closes stdin once `pending` is empty. False if the child closed its end first (it died, or
  /// will say why on stderr); stdin is then closed. Never raises SIGPIPE.
  bool write_stdin(std::string& pending);
  /// Reads what is available on `fd` (stdout_fd or stderr_fd) without blocking: the bytes read
  /// are appended; returns false at end of file (and closes that descriptor).
  bool read_available(int fd, std::string& into);
  void close_stdout();
  void close_stderr();

  void send_signal(int signal) const;
  /// Non-blocking wait: the status once the child has ended (reaped), else nullopt.
  [[nodiscard]] std::optional<exit_status> poll_exit();
  /// Blocking wait.
  exit_status wait();
  [[nodiscard]] bool running() const { return m_pid > 0 && !m_status; }
  [[nodiscard]] const std::optional<exit_status>& status() const { return m_status; }

private:
  child_process() = default;
  void release() noexcept;
  pid_t m_pid = -1;
  int m_in = -1, m_out = -1, m_err = -1;
  std::optional<exit_status> m_status;
};

} // namespace gpuspec::spine
