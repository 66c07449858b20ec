#include "gpuspec/cli/cmd_check.hpp"

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>

#include <unistd.h>

#include <fmt/format.h>

#include "gpuspec/cli/cli_model.hpp"
#include "gpuspec/cli/cmd_import.hpp"
#include "gpuspec/cli/format.hpp"
#include "gpuspec/cli/output_file.hpp"
#include "gpuspec/cli/specs_location.hpp"
#include "gpuspec/collectives/nccl_tests_table.hpp"
#include "gpuspec/reports/import/import.hpp"
#include "gpuspec/reports/judge/check.hpp"
#include "gpuspec/reports/judge/expectations.hpp"
#include "gpuspec/reports/model/report_json.hpp"
#include "gpuspec/reports/model/spec_table.hpp"
#include "gpuspec/reports/render/render.hpp"

namespace gpuspec::cli {

void setup_check(CLI::App& app, check_cli_options& o) {
  auto* cmd = app.add_subcommand(
      "check", "Judge reports against the spec table: verdicts, diagnosis, exit code");
  cmd->add_option("REPORT", o.reports, "Report files (ten or more of one model: fleet frame)")
      ->required()
      ->type_name(value_name::file);
  cmd->add_option("--baseline", o.baseline,
                  "Judge against this report's medians instead of the datasheet")
      ->type_name(value_name::file);
  cmd->add_option("--tolerance", o.tolerance,
                  "Baseline tolerance (0.05 = pass within 5% of the baseline median)")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--specs", o.specs, "Spec table (default: $GPUSPEC_SPECS or specs/gpus.json)")
      ->type_name(value_name::file);
  cmd->add_option("--expect", o.expect, "Expectation rules (default: specs/expect.json)")
      ->type_name(value_name::file);
  cmd->add_option("--rules", o.rules, "Site rules merged over the expectation rules")
      ->type_name(value_name::file);
  cmd->add_option("--format", o.format,
                  "Output: table (or text), md, json, junit, prom, nccl-tests (the collectives' "
                  "results in nccl-tests' table layout), or html (one self-contained page)")
      ->check(CLI::IsMember({"table", "text", "md", "json", "junit", "prom", "nccl-tests", "html"}))
      ->capture_default_str();
  cmd->add_flag("--json", o.json, "Print JSON for programs (same as --format json)");
  cmd->add_option("-o,--output", o.output, "Write the output to this file (atomically)")
      ->type_name(value_name::file);
  cmd->add_flag("-v,--verbose", o.verbose,
                "Table: list the passing results, GPUs and nodes too (other formats list all)");
  add_tool_option(cmd, o.tool, "REPORT");
}

std::optional<loaded_rules> load_rules(const std::string& specs_file,
                                       const std::string& expect_file, const std::string& site_file,
                                       const char* who) {
  const std::filesystem::path specs_path =
      specs_file.empty() ? reports::default_spec_table_path(specs_dir().string())
                         : std::filesystem::path(specs_file);
  auto specs = reports::load_spec_table(specs_path);
  if (!specs) {
    fmt::print(stderr, "{}: {}\n", who, specs.error().to_string());
    return std::nullopt;
  }
  const std::filesystem::path expect_path =
      expect_file.empty() ? specs_dir() / "expect.json" : std::filesystem::path(expect_file);
  auto rules = reports::load_expectations(expect_path);
  if (!rules) {
    fmt::print(stderr, "{}: {}\n", who, rules.error().to_string());
    return std::nullopt;
  }
  if (!site_file.empty()) {
    auto merged = reports::load_expectations(site_file, rules.value());
    if (!merged) {
      fmt::print(stderr, "{}: {}\n", who, merged.error().to_string());
      return std::nullopt;
    }
    rules = std::move(merged);
  }
  std::vector<std::filesystem::path> files{specs_path, expect_path};
  if (!site_file.empty())
    files.emplace_back(site_file);
  return loaded_rules{std::move(specs).value(), std::move(rules).value(), std::move(files)};
}

namespace {

bool colour_stdout() {
  const char* no_colour = std::getenv("NO_COLOR");
  return isatty(fileno(stdout)) == 1 && (no_colour == nullptr || *no_colour == '\0');
}

exit_code to_exit_code(reports::verdict_status s) {
  return static_cast<exit_code>(reports::exit_code_of(s));
}

/// `--format nccl-tests`: the collectives' figures beside nccl-tests' own output, one table per
/// report (each under its file name when there are several); the exit code is the verdict's.
class nccl_tests_renderer final : public reports::renderer {
public:
  nccl_tests_renderer(const std::vector<reports::report>& reports,
                      const std::vector<std::string>& sources)
      : m_reports(reports), m_sources(sources) {}

protected:
  [[nodiscard]] std::string render_check(const reports::check_outcome& /*outcome*/) const override {
    std::string text;
    for (std::size_t i = 0; i < m_reports.size(); ++i)
      text += (m_reports.size() > 1 ? "# " + m_sources[i] + "\n" : std::string()) +
              collectives::render_nccl_tests_table(m_reports[i]);
    return text;
  }

private:
  const std::vector<reports::report>& m_reports;
  const std::vector<std::string>& m_sources;
};

/// The reports named on the command line, the baseline, or false with each bad file named on
/// stderr (all of them read first: a bad file is exit code 3, before any verdict is printed).
bool load_check_reports(const check_cli_options& o, std::vector<reports::report>& out,
                        std::optional<reports::report>& baseline) {
  out.reserve(o.reports.size());
  bool bad = false;
  for (const auto& file : o.reports) {
    auto r = reports::load_report_or_log(file, chosen_tool(o.tool));
    if (!r) {
      fmt::print(stderr, "gpuspec check: {}\n", r.error().to_string());
      bad = true;
      continue;
    }
    out.push_back(std::move(r).value());
  }
  if (!o.baseline.empty()) {
    auto b = reports::load_report_or_log(o.baseline);
    if (!b) {
      fmt::print(stderr, "gpuspec check: {}\n", b.error().to_string());
      bad = true;
    } else {
      baseline = std::move(b).value();
    }
  }
  return !bad;
}

} // namespace

exit_code run_check(const check_cli_options& o) {
  const auto format = chosen_format("check", o.json, o.format);
  if (!format)
    return exit_code::unknown;
  std::vector<std::string> inputs = o.reports;
  inputs.insert(inputs.end(), {o.baseline, o.specs, o.expect, o.rules});
  if (!output_is_safe("check", o.output, inputs))
    return exit_code::unknown;
  std::vector<reports::report> reports;
  std::optional<reports::report> baseline;
  const bool read = load_check_reports(o, reports, baseline);
  auto loaded = load_rules(o.specs, o.expect, o.rules, "gpuspec check");
  if (!read || !loaded)
    return exit_code::unknown;

  reports::check_options options;
  options.baseline = baseline ? &*baseline : nullptr;
  if (o.tolerance >= 0)
    options.baseline_tolerance = o.tolerance;
  auto outcome = reports::check(reports, loaded->specs, loaded->rules, options);
  for (auto& node : outcome.nodes)
    node.source = o.reports[node.report_index];

  reports::render_options render;
  render.colour = o.output.empty() && *format == reports::output_format::table && colour_stdout();
  render.width = o.output.empty() ? stdout_table_width() : 0;
  render.reports = &reports;
  render.verbose = o.verbose;
  render.site_temperature_limit_c = loaded->rules.settings.temperature_limit_c;
  std::unique_ptr<reports::renderer> renderer;
  if (*format == reports::output_format::nccl_tests)
    renderer = std::make_unique<nccl_tests_renderer>(reports, o.reports);
  else
    renderer = reports::make_renderer(*format, render);
  if (!deliver_output("check", renderer->render(outcome), o.output,
                      fmt::format("{} (exit code {})", reports::to_string(outcome.status),
                                  reports::exit_code_of(outcome.status))))
    return exit_code::unknown;
  return to_exit_code(outcome.status);
}

exit_code check_after_run(const reports::report& report, const std::string& source,
                          bool print_table, const std::string& specs_file,
                          const std::string& html_file) {
  auto loaded = load_rules(specs_file, "", "", "gpuspec run: check");
  if (!loaded)
    return exit_code::unknown;
  return check_after_run(report, source, print_table, loaded->specs, loaded->rules, html_file);
}

namespace {

/// `run --html FILE`: the check's page, with the report, written atomically.
bool write_html_page(const reports::check_outcome& outcome, const reports::report& report,
                     const reports::expectations& rules, const std::string& file) {
  const std::vector<reports::report> judged{report};
  reports::render_options render;
  render.reports = &judged;
  render.site_temperature_limit_c = rules.settings.temperature_limit_c;
  try {
    reports::write_file_atomically(
        file, reports::make_renderer(reports::output_format::html, render)->render(outcome));
  } catch (const std::exception& e) {
    fmt::print(stderr, "gpuspec run: cannot write {}: {}\n", file, e.what());
    return false;
  }
  fmt::print(stderr, "gpuspec run: HTML page written to {}\n", file);
  return true;
}

} // namespace

exit_code check_after_run(const reports::report& report, const std::string& source,
                          bool print_table, const reports::spec_table& specs,
                          const reports::expectations& rules, const std::string& html_file) {
  auto outcome = reports::check(report, specs, rules);
  for (auto& node : outcome.nodes)
    node.source = source;
  if (!html_file.empty() && !write_html_page(outcome, report, rules, html_file))
    return exit_code::unknown;
  if (!print_table)
    return to_exit_code(outcome.status);
  reports::render_options render;
  render.colour = colour_stdout();
  render.width = stdout_table_width();
  fmt::print("\n{}",
             reports::make_renderer(reports::output_format::table, render)->render(outcome));
  std::fflush(stdout);
  return to_exit_code(outcome.status);
}

} // namespace gpuspec::cli
