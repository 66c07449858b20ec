#include "gpuspec/cli/cmd_db.hpp"

#include <cstdlib>
#include <ctime>
#include <iostream>
#include <sstream>

#include <fmt/format.h>

#include "gpuspec/cli/cli_model.hpp"
#include "gpuspec/cli/cmd_check.hpp"
#include "gpuspec/cli/duration.hpp"
#include "gpuspec/cli/format.hpp"
#include "gpuspec/fleet/database.hpp"
#include "gpuspec/fleet/ingest.hpp"
#include "gpuspec/fleet/queries.hpp"
#include "gpuspec/reports/import/import.hpp"
#include "gpuspec/reports/model/report_json.hpp"
#include "gpuspec/reports/render/db_output.hpp"
#include "gpuspec/reports/render/render.hpp"

namespace gpuspec::cli {

namespace {

/// The options every db subcommand takes.
CLI::App* add_action(CLI::App* db, db_cli_options& o, const char* name, const char* help) {
  auto* cmd = db->add_subcommand(name, help);
  cmd->callback([&o, name] { o.action = name; });
  cmd->add_option("--db", o.db, "The database file (default: $GPUSPEC_DB, else fleet.sqlite)")
      ->type_name(value_name::file);
  cmd->add_option("--format", o.format, "Output: table or json")
      ->check(CLI::IsMember({"table", "text", "json"}))
      ->capture_default_str();
  cmd->add_flag("--json", o.json, "Print JSON for programs (same as --format json)");
  return cmd;
}

void setup_compare_action(CLI::App* db, db_cli_options& o) {
  auto* cmp = add_action(db, o, "compare",
                         "Each GPU's latest results in two windows, judged by diff's rules");
  cmp->add_option("--before", o.before, "The earlier side: a date (runs before it) or KEY=RANGE")
      ->required();
  cmp->add_option("--after", o.after, "The later side: a date (runs from it on) or KEY=RANGE")
      ->required();
  cmp->add_option("--model", o.model, "Only GPUs of this model (spec id, e.g. a100-sxm4-80gb)");
  cmp->add_option("--bench", o.bench, "Only bench ids starting with this (gemm.cublas)")
      ->type_name(value_name::benchmark);
  cmp->add_option("--alpha", o.diff.alpha, "False-discovery rate over all metrics")
      ->check(CLI::Range(1e-12, 0.5))
      ->capture_default_str();
  cmp->add_option("--min-effect", o.diff.min_effect, "Smallest relative change that counts")
      ->check(CLI::Range(0.0, 10.0))
      ->capture_default_str();
  cmp->add_option("--fail-threshold", o.diff.fail_threshold,
                  "A significant regression at least this large fails")
      ->check(CLI::Range(0.0, 10.0))
      ->capture_default_str();
}

} // namespace

void setup_db(CLI::App& app, db_cli_options& o) {
  if (const char* env = std::getenv("GPUSPEC_DB"); env && *env)
    o.db = env;
  auto* db = app.add_subcommand("db", "The fleet history: reports in one SQLite file, queried");
  db->require_subcommand(1);
  auto* ingest = add_action(db, o, "ingest", "Add reports and logs (files, or folders read whole)");
  ingest->add_option("REPORT", o.inputs, "Report files or folders")
      ->required()
      ->type_name(value_name::file);
  add_tool_option(ingest, o.tool, "file");
  ingest->add_option("--specs", o.specs, "Spec table that judges them (default as check)")
      ->type_name(value_name::file);
  ingest->add_option("--expect", o.expect, "Expectation rules (default: specs/expect.json)")
      ->type_name(value_name::file);
  ingest->add_option("--rules", o.rules, "Site rules merged over the expectation rules")
      ->type_name(value_name::file);
  auto* history = add_action(db, o, "history", "A GPU's, a node's or a model's runs over time");
  auto* group = history->add_option_group("which", "One of");
  group->add_option("--serial", o.serial, "A GPU's serial (or uuid:<UUID> for one without)");
  group->add_option("--node", o.node, "A node's hostname");
  group->add_option("--model", o.model, "A model (spec id, or the GPU's name without one)");
  group->require_option(1);
  auto* stale = add_action(db, o, "stale", "GPUs and nodes whose latest pass is too old");
  stale->add_option("--older-than", o.older_than, "The window: 7d, 36h, 1d12h")
      ->capture_default_str();
  stale->add_option("--now", o.now, "Count from this UTC date instead of now");
  (void)add_action(db, o, "lemons", "GPUs that failed in more than one run, on any node");
  setup_compare_action(db, o);
  auto* exp = add_action(db, o, "export", "Every result row as CSV or JSON Lines");
  auto* kind = exp->add_option_group("format", "One of");
  kind->add_flag("--csv", o.csv, "CSV with a header line");
  kind->add_flag("--jsonl", o.jsonl, "JSON Lines, one object per row");
  kind->require_option(1);
  exp->add_option("-o,--output", o.output, "Write to this file (atomically)")
      ->type_name(value_name::file);
}

namespace {

exit_code print(const db_cli_options& o, const reports::db_output& d, exit_code code) {
  const auto format = chosen_format("db", o.json, o.format);
  if (!format)
    return exit_code::unknown;
  reports::render_options render;
  render.width = stdout_table_width();
  std::cout << reports::make_renderer(*format, render)->render(d) << std::flush;
  return code;
}

std::string now_utc() { return fleet::utc_text(static_cast<long long>(std::time(nullptr))); }

/// One file into the database: its row of the listing; false when the file is bad.
bool ingest_one(fleet::ingester& in, const std::string& file, const fleet::judge& j,
                const std::string& tool, reports::db_output& out, std::size_t& added) {
  nlohmann::ordered_json row;
  row["file"] = file;
  auto r = reports::load_report_or_log(file, chosen_tool(tool));
  if (!r) {
    fmt::print(stderr, "gpuspec db ingest: skipped: {}\n", r.error().to_string());
    row["status"] = "bad";
    row["run_id"] = nullptr;
    row["detail"] = r.error().to_string();
    out.rows.push_back(std::move(row));
    return false;
  }
  fleet::ingest_result result;
  try {
    result = in.ingest(r.value(), file, j, now_utc());
  } catch (const fleet::bad_report& e) { // judged on its own: skipped, and the rest go in
    fmt::print(stderr, "gpuspec db ingest: skipped: {}\n", e.what());
    row["status"] = "bad";
    row["run_id"] = nullptr;
    row["detail"] = e.what();
    out.rows.push_back(std::move(row));
    return false;
  }
  const bool is_new = result.status == fleet::ingest_status::added;
  added += is_new ? 1 : 0;
  row["status"] = is_new ? "added" : "already present";
  row["run_id"] = result.run_id;
  row["detail"] = is_new ? fmt::format("{} GPUs, {} result rows", result.gpus, result.results)
                         : std::string("ingested before: nothing changed");
  if (result.dated_after_ingest) {
    const std::string flag =
        fmt::format("dated more than {} min after its ingest: its pass never counts as recent",
                    fleet::max_clock_skew_s / 60);
    row["detail"] = fmt::format("{}; {}", row["detail"].get<std::string>(), flag);
    fmt::print(stderr, "gpuspec db ingest: {}: {}\n", file, flag);
  }
  out.rows.push_back(std::move(row));
  return true;
}

exit_code run_ingest(const db_cli_options& o) {
  auto loaded = load_rules(o.specs, o.expect, o.rules, "gpuspec db ingest");
  if (!loaded)
    return exit_code::unknown;
  const fleet::judge j{
      loaded->specs, loaded->rules,
      fleet::spec_version_of(loaded->files, {std::string(reports::spec_table_schema),
                                             reports::expectations_schema_version})};
  auto db = fleet::open_fleet_db(o.db, {.create = true});
  fleet::ingester in(db, fleet::ingest_batches);
  reports::db_output out;
  out.schema = "gpuspec.db.ingest.v1";
  out.columns = {"file", "status", "run_id", "detail"};
  out.title = fmt::format("Ingest into {} (judged by {})", o.db, j.spec_version);
  std::size_t added = 0, bad = 0;
  std::vector<std::filesystem::path> paths(o.inputs.begin(), o.inputs.end());
  // The runs of a batch not yet committed when the database refuses a write are lost with
  // it (whole: SQLite rolled them back), and are counted apart from those kept.
  const auto stopped = [&](const fleet::db_error& e, const std::string& where) {
    const std::size_t kept = in.committed_runs();
    fmt::print(stderr,
               "gpuspec db ingest: {}\ngpuspec db ingest: stopped {}; the {} run(s) added "
               "before it are kept",
               e.what(), where, kept);
    if (added > kept)
      fmt::print(stderr, ", {} more were rolled back with it (ingest them again)", added - kept);
    fmt::print(stderr, "\n");
    return exit_code::unknown;
  };
  for (const auto& file : fleet::report_files(paths)) {
    try {
      bad += ingest_one(in, file.string(), j, o.tool, out, added) ? 0 : 1;
    } catch (const fleet::db_error& e) {
      return stopped(e, fmt::format("at {}: nothing of it was written", file.string()));
    }
  }
  try {
    in.commit();
  } catch (const fleet::db_error& e) {
    return stopped(e, "at the last commit");
  }
  out.notes.push_back(fmt::format("{} new run(s), {} already present, {} bad file(s) skipped",
                                  added, out.rows.size() - added - bad, bad));
  return print(o, out, bad ? exit_code::unknown : exit_code::pass);
}

exit_code run_stale(const db_cli_options& o) {
  std::string why;
  const auto window = parse_duration(o.older_than, why, 366.0 * 86400);
  if (!window) {
    fmt::print(stderr, "gpuspec db stale: --older-than: {}\n", why);
    return exit_code::unknown;
  }
  std::string now = now_utc();
  if (!o.now.empty()) {
    const auto given = fleet::parse_utc_date(o.now, why);
    if (!given) {
      fmt::print(stderr, "gpuspec db stale: --now: {}\n", why);
      return exit_code::unknown;
    }
    now = *given;
  }
  const auto db = fleet::open_fleet_db(o.db, {.read_only = true});
  const auto out = fleet::stale(db, fleet::utc_seconds(now), *window);
  return print(o, out, out.rows.empty() ? exit_code::pass : exit_code::warn);
}

exit_code run_compare(const db_cli_options& o) {
  std::string why;
  fleet::compare_request request;
  const auto before = fleet::parse_window(o.before, true, why);
  const auto after = before ? fleet::parse_window(o.after, false, why) : std::nullopt;
  if (!before || !after) {
    fmt::print(stderr, "gpuspec db compare: {}: {}\n", before ? "--after" : "--before", why);
    return exit_code::unknown;
  }
  if (o.diff.fail_threshold < o.diff.min_effect) {
    fmt::print(stderr, "gpuspec db compare: --fail-threshold is below --min-effect\n");
    return exit_code::unknown;
  }
  request.before = *before;
  request.after = *after;
  request.model = o.model;
  request.bench = o.bench;
  request.options = o.diff;
  const auto db = fleet::open_fleet_db(o.db, {.read_only = true});
  const auto d = fleet::compare_windows(db, request);
  const auto format = chosen_format("db compare", o.json, o.format);
  if (!format)
    return exit_code::unknown;
  reports::render_options render;
  render.width = stdout_table_width();
  std::cout << reports::make_renderer(*format, render)->render(d) << std::flush;
  if (d.verdict == reports::check_status::fail)
    return exit_code::fail;
  return d.verdict == reports::check_status::warn ? exit_code::warn : exit_code::pass;
}

exit_code run_export(const db_cli_options& o) {
  const auto db = fleet::open_fleet_db(o.db, {.read_only = true});
  const auto format = o.csv ? fleet::export_format::csv : fleet::export_format::jsonl;
  if (o.output.empty()) {
    (void)fleet::export_rows(db, format, std::cout);
    std::cout << std::flush;
    return exit_code::pass;
  }
  std::ostringstream text;
  const auto rows = fleet::export_rows(db, format, text);
  reports::write_file_atomically(o.output, text.str());
  fmt::print(stderr, "gpuspec db export: {} rows written to {}\n", rows, o.output);
  return exit_code::pass;
}

exit_code dispatch(const db_cli_options& o) {
  if (o.action == "ingest")
    return run_ingest(o);
  if (o.action == "stale")
    return run_stale(o);
  if (o.action == "compare")
    return run_compare(o);
  if (o.action == "export")
    return run_export(o);
  const auto db = fleet::open_fleet_db(o.db, {.read_only = true});
  if (o.action == "history")
    return print(o, fleet::history(db, {o.serial, o.node, o.model}), exit_code::pass);
  const auto out = fleet::lemons(db);
  return print(o, out, out.rows.empty() ? exit_code::pass : exit_code::warn);
}

} // namespace

exit_code run_db(const db_cli_options& o) {
  try {
    return dispatch(o);
  } catch (const fleet::db_error& e) {
    fmt::print(stderr, "gpuspec db {}: {}\n", o.action, e.what());
    return exit_code::unknown;
  }
}

} // namespace gpuspec::cli
