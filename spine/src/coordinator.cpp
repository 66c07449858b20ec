// The coordinator's event loop and watchdog (coordinator.hpp): workers spawned, their lines
// read as they come, every deadline watched, unfinished cases failed with what happened.

#include "gpuspec/spine/coordinator.hpp"

#include <poll.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <system_error>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpuspec/spine/child_process.hpp"

namespace gpuspec::spine {
namespace {

using clock = std::chrono::steady_clock;
using reports::failure_kind;
using reports::result_status;

/// How much of a worker's stderr is kept for the message that says why it was lost.
constexpr std::size_t log_tail_bytes = 4096;
/// After the worker's "done", how long it may take to exit (CUDA teardown) before it is killed.
constexpr double exit_after_done_s = 30.0;
/// After the process ended, how long its pipes may stay open (a grandchild holding them).
constexpr double drain_after_exit_s = 2.0;
/// The loop wakes at least this often to see an interrupt and expire deadlines.
constexpr std::chrono::milliseconds tick{100};

double since(clock::time_point then, clock::time_point now) {
  return std::chrono::duration<double>(now - then).count();
}

std::string seconds_text(double s) {
  return s < 10 ? fmt::format("{:.1f} s", s) : fmt::format("{:.0f} s", s);
}

/// Where a worker is in the protocol. Being stopped (SIGTERM sent) or gone (exited, stdout
/// closed) is told apart by the worker's flags, not by a phase: an interrupted worker still
/// returns the case it was measuring, in its phase.
enum class phase {
  queued,    ///< not started yet (concurrency limit)
  starting,  ///< spawned, no hello yet
  idle,      ///< between cases: expecting start or done
  in_case,   ///< measuring cases[current]
  finishing, ///< done received, waiting for the exit
  ended,
};

struct worker {
  const worker_job* job = nullptr;
  std::optional<child_process> child;
  phase state = phase::queued;
  line_splitter lines{0};
  std::string pending_input;
  std::string log_tail;
  clock::time_point started, last_message, case_started, stop_sent, exited_at;
  int next_case = 0;
  int current = -1;   ///< the case being measured, -1 between cases
  int last_done = -1; ///< the last case that returned a result
  double longest_run = 0;
  int busy_max = 0;
  bool interrupted = false;    ///< told to stop because the run was interrupted
  bool stop_requested = false; ///< SIGTERM sent (at stop_sent)
  bool kill_sent = false;
  bool gone = false; ///< exited, or closed its stdout: no more messages will come
  std::optional<failure_kind> failure;
  std::string failure_text; ///< "no answer for 45 s", "sent a malformed message (...)"
  int line_number = 0;
  int fresh_left = 0; ///< fresh workers this job may still get after a lost one
  int losses = 0;     ///< workers of this job lost so far

  [[nodiscard]] bool running() const { return state != phase::queued && state != phase::ended; }
};

std::string last_line_of(const std::string& log) {
  std::string_view v = log;
  while (!v.empty() && (v.back() == '\n' || v.back() == '\r'))
    v.remove_suffix(1);
  const std::size_t nl = v.rfind('\n');
  if (nl != std::string_view::npos)
    v.remove_prefix(nl + 1);
  std::string out(v.substr(0, 300));
  return out;
}

class coordinator {
public:
  coordinator(const coordinator_options& options, const std::vector<worker_job>& jobs,
              coordinator_observer& observer, const std::atomic<bool>& interrupted)
      : m_options(options), m_observer(observer), m_interrupted(interrupted) {
    m_workers.resize(jobs.size());
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      m_workers[i].job = &jobs[i];
      m_workers[i].lines = line_splitter(options.max_line_bytes);
      m_workers[i].fresh_left = options.fresh_workers;
    }
  }

