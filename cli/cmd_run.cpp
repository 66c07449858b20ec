#include "cmd_run.hpp"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <regex>
#include <set>

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "backend.hpp"
#include "cmd_check.hpp"
#include "cmd_info.hpp"
#include "format.hpp"
#include "gpuspec/benches/device_probe.hpp"
#include "gpuspec/reports/report_json.hpp"
#include "gpuspec/reports/statistics.hpp"
#include "gpuspec/reports/text_format.hpp"
#include "gpuspec/reports/units.hpp"
#include "interrupt.hpp"
#include "inventory.hpp"
#include "text_table.hpp"

namespace gpuspec::cli {

void setup_run(CLI::App& app, run_cli_options& o) {
  auto* cmd = app.add_subcommand("run", "Measure the GPUs and write a report");
  cmd->add_option("--suite", o.suite, "quick (default), standard, burnin or full")
      ->check(CLI::IsMember({"quick", "standard", "burnin", "full"}));
  cmd->add_option("--filter", o.filter, "Only benchmarks whose id matches this regex");
  cmd->add_option("--devices", o.devices, "GPUs to measure, by nvidia-smi index, e.g. 0,2");
  cmd->add_option("-o,--output", o.output, "Report file (default gpuspec-<host>-<UTC time>.json)");
  cmd->add_flag("--json", o.json, "Print the report JSON on stdout instead of the summary table");
  cmd->add_option("--telemetry-period-ms", o.telemetry_period_ms, "Telemetry sampling period")
      ->check(CLI::Range(1, 10000));
  cmd->add_option("--cv-target", o.cv_target, "Stop sampling when the CV is under this")
      ->check(CLI::Range(0.0001, 1.0));
  cmd->add_option("--min-time", o.min_seconds, "Device seconds per result before stopping")
      ->check(CLI::Range(0.0, 3600.0));
  cmd->add_option("--max-time", o.max_seconds, "Device seconds per result at most")
      ->check(CLI::Range(0.001, 86400.0));
  cmd->add_option("--min-samples", o.min_samples, "Samples per result at least")
      ->check(CLI::Range(2, 1000000));
  cmd->add_option("--stream-array-mib", o.stream_array_mib, "MiB per STREAM array (shrunk to fit)")
      ->check(CLI::Range(1.0, 1048576.0));
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

/// "2026-11-30T02:31:04Z"
std::string utc_iso_now() {
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(std::time(nullptr)));
}

std::string default_report_name(const std::string& hostname) {
  std::string host;
  for (char c : hostname.empty() ? std::string("host") : hostname)
    host += (std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '.') ? c : '_';
  return fmt::format("gpuspec-{}-{}.json", host,
                     fmt::format("{:%Y%m%dT%H%M%SZ}", fmt::gmtime(std::time(nullptr))));
}

/// Progress on stderr, and the report rewritten after every result so a crash loses nothing
/// that was measured.
class progress_printer final : public benches::run_observer {
public:
  progress_printer(const std::string& path, reports::report& report)
      : m_path(path), m_report(report) {}

  void on_start(const std::string& bench_id, int device, const std::string& params) override {
    fmt::print(stderr, "[gpu {}] {} {} ...\n", device, bench_id, params);
  }

  void on_result(const reports::result& r) override {
    if (r.status == reports::result_status::ok)
      fmt::print(stderr, "         {} {} (median of {}, cv {:.2f}%, {}){}\n",
                 format_value(r.stats.median), reports::to_string(r.unit), r.stats.n,
                 100.0 * r.stats.cv, reports::to_string(r.check.status),
                 r.telemetry.throttled ? ", THROTTLED" : "");
    else
      fmt::print(stderr, "         {}: {}\n", reports::to_string(r.status), r.reason);
    checkpoint();
  }

  void checkpoint() {
    try {
      reports::save_report(m_path, m_report);
    } catch (const std::exception& e) {
      fmt::print(stderr, "gpuspec: warning: could not write the checkpoint {}: {}\n", m_path,
                 e.what());
    }
  }

private:
  std::string m_path;
  reports::report& m_report;
};

std::string summary_table(const reports::report& report) {
  text_table table({"benchmark", "gpu", "parameters", "median", "unit", "cv", "n", "efficiency",
                    "check", "status"},
                   {text_table::align::left, text_table::align::right, text_table::align::left,
                    text_table::align::right, text_table::align::left, text_table::align::right,
                    text_table::align::right, text_table::align::right, text_table::align::left,
                    text_table::align::left});
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
                   r.efficiency ? fmt::format("{:.1f}%", 100.0 * *r.efficiency) : "",
                   std::string(reports::to_string(r.check.status)), status});
  }
  return table.render();
}

