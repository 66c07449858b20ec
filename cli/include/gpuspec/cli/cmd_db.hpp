#pragma once
/// `gpuspec db`: the fleet history in one SQLite file (docs/fleet.md): ingest, history, stale,
/// lemons, compare, export. Options in, the fleet library's call, the renderer, exit code out.

#include <string>
#include <vector>

#include <CLI/CLI.hpp> // the whole header: CLI11 2.1 defines its vtables inline there

#include "exit_code.hpp"
#include "gpuspec/reports/judge/diff.hpp"

namespace gpuspec::cli {

struct db_cli_options {
  std::string action;               ///< the subcommand given: ingest, history, ...
  std::string db = "fleet.sqlite";  ///< --db, or $GPUSPEC_DB
  std::string format = "table";     ///< table | json
  bool json = false;                ///< --json: same as --format json
  std::vector<std::string> inputs;  ///< ingest: report files and folders
  std::string specs, expect, rules; ///< ingest: what judges the reports (as `check`)
  std::string tool;                 ///< ingest --tool: every file is this tool's log
  std::string serial, node, model;  ///< history (one of); compare: model
  std::string older_than = "7d";    ///< stale
  std::string now;                  ///< stale: the time to count from (default: now)
  std::string before, after, bench; ///< compare
  reports::diff_options diff;       ///< compare
  bool csv = false, jsonl = false;  ///< export
  std::string output;               ///< export: a file instead of stdout (atomically)
};

void setup_db(CLI::App& app, db_cli_options& options);
/// Exit codes: ingest 0, or 3 when a file was bad (named, skipped, the rest ingested) or the
/// database refused a write (named, nothing of that report kept); stale and lemons 1 when they
/// list anything; compare as `diff`; 3 for a database that cannot be read and bad usage.
[[nodiscard]] exit_code run_db(const db_cli_options& options);

} // namespace gpuspec::cli
