// `db history`, `db stale` and `db lemons` (queries.hpp): a query each, its rows as a listing.

#include <set>
#include <sstream>

#include <fmt/format.h>

#include "gpuspec/fleet/ingest.hpp"
#include "gpuspec/fleet/queries.hpp"

namespace gpuspec::fleet {

namespace {

/// Each row of `s` as an object of `columns` (the query's columns, in order).
void collect(statement& s, reports::db_output& out, const char* what) {
  while (s.step(what)) {
    nlohmann::ordered_json row = nlohmann::ordered_json::object();
    for (std::size_t i = 0; i < out.columns.size(); ++i)
      row[out.columns[i]] = s.json(static_cast<int>(i));
    out.rows.push_back(std::move(row));
  }
}

/// "A,B", "B,C" -> "A,B,C".
std::string merged_codes(const std::string& lists) {
  std::set<std::string> codes;
  std::stringstream in(lists);
  std::string code;
  while (std::getline(in, code, ','))
    if (!code.empty())
      codes.insert(code);
  return fmt::format("{}", fmt::join(codes, ","));
}

} // namespace

reports::db_output history(const connection& db, const history_filter& f) {
  reports::db_output out;
  out.schema = "gpuspec.db.history.v1";
  out.columns = {"at_utc",  "node",         "gpu_key", "gpu_index", "bus_id", "model",
                 "verdict", "reason_codes", "driver",  "cuda",      "run_id"};
  const char* column = !f.serial.empty() ? "gpu_key" : (!f.node.empty() ? "node" : "model");
  const std::string& value = !f.serial.empty() ? f.serial : (!f.node.empty() ? f.node : f.model);
  out.title = fmt::format("History of {} {}", !f.serial.empty() ? "GPU" : column, value);
  out.empty_text = fmt::format("no runs of {} {} in {}", column, value, db.file());
  auto s = db.prepare(fmt::format(
      "SELECT at_utc, node, gpu_key, gpu_index, bus_id, model, verdict, reason_codes, driver, "
      "cuda_driver, run_id FROM gpus WHERE {} = ?1 ORDER BY at_utc, node, gpu_index",
      column));
  s.bind(1, value);
  collect(s, out, "read the history");
  return out;
}

reports::db_output stale(const connection& db, long long now_s, double older_than_s) {
  reports::db_output out;
  out.schema = "gpuspec.db.stale.v1";
  out.columns = {"kind", "id", "model", "node", "last_seen_utc", "last_pass_utc", "age_days"};
  const std::string cutoff = utc_text(now_s - static_cast<long long>(older_than_s));
  out.title = fmt::format("GPUs and nodes with no pass since {}", cutoff);
  out.empty_text = "none: every GPU and node has a pass in the window";
  // A pass dated after now (beyond the clock skew) is no recent pass: a report's date is what
  // its writer said (databases filled before ingest flagged such reports hold them too).
  auto s = db.prepare(
      "SELECT 'gpu', gpu_key, model, node, last_seen_utc, last_pass_utc FROM gpu_latest "
      "WHERE last_pass_utc IS NULL OR last_pass_utc < ?1 OR last_pass_utc > ?2 "
      "UNION ALL SELECT 'node', node, '', node, last_seen_utc, last_pass_utc FROM node_latest "
      "WHERE last_pass_utc IS NULL OR last_pass_utc < ?1 OR last_pass_utc > ?2 ORDER BY 1, 2");
  s.bind(1, cutoff);
  s.bind(2, utc_text(now_s + max_clock_skew_s));
  while (s.step("read the latest passes")) {
    nlohmann::ordered_json row = nlohmann::ordered_json::object();
    for (int i = 0; i < 6; ++i)
      row[out.columns[static_cast<std::size_t>(i)]] = s.json(i);
    row["age_days"] =
        s.is_null(5)
            ? nlohmann::ordered_json(nullptr)
            : nlohmann::ordered_json(static_cast<double>(now_s - utc_seconds(s.text(5))) / 86400.0);
    out.rows.push_back(std::move(row));
  }
  out.notes.push_back(
      fmt::format("a stale pass is not a pass: {} GPU(s) or node(s) to rerun", out.rows.size()));
  return out;
}

reports::db_output lemons(const connection& db) {
  reports::db_output out;
  out.schema = "gpuspec.db.lemons.v1";
  out.columns = {"gpu_key",          "model",       "failures", "nodes", "first_failure_utc",
                 "last_failure_utc", "reason_codes"};
  out.title = "GPUs that failed in more than one run";
  out.empty_text = "none: no GPU failed more than once";
  auto s = db.prepare(
      "SELECT gpu_key, max(model), count(DISTINCT run_id), group_concat(DISTINCT node), "
      "min(at_utc), max(at_utc), group_concat(reason_codes) FROM gpus WHERE verdict = 'fail' "
      "GROUP BY gpu_key HAVING count(DISTINCT run_id) > 1 ORDER BY 3 DESC, 1");
  collect(s, out, "read the failures");
  for (auto& row : out.rows)
    row["reason_codes"] = merged_codes(
        row["reason_codes"].is_string() ? row["reason_codes"].get<std::string>() : std::string());
  return out;
}

} // namespace gpuspec::fleet
