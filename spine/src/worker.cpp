// The worker's loop (worker.hpp): assignment in, one start/progress/result run per case out.

#include "gpuspec/spine/worker.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <exception>
#include <iostream>
#include <iterator>
#include <regex>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpuspec/host/mig_ceilings.hpp"
#include "gpuspec/spine/coordinator.hpp"
#include "gpuspec/spine/stop_signals.hpp"
#include "gpuspec/spine/write_all.hpp"

namespace gpuspec::spine {
namespace {

/// The protocol channel: the original stdout, kept apart so nothing else can write to it.
class channel {
public:
  channel() {
    m_fd = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
    if (m_fd < 0)
      throw std::runtime_error("cannot keep stdout for the protocol");
    // Whatever else writes to stdout (a library's printf) lands on stderr, the worker's log.
    std::fflush(stdout);
    ::dup2(STDERR_FILENO, STDOUT_FILENO);
  }
  channel(const channel&) = delete;
  channel& operator=(const channel&) = delete;
  ~channel() { ::close(m_fd); }

  /// Sends one message; false when the coordinator is gone (EPIPE).
  bool send(const worker_message& m) { return write_all(m_fd, message_line(m)); }

private:
  int m_fd = -1;
};

/// Turns per-run callbacks into progress messages without flooding the coordinator.
class progress_throttle {
public:
  progress_throttle(channel& out, int case_index) : m_out(out), m_case(case_index) {}
  void operator()(int runs, double run_seconds) {
    const auto now = std::chrono::steady_clock::now();
    const bool longer = run_seconds > m_longest;
    m_longest = std::max(m_longest, run_seconds);
    if (!longer && now - m_last < std::chrono::milliseconds(250))
      return;
    m_last = now;
    worker_message m;
    m.kind = message_kind::progress;
    m.case_index = m_case;
    m.runs = runs;
    m.longest_run_s = m_longest;
    (void)m_out.send(m);
  }

private:
  channel& m_out;
  int m_case;
  double m_longest = 0;
  std::chrono::steady_clock::time_point m_last{};
};

} // namespace

std::string filter_problem(std::string_view filter) {
  if (filter.size() > max_filter_length)
    return fmt::format("--filter is {} characters long; at most {} are accepted", filter.size(),
                       max_filter_length);
  int depth = 0, deepest = 0;
  bool escaped = false;
  for (const char c : filter) {
    if (escaped) {
      escaped = false;
    } else if (c == '\\') {
      escaped = true;
    } else if (c == '(' || c == '[') {
      deepest = std::max(deepest, ++depth);
    } else if ((c == ')' || c == ']') && depth > 0) {
      --depth;
    }
  }
  if (deepest > max_filter_nesting)
    return fmt::format("--filter nests its groups {} deep; at most {} levels are accepted", deepest,
                       max_filter_nesting);
  try {
    const std::regex check(std::string(filter), std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    return fmt::format("--filter '{}' is not a valid regular expression: {}", filter, e.what());
  }
  return "";
}

std::vector<int> parse_plan_gpus(std::string_view text) {
  std::vector<int> out;
  if (text.empty())
    return out;
  std::size_t at = 0;
  for (;;) {
    const std::size_t end = std::min(text.find(',', at), text.size());
    const std::string_view item = text.substr(at, end - at);
    int value = -1;
    const auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), value);
    if (item.empty() || ec != std::errc() || ptr != item.data() + item.size() || value < 0)
      throw std::invalid_argument(fmt::format(
          "--gpus: '{}' is not a comma-separated list of GPU indices (e.g. 0,1,2)", text));
    out.push_back(value);
    if (end == text.size())
      return out;
    at = end + 1;
  }
}

std::string plan_gpus_text(const std::vector<int>& gpus) {
  return fmt::format("{}", fmt::join(gpus, ","));
}

int worker_plan_main(const worker_backend& backend, const plan_request& request) {
  try {
    const worker_plan plan = backend.plan(request);
    const std::string text = plan_to_text(plan);
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    return 0;
  } catch (const std::invalid_argument& e) {
    fmt::print(stderr, "gpuspec worker: {}\n", e.what());
    return 3;
  }
}

