#include "gpuspec/cli/cmd_run.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <optional>
#include <regex>
#include <system_error>

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpuspec/cli/backend.hpp"
#include "gpuspec/cli/build_info.hpp"
#include "gpuspec/cli/build_stamp.hpp"
#include "gpuspec/cli/cli_model.hpp"
#include "gpuspec/cli/cmd_check.hpp"
#include "gpuspec/cli/cmd_info.hpp"
#include "gpuspec/cli/duration.hpp"
#include "gpuspec/cli/format.hpp"
#include "gpuspec/cli/output_file.hpp"
#include "gpuspec/cli/progress_display.hpp"
#include "gpuspec/cli/specs_location.hpp"
#include "gpuspec/cli/text_table.hpp"
#include "gpuspec/reports/judge/expectations.hpp"
#include "gpuspec/reports/model/report_json.hpp"
#include "gpuspec/reports/model/spec_table.hpp"
#include "gpuspec/reports/model/text_format.hpp"
#include "gpuspec/reports/model/units.hpp"
#include "gpuspec/spine/journal.hpp"
#include "gpuspec/spine/mig_units.hpp"
#include "gpuspec/spine/session.hpp"
#include "gpuspec/spine/stop_signals.hpp"
#include "gpuspec/spine/worker.hpp"

namespace gpuspec::cli {

void setup_run(CLI::App& app, run_cli_options& o) {
  auto* cmd = app.add_subcommand("run", "Measure the GPUs and write a report");
  host::measurement_options& m = o.measurement;
  cmd->add_option("--suite", m.suite, "quick (default), standard, burnin or full")
      ->check(CLI::IsMember({"quick", "standard", "burnin", "full"}));
  cmd->add_option("--filter", o.filter, "Only benchmarks whose id matches this regex")
      ->type_name(value_name::benchmark);
  cmd->add_option("--duration", o.duration,
                  "How long the burn-in loads every GPU (--suite burnin only): 30m, 90s, 2h, "
                  "1h30m; Ctrl-C keeps what was done");
  cmd->add_option("--devices", o.devices,
                  "GPUs to measure, by nvidia-smi index, e.g. 0,2; a MIG device as 0:mig3 or "
                  "its MIG-<uuid>");
  cmd->add_option("--concurrency", o.concurrency,
                  "GPUs measured at once (default: all; 1: one after another)")
      ->check(CLI::Range(1, 4096));
  cmd->add_option("-o,--output", o.output, "Report file (default gpuspec-<host>-<UTC time>.json)")
      ->type_name(value_name::file);
  cmd->add_option("--specs", o.specs, "Spec table (default: $GPUSPEC_SPECS or specs/gpus.json)")
      ->type_name(value_name::file);
  cmd->add_option("--recover", o.recover,
                  "Write the report a journal holds (a run whose coordinator was killed), to -o "
                  "or beside the journal; measure nothing")
      ->type_name(value_name::file);
  cmd->add_flag("--json", o.json, "Print the report JSON on stdout instead of the summary table");
  cmd->add_option("--html", o.html,
                  "Also write the check's page here: one self-contained HTML file (docs/report.md)")
      ->type_name(value_name::file);
  cmd->add_flag("--allow-busy", o.allow_busy,
                "Measure GPUs that other processes use (refused otherwise: their figures would be "
                "a shared GPU's, and the run would disturb those processes)");
  cmd->add_option_function<int>(
         "--telemetry-period-ms",
         [&m](const int& ms) { m.telemetry_period = std::chrono::milliseconds(ms); },
         "Telemetry sampling period")
      ->check(CLI::Range(1, 10000));
  cmd->add_option("--cv-target", m.stopping.cv_target, "Stop sampling when the CV is under this")
      ->check(CLI::Range(0.0001, 1.0));
  cmd->add_option("--min-time", m.stopping.min_seconds, "Device seconds per result before stopping")
      ->check(CLI::Range(0.0, 3600.0));
  cmd->add_option("--max-time", m.stopping.max_seconds, "Device seconds per result at most")
      ->check(CLI::Range(0.001, 86400.0));
  cmd->add_option("--min-samples", m.stopping.min_samples, "Samples per result at least")
      ->check(CLI::Range(2, 1000000));
  cmd->add_option_function<double>(
         "--stream-array-mib",
         [&m](const double& mib) {
           m.stream_array_bytes = static_cast<std::int64_t>(mib * 1024.0 * 1024.0);
         },
         "MiB per STREAM array (shrunk to fit)")
      ->check(CLI::Range(1.0, 1048576.0));
  cmd->add_option("--kill-grace", o.kill_grace_s, "Seconds from SIGTERM to SIGKILL (testing)")
      ->check(CLI::Range(0.0, 600.0))
      ->group("");
  cmd->add_option("--root", o.root, "Read /proc, /sys and /etc under this folder (testing)")
      ->group("");
}

std::vector<int> parse_device_list(const std::string& text) {
  std::vector<int> out;
  std::size_t begin = 0;
  while (true) {
    const std::size_t end = std::min(text.find(',', begin), text.size());
    const std::string item = text.substr(begin, end - begin);
    const bool digits =
        !item.empty() && item.size() <= 6 &&
        std::all_of(item.begin(), item.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!digits)
      throw CLI::ValidationError("--devices",
                                 "'" + item + "' is not a GPU index (expected e.g. 0,2)");
    out.push_back(std::stoi(item));
    if (end == text.size())
      break;
    begin = end + 1;
  }
  return out;
}

namespace {

std::string default_report_name(const std::string& hostname) {
  std::string host;
  for (char c : hostname.empty() ? std::string("host") : hostname)
    host += (std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '.') ? c : '_';
  return fmt::format("gpuspec-{}-{}.json", host,
                     fmt::format("{:%Y%m%dT%H%M%SZ}", fmt::gmtime(std::time(nullptr))));
}

/// The hostname the way the report will record it, for the default report name.
std::string local_hostname() {
  char name[256] = {};
  if (::gethostname(name, sizeof(name) - 1) != 0)
    return {};
  return name;
}

/// This executable as a worker, or $GPUSPEC_WORKER: a program speaking the worker protocol (the
/// tests' stand-in). Resolved once, so every worker runs the same binary.
std::vector<std::string> worker_command() {
  if (const char* w = std::getenv("GPUSPEC_WORKER"); w != nullptr && *w != '\0')
    return {w};
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return {ec ? std::string("gpuspec") : self.string(), "__worker"};
}

std::string efficiency_text(std::optional<double> e) {
  return e ? fmt::format("{:.1f}%", 100.0 * *e) : "";
}

/// The results as a terminal table. Each efficiency says which ceiling it is against: the
/// result's reference (the one `check` judges by: the datasheet for a figure the card is sold
/// on, else the clock-adjusted one) and the clock-adjusted one (SMs x the clock seen during the
/// run x the architecture's rate, or the memory clock x bus width).
std::string summary_table(const reports::report& report) {
  text_table table({"benchmark", "gpu", "parameters", "median", "unit", "cv", "n", "vs reference",
                    "vs clock-adj.", "check", "status"},
                   {text_table::align::left, text_table::align::right, text_table::align::left,
                    text_table::align::right, text_table::align::left, text_table::align::right,
                    text_table::align::right, text_table::align::right, text_table::align::right,
                    text_table::align::left, text_table::align::left});
  for (const auto& r : report.results) {
    const std::string gpus = fmt::format("{}", fmt::join(r.devices, ","));
    const bool ok = r.status == reports::result_status::ok;
    std::string status(reports::to_string(r.status));
    if (!ok)
      status = fmt::format("{}: {}", status, r.reason);
    else if (r.telemetry.throttled)
      status += " (throttled)";
    table.add_row({r.bench_id, gpus, reports::format_parameters(reports::parameters_of(r)),
                   ok ? format_value(r.stats.median) : "", std::string(reports::to_string(r.unit)),
                   ok ? fmt::format("{:.2f}%", 100.0 * r.stats.cv) : "", std::to_string(r.stats.n),
                   efficiency_text(ok ? r.efficiency : std::nullopt),
                   efficiency_text(ok ? r.efficiency_clock_adjusted : std::nullopt),
                   std::string(reports::to_string(r.check.status)), status});
  }
  return table.render();
}

std::filesystem::path recovered_report_path(const std::string& journal, const std::string& output) {
  if (!output.empty())
    return output;
  const std::string suffix = ".journal";
  if (journal.size() > suffix.size() && journal.ends_with(suffix))
    return journal.substr(0, journal.size() - suffix.size());
  return journal + ".json";
}

/// An output that is an input or the run's own report: the one-line message naming both on
/// stderr, and true. `report` is where the run writes (or recovers) its report.
bool outputs_clash(const run_cli_options& o, const std::string& report) {
  const auto refuse = [](const std::string& option, const std::string& output,
                         const std::string& what) {
    fmt::print(stderr, "gpuspec run: {} {} is {}: it would be overwritten; write it elsewhere\n",
               option, output, what);
    return true;
  };
  if (const auto c = output_clash(o.html, {report}); !c.empty())
    return refuse("--html", o.html, fmt::format("the run's own report {}", c));
  if (const auto c = output_clash(o.html, {o.specs, o.recover}); !c.empty())
    return refuse("--html", o.html, fmt::format("the input {}", c));
  if (const auto c = output_clash(report, {o.specs, o.recover}); !c.empty())
    return refuse(o.output.empty() ? "the report" : "-o", report, fmt::format("the input {}", c));
  return false;
}

exit_code run_recover(const run_cli_options& o) {
  const std::filesystem::path out = recovered_report_path(o.recover, o.output);
  if (outputs_clash(o, out.string()))
    return exit_code::unknown;
  std::size_t duplicates = 0;
  auto report = spine::recover_session(o.recover, out, &duplicates);
  if (!report) {
    fmt::print(stderr, "gpuspec run --recover: {}\n", report.error().to_string());
    return exit_code::unknown;
  }
  const auto& r = report.value();
  if (duplicates > 0)
    fmt::print(stderr,
               "gpuspec run --recover: {} line(s) of {} were there twice: each result kept once\n",
               duplicates, o.recover);
  fmt::print(stderr, "gpuspec run --recover: {} result(s) from {} written to {}{}\n",
             r.results.size(), o.recover, out.string(),
             r.complete ? "" : fmt::format(" (incomplete: {})", r.incomplete_reason));
  if (o.json)
    std::cout << reports::to_json(r).dump(2) << '\n';
  else
    fmt::print("{}", summary_table(r));
  return check_after_run(r, out.string(), !o.json, o.specs, o.html);
}

/// Usage errors, found before anything is measured or written: false with the message on
/// stderr. Fills the burn-in's duration (--duration means nothing to the other suites).
bool check_usage(const run_cli_options& o, std::optional<double>& duration_s) {
  if (const auto problem = spine::filter_problem(o.filter); !problem.empty()) {
    fmt::print(stderr, "gpuspec run: {}\n", problem);
    return false;
  }
  const std::string& suite = o.measurement.suite;
  if (!o.duration.empty() && suite != "burnin") {
    fmt::print(stderr, "gpuspec run: --duration is for --suite burnin only (the suite is {})\n",
               suite);
    return false;
  }
  if (suite != "burnin")
    return true;
  if (o.duration.empty()) {
    fmt::print(stderr, "gpuspec run: --suite burnin needs --duration (e.g. 30m, 2h)\n");
    return false;
  }
  std::string why;
  duration_s = parse_duration(o.duration, why);
  if (!duration_s) {
    fmt::print(stderr, "gpuspec run: --duration: {}\n", why);
    return false;
  }
  return true;
}

/// A burn-in shorter than the acceptance minimum runs, and is reported, but cannot pass: said
/// before it starts.
void note_short_burnin(const run_cli_options& o, const std::optional<double>& duration_s,
                       const reports::outcome<reports::expectations>& rules) {
  if (duration_s && rules && *duration_s < rules.value().settings.burnin_min_duration_s)
    fmt::print(stderr,
               "gpuspec run: note: --duration {} is shorter than the acceptance minimum of {:.0f} "
               "s (burnin_min_duration_s): the burn-in runs and is reported, and its check is "
               "inconclusive (GPUSPEC-BURNIN-TOO-SHORT), never a pass\n",
               o.duration, rules.value().settings.burnin_min_duration_s);
}

spine::session_options session_options_of(const run_cli_options& o,
                                          std::optional<double> duration_s) {
  spine::session_options s;
  s.measurement = o.measurement;
  s.measurement.duration_s = duration_s;
  s.filter = o.filter;
  if (!o.devices.empty()) {
    // GPU indices, and MIG devices ("0:mig3", "MIG-<uuid>": docs/mig.md) apart.
    std::vector<std::string> gpus;
    std::size_t begin = 0;
    while (begin <= o.devices.size()) {
      const std::size_t end = std::min(o.devices.find(',', begin), o.devices.size());
      std::string item = o.devices.substr(begin, end - begin);
      (spine::names_a_mig_device(item) ? s.mig_devices : gpus).push_back(std::move(item));
      begin = end + 1;
    }
    if (!gpus.empty())
      s.devices = parse_device_list(fmt::format("{}", fmt::join(gpus, ",")));
  }
  s.concurrency = o.concurrency;
  s.output = o.output.empty() ? default_report_name(local_hostname()) : o.output;
  s.specs_file_given = !o.specs.empty();
  s.specs_file = s.specs_file_given ? std::filesystem::path(o.specs)
                                    : reports::default_spec_table_path(specs_dir().string());
  s.worker_command = worker_command();
  s.kill_grace_s = o.kill_grace_s;
  s.allow_busy = o.allow_busy;
  s.root = o.root;
  if (const char* log = std::getenv("GPUSPEC_KERNEL_LOG"); log != nullptr)
    s.kernel_log_file = log; // a saved log (tests, sites that keep one)
  s.tool_version = std::string(this_build_stamp().version);
  s.build = this_build();
  s.command_line = o.command_line;
  return s;
}

/// The session under the stop signals, with its progress on stderr; nullopt for bad input
/// (the message on stderr).
std::optional<spine::session_outcome> measure_session(const spine::session_options& s) {
  progress_display progress(stderr, ::isatty(STDERR_FILENO) != 0, s.output.string());
  spine::session_outcome outcome;
  {
    const spine::stop_signal_guard interrupt(spine::second_signal::ends_process);
    try {
      outcome = spine::run_session(s, backend_enrich, progress, interrupt.requested());
    } catch (const spine::session_input_error& e) {
      fmt::print(stderr, "gpuspec run: {}\n", e.what());
      return std::nullopt;
    } catch (const std::system_error& e) {
      fmt::print(stderr, "gpuspec run: {}\n", e.what());
      return std::nullopt;
    }
  }
  progress.close();
  return outcome;
}

/// A run that measured nothing: the host checks, why, and where the inventory went.
exit_code report_no_run(const run_cli_options& o, const spine::session_options& s,
                        const spine::session_outcome& outcome) {
  const reports::report& report = outcome.report;
  if (!o.json)
    fmt::print("Host checks\n{}", check_table(report.host.checks));
  std::fflush(stdout); // the table before the messages, also when both go to one pipe
  fmt::print(stderr, "gpuspec run: {}\n", outcome.no_run_reason);
  fmt::print(stderr, "gpuspec run: wrote the host inventory and host checks to {}\n",
             s.output.string());
  if (o.json)
    std::cout << reports::to_json(report).dump(2) << '\n';
  // The page still says why nothing was measured (the check is inconclusive, with the host checks).
  if (!o.html.empty())
    (void)check_after_run(report, s.output.string(), false, o.specs, o.html);
  return exit_code::unknown;
}

/// The check after the run, with the spec table the session loaded at its start and the rules
/// loaded before it: neither is read again.
exit_code check_measured(const reports::report& report, const std::string& source, bool print_table,
                         const spine::session_outcome& outcome,
                         const reports::outcome<reports::expectations>& rules,
                         const std::string& html) {
  if (!outcome.specs) {
    fmt::print(stderr, "gpuspec run: check: {}\n",
               outcome.specs_error ? outcome.specs_error->to_string() : "no spec table");
    return exit_code::unknown;
  }
  if (!rules) {
    fmt::print(stderr, "gpuspec run: check: {}\n", rules.error().to_string());
    return exit_code::unknown;
  }
  return check_after_run(report, source, print_table, outcome.specs->table, rules.value(), html);
}

} // namespace

exit_code run_run(const run_cli_options& o) {
  if (!o.recover.empty())
    return run_recover(o);
  std::optional<double> duration_s;
  if (!check_usage(o, duration_s))
    return exit_code::unknown;
  // The rules are loaded once: the burn-in's note reads them, the check after the run too.
  const auto rules = reports::load_expectations(specs_dir() / "expect.json");
  note_short_burnin(o, duration_s, rules);
  const spine::session_options s = session_options_of(o, duration_s);
  if (outputs_clash(o, s.output.string()))
    return exit_code::unknown;
  const std::optional<spine::session_outcome> outcome = measure_session(s);
  if (!outcome)
    return exit_code::unknown;
  if (!outcome->no_run_reason.empty())
    return report_no_run(o, s, *outcome);

  const reports::report& report = outcome->report;
  if (o.json)
    std::cout << reports::to_json(report).dump(2) << '\n';
  else
    fmt::print("{}", summary_table(report));
  if (!report.complete)
    fmt::print(stderr, "gpuspec run: report incomplete: {}\n", report.incomplete_reason);
  if (outcome->journal_kept) {
    fmt::print(stderr, "gpuspec run: the journal {} holds the results\n",
               outcome->journal.string());
    return exit_code::unknown;
  }
  fmt::print(stderr, "gpuspec run: report written to {}\n", s.output.string());
  // The verdict is the check's: the report just written, judged against the spec table.
  return check_measured(report, s.output.string(), !o.json, *outcome, rules, o.html);
}

} // namespace gpuspec::cli
