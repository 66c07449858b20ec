#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp> // the whole header: CLI11 2.1 defines its vtables inline there

#include "exit_code.hpp"
#include "gpuspec/reports/judge/expectations.hpp"
#include "gpuspec/reports/model/report.hpp"
#include "gpuspec/reports/model/spec_table.hpp"

namespace gpuspec::cli {

struct check_cli_options {
  std::vector<std::string> reports; ///< one or more report files
  std::string baseline;             ///< judge against this report instead of the datasheet
  double tolerance = -1;            ///< baseline tolerance; < 0: the rules' setting
  std::string specs;                ///< spec table; "" = default_spec_table_path
  std::string expect;               ///< base expectation rules; "" = specs dir's expect.json
  std::string rules;                ///< site override merged over the base rules
  std::string format = "table";     ///< table | md | json | junit | prom
  bool json = false;                ///< same as --format json
  std::string output;               ///< write here (atomically) instead of stdout
  bool verbose = false;             ///< the table lists passing rows too
  std::string tool; ///< --tool: the foreign tool every input log is read as; "" = recognised
};

void setup_check(CLI::App& app, check_cli_options& options);
/// Judges the reports (docs/check.md). Exit code: worst over the nodes, 0 pass, 1 warn,
/// 2 fail, 3 inconclusive or bad input (the message names the file and the field).
[[nodiscard]] exit_code run_check(const check_cli_options& options);

/// The spec table and the expectation rules a command judges with.
struct loaded_rules {
  reports::spec_table specs;
  reports::expectations rules;
  /// The files they came from: gpus.json, expect.json, then the site rules when given.
  std::vector<std::filesystem::path> files;
};

/// The spec table (`specs_file`, "" for the default), the rules (`expect_file`, "" for the
/// default) with `site_file` merged over them when given; nullopt with the error (file and
/// field) on stderr after "<who>: ".
[[nodiscard]] std::optional<loaded_rules> load_rules(const std::string& specs_file,
                                                     const std::string& expect_file,
                                                     const std::string& site_file, const char* who);

/// What `gpuspec run` does at its end: judges `report` with the spec table (`specs_file`, or
/// the default when "") and the default rules, prints the verdict table on stdout (unless
/// `print_table` is false: --json), returns the check's exit code (3 when the spec table or
/// the rules cannot be loaded, reason on stderr). With `html_file` (`run --html FILE`), also
/// writes the check's HTML page there, atomically (3 when it cannot be written).
[[nodiscard]] exit_code check_after_run(const reports::report& report, const std::string& source,
                                        bool print_table, const std::string& specs_file = "",
                                        const std::string& html_file = "");
/// The same with the spec table and the rules already loaded (`gpuspec run` loads each once).
[[nodiscard]] exit_code check_after_run(const reports::report& report, const std::string& source,
                                        bool print_table, const reports::spec_table& specs,
                                        const reports::expectations& rules,
                                        const std::string& html_file = "");

} // namespace gpuspec::cli