  void run() {
    start_queued();
    while (std::any_of(m_workers.begin(), m_workers.end(),
                       [](const worker& w) { return w.state != phase::ended; })) {
      if (m_interrupted.load() && !m_interrupt_seen)
        on_interrupt();
      wait_for_input();
      const auto now = clock::now();
      for (worker& w : m_workers)
        if (w.running())
          watch(w, now);
      start_queued();
    }
  }

private:
  // --------------------------------------------------------------------------- starting

  void start_queued() {
    if (m_interrupt_seen)
      return;
    const int limit =
        m_options.concurrency > 0 ? m_options.concurrency : static_cast<int>(m_workers.size());
    int running = static_cast<int>(std::count_if(m_workers.begin(), m_workers.end(),
                                                 [](const worker& w) { return w.running(); }));
    for (worker& w : m_workers) {
      if (running >= limit)
        break;
      if (w.state != phase::queued)
        continue;
      start(w);
      if (w.running())
        ++running;
    }
  }

  void start(worker& w) {
    w.started = w.last_message = clock::now();
    try {
      w.child = child_process::spawn(m_options.worker_command, worker_environment(*w.job));
    } catch (const std::exception& e) {
      const std::string why = fmt::format("the worker could not be started: {}", e.what());
      for (auto i = static_cast<std::size_t>(w.next_case); i < w.job->cases.size(); ++i)
        emit(w, static_cast<int>(i),
             unmeasured_result(w.job->cases[i], w.job->device, result_status::failed,
                               failure_kind::worker_exit,
                               fmt::format("{}: {}", w.job->label(), why)));
      m_observer.on_worker_lost(*w.job, why, "");
      w.state = phase::ended;
      return;
    }
    w.state = phase::starting;
    w.pending_input = w.job->assignment;
    if (w.next_case > 0) // a fresh worker after a lost one: from the next case on
      w.pending_input = fresh_assignment(w);
    (void)w.child->write_stdin(w.pending_input);
    m_observer.on_worker_started(*w.job, w.child->pid());
  }

  // --------------------------------------------------------------------------- input

