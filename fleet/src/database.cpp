// Opening a fleet database (database.hpp): the header checks, WAL, the busy timeout, the schema
// of version 3 (docs/fleet.md, "Schema", lists each table and column), and the migration of a
// version-1 or version-2 file.

#include "gpuspec/fleet/database.hpp"

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "gpuspec/fleet/report_blob.hpp"

namespace gpuspec::fleet {

namespace {

// Version 3 (docs/fleet.md, "Schema"). One row per report in `runs`, its `report` the whole
// report as the writer writes it (compact), as one zstd frame (report_blob.hpp); a node's
// software stack once per node (`nodes`), a GPU's identity once per run (`gpu_rows`), and each
// result row only what is its own: its GPU's row and its case (bench id, axes, metric, unit:
// `cases`, a few dozen rows for a whole fleet) by integer id. The views `gpus` and `results`
// join them back into the columns versions 1 and 2 kept in their tables of those names, so a
// query reads any of the three versions alike.
constexpr const char* schema_v3 = R"sql(
CREATE TABLE runs(
  id INTEGER PRIMARY KEY, run_id TEXT NOT NULL UNIQUE, source TEXT NOT NULL,
  ingested_utc TEXT NOT NULL, report_schema TEXT NOT NULL, hostname TEXT NOT NULL,
  started_utc TEXT NOT NULL, finished_utc TEXT NOT NULL, suite TEXT NOT NULL,
  complete INTEGER NOT NULL, verdict TEXT NOT NULL, spec_version TEXT NOT NULL,
  gpuspec_version TEXT NOT NULL, report BLOB NOT NULL);
CREATE TABLE nodes(
  run INTEGER NOT NULL REFERENCES runs(id), node TEXT NOT NULL, at_utc TEXT NOT NULL,
  verdict TEXT NOT NULL, reason_codes TEXT NOT NULL, driver TEXT NOT NULL,
  cuda_driver TEXT NOT NULL, cuda_runtime TEXT NOT NULL, cublas TEXT NOT NULL,
  nccl TEXT NOT NULL, gpuspec_version TEXT NOT NULL, PRIMARY KEY(run, node)) WITHOUT ROWID;
CREATE TABLE gpu_rows(
  id INTEGER PRIMARY KEY, run INTEGER NOT NULL REFERENCES runs(id), node TEXT NOT NULL,
  at_utc TEXT NOT NULL, gpu_key TEXT NOT NULL, gpu_index INTEGER NOT NULL, serial TEXT NOT NULL,
  uuid TEXT NOT NULL, bus_id TEXT NOT NULL, model TEXT NOT NULL, vbios TEXT NOT NULL,
  verdict TEXT NOT NULL, reason_codes TEXT NOT NULL, UNIQUE(run, node, gpu_index));
CREATE INDEX gpus_by_key ON gpu_rows(gpu_key, at_utc);
CREATE INDEX gpus_by_node ON gpu_rows(node, at_utc);
CREATE INDEX gpus_by_model ON gpu_rows(model, at_utc);
CREATE INDEX gpus_failed ON gpu_rows(verdict, gpu_key);
CREATE TABLE cases(
  id INTEGER PRIMARY KEY, bench_id TEXT NOT NULL, axes TEXT NOT NULL, case_key TEXT NOT NULL,
  metric TEXT NOT NULL, unit TEXT NOT NULL, higher_is_better INTEGER NOT NULL,
  UNIQUE(bench_id, axes, case_key, metric, unit, higher_is_better));
CREATE TABLE result_rows(
  gpu INTEGER NOT NULL REFERENCES gpu_rows(id), result_index INTEGER NOT NULL,
  case_id INTEGER NOT NULL REFERENCES cases(id), value REAL, status TEXT NOT NULL,
  reason TEXT NOT NULL, reference TEXT NOT NULL, reference_value REAL, efficiency REAL,
  verdict TEXT NOT NULL, reason_codes TEXT NOT NULL, samples BLOB,
  PRIMARY KEY(gpu, result_index)) WITHOUT ROWID;
CREATE VIEW gpus AS SELECT
  r.run_id AS run_id, g.node AS node, g.at_utc AS at_utc, g.gpu_key AS gpu_key,
  g.gpu_index AS gpu_index, g.serial AS serial, g.uuid AS uuid, g.bus_id AS bus_id,
  g.model AS model, g.vbios AS vbios, g.verdict AS verdict, g.reason_codes AS reason_codes,
  n.driver AS driver, n.cuda_driver AS cuda_driver
  FROM gpu_rows g JOIN runs r ON r.id = g.run JOIN nodes n ON n.run = g.run AND n.node = g.node;
CREATE VIEW results AS SELECT
  r.run_id AS run_id, x.result_index AS result_index, g.node AS node, g.at_utc AS at_utc,
  g.gpu_key AS gpu_key, g.gpu_index AS gpu_index, g.serial AS serial, g.uuid AS uuid,
  g.bus_id AS bus_id, g.model AS model, c.bench_id AS bench_id, c.axes AS axes,
  c.case_key AS case_key, c.metric AS metric, x.value AS value, c.unit AS unit,
  c.higher_is_better AS higher_is_better, x.status AS status, x.reason AS reason,
  x.reference AS reference, x.reference_value AS reference_value, x.efficiency AS efficiency,
  x.verdict AS verdict, x.reason_codes AS reason_codes, n.driver AS driver,
  n.cuda_driver AS cuda_driver, n.cuda_runtime AS cuda_runtime, n.cublas AS cublas,
  n.nccl AS nccl, g.vbios AS vbios, n.gpuspec_version AS gpuspec_version, x.samples AS samples
  FROM result_rows x JOIN gpu_rows g ON g.id = x.gpu JOIN runs r ON r.id = g.run
  JOIN nodes n ON n.run = g.run AND n.node = g.node JOIN cases c ON c.id = x.case_id;
)sql";

// The latest sighting and pass of each GPU and node: the same in every version.
constexpr const char* schema_latest = R"sql(
CREATE TABLE gpu_latest(
  gpu_key TEXT PRIMARY KEY, model TEXT NOT NULL, node TEXT NOT NULL, last_seen_utc TEXT NOT NULL,
  last_pass_utc TEXT);
CREATE TABLE node_latest(
  node TEXT PRIMARY KEY, last_seen_utc TEXT NOT NULL, last_pass_utc TEXT);
)sql";