int worker_main(const worker_backend& backend) {
  const std::string text{std::istreambuf_iterator<char>(std::cin),
                         std::istreambuf_iterator<char>()};
  return serve_assignment(backend, text);
}

std::optional<host::mig_share> take_mig_device(worker_assignment& a) {
  if (a.mig_uuid.empty())
    return std::nullopt;
  const reports::mig_instance* m = reports::find_mig_instance(a.device.mig_instances, a.mig_uuid);
  if (m == nullptr) // the assignment's reader holds it to the device's instances
    throw std::logic_error("the assignment's MIG device is not one of its GPU's");
  host::mig_share share = host::mig_share_of(a.device, *m);
  a.device.sm_count = m->sm_count;
  a.device.memory_bytes = m->memory_bytes;
  return share;
}

int serve_assignment(const worker_backend& backend, const std::string& text) {
  // Dies with the coordinator: a coordinator killed outright leaves no worker loading a GPU.
  const pid_t parent = ::getppid();
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent)
    return 1;
  std::signal(SIGPIPE, SIG_IGN); // a gone coordinator is an EPIPE, handled below
  // The coordinator's SIGTERM (and a terminal's SIGINT) stop it between samples. It stays
  // installed: the second of the two must not kill a worker returning its interrupted case.
  const stop_signal_guard stop(second_signal::ignored);
  const std::atomic<bool>& stop_requested = stop.requested();

  channel out;
  auto parsed = assignment_from_text(text, "the assignment on stdin");
  if (!parsed) {
    fmt::print(stderr, "gpuspec worker: {}\n", parsed.error().to_string());
    return 2;
  }
  worker_assignment& a = parsed.value();
  // A MIG device's worker: its device shows the instance's SMs and memory, and its results'
  // ceilings are the instance's share of the GPU's (docs/mig.md).
  const std::optional<host::mig_share> share = take_mig_device(a);

  std::unique_ptr<case_executor> executor;
  std::string open_error;
  try {
    executor = backend.open(a, stop_requested);
  } catch (const std::exception& e) {
    open_error = e.what();
  }

  // Hello once the GPU is opened: creating its CUDA context is what the plan's startup
  // allowance is for.
  worker_message hello;
  hello.kind = message_kind::hello;
  hello.backend = backend.name;
  hello.pid = static_cast<int>(::getpid());
  hello.device = a.device.index;
  if (!out.send(hello))
    return 0;

  for (auto i = static_cast<std::size_t>(a.first_case); i < a.cases.size(); ++i) {
    if (stop_requested.load())
      return 0; // interrupted: no further case, no done
    const planned_case& c = a.cases[i];
    worker_message start;
    start.kind = message_kind::start;
    start.case_index = static_cast<int>(i);
    if (!out.send(start))
      return 0;
    worker_message result;
    result.kind = message_kind::result;
    result.case_index = static_cast<int>(i);
    if (executor) {
      progress_throttle progress(out, static_cast<int>(i));
      result.result =
          executor->run(c, [&progress](int runs, double seconds) { progress(runs, seconds); });
    } else {
      result.result = unmeasured_result(
          c, a.device.index, reports::result_status::failed, reports::failure_kind::gpu_start,
          fmt::format("GPU {} could not be started: {}", a.device.index, open_error));
    }
    if (share)
      host::scale_result_to_mig(*result.result, *share);
    const std::string sticky = executor && result.result->status == reports::result_status::failed
                                   ? executor->sticky_error()
                                   : std::string();
    if (!sticky.empty())
      result.result->reason +=
          fmt::format("{}the GPU's CUDA context is unusable after this case (sticky error {}): "
                      "this worker stops and a fresh one measures the remaining cases",
                      result.result->reason.empty() ? "" : "; ", sticky);
    if (!out.send(result))
      return 0;
    if (!sticky.empty()) {
      fmt::print(stderr, "gpuspec worker: sticky error {} after {}: exiting with status {}\n",
                 sticky, c.label(), sticky_error_exit_code);
      return sticky_error_exit_code;
    }
  }
  if (stop_requested.load())
    return 0;
  worker_message done;
  done.kind = message_kind::done;
  (void)out.send(done);
  return 0;
}

} // namespace gpuspec::spine
