// Opening a fleet database (database.hpp): the header checks, WAL, the busy timeout, the schema
// of version 2 (docs/fleet.md, "Schema", lists each table and column), and the migration of a
// version-1 file.

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

// One row per report; `report` is the whole report as the writer writes it (compact), as one
// zstd frame (report_blob.hpp). Version 1 declared it TEXT and held the text: the only change.
constexpr const char* schema_v2 = R"sql(
CREATE TABLE runs(
  run_id TEXT PRIMARY KEY, source TEXT NOT NULL, ingested_utc TEXT NOT NULL,
  report_schema TEXT NOT NULL, hostname TEXT NOT NULL, started_utc TEXT NOT NULL,
  finished_utc TEXT NOT NULL, suite TEXT NOT NULL, complete INTEGER NOT NULL,
  verdict TEXT NOT NULL, spec_version TEXT NOT NULL, gpuspec_version TEXT NOT NULL,
  report BLOB NOT NULL);
CREATE TABLE nodes(
  run_id TEXT NOT NULL REFERENCES runs(run_id), node TEXT NOT NULL, at_utc TEXT NOT NULL,
  verdict TEXT NOT NULL, reason_codes TEXT NOT NULL, driver TEXT NOT NULL,
  cuda_driver TEXT NOT NULL, cuda_runtime TEXT NOT NULL, cublas TEXT NOT NULL,
  nccl TEXT NOT NULL, gpuspec_version TEXT NOT NULL, PRIMARY KEY(run_id, node));
CREATE TABLE gpus(
  run_id TEXT NOT NULL REFERENCES runs(run_id), node TEXT NOT NULL, at_utc TEXT NOT NULL,
  gpu_key TEXT NOT NULL, gpu_index INTEGER NOT NULL, serial TEXT NOT NULL, uuid TEXT NOT NULL,
  bus_id TEXT NOT NULL, model TEXT NOT NULL, vbios TEXT NOT NULL, verdict TEXT NOT NULL,
  reason_codes TEXT NOT NULL, driver TEXT NOT NULL, cuda_driver TEXT NOT NULL,
  PRIMARY KEY(run_id, node, gpu_index));
CREATE INDEX gpus_by_key ON gpus(gpu_key, at_utc);
CREATE INDEX gpus_by_node ON gpus(node, at_utc);
CREATE INDEX gpus_by_model ON gpus(model, at_utc);
CREATE INDEX gpus_failed ON gpus(verdict, gpu_key);
CREATE TABLE results(
  run_id TEXT NOT NULL REFERENCES runs(run_id), result_index INTEGER NOT NULL,
  node TEXT NOT NULL, at_utc TEXT NOT NULL, gpu_key TEXT NOT NULL, gpu_index INTEGER NOT NULL,
  serial TEXT NOT NULL, uuid TEXT NOT NULL, bus_id TEXT NOT NULL, model TEXT NOT NULL,
  bench_id TEXT NOT NULL, axes TEXT NOT NULL, case_key TEXT NOT NULL, metric TEXT NOT NULL,
  value REAL, unit TEXT NOT NULL, higher_is_better INTEGER NOT NULL, status TEXT NOT NULL,
  reason TEXT NOT NULL, reference TEXT NOT NULL, reference_value REAL, efficiency REAL,
  verdict TEXT NOT NULL, reason_codes TEXT NOT NULL, driver TEXT NOT NULL,
  cuda_driver TEXT NOT NULL, cuda_runtime TEXT NOT NULL, cublas TEXT NOT NULL,
  nccl TEXT NOT NULL, vbios TEXT NOT NULL, gpuspec_version TEXT NOT NULL, samples BLOB,
  PRIMARY KEY(run_id, node, result_index, gpu_index));
CREATE INDEX results_by_key ON results(gpu_key, case_key, at_utc);
CREATE INDEX results_by_model ON results(model, bench_id);
CREATE TABLE gpu_latest(
  gpu_key TEXT PRIMARY KEY, model TEXT NOT NULL, node TEXT NOT NULL, last_seen_utc TEXT NOT NULL,
  last_pass_utc TEXT);
CREATE TABLE node_latest(
  node TEXT PRIMARY KEY, last_seen_utc TEXT NOT NULL, last_pass_utc TEXT);
)sql";

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
  db.exec(schema_v2, "create the schema");
  db.exec(fmt::format("PRAGMA application_id = {}; PRAGMA user_version = {}", fleet_application_id,
                      fleet_schema_version),
          "write the schema version");
  t.commit();
}

/// Version 1 kept each report as text, version 2 as a zstd frame. All at once, in one
/// transaction: readers see the version-1 file until the commit, and a failure (a full disk)
/// leaves it as it was. The column keeps its declared type TEXT: a BLOB value is stored as it is
/// whatever the column's affinity, and stored_report reads either. The pages freed stay in the
/// file for later runs (VACUUM returns them to the disk).
void migrate_to_v2(connection& db) {
  transaction t(db);
  // Two ingesters opening one version-1 file: the second waits here, then finds it migrated.
  if (db.scalar("PRAGMA user_version", "read the header") >= 2)
    return;
  // The row ids first, then one report at a time: never every report's text in memory at once.
  std::vector<std::int64_t> rows;
  {
    auto list = db.prepare("SELECT rowid FROM runs WHERE typeof(report) = 'text'");
    while (list.step("list the reports to compress"))
      rows.push_back(list.integer(0));
  }
  {
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
  db.exec("PRAGMA user_version = 2", "write the schema version");
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
    migrate_to_v2(db);
  return db;
}

} // namespace gpuspec::fleet