// Version 2's tables (and version 1's: only `report`'s declared type differs), renamed aside
// by the migration, copied into version 3's, then dropped. Their indexes go first: version 3
// reuses the names of some.
constexpr const char* set_v2_aside = R"sql(
DROP INDEX IF EXISTS gpus_by_key; DROP INDEX IF EXISTS gpus_by_node;
DROP INDEX IF EXISTS gpus_by_model; DROP INDEX IF EXISTS gpus_failed;
DROP INDEX IF EXISTS results_by_key; DROP INDEX IF EXISTS results_by_model;
ALTER TABLE results RENAME TO v2_results; ALTER TABLE gpus RENAME TO v2_gpus;
ALTER TABLE nodes RENAME TO v2_nodes; ALTER TABLE runs RENAME TO v2_runs;
)sql";
constexpr const char* copy_v2 = R"sql(
INSERT INTO runs(run_id, source, ingested_utc, report_schema, hostname, started_utc,
  finished_utc, suite, complete, verdict, spec_version, gpuspec_version, report)
  SELECT run_id, source, ingested_utc, report_schema, hostname, started_utc, finished_utc, suite,
  complete, verdict, spec_version, gpuspec_version, report FROM v2_runs ORDER BY rowid;
INSERT INTO nodes(run, node, at_utc, verdict, reason_codes, driver, cuda_driver, cuda_runtime,
  cublas, nccl, gpuspec_version)
  SELECT r.id, n.node, n.at_utc, n.verdict, n.reason_codes, n.driver, n.cuda_driver,
  n.cuda_runtime, n.cublas, n.nccl, n.gpuspec_version FROM v2_nodes n JOIN runs r USING(run_id);
INSERT INTO gpu_rows(run, node, at_utc, gpu_key, gpu_index, serial, uuid, bus_id, model, vbios,
  verdict, reason_codes)
  SELECT r.id, g.node, g.at_utc, g.gpu_key, g.gpu_index, g.serial, g.uuid, g.bus_id, g.model,
  g.vbios, g.verdict, g.reason_codes FROM v2_gpus g JOIN runs r USING(run_id)
  ORDER BY r.id, g.node, g.gpu_index;
INSERT OR IGNORE INTO cases(bench_id, axes, case_key, metric, unit, higher_is_better)
  SELECT bench_id, axes, case_key, metric, unit, higher_is_better FROM v2_results
  ORDER BY rowid;