  void wait_for_input() {
    std::vector<pollfd> fds;
    std::vector<worker*> owners;
    for (worker& w : m_workers) {
      if (!w.running() || !w.child)
        continue;
      for (int fd : {w.child->stdout_fd(), w.child->stderr_fd()})
        if (fd >= 0) {
          fds.push_back(pollfd{fd, POLLIN, 0});
          owners.push_back(&w);
        }
      if (w.child->stdin_fd() >= 0 && !w.pending_input.empty()) {
        fds.push_back(pollfd{w.child->stdin_fd(), POLLOUT, 0});
        owners.push_back(&w);
      }
    }
    const int rc = ::poll(fds.data(), fds.size(), static_cast<int>(tick.count()));
    if (rc <= 0)
      return; // timeout, or EINTR (a signal: the interrupt is seen on the next turn)
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].revents == 0)
        continue;
      worker& w = *owners[i];
      if (!w.child)
        continue;
      const int fd = fds[i].fd;
      if (fd == w.child->stdin_fd()) {
        (void)w.child->write_stdin(w.pending_input);
      } else if (fd == w.child->stdout_fd()) {
        read_stdout(w);
      } else if (fd == w.child->stderr_fd()) {
        std::string bytes;
        (void)w.child->read_available(fd, bytes);
        w.log_tail += bytes;
        if (w.log_tail.size() > log_tail_bytes)
          w.log_tail.erase(0, w.log_tail.size() - log_tail_bytes);
      }
    }
  }

  void read_stdout(worker& w) {
    std::string bytes;
    const bool open = w.child->read_available(w.child->stdout_fd(), bytes);
    if (!bytes.empty()) {
      w.lines.feed(bytes);
      while (auto line = w.lines.next()) {
        ++w.line_number;
        handle_line(w, *line);
      }
      if (w.lines.overflowed())
        violation(w, fmt::format("the worker sent a line longer than {} bytes",
                                 m_options.max_line_bytes));
    }
    if (!open)
      w.gone = true;
  }

  void handle_line(worker& w, const std::string& line) {
    // A worker being killed for a failure is not listened to any more.
    if (w.failure || w.state == phase::ended)
      return;
    if (w.state == phase::finishing)
      return violation(
          w, fmt::format("the worker sent line {} after its done message", w.line_number));
    const auto now = clock::now();
    auto parsed = message_from_line(line, fmt::format("line {}", w.line_number));
    if (!parsed) {
      const auto& e = parsed.error();
      violation(w, fmt::format("the worker sent a malformed message ({}{}{}: {})", e.file,
                               e.field.empty() ? "" : ": ", e.field, e.message));
      return;
    }
    worker_message& m = parsed.value();
    const auto out_of_turn = [&](std::string_view what) {
      violation(w, fmt::format("the worker sent {} out of turn (line {})", what, w.line_number));
    };
    switch (m.kind) {
    case message_kind::hello:
      if (w.state != phase::starting)
        return out_of_turn("a hello");
      if (m.backend != m_options.backend)
        return violation(w, fmt::format("the worker says it measures with \"{}\", the plan said "
                                        "\"{}\"",
                                        m.backend, m_options.backend));
      if (m.device != w.job->device)
        return violation(w, fmt::format("the worker says it is GPU {}", m.device));
      w.state = phase::idle;
      break;
    case message_kind::start:
      if (w.state != phase::idle || m.case_index != w.next_case ||
          w.next_case >= static_cast<int>(w.job->cases.size()))
        return out_of_turn(fmt::format("a start of case {}", m.case_index));
      w.state = phase::in_case;
      w.current = w.next_case++;
      w.case_started = now;
      w.longest_run = 0;
      update_busy();
      m_observer.on_case_started(*w.job, w.current, w.job->cases[w.current]);
      break;
    case message_kind::progress:
      if (w.state != phase::in_case || m.case_index != w.current)
        return out_of_turn("progress");
      w.longest_run = std::max(w.longest_run, m.longest_run_s);
      m_observer.on_progress(*w.job, w.current, m.runs);
      break;
    case message_kind::result: {
      if (w.state != phase::in_case || m.case_index != w.current || !m.result)
        return out_of_turn(fmt::format("a result of case {}", m.case_index));
      const planned_case& c = w.job->cases[w.current];
      if (m.result->bench_id != c.bench_id)
        return violation(w, fmt::format("the worker returned a result of {} for case {} ({})",
                                        m.result->bench_id, w.current, c.label()));
      m.result->gpus_busy = w.busy_max;
      const int index = w.current;
      w.state = phase::idle;
      w.current = -1;
      w.last_done = index;
      update_busy();
      emit(w, index, std::move(*m.result));
      break;
    }
    case message_kind::done:
      if (w.state != phase::idle || w.next_case != static_cast<int>(w.job->cases.size()))
        return out_of_turn("done");
      w.state = phase::finishing;
      break;
    }
    w.last_message = now;
  }

  // --------------------------------------------------------------------------- watching

  void watch(worker& w, clock::time_point now) {
    if (!w.child->status() && w.child->poll_exit()) {
      w.exited_at = now;
      // Everything it wrote before it ended is in the pipe: read it before judging the end.
      if (w.child->stdout_fd() >= 0)
        read_stdout(w);
      w.gone = true;
    }
    const bool exited = w.child->status().has_value();

    if (w.stop_requested) {
      const double grace =
          w.interrupted && !w.failure ? m_options.interrupt_grace_s : m_options.kill_grace_s;
      if (!exited && !w.kill_sent && since(w.stop_sent, now) > grace) {
        w.child->send_signal(SIGKILL);
        w.kill_sent = true;
      }
    } else if (w.gone) {
      // Gone before it said done (or stdout closed while it lives on): give it the grace period
      // to exit, then make sure.
      if (!exited && since(w.last_message, now) > m_options.kill_grace_s && !w.kill_sent) {
        w.child->send_signal(SIGKILL);
        w.kill_sent = true;
      }
    } else {
      check_deadlines(w, now);
    }

    if (exited) {
      // Drain what is left in the pipes; a grandchild may hold them open, so not forever.
      const bool open = w.child->stdout_fd() >= 0 || w.child->stderr_fd() >= 0;
      if (open && since(w.exited_at, now) <= drain_after_exit_s)
        return;
      finish(w);
    }
  }

  void check_deadlines(worker& w, clock::time_point now) {
    switch (w.state) {
    case phase::starting:
      if (since(w.started, now) > m_options.startup_allowance_s)
        timeout(w, fmt::format("no hello for {}", seconds_text(since(w.started, now))));
      break;
    case phase::idle: {
      const double allowance = w.next_case < static_cast<int>(w.job->cases.size())
                                   ? w.job->cases[w.next_case].setup_allowance_s
                                   : default_setup_allowance_s;
      if (since(w.last_message, now) > allowance)
        timeout(w, fmt::format("no answer for {}", seconds_text(since(w.last_message, now))));
      break;
    }
    case phase::in_case: {
      const planned_case& c = w.job->cases[w.current];
      const double silence = c.setup_allowance_s + 2 * w.longest_run;
      const double total = c.deadline_s(m_options.measurement) + 3 * w.longest_run;
      if (since(w.last_message, now) > silence)
        timeout(w, fmt::format("no answer for {}", seconds_text(since(w.last_message, now))));
      else if (since(w.case_started, now) > total)
        timeout(w, fmt::format("still measuring after {} (the case's deadline)",
                               seconds_text(since(w.case_started, now))));
      break;
    }
    case phase::finishing:
      if (since(w.last_message, now) > exit_after_done_s && !w.kill_sent) {
        w.child->send_signal(SIGKILL); // every result is in: not a failure
        w.kill_sent = true;
      }
      break;
    case phase::queued:
    case phase::ended:
      break;
    }
  }

  void timeout(worker& w, std::string what) {
    stop(w, failure_kind::worker_timeout, std::move(what));
  }

  void violation(worker& w, std::string what) {
    stop(w, failure_kind::worker_protocol, std::move(what));
  }

  void stop(worker& w, failure_kind kind, std::string what) {
    if (w.failure || w.state == phase::ended)
      return;
    w.failure = kind;
    w.failure_text = std::move(what);
    request_stop(w);
  }

  void request_stop(worker& w) {
    if (w.stop_requested)
      return;
    w.stop_requested = true;
    w.stop_sent = clock::now();
    w.child->send_signal(SIGTERM);
  }

  void on_interrupt() {
    m_interrupt_seen = true;
    for (worker& w : m_workers) {
      if (w.state == phase::queued) {
        w.state = phase::ended; // never started: no results (the report says interrupted)
        continue;
      }
      if (!w.running() || w.state == phase::finishing || w.stop_requested)
        continue;
      w.interrupted = true;
      request_stop(w);
    }
  }

  void update_busy() {
    const int busy =
        static_cast<int>(std::count_if(m_workers.begin(), m_workers.end(),
                                       [](const worker& w) { return w.state == phase::in_case; }));
    for (worker& w : m_workers)
      if (w.state == phase::in_case)
        w.busy_max = std::max(w.busy_max, busy);
  }

  // --------------------------------------------------------------------------- ending

  void emit(worker& w, int case_index, reports::result r) {
    journal_entry entry{w.job->device, case_index, std::move(r)};
    if (w.job->node_wide()) {
      // One case over several GPUs: every one of them was busy with it, and its result (the
      // watchdog's too) covers them all.
      entry.node_wide = true;
      entry.result.devices = w.job->devices;
      entry.result.gpus_busy = static_cast<int>(w.job->devices.size());
    }
    // A MIG device's results are the instance's, the watchdog's too (docs/mig.md).
    if (w.job->mig)
      entry.result.mig = w.job->mig;
    m_observer.on_result(entry);
  }

  void finish(worker& w) {
    const auto now = clock::now();
    const exit_status status = w.child->status().value_or(exit_status{});
    const int device = w.job->device;
    const auto& cases = w.job->cases;
    const bool measured_all = w.next_case == static_cast<int>(cases.size()) && w.current < 0;
    const bool said_done = w.state == phase::finishing;

    if (!w.failure && said_done && measured_all) {
      // Normal end. An unclean exit after every result arrived loses nothing; it is logged.
      if (!status.clean())
        m_observer.on_worker_lost(*w.job, fmt::format("{} after its last case", status.describe()),
                                  w.log_tail);
      end(w);
      return;
    }

    if (!w.failure && w.interrupted) {
      // Stopped by the user: the case in progress, if the worker did not return it, is kept as
      // skipped; cases not started get no result.
      if (w.current >= 0)
        emit(w, w.current,
             unmeasured_result(
                 cases[w.current], device, result_status::skipped, failure_kind::none,
                 w.kill_sent ? fmt::format("interrupted: the worker did not return the case "
                                           "within {} of the interrupt and was killed",
                                           seconds_text(m_options.interrupt_grace_s))
                             : fmt::format("interrupted: the worker {} without returning the case",
                                           status.describe())));
      end(w);
      return;
    }

    failure_kind kind = w.failure.value_or(failure_kind::worker_exit);
    std::string what = w.failure_text; // "no answer for 45 s", "the worker sent ..."
    if (!w.failure) {
      if (status.signalled) {
        kind = failure_kind::worker_signal;
        what = fmt::format("the worker {}", status.describe());
      } else if (status.code == sticky_error_exit_code) {
        what = fmt::format("the worker {}: a sticky CUDA error left its context unusable",
                           status.describe());
      } else if (status.code != 0) {
        what = fmt::format("the worker {}", status.describe());
      } else if (!w.lines.pending().empty()) {
        kind = failure_kind::worker_protocol;
        what = "the worker's last line was cut short";
      } else {
        what = fmt::format("the worker {} before it had finished its cases", status.describe());
      }
    }
    const char* killed = w.failure ? "; worker killed" : "";
    std::string where;
    if (w.current >= 0)
      where = fmt::format("in {} ({} into the case)", cases[w.current].label(),
                          seconds_text(since(w.case_started, now)));
    else if (w.last_done >= 0)
      where = fmt::format("after {}, between cases", cases[w.last_done].label());
    else
      where = fmt::format("before its first case, {} after it started",
                          seconds_text(since(w.started, now)));
    const std::string last_words = last_line_of(w.log_tail);
    const std::string headline = fmt::format("{}: {} {}{}", w.job->label(), what, where, killed);

    if (w.current >= 0) {
      emit(w, w.current,
           unmeasured_result(cases[w.current], device, result_status::failed, kind,
                             last_words.empty() ? headline
                                                : fmt::format("{} (its last words on stderr: {})",
                                                              headline, last_words)));
      w.current = -1;
    }
    ++w.losses;
    const int remaining = static_cast<int>(cases.size()) - w.next_case;
    const std::string no_fresh = remaining > 0 ? why_no_fresh_worker(w) : std::string();
    if (remaining > 0 && no_fresh.empty()) {
      m_observer.on_worker_lost(*w.job,
                                fmt::format("{}; a fresh worker measures its {} remaining case{}",
                                            headline, remaining, remaining == 1 ? "" : "s"),
                                w.log_tail);
      restart(w);
      return;
    }
    for (int i = w.next_case; i < static_cast<int>(cases.size()); ++i)
      emit(w, i,
           unmeasured_result(cases[i], device, result_status::failed, kind,
                             fmt::format("{}: not run: the worker was lost {}: {}{}{}",
                                         w.job->label(), where, what, killed, no_fresh)));
    m_observer.on_worker_lost(*w.job, headline + no_fresh, w.log_tail);
    end(w);
  }

  /// Why a lost worker gets no fresh one ("; ..." to append to the reasons), or "".
  std::string why_no_fresh_worker(const worker& w) {
    if (m_interrupt_seen)
      return "; no fresh worker after an interrupt";
    if (w.fresh_left <= 0)
      return w.losses > 1 ? fmt::format("; its {} workers were lost, which ends the GPU", w.losses)
                          : std::string();
    if (m_options.gpu_lost)
      for (int d : w.job->node_wide() ? w.job->devices : std::vector<int>{w.job->device})
        if (m_options.gpu_lost(d))
          return fmt::format("; NVML says GPU {} is lost: no fresh worker", d);
    return {};
  }

  /// The job's assignment for a fresh worker: the same, from the next case on.
  std::string fresh_assignment(const worker& w) {
    auto a = assignment_from_text(w.job->assignment, "the job's assignment");
    if (!a)
      throw std::logic_error(a.error().to_string()); // the session wrote it: a bug
    a.value().first_case = w.next_case;
    return assignment_to_text(a.value());
  }

  /// A fresh worker for the rest of `w`'s job, in `w`'s place (and its concurrency slot).
  void restart(worker& w) {
    --w.fresh_left;
    w.child.reset();
    w.lines = line_splitter(m_options.max_line_bytes);
    w.pending_input.clear();
    w.log_tail.clear();
    w.longest_run = 0;
    w.busy_max = 0;
    w.interrupted = w.stop_requested = w.kill_sent = w.gone = false;
    w.failure.reset();
    w.failure_text.clear();
    w.line_number = 0;
    update_busy();
    start(w);
  }

  void end(worker& w) {
    w.state = phase::ended;
    w.current = -1;
    w.child.reset();
    update_busy();
    m_observer.on_worker_finished(*w.job);
  }

  const coordinator_options& m_options;
  coordinator_observer& m_observer;
  const std::atomic<bool>& m_interrupted;
  std::vector<worker> m_workers;
  bool m_interrupt_seen = false;
};

} // namespace