void record_counters_after(const benches::nvml_library& nvml, reports::report& report) {
  for (auto& d : report.devices) {
    d.counters_after = benches::read_error_counters(nvml, d.index);
    d.counters_delta = benches::counter_delta(d.counters_before, d.counters_after);
  }
}

} // namespace

exit_code run_run(const run_cli_options& o) {
  // Usage errors first, before anything is measured or written.
  try {
    std::regex check(o.filter, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    fmt::print(stderr, "gpuspec run: --filter '{}' is not a valid regular expression: {}\n",
               o.filter, e.what());
    return exit_code::unknown;
  }

  reports::report report;
  report.run.tool_version = GPUSPEC_VERSION;
  report.run.started_utc = utc_iso_now();
  report.run.suite = o.suite;
  report.run.filter = o.filter;
  report.run.command_line = o.command_line;

  inventory inv = take_inventory(o.root);
  report.host = inv.host;
  report.devices = inv.devices;
  const std::string path = o.output.empty() ? default_report_name(report.host.hostname) : o.output;

  benches::run_options run;
  run.suite = o.suite;
  run.filter = o.filter;
  run.telemetry_period = std::chrono::milliseconds(o.telemetry_period_ms);
  run.stopping.cv_target = o.cv_target;
  run.stopping.min_seconds = o.min_seconds;
  run.stopping.max_seconds = o.max_seconds;
  run.stopping.min_samples = o.min_samples;
  run.stream_array_bytes = static_cast<std::int64_t>(o.stream_array_mib * 1024.0 * 1024.0);
  run.spec_rows = inv.spec_rows;
  if (!o.devices.empty()) {
    run.devices = parse_device_list(o.devices);
    std::set<int> known;
    for (const auto& d : inv.devices)
      known.insert(d.index);
    for (int d : run.devices)
      if (has_gpus(inv) && !known.contains(d)) {
        fmt::print(stderr, "gpuspec run: --devices: there is no GPU {} (this host has {})\n", d,
                   known.size());
        return exit_code::unknown;
      }
  }

  std::string no_run_reason;
  if (!has_gpus(inv))
    no_run_reason = "no GPU: " + inv.host.gpu_status;
  else if (!backend_can_run_benchmarks())
    no_run_reason = "no benchmarks: this is a " + backend_description();

  progress_printer progress(path, report);
  if (!no_run_reason.empty()) {
    report.complete = false;
    report.incomplete_reason = no_run_reason;
    report.run.finished_utc = utc_iso_now();
    progress.checkpoint();
    if (!o.json)
      fmt::print("Host checks\n{}", check_table(report.host.checks));
    std::fflush(stdout); // the table before the messages, also when both go to one pipe
    fmt::print(stderr, "gpuspec run: {}\n", no_run_reason);
    fmt::print(stderr, "gpuspec run: wrote the host inventory and host checks to {}\n", path);
    if (o.json)
      std::cout << reports::to_json(report).dump(2) << '\n';
    return exit_code::unknown;
  }

  fmt::print(stderr, "gpuspec run: suite {}, {} GPU(s), report {}\n", o.suite,
             run.devices.empty() ? inv.devices.size() : run.devices.size(), path);
  progress.checkpoint();
  {
    interrupt_guard interrupt;
    try {
      backend_run(run, &*inv.nvml, report, progress, interrupt.requested());
      report.complete = !interrupt.requested().load();
      if (!report.complete)
        report.incomplete_reason = "interrupted";
    } catch (const std::exception& e) {
      report.complete = false;
      report.incomplete_reason = std::string("run stopped by an error: ") + e.what();
      fmt::print(stderr, "gpuspec run: {}\n", report.incomplete_reason);
    }
  }
  record_counters_after(*inv.nvml, report);
  report.run.finished_utc = utc_iso_now();
  if (report.results.empty() && report.complete) {
    report.complete = false;
    report.incomplete_reason =
        fmt::format("no benchmark of suite '{}' matches the filter '{}'", o.suite, o.filter);
  }
  reports::save_report(path, report);

  if (o.json)
    std::cout << reports::to_json(report).dump(2) << '\n';
  else
    fmt::print("{}", summary_table(report));
  if (!report.complete)
    fmt::print(stderr, "gpuspec run: report incomplete: {}\n", report.incomplete_reason);
  fmt::print(stderr, "gpuspec run: report written to {}\n", path);
  // The verdict is the check's: the report just written, judged against the spec table.
  return check_after_run(report, path, !o.json);
}

} // namespace gpuspec::cli