INSERT INTO result_rows(gpu, result_index, case_id, value, status, reason, reference,
  reference_value, efficiency, verdict, reason_codes, samples)
  SELECT g.id, x.result_index, c.id, x.value, x.status, x.reason, x.reference,
  x.reference_value, x.efficiency, x.verdict, x.reason_codes, x.samples
  FROM v2_results x JOIN runs r USING(run_id)
  JOIN gpu_rows g ON g.run = r.id AND g.node = x.node AND g.gpu_index = x.gpu_index
  JOIN cases c ON c.bench_id = x.bench_id AND c.axes = x.axes AND c.case_key = x.case_key
  AND c.metric = x.metric AND c.unit = x.unit AND c.higher_is_better = x.higher_is_better;
)sql";
constexpr const char* drop_v2 =
    "DROP TABLE v2_results; DROP TABLE v2_gpus; DROP TABLE v2_nodes; DROP TABLE v2_runs";

/// Refuses the migration (rolled back: the file stays as it was) where a table's rows did not
/// all find their place: a GPU or result row whose run, node or GPU is not in the file.
void check_copied(connection& db, const char* old_table, const char* new_table, const char* what) {
  const auto before = db.scalar(fmt::format("SELECT count(*) FROM {}", old_table), "count rows");
  const auto after = db.scalar(fmt::format("SELECT count(*) FROM {}", new_table), "count rows");
  if (before != after)
    throw db_error(fmt::format("{}: cannot migrate to schema version {}: {} of its {} {} have "
                               "no run, node or GPU to refer to; nothing was changed",
                               db.file(), fleet_schema_version, before - after, before, what));
}

/// The tables of a database, for the message that refuses a foreign one.
std::string table_names(const connection& db) {
  auto s = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
  std::string out;
  while (s.step("list the tables")) {
    if (!out.empty())
      out += ", ";
    out += s.text(0);
  }
  return out;
}

void create_schema(connection& db) {
  transaction t(db);
  // Two ingesters starting on one new file: the second waits here, then finds the schema.
  if (db.scalar("PRAGMA application_id", "read the header") == fleet_application_id)
    return;
  db.exec(schema_v3, "create the schema");
  db.exec(schema_latest, "create the schema");
  db.exec(fmt::format("PRAGMA application_id = {}; PRAGMA user_version = {}", fleet_application_id,
                      fleet_schema_version),
          "write the schema version");
  t.commit();
}

/// Versions 1 and 2 to 3, all at once, in one transaction: readers see the old file until the
/// commit, and a failure (a full disk) leaves it as it was. Version 1 kept each report as text,
/// version 2 as a zstd frame: a version-1 file's reports are compressed first, one at a time
/// (never every report's text in memory at once). Then version 2's tables are set aside,
/// version 3's made, the rows copied (each result row's GPU and run columns become its GPU
/// row's id, its case its case's id) and the old tables dropped. The pages freed stay in the
/// file for later runs (VACUUM returns them to the disk).
void migrate_to_v3(connection& db) {
  transaction t(db);
  // Two ingesters opening one old file: the second waits here, then finds it migrated.
  const auto version = db.scalar("PRAGMA user_version", "read the header");
  if (version >= 3)
    return;
  if (version < 2) {
    std::vector<std::int64_t> rows;
    {
      auto list = db.prepare("SELECT rowid FROM runs WHERE typeof(report) = 'text'");
      while (list.step("list the reports to compress"))
        rows.push_back(list.integer(0));
    }
    // Scoped: a statement still open would keep the commit from happening.
    auto read = db.prepare("SELECT report FROM runs WHERE rowid = ?1");
    auto write = db.prepare("UPDATE runs SET report = ?2 WHERE rowid = ?1");
    for (const std::int64_t row : rows) {
      read.bind(1, row);
      const bool found = read.step("read a report to compress");
      const std::string frame = found ? compress_report(read.text(0)) : std::string();
      read.reset();
      if (found)
        write.bind(1, row).bind_bytes(2, frame).run("compress a report");
    }
  }
  db.exec(set_v2_aside, "set the old tables aside");
  db.exec(schema_v3, "create the schema");
  db.exec(copy_v2, "copy the rows into the new tables");
  check_copied(db, "v2_nodes", "nodes", "node rows");
  check_copied(db, "v2_gpus", "gpu_rows", "GPU rows");
  check_copied(db, "v2_results", "result_rows", "result rows");
  db.exec(drop_v2, "drop the old tables");
  db.exec(fmt::format("PRAGMA user_version = {}", fleet_schema_version),
          "write the schema version");
  t.commit();
}

