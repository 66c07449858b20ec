// The life of a run (session.hpp).

#include "gpuspec/spine/session.hpp"

#include <poll.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <ctime>
#include <set>
#include <system_error>

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpuspec/host/device_probe.hpp"
#include "gpuspec/host/gpu_activity.hpp"
#include "gpuspec/host/host_checks.hpp"
#include "gpuspec/host/kernel_log.hpp"
#include "gpuspec/host/run_kernel_log.hpp"
#include "gpuspec/reports/report_json.hpp"
#include "gpuspec/reports/text_format.hpp"
#include "gpuspec/spine/child_process.hpp"
#include "gpuspec/spine/journal.hpp"

namespace gpuspec::spine {
namespace {

/// How long `<worker> --plan` may take: it only lists the registry.
constexpr double plan_timeout_s = 60.0;

std::string utc_iso_now() {
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(std::time(nullptr)));
}

struct finished_process {
  exit_status status;
  std::string out, err;
  bool timed_out = false;
};

/// Runs argv to its end, collecting stdout and stderr; killed past `timeout_s`.
finished_process run_to_end(const std::vector<std::string>& argv, double timeout_s) {
  child_process child = child_process::spawn(argv);
  std::string nothing;
  (void)child.write_stdin(nothing); // closes stdin
  finished_process out;
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (child.stdout_fd() >= 0 || child.stderr_fd() >= 0) {
    std::vector<pollfd> fds;
    for (int fd : {child.stdout_fd(), child.stderr_fd()})
      if (fd >= 0)
        fds.push_back(pollfd{fd, POLLIN, 0});
    (void)::poll(fds.data(), fds.size(), 100);
    for (const auto& p : fds)
      if (p.revents != 0)
        (void)child.read_available(p.fd, p.fd == child.stdout_fd() ? out.out : out.err);
    if (std::chrono::steady_clock::now() > until) {
      out.timed_out = true;
      child.send_signal(SIGKILL);
      break;
    }
  }
  out.status = child.wait();
  return out;
}

/// The session's observer of the coordinator: every result journalled and kept, a checkpoint of
/// the report when a worker is lost, the caller's observer told of everything.
class journalling_observer final : public coordinator_observer {
public:
  journalling_observer(session_observer& next, journal_writer& journal, reports::report& report,
                       const std::filesystem::path& output)
      : m_next(next), m_journal(journal), m_report(report), m_output(output) {}

  void on_worker_started(int device, int pid) override { m_next.on_worker_started(device, pid); }
  void on_case_started(int device, int index, const planned_case& c) override {
    m_next.on_case_started(device, index, c);
  }
  void on_progress(int device, int index, int runs) override {
    m_next.on_progress(device, index, runs);
  }
  void on_result(const journal_entry& entry) override {
    m_entries.push_back(entry);
    if (m_journal_ok) {
      try {
        m_journal.append(entry);
      } catch (const std::system_error& e) {
        m_journal_ok = false;
        m_next.on_note(fmt::format("{}; results are kept in memory and written to the report at "
                                   "the end",
                                   e.what()));
      }
    }
    m_next.on_result(entry);
  }
  void on_worker_lost(int device, const std::string& what, const std::string& log) override {
    m_next.on_worker_lost(device, what, log);
    checkpoint();
  }
  void on_worker_finished(int device) override { m_next.on_worker_finished(device); }

  /// The report so far, results in report order, written atomically.
  void checkpoint() {
    fill_results();
    try {
      reports::save_report(m_output, m_report);
    } catch (const std::exception& e) {
      m_next.on_note(
          fmt::format("could not write the checkpoint {}: {}", m_output.string(), e.what()));
    }
  }

  void fill_results() {
    std::vector<journal_entry> sorted = m_entries;
    sort_into_report_order(sorted, m_report.run.devices);
    m_report.results.clear();
    for (auto& e : sorted)
      m_report.results.push_back(std::move(e.result));
  }

