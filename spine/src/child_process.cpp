// Workers as child processes: posix_spawn with three pipes, non-blocking reads, signals and
// reaping (child_process.hpp).

#include "gpuspec/spine/child_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <system_error>
#include <utility>

#include <fmt/format.h>

extern char** environ; // NOLINT: the process environment, for posix_spawn

namespace gpuspec::spine {
namespace {

void close_fd(int& fd) noexcept {
  if (fd >= 0)
    ::close(fd);
  fd = -1;
}

/// A pipe whose both ends are close-on-exec: the child gets its end through dup2 only, so no
/// worker inherits another worker's pipes.
std::array<int, 2> make_pipe() {
  std::array<int, 2> fds{-1, -1};
  if (::pipe2(fds.data(), O_CLOEXEC) != 0)
    throw std::system_error(errno, std::generic_category(), "pipe2");
  return fds;
}

void set_nonblocking(int fd) {
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0)
    throw std::system_error(errno, std::generic_category(), "fcntl(O_NONBLOCK)");
}

exit_status from_wait_status(int status) {
  exit_status s;
  if (WIFSIGNALED(status)) {
    s.signalled = true;
    s.signal = WTERMSIG(status);
  } else if (WIFEXITED(status)) {
    s.code = WEXITSTATUS(status);
  }
  return s;
}

} // namespace

std::string signal_name(int signal) {
  switch (signal) {
  case SIGSEGV:
    return "SIGSEGV";
  case SIGABRT:
    return "SIGABRT";
  case SIGBUS:
    return "SIGBUS";
  case SIGFPE:
    return "SIGFPE";
  case SIGILL:
    return "SIGILL";
  case SIGKILL:
    return "SIGKILL";
  case SIGTERM:
    return "SIGTERM";
  case SIGINT:
    return "SIGINT";
  case SIGPIPE:
    return "SIGPIPE";
  case SIGHUP:
    return "SIGHUP";
  default:
    return fmt::format("signal {}", signal);
  }
}

std::string exit_status::describe() const {
  if (signalled)
    return fmt::format("died on signal {} ({})", signal, signal_name(signal));
  return fmt::format("exited with status {}", code);
}

void line_splitter::feed(std::string_view bytes) {
  if (m_begin > 0 && m_begin == m_buffer.size()) {
    m_buffer.clear();
    m_begin = 0;
  }
  m_buffer.append(bytes);
  const std::size_t newline = m_buffer.find('\n', m_begin);
  const std::size_t open = (newline == std::string::npos ? m_buffer.size() : newline) - m_begin;
  if (open > m_max)
    m_overflow = true;
}

std::optional<std::string> line_splitter::next() {
  const std::size_t newline = m_buffer.find('\n', m_begin);
  if (newline == std::string::npos)
    return std::nullopt;
  if (newline - m_begin > m_max) {
    m_overflow = true;
    return std::nullopt;
  }
  std::string line = m_buffer.substr(m_begin, newline - m_begin);
  m_begin = newline + 1;
  // Keep the buffer from growing with consumed lines.
  if (m_begin > (1U << 20)) {
    m_buffer.erase(0, m_begin);
    m_begin = 0;
  }
  return line;
}

std::string_view line_splitter::pending() const {
  return std::string_view(m_buffer).substr(m_begin);
}

namespace {

/// The current environment with `overrides` ("KEY=value") in place of the same keys.
std::vector<std::string> environment_with(const std::vector<std::string>& overrides) {
  std::vector<std::string> env;
  const auto key_of = [](std::string_view kv) { return kv.substr(0, kv.find('=')); };
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string_view kv(*e);
    if (std::none_of(overrides.begin(), overrides.end(),
                     [&](const std::string& o) { return key_of(o) == key_of(kv); }))
      env.emplace_back(kv);
  }
  env.insert(env.end(), overrides.begin(), overrides.end());
  return env;
}

} // namespace