/// Refuses a file that is not a gpuspec database of a version this build reads.
void check_header(connection& db) {
  const auto app = db.scalar("PRAGMA application_id", "read the header");
  const auto version = db.scalar("PRAGMA user_version", "read the header");
  if (app == 0 && version == 0) {
    if (db.scalar("SELECT count(*) FROM sqlite_master", "list the tables") == 0) {
      create_schema(db);
      return;
    }
    throw db_error(fmt::format("{}: not a gpuspec database: an SQLite file of another program "
                               "(tables: {}); name a new file",
                               db.file(), table_names(db)));
  }
  if (app != fleet_application_id)
    throw db_error(fmt::format("{}: not a gpuspec database: its application_id is {:#x}, a "
                               "gpuspec database's is {:#x}",
                               db.file(), app, fleet_application_id));
  if (version > fleet_schema_version)
    throw db_error(fmt::format("{}: schema version {} is newer than this gpuspec reads ({}): "
                               "use a newer gpuspec; nothing was changed",
                               db.file(), version, fleet_schema_version));
  if (version < 1)
    throw db_error(
        fmt::format("{}: schema version {} is not one gpuspec wrote", db.file(), version));
}

/// check_header for a query: a file with no schema yet is an empty database, not one to create.
void check_readable_header(connection& db) {
  if (db.scalar("PRAGMA application_id", "read the header") == 0 &&
      db.scalar("PRAGMA user_version", "read the header") == 0 &&
      db.scalar("SELECT count(*) FROM sqlite_master", "list the tables") == 0)
    throw db_error(fmt::format("{}: an empty file, no gpuspec database yet (gpuspec db ingest "
                               "fills it)",
                               db.file()));
  check_header(db);
}

/// The owner of a file, by name where the system knows it.
std::string owner_of(const struct stat& st) {
  if (const passwd* pw = ::getpwuid(st.st_uid); pw != nullptr)
    return pw->pw_name;
  return fmt::format("uid {}", st.st_uid);
}

/// A writer's way blocked by what lies beside the file (the -wal or -shm another user's query
/// left, read-only to us) or by the file or its folder itself: named, with whose it is.
void refuse_blocked(const std::filesystem::path& file) {
  const std::filesystem::path folder = file.has_parent_path() ? file.parent_path() : ".";
  for (const std::string& path :
       {file.string(), file.string() + "-wal", file.string() + "-shm", folder.string()}) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || ::access(path.c_str(), W_OK) == 0)
      continue;
    throw db_error(fmt::format(
        "{}: cannot write the database: {} is not writable by this user (it belongs to {}, "
        "mode {:o}){}",
        file.string(), path, owner_of(st), st.st_mode & 07777,
        path.ends_with("-wal") || path.ends_with("-shm")
            ? "; no gpuspec is using it now? then its owner, or root, removes it"
            : ""));
  }
}

} // namespace

connection open_fleet_db(const std::filesystem::path& file, const open_options& options) {
  if (!options.create && !std::filesystem::exists(file))
    throw db_error(
        fmt::format("{}: no such database (gpuspec db ingest creates it)", file.string()));
  if (options.read_only) {
    std::error_code ec;
    const bool log = std::filesystem::exists(file.string() + "-wal", ec);
    connection db(file, std::string_view(log ? "mode=ro" : "immutable=1"));
    db.exec(fmt::format("PRAGMA busy_timeout = {}", options.busy_timeout_ms), "set the timeout");
    check_readable_header(db);
    return db;
  }
  refuse_blocked(file);
  connection db(file, options.create);
  db.exec(fmt::format("PRAGMA busy_timeout = {}", options.busy_timeout_ms), "set the timeout");
  check_header(db);
  // WAL: readers go on while one writer writes; NORMAL: a commit does not wait for fsync (a
  // power cut can lose the last transactions, never corrupt the file: SQLite's WAL guarantee).
  {
    // Scoped: a statement left open would keep the migration below from committing.
    auto mode = db.prepare("PRAGMA journal_mode = WAL");
    if (mode.step("switch to WAL") && mode.text(0) != "wal")
      throw db_error(
          fmt::format("{}: cannot use WAL mode (journal mode stays {})", db.file(), mode.text(0)));
  }
  db.exec("PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON", "set the pragmas");
  if (db.scalar("PRAGMA user_version", "read the header") < fleet_schema_version)
    migrate_to_v3(db);
  return db;
}

} // namespace gpuspec::fleet
