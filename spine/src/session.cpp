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
#include "gpuspec/reports/judge/host_rules.hpp"
#include "gpuspec/reports/model/report_json.hpp"
#include "gpuspec/reports/model/text_format.hpp"
#include "gpuspec/spine/child_process.hpp"
#include "gpuspec/spine/journal.hpp"
#include "gpuspec/spine/mig_units.hpp"

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

  void on_worker_started(const worker_job& job, int pid) override {
    m_next.on_worker_started(job, pid);
  }
  void on_case_started(const worker_job& job, int index, const planned_case& c) override {
    m_next.on_case_started(job, index, c);
  }
  void on_progress(const worker_job& job, int index, int runs) override {
    m_next.on_progress(job, index, runs);
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
  void on_worker_lost(const worker_job& job, const std::string& what,
                      const std::string& log) override {
    m_next.on_worker_lost(job, what, log);
    checkpoint();
  }
  void on_worker_finished(const worker_job& job) override { m_next.on_worker_finished(job); }

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

void record_counters_after(const host::nvml_library& nvml,
                           std::vector<reports::device_info>& devices) {
  for (auto& d : devices) {
    d.counters_after = host::read_error_counters(nvml, d.index);
    d.counters_delta = host::counter_delta(d.counters_before, d.counters_after);
  }
}

/// The kernel log's Xids since the run started, as events of the results they hit; what cannot
/// be read or placed is said. steady_clock is CLOCK_MONOTONIC, which the log's times count.
void add_kernel_log_xids(const session_options& o, reports::report& report,
                         std::chrono::steady_clock::time_point origin, session_observer& observer) {
  const auto log = host::read_kernel_log(o.kernel_log_file);
  if (!log.read) {
    observer.on_note(fmt::format("the kernel log could not be read ({}): the run's Xids are those "
                                 "NVML's event set saw",
                                 log.why));
    return;
  }
  const double start_s = std::chrono::duration<double>(origin.time_since_epoch()).count();
  const double end_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  const auto span = log.one_boot ? reports::log_span::one_boot : reports::log_span::saved;
  for (const auto& note : host::place_kernel_log_xids(report, log.text, start_s, end_s, span).notes)
    observer.on_note(note);
}

std::vector<int> selected_devices(const session_options& o, const inventory& inv) {
  std::vector<int> out;
  if (o.devices.empty() && o.mig_devices.empty()) {
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
  // A MIG device named alone selects its GPU, measured as the MIG devices named.
  for (const mig_choice& c : resolve_mig_choices(o.mig_devices, inv.devices))
    if (seen.insert(c.device).second)
      out.push_back(c.device);
  return out;
}

/// A run that measures nothing: the inventory and the host checks are still worth their report,
/// which says why.
session_outcome write_without_run(const session_options& o, session_outcome out, std::string why) {
  out.no_run_reason = why;
  out.report.complete = false;
  out.report.incomplete_reason = std::move(why);
  out.report.run.finished_utc = utc_iso_now();
  reports::save_report(o.output, out.report);
  return out;
}

/// The spec table, loaded once at the session's start (the check after the run is handed it):
/// bad input when --specs named it, else the reason is kept and the run goes on without it.
void load_run_specs(const session_options& o, session_outcome& out) {
  auto loaded = load_specs(o.specs_file);
  if (loaded) {
    out.specs = std::move(loaded).value();
    return;
  }
  if (o.specs_file_given)
    throw session_input_error(loaded.error().to_string());
  out.specs_error = loaded.error();
}

/// The report begun: the run's record, the inventory (the one composition, with the spec
/// table's rows matched), each GPU's activity (for the idle precondition), the GPUs selected.
inventory begin_report(const session_options& o, const runtime_enrichment& enrich,
                       session_outcome& out, session_observer& observer) {
  reports::report& report = out.report;
  report.run.tool_version = o.tool_version;
  report.run.build = o.build;
  report.run.started_utc = utc_iso_now();
  report.run.suite = o.measurement.suite;
  report.run.filter = o.filter;
  report.run.command_line = o.command_line;

  load_run_specs(o, out);
  inventory inv = compose_inventory(o.root, enrich, out.specs ? &out.specs->table : nullptr);
  if (out.specs_error && !inv.devices.empty())
    observer.on_note(fmt::format("no spec table, GPUs are not matched to a row: {}",
                                 out.specs_error->to_string()));
  if (inv.nvml)
    for (auto& d : inv.devices)
      d.activity = host::read_gpu_activity(*inv.nvml, d.index, o.root);
  report.host = inv.host;
  report.devices = inv.devices;
  report.run.devices = selected_devices(o, inv);
  report.run.backend = "none";
  return inv;
}

const reports::device_info& device_of(const reports::report& report, int index) {
  return *std::find_if(report.devices.begin(), report.devices.end(),
                       [&](const reports::device_info& x) { return x.index == index; });
}

/// The idle precondition: a GPU another process uses would give figures of a shared GPU, and
/// the run would disturb that process. Refused unless --allow-busy (told.refused says why, and
/// so does the check); the GPUs measured are returned.
std::vector<int> apply_idle_precondition(const session_options& o, const reports::report& report,
                                         session_plan& told, session_observer& observer) {
  std::vector<int> measured;
  for (int index : report.run.devices) {
    const reports::device_info& d = device_of(report, index);
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
  return measured;
}

/// The GPUs of `measured` that are not partitioned.
std::vector<int> whole_gpus(const std::vector<int>& measured,
                            const std::vector<reports::device_info>& devices) {
  std::vector<int> out;
  for (int index : measured)
    if (std::none_of(devices.begin(), devices.end(), [&](const reports::device_info& d) {
          return d.index == index && is_partitioned(d);
        }))
      out.push_back(index);
  return out;
}

/// The worker's plan for the GPUs measured, or (no_run) why nothing can be measured.
struct planned_run {
  worker_plan plan;
  std::string no_run;
};

planned_run plan_run(const session_options& o, const std::vector<int>& measured,
                     const inventory& inv) {
  planned_run out;
  try {
    // The plan fits the node: the node-wide cases are planned for the GPUs measured, the whole
    // ones where some are partitioned (a MIG device takes part in none: docs/mig.md).
    const std::vector<int> whole = whole_gpus(measured, inv.devices);
    out.plan = ask_plan(o.worker_command, plan_request{o.measurement.suite, o.filter,
                                                       whole.empty() ? measured : whole});
  } catch (const session_input_error&) {
    throw;
  } catch (const std::exception& e) {
    // A worker that cannot even plan is a broken installation: nothing can be measured, and
    // the inventory is still worth its report.
    out.no_run = std::string("the worker could not plan the run: ") + e.what();
    return out;
  }
  if (!out.plan.unavailable.empty())
    out.no_run = "no benchmarks: " + out.plan.unavailable;
  // A CUDA worker needs the CUDA runtime to see the GPUs; a stand-in does not.
  else if (out.plan.backend == "cuda" && inv.host.gpu_status != "ok")
    out.no_run = "no GPU: " + inv.host.gpu_status;
  else if (out.plan.cases.empty())
    out.no_run = fmt::format("no benchmark of suite '{}' matches the filter '{}' on the {} GPU(s) "
                             "measured (a peer benchmark needs two)",
                             o.measurement.suite, o.filter, measured.size());
  return out;
}

/// The workers of the run: one-GPU cases run on every GPU measured, each in its own worker;
/// node-wide cases (a collective over every GPU) run once afterwards, in one worker given
/// every GPU measured, when the GPUs are otherwise idle.
struct run_jobs {
  std::vector<planned_case> gpu_cases, node_cases;
  std::vector<worker_job> gpu_jobs, node_jobs;
  /// The node-wide cases' results on partitioned GPUs, which take part in none (not_supported).
  std::vector<journal_entry> not_on_mig;
};

/// The assignment of a worker measuring `cases` on `indices`: the GPUs, the run's measurement
/// options, the spec-table rows the GPUs matched, the run's clock origin, the NVML to open.
std::string assignment_text(const session_options& o, const session_outcome& out,
                            const std::vector<int>& indices, std::vector<planned_case> cases,
                            std::chrono::steady_clock::time_point clock_origin,
                            const std::string& mig_uuid = "") {
  worker_assignment a;
  std::vector<std::string> spec_ids;
  for (int index : indices) {
    a.devices.push_back(device_of(out.report, index));
    const std::string& id = a.devices.back().spec_id;
    if (!id.empty() && std::find(spec_ids.begin(), spec_ids.end(), id) == spec_ids.end())
      spec_ids.push_back(id);
  }
  a.device = a.devices.front();
  a.cases = std::move(cases);
  a.options = o.measurement;
  if (out.specs && !spec_ids.empty())
    a.spec_rows = spec_rows_document(*out.specs, spec_ids);
  a.clock_origin_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(clock_origin.time_since_epoch()).count();
  a.nvml_library = nvml_library_path();
  a.mig_uuid = mig_uuid;
  return assignment_to_text(a);
}

run_jobs make_jobs(const session_options& o, const session_outcome& out,
                   const std::vector<measured_unit>& units, const std::vector<int>& measured,
                   const worker_plan& plan, std::chrono::steady_clock::time_point clock_origin) {
  run_jobs jobs;
  for (const auto& c : plan.cases)
    (c.node_wide ? jobs.node_cases : jobs.gpu_cases).push_back(c);
  if (!jobs.gpu_cases.empty())
    for (const measured_unit& u : units) {
      std::optional<reports::mig_ref> mig;
      if (u.mig)
        mig = reports::ref_of(*u.mig);
      jobs.gpu_jobs.push_back(worker_job{u.device,
                                         jobs.gpu_cases,
                                         assignment_text(o, out, {u.device}, jobs.gpu_cases,
                                                         clock_origin, u.mig ? u.mig->uuid : ""),
                                         {},
                                         std::move(mig)});
    }
  if (jobs.node_cases.empty())
    return jobs;
  // Node-wide cases run over the whole GPUs; partitioned GPUs take part in none, and each case
  // says so on them (docs/mig.md).
  const std::vector<int> whole = whole_gpus(measured, out.report.devices);
  std::vector<int> partitioned;
  for (int index : measured)
    if (std::find(whole.begin(), whole.end(), index) == whole.end())
      partitioned.push_back(index);
  if (!whole.empty())
    jobs.node_jobs.push_back(
        worker_job{whole.front(),
                   jobs.node_cases,
                   assignment_text(o, out, whole, jobs.node_cases, clock_origin),
                   whole,
                   {}});
  for (std::size_t i = 0; !partitioned.empty() && i < jobs.node_cases.size(); ++i) {
    reports::result r = unmeasured_result(
        jobs.node_cases[i], partitioned.front(), reports::result_status::not_supported,
        reports::failure_kind::none, mig_node_wide_reason(partitioned));
    r.devices = partitioned;
    jobs.not_on_mig.push_back(
        journal_entry{partitioned.front(), static_cast<int>(i), std::move(r), true});
  }
  return jobs;
}

/// What the run will do, told before it starts: per case 1 s of setup plus --min-time (or the
/// burn-in's duration), and the sum of the deadlines, over the waves --concurrency makes.
session_plan estimate(const session_options& o, const worker_plan& plan, const run_jobs& jobs,
                      const std::vector<int>& measured, const std::vector<measured_unit>& units,
                      int concurrency, session_plan told) {
  const host::measurement_options& m = o.measurement;
  told.backend = plan.backend;
  told.devices = measured;
  told.units = units;
  told.cases_per_gpu = jobs.gpu_cases.size();
  told.node_cases = jobs.node_cases.size();
  told.concurrency = concurrency;
  const auto expected_s = [&](const planned_case& c) {
    return 1.0 + (c.runs_for_duration && m.duration_s
                      ? *m.duration_s
                      : std::min(m.stopping.max_seconds, m.stopping.min_seconds));
  };
  for (const auto& c : jobs.gpu_cases) {
    told.expected_s += expected_s(c);
    told.deadline_s += c.deadline_s(m);
  }
  const double waves =
      jobs.gpu_cases.empty()
          ? 0.0
          : std::ceil(static_cast<double>(jobs.gpu_jobs.size()) / concurrency); // a MIG device each
  told.expected_s *= waves;
  told.deadline_s = told.deadline_s * waves + plan.startup_allowance_s * waves;
  for (const auto& c : jobs.node_cases) {
    told.expected_s += expected_s(c);
    told.deadline_s += c.deadline_s(m);
  }
  if (!jobs.node_cases.empty())
    told.deadline_s += plan.startup_allowance_s;
  return told;
}

/// After the workers: the error counters after, the results in report order, the kernel log's
/// Xids, the journal's end line, the report written atomically (the journal removed, or kept
/// and named when the report cannot be written).
void finish(const session_options& o, const inventory& inv,
            std::chrono::steady_clock::time_point clock_origin, journal_writer& journal,
            journalling_observer& journalled, session_outcome& out, session_observer& observer,
            const std::atomic<bool>& interrupted) {
  reports::report& report = out.report;
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
    return;
  }
  std::error_code ec;
  std::filesystem::remove(out.journal, ec);
}

/// The report written at once (a path that cannot be written is found before anything is
/// measured) and the journal beside it; the workers under the watchdog, the one-GPU ones first;
/// then finish.
void measure(const session_options& o, const worker_plan& plan, const run_jobs& jobs,
             int concurrency, const inventory& inv,
             std::chrono::steady_clock::time_point clock_origin, session_outcome& out,
             session_observer& observer, const std::atomic<bool>& interrupted) {
  reports::report& report = out.report;
  report.complete = false;
  report.incomplete_reason = "the run is in progress (or its coordinator was stopped)";
  reports::save_report(o.output, report);
  out.journal = journal_path_for(o.output);
  journal_writer journal(out.journal, report);

  coordinator_options co;
  co.worker_command = o.worker_command;
  co.backend = plan.backend;
  co.concurrency = concurrency;
  co.measurement = o.measurement;
  co.startup_allowance_s = plan.startup_allowance_s;
  co.kill_grace_s = o.kill_grace_s;
  // A lost worker is followed by a fresh one, unless NVML has lost its GPU (fallen off the bus):
  // asked then, from the error counters as `check` reads them (reports::gpu_is_lost).
  if (inv.nvml)
    co.gpu_lost = [&nvml = *inv.nvml](int index) {
      reports::device_info d;
      d.counters_after = host::read_error_counters(nvml, index);
      return reports::gpu_is_lost(d);
    };
  journalling_observer journalled(observer, journal, report, o.output);
  for (const journal_entry& e : jobs.not_on_mig)
    journalled.on_result(e);
  if (!jobs.gpu_jobs.empty())
    run_workers(co, jobs.gpu_jobs, journalled, interrupted);
  if (!jobs.node_jobs.empty() && !interrupted.load())
    run_workers(co, jobs.node_jobs, journalled, interrupted);
  finish(o, inv, clock_origin, journal, journalled, out, observer, interrupted);
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
  const inventory inv = begin_report(o, enrich, out, observer);
  if (!nvml_lists_gpus(inv))
    return write_without_run(o, std::move(out), "no GPU: " + inv.host.gpu_status);

  session_plan told;
  const std::vector<int> measured = apply_idle_precondition(o, out.report, told, observer);
  if (measured.empty())
    return write_without_run(o, std::move(out),
                             "every selected GPU is in use by another process (--allow-busy "
                             "measures them anyway)");
  const planned_run planned = plan_run(o, measured, inv);
  if (!planned.no_run.empty())
    return write_without_run(o, std::move(out), planned.no_run);

  out.report.run.backend = planned.plan.backend;
  // A partitioned GPU is measured as its MIG devices, each in its own worker (docs/mig.md).
  const std::vector<measured_unit> units = measured_units(
      measured, out.report.devices, resolve_mig_choices(o.mig_devices, out.report.devices));
  for (int index : measured)
    if (is_partitioned(device_of(out.report, index)) &&
        device_of(out.report, index).mig_instances.empty())
      observer.on_note(fmt::format("GPU {}: MIG is on and NVML lists no MIG device: nothing on it "
                                   "can be measured",
                                   index));
  const int unit_count = std::max(1, static_cast<int>(units.size()));
  const int concurrency = o.concurrency > 0 ? std::min(o.concurrency, unit_count) : unit_count;
  out.report.run.concurrency = concurrency;
  const run_jobs jobs = make_jobs(o, out, units, measured, planned.plan, clock_origin);
  observer.on_plan(estimate(o, planned.plan, jobs, measured, units, concurrency, std::move(told)));
  measure(o, planned.plan, jobs, concurrency, inv, clock_origin, out, observer, interrupted);
  return out;
}

reports::outcome<reports::report> recover_session(const std::filesystem::path& journal,
                                                  const std::filesystem::path& output,
                                                  std::size_t* duplicate_lines) {
  auto report = recover_report(journal, duplicate_lines);
  if (!report)
    return report;
  reports::save_report(output, report.value());
  return report;
}

} // namespace gpuspec::spine