  [[nodiscard]] bool journal_ok() const { return m_journal_ok; }

private:
  session_observer& m_next;
  journal_writer& m_journal;
  reports::report& m_report;
  std::filesystem::path m_output;
  std::vector<journal_entry> m_entries;
  bool m_journal_ok = true;
};

void record_counters_after(const benches::nvml_library& nvml,
                           std::vector<reports::device_info>& devices) {
  for (auto& d : devices) {
    d.counters_after = benches::read_error_counters(nvml, d.index);
    d.counters_delta = benches::counter_delta(d.counters_before, d.counters_after);
  }
}

/// The kernel log's Xids since the run started, as events of the results they hit; what cannot
/// be read or placed is said. steady_clock is CLOCK_MONOTONIC, which the log's times count.
void add_kernel_log_xids(const session_options& o, reports::report& report,
                         std::chrono::steady_clock::time_point origin, session_observer& observer) {
  const auto log = benches::read_kernel_log(o.kernel_log_file);
  if (!log.read) {
    observer.on_note(fmt::format("the kernel log could not be read ({}): the run's Xids are those "
                                 "NVML's event set saw",
                                 log.why));
    return;
  }
  const double start_s = std::chrono::duration<double>(origin.time_since_epoch()).count();
  const double end_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  for (const auto& note : benches::place_kernel_log_xids(report, log.text, start_s, end_s).notes)
    observer.on_note(note);
}

std::vector<int> selected_devices(const session_options& o, const inventory& inv) {
  std::vector<int> out;
  if (o.devices.empty()) {
    for (const auto& d : inv.devices)
      out.push_back(d.index);
    return out;
  }
  std::set<int> seen;
  for (int index : o.devices) {
    const bool known = std::any_of(inv.devices.begin(), inv.devices.end(),
                                   [&](const reports::device_info& d) { return d.index == index; });
    if (!known && nvml_lists_gpus(inv))
      throw session_input_error(fmt::format("--devices: there is no GPU {} (this host has {})",
                                            index, inv.devices.size()));
    if (seen.insert(index).second)
      out.push_back(index);
  }
  return out;
}

} // namespace

worker_plan ask_plan(const std::vector<std::string>& worker_command, const plan_request& request) {
  std::vector<std::string> argv = worker_command;
  argv.insert(argv.end(), {"--plan", "--suite", request.suite, "--filter", request.filter, "--gpus",
                           plan_gpus_text(request.gpus)});
  finished_process p = run_to_end(argv, plan_timeout_s);
  const std::string program = worker_command.empty() ? "" : worker_command.front();
  std::string err = p.err;
  while (!err.empty() && err.back() == '\n')
    err.pop_back();
  if (p.timed_out)
    throw std::runtime_error(fmt::format("the worker {} did not list its plan within {:.0f} s",
                                         program, plan_timeout_s));
  if (!p.status.signalled && p.status.code == 3)
    throw session_input_error(err.empty() ? "the worker rejected the suite or the filter" : err);
  if (!p.status.clean())
    throw std::runtime_error(fmt::format("the worker {} {} while listing its plan{}{}", program,
                                         p.status.describe(), err.empty() ? "" : ": ", err));
  auto plan = plan_from_text(p.out, fmt::format("the plan of {}", program));
  if (!plan)
    throw std::runtime_error(plan.error().to_string());
  return std::move(plan).value();
}

