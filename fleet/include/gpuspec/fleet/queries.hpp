#pragma once
/// The read side of `gpuspec db` (docs/fleet.md): each query a function from an open database
/// to the listing it prints (reports' db_output), or the diff it judges. Readers never write.

#include <optional>
#include <ostream>
#include <string>

#include "gpuspec/fleet/selectors.hpp"
#include "gpuspec/fleet/sqlite.hpp"
#include "gpuspec/reports/judge/diff.hpp"
#include "gpuspec/reports/render/db_output.hpp"

namespace gpuspec::fleet {

/// `db history`: one GPU's runs over time (by serial, or "uuid:<UUID>" for a GPU without one),
/// across the nodes it moved through; a node's GPUs; or a model's GPUs. Oldest first. Each row:
/// at_utc, node, gpu_key, gpu_index, bus_id, model, verdict, reason_codes, driver, cuda, run_id.
struct history_filter {
  std::string serial = {}, node = {}, model = {}; ///< exactly one set
};
[[nodiscard]] reports::db_output history(const connection& db, const history_filter& f);

/// `db stale`: the GPUs and nodes whose latest pass started before `now - older_than_s` (or
/// that never passed): a stale pass is not a pass. Each row: kind (gpu | node), id, model, node
/// (where it was last seen), last_seen_utc, last_pass_utc (null: never), age_days.
[[nodiscard]] reports::db_output stale(const connection& db, long long now_s, double older_than_s);

/// `db lemons`: GPUs (serials) whose verdict was fail in more than one run, on any node. Each
/// row: gpu_key, model, failures, nodes, first_failure_utc, last_failure_utc, reason_codes.
[[nodiscard]] reports::db_output lemons(const connection& db);

/// The columns `db export` writes, in order (docs/fleet.md, "Export"); the schema of the export
/// is fleet_export_schema.
inline constexpr const char* fleet_export_schema = "gpuspec.db.export.v1";
inline constexpr const char* export_columns[] = {
    "run_id",    "at_utc",          "node",         "gpu_key", "serial",
    "uuid",      "bus_id",          "gpu_index",    "model",   "bench_id",
    "axes",      "metric",          "value",        "unit",    "status",
    "reference", "reference_value", "efficiency",   "verdict", "reason_codes",
    "driver",    "cuda_driver",     "cuda_runtime", "cublas",  "nccl",
    "vbios",     "gpuspec_version"};

enum class export_format { csv, jsonl };
/// Every result row, oldest first: CSV (RFC 4180, a header line, null as an empty field) or
/// JSON Lines (one object per row with "schema" first, then export_columns). Returns the rows.
std::size_t export_rows(const connection& db, export_format format, std::ostream& out);

/// `db compare`: for each GPU and result (bench id and axes) seen on both sides, its latest run
/// in the `before` window against its latest run in the `after` window, judged by diff's rules
/// (diff.hpp: Mann-Whitney on the raw samples, Benjamini-Hochberg over the whole fleet, the
/// effect and fail thresholds). `model` and `bench` narrow it ("" for all; bench a prefix).
struct compare_request {
  window before, after;
  std::string model, bench;
  reports::diff_options options;
};
[[nodiscard]] reports::diff_output compare_windows(const connection& db,
                                                   const compare_request& request);

} // namespace gpuspec::fleet