child_process child_process::spawn(const std::vector<std::string>& argv,
                                   const std::vector<std::string>& environment) {
  if (argv.empty())
    throw std::invalid_argument("child_process::spawn: no program");
  std::array<int, 2> in = make_pipe(), out{-1, -1}, err{-1, -1};
  child_process child;
  try {
    out = make_pipe();
    err = make_pipe();
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, err[1], STDERR_FILENO);
    std::vector<char*> args;
    for (const auto& a : argv)
      args.push_back(const_cast<char*>(a.c_str())); // NOLINT: posix_spawn's signature
    args.push_back(nullptr);
    const std::vector<std::string> env = environment_with(environment);
    std::vector<char*> envp;
    for (const auto& e : env)
      envp.push_back(const_cast<char*>(e.c_str())); // NOLINT: posix_spawn's signature
    envp.push_back(nullptr);
    pid_t pid = -1;
    const int rc = ::posix_spawnp(&pid, argv.front().c_str(), &actions, nullptr, args.data(),
                                  environment.empty() ? environ : envp.data());
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0)
      throw std::system_error(rc, std::generic_category(),
                              fmt::format("cannot start {}", argv.front()));
    child.m_pid = pid;
  } catch (...) {
    for (int* fd : {&in[0], &in[1], &out[0], &out[1], &err[0], &err[1]})
      close_fd(*fd);
    throw;
  }
  close_fd(in[0]);
  close_fd(out[1]);
  close_fd(err[1]);
  child.m_in = in[1];
  child.m_out = out[0];
  child.m_err = err[0];
  set_nonblocking(child.m_in);
  set_nonblocking(child.m_out);
  set_nonblocking(child.m_err);
  return child;
}

child_process::child_process(child_process&& other) noexcept
    : m_pid(std::exchange(other.m_pid, -1)), m_in(std::exchange(other.m_in, -1)),
      m_out(std::exchange(other.m_out, -1)), m_err(std::exchange(other.m_err, -1)),
      m_status(std::exchange(other.m_status, std::nullopt)) {}

child_process& child_process::operator=(child_process&& other) noexcept {
  if (this != &other) {
    release();
    m_pid = std::exchange(other.m_pid, -1);
    m_in = std::exchange(other.m_in, -1);
    m_out = std::exchange(other.m_out, -1);
    m_err = std::exchange(other.m_err, -1);
    m_status = std::exchange(other.m_status, std::nullopt);
  }
  return *this;
}

child_process::~child_process() { release(); }

void child_process::release() noexcept {
  close_fd(m_in);
  close_fd(m_out);
  close_fd(m_err);
  if (m_pid > 0 && !m_status) {
    ::kill(m_pid, SIGKILL);
    int status = 0;
    while (::waitpid(m_pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  m_pid = -1;
  m_status.reset();
}

bool child_process::write_stdin(std::string& pending) {
  if (m_in < 0)
    return pending.empty();
  // SIGPIPE would end the coordinator when a worker dies before reading its assignment; the
  // write fails with EPIPE instead while the signal is blocked on this thread.
  sigset_t block, previous;
  sigemptyset(&block);
  sigaddset(&block, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &block, &previous);
  bool ok = true;
  while (!pending.empty()) {
    const ssize_t n = ::write(m_in, pending.data(), pending.size());
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
      break;
    if (n <= 0) {
      ok = false;
      break;
    }
    pending.erase(0, static_cast<std::size_t>(n));
  }
  if (!ok && errno == EPIPE) {
    // Consume the pending SIGPIPE so it is not delivered when the mask is restored.
    const timespec zero{0, 0};
    (void)sigtimedwait(&block, nullptr, &zero);
  }
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  if (!ok)
    pending.clear();
  if (pending.empty())
    close_fd(m_in);
  return ok;
}

bool child_process::read_available(int fd, std::string& into) {
  std::array<char, 65536> buffer{};
  for (;;) {
    const ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n > 0) {
      into.append(buffer.data(), static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
      return true;
    // End of file, or an error that is as good as one.
    if (fd == m_out)
      close_fd(m_out);
    else if (fd == m_err)
      close_fd(m_err);
    else
      ::close(fd);
    return false;
  }
}

void child_process::close_stdout() { close_fd(m_out); }
void child_process::close_stderr() { close_fd(m_err); }

void child_process::send_signal(int signal) const {
  if (m_pid > 0 && !m_status)
    ::kill(m_pid, signal);
}

std::optional<exit_status> child_process::poll_exit() {
  if (m_status || m_pid <= 0)
    return m_status;
  int status = 0;
  const pid_t r = ::waitpid(m_pid, &status, WNOHANG);
  if (r == m_pid)
    m_status = from_wait_status(status);
  return m_status;
}

exit_status child_process::wait() {
  if (m_status)
    return *m_status;
  int status = 0;
  while (::waitpid(m_pid, &status, 0) < 0) {
    if (errno != EINTR) {
      m_status = exit_status{};
      return *m_status;
    }
  }
  m_status = from_wait_status(status);
  return *m_status;
}

} // namespace gpuspec::spine