session_outcome run_session(const session_options& o, const runtime_enrichment& enrich,
                            session_observer& observer, const std::atomic<bool>& interrupted) {
  const auto clock_origin = std::chrono::steady_clock::now();
  session_outcome out;
  reports::report& report = out.report;
  report.run.tool_version = o.tool_version;
  report.run.started_utc = utc_iso_now();
  report.run.suite = o.suite;
  report.run.filter = o.filter;
  report.run.command_line = o.command_line;

  inventory inv = take_inventory(o.root, enrich);
  if (inv.nvml)
    for (auto& d : inv.devices)
      d.activity = benches::read_gpu_activity(*inv.nvml, d.index, o.root);
  std::optional<loaded_specs> specs;
  if (auto loaded = load_specs(o.specs_file)) {
    specs = std::move(loaded).value();
    match_spec_rows(specs->table, inv.devices);
  } else if (o.specs_file_given) {
    throw session_input_error(loaded.error().to_string());
  } else if (!inv.devices.empty()) {
    observer.on_note(fmt::format("no spec table, GPUs are not matched to a row: {}",
                                 loaded.error().to_string()));
  }
  inv.host.checks = benches::evaluate_host_checks(inv.host, inv.devices);
  report.host = inv.host;
  report.devices = inv.devices;
  report.run.devices = selected_devices(o, inv);
  report.run.backend = "none";

  const auto write_without_run = [&](std::string why) {
    out.no_run_reason = why;
    report.complete = false;
    report.incomplete_reason = std::move(why);
    report.run.finished_utc = utc_iso_now();
    reports::save_report(o.output, report);
    return std::move(out);
  };

  if (!nvml_lists_gpus(inv))
    return write_without_run("no GPU: " + inv.host.gpu_status);
  // The idle precondition: a GPU another process uses would give figures of a shared GPU, and
  // the run would disturb that process. Refused unless --allow-busy; the check says why.
  std::vector<int> measured;
  session_plan told;
  for (int index : report.run.devices) {
    const reports::device_info& d =
        *std::find_if(report.devices.begin(), report.devices.end(),
                      [&](const reports::device_info& x) { return x.index == index; });
    if (!o.allow_busy && d.activity && !d.activity->processes.empty()) {
      told.refused.emplace_back(
          index, fmt::format("GPU {} refused: in use by {}; not measured (--allow-busy measures "
                             "it anyway)",
                             index, reports::processes_text(d.activity->processes)));
      continue;
    }
    measured.push_back(index);
  }
  for (const auto& [index, why] : told.refused)
    observer.on_note(why);
  if (measured.empty())
    return write_without_run("every selected GPU is in use by another process (--allow-busy "
                             "measures them anyway)");

  worker_plan plan;
  try {
    // The plan fits the node: the node-wide cases are planned for the GPUs measured.
    plan = ask_plan(o.worker_command, plan_request{o.suite, o.filter, measured});
  } catch (const session_input_error&) {
    throw;
  } catch (const std::exception& e) {
    // A worker that cannot even plan is a broken installation: nothing can be measured, and
    // the inventory is still worth its report.
    return write_without_run(std::string("the worker could not plan the run: ") + e.what());
  }
  if (!plan.unavailable.empty())
    return write_without_run("no benchmarks: " + plan.unavailable);
  // A CUDA worker needs the CUDA runtime to see the GPUs; a stand-in does not.
  if (plan.backend == "cuda" && inv.host.gpu_status != "ok")
    return write_without_run("no GPU: " + inv.host.gpu_status);
  if (plan.cases.empty())
    return write_without_run(fmt::format("no benchmark of suite '{}' matches the filter '{}' on "
                                         "the {} GPU(s) measured (a peer benchmark needs two)",
                                         o.suite, o.filter, measured.size()));

  report.run.backend = plan.backend;

  const int gpu_count = static_cast<int>(measured.size());
  const int concurrency = o.concurrency > 0 ? std::min(o.concurrency, gpu_count) : gpu_count;
  report.run.concurrency = concurrency;

  // One-GPU cases run on every selected GPU, each in its own worker; node-wide cases (a
  // collective over every GPU) run once afterwards, in one worker given every selected GPU,
  // when the GPUs are otherwise idle.
  std::vector<planned_case> gpu_cases, node_cases;
  for (const auto& c : plan.cases)
    (c.node_wide ? node_cases : gpu_cases).push_back(c);

  const auto device_of = [&](int index) -> const reports::device_info& {
    return *std::find_if(report.devices.begin(), report.devices.end(),
                         [&](const reports::device_info& x) { return x.index == index; });
  };
  const auto assignment_for = [&](std::vector<int> indices, std::vector<planned_case> cases) {
    worker_assignment a;
    std::vector<std::string> spec_ids;
    for (int index : indices) {
      a.devices.push_back(device_of(index));
      const std::string& id = a.devices.back().spec_id;
      if (!id.empty() && std::find(spec_ids.begin(), spec_ids.end(), id) == spec_ids.end())
        spec_ids.push_back(id);
    }
    a.device = a.devices.front();
    a.cases = std::move(cases);
    a.suite = o.suite;
    a.stopping = o.stopping;
    a.telemetry_period_ms = o.telemetry_period_ms;
    a.stream_array_bytes = o.stream_array_bytes;
    a.duration_s = o.duration_s;
    if (specs && !spec_ids.empty())
      a.spec_rows = spec_rows_document(*specs, spec_ids);
    a.clock_origin_ns =
        std::chrono::duration_cast<std::chrono::nanoseconds>(clock_origin.time_since_epoch())
            .count();
    a.nvml_library = nvml_library_path();
    return assignment_to_text(a);
  };

  std::vector<worker_job> jobs;
  if (!gpu_cases.empty())
    for (int index : measured)
      jobs.push_back(worker_job{index, gpu_cases, assignment_for({index}, gpu_cases), {}});
  std::vector<worker_job> node_jobs;
  if (!node_cases.empty())
    node_jobs.push_back(
        worker_job{measured.front(), node_cases, assignment_for(measured, node_cases), measured});

  told.backend = plan.backend;
  told.devices = measured;
  told.cases_per_gpu = gpu_cases.size();
  told.node_cases = node_cases.size();
  told.concurrency = concurrency;
  const auto expected_s = [&](const planned_case& c) {
    return 1.0 + (c.runs_for_duration && o.duration_s
                      ? *o.duration_s
                      : std::min(o.stopping.max_seconds, o.stopping.min_seconds));
  };
  const auto deadline_s = [&](const planned_case& c) {
    return case_deadline_s(c.setup_allowance_s, o.stopping.max_seconds,
                           c.runs_for_duration ? o.duration_s.value_or(0) : 0.0);
  };
  for (const auto& c : gpu_cases) {
    told.expected_s += expected_s(c);
    told.deadline_s += deadline_s(c);
  }
  const double waves =
      gpu_cases.empty() ? 0.0 : std::ceil(static_cast<double>(gpu_count) / concurrency);
  told.expected_s *= waves;
  told.deadline_s = told.deadline_s * waves + plan.startup_allowance_s * waves;
  for (const auto& c : node_cases) {
    told.expected_s += expected_s(c);
    told.deadline_s += deadline_s(c);
  }
  if (!node_cases.empty())
    told.deadline_s += plan.startup_allowance_s;
  observer.on_plan(told);

  // The report exists from the start (a path that cannot be written is found before anything
  // is measured), and the journal beside it.
  report.complete = false;
  report.incomplete_reason = "the run is in progress (or its coordinator was stopped)";
  reports::save_report(o.output, report);
  out.journal = journal_path_for(o.output);
  journal_writer journal(out.journal, report);

  coordinator_options co;
  co.worker_command = o.worker_command;
  co.backend = plan.backend;
  co.concurrency = concurrency;
  co.max_time_s = o.stopping.max_seconds;
  co.duration_s = o.duration_s.value_or(0);
  co.startup_allowance_s = plan.startup_allowance_s;
  co.kill_grace_s = o.kill_grace_s;
  journalling_observer journalled(observer, journal, report, o.output);
  if (!jobs.empty())
    run_workers(co, jobs, journalled, interrupted);
  if (!node_jobs.empty() && !interrupted.load())
    run_workers(co, node_jobs, journalled, interrupted);

  if (inv.nvml)
    record_counters_after(*inv.nvml, report.devices);
  journalled.fill_results();
  add_kernel_log_xids(o, report, clock_origin, observer);
  report.run.finished_utc = utc_iso_now();
  report.complete = !interrupted.load();
  report.incomplete_reason = report.complete ? "" : "interrupted";
  if (journalled.journal_ok()) {
    try {
      journal.finish(report);
    } catch (const std::system_error& e) {
      observer.on_note(e.what());
    }
  }
  try {
    reports::save_report(o.output, report);
  } catch (const std::exception& e) {
    out.journal_kept = true;
    observer.on_note(fmt::format("could not write the report {}: {}; the journal {} holds every "
                                 "result (gpuspec run --recover {})",
                                 o.output.string(), e.what(), out.journal.string(),
                                 out.journal.string()));
    return out;
  }
  std::error_code ec;
  std::filesystem::remove(out.journal, ec);
  return out;
}

reports::outcome<reports::report> recover_session(const std::filesystem::path& journal,
                                                  const std::filesystem::path& output) {
  auto report = recover_report(journal);
  if (!report)
    return report;
  reports::save_report(output, report.value());
  return report;
}

} // namespace gpuspec::spine