std::string worker_job::label() const {
  if (mig)
    return fmt::format("GPU {} {}", device, reports::mig_label(*mig));
  if (!node_wide())
    return fmt::format("GPU {}", device);
  return fmt::format("GPU{} {} (node-wide)", devices.size() == 1 ? "" : "s",
                     fmt::join(devices, ","));
}

std::vector<std::string> worker_environment(const worker_job& job) {
  // A MIG device is selected with CUDA_VISIBLE_DEVICES=MIG-<uuid> (CUDA C++ Programming Guide,
  // "CUDA Environment Variables"; docs/mig.md); a whole GPU's worker keeps every GPU visible
  // (docs/design.md, "Collectives, many nodes, burn-in").
  if (!job.mig)
    return {};
  return {"CUDA_VISIBLE_DEVICES=" + job.mig->uuid};
}

reports::result unmeasured_result(const planned_case& c, int device, result_status status,
                                  failure_kind failure, std::string reason) {
  reports::result r;
  r.bench_id = c.bench_id;
  r.devices = {device};
  for (const auto& [name, value] : c.axes)
    r.axes[name] = value;
  r.telemetry.status = "not measured";
  r.check.detail = "not measured";
  r.status = status;
  r.failure = status == result_status::failed ? failure : failure_kind::none;
  r.reason = std::move(reason);
  return r;
}

void run_workers(const coordinator_options& options, const std::vector<worker_job>& jobs,
                 coordinator_observer& observer, const std::atomic<bool>& interrupted) {
  coordinator c(options, jobs, observer, interrupted);
  c.run();
}

} // namespace gpuspec::spine
