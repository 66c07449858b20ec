// The stored report (report_blob.hpp, schema version 3): compressed, read back as it was
// written, a version-1 or version-2 database read as it is and migrated in place, a corrupt or
// forged frame an error naming the database and the run, and the bytes a report costs the
// database.

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include <fmt/format.h>

#include "fleet_samples.hpp"
#include "gpuspec/fleet/database.hpp"
#include "gpuspec/fleet/queries.hpp"
#include "gpuspec/fleet/report_blob.hpp"
#include "gpuspec/reports/model/report_json.hpp"

namespace {

using namespace gpuspec;
using fleet::testing::node_report;
using fleet::testing::shipped_judge;

std::string file_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

template <class F> std::string db_error_of(F f) {
  try {
    f();
  } catch (const fleet::db_error& e) {
    return e.what();
  }
  return "";
}

std::vector<std::string> run_ids(const fleet::connection& db) {
  auto s = db.prepare("SELECT run_id FROM runs ORDER BY run_id");
  std::vector<std::string> out;
  while (s.step("list the runs"))
    out.push_back(s.text(0));
  return out;
}

std::string text_of(const fleet::connection& db, const std::string& sql) {
  auto s = db.prepare(sql);
  return s.step("read") ? s.text(0) : std::string("<no row>");
}

void ingest(fleet::connection& db, const reports::report& r) {
  fleet::ingester in(db);
  (void)in.ingest(r, "test", shipped_judge(), "2026-12-01T12:00:00Z");
}

// Version 2's schema, as gpuspec 0.1 at commit a1a0522 made it (fleet/src/database.cpp).
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

/// Turns a database this build wrote into the version-2 layout as version 2 wrote it: a new
/// file of version 2's schema, every row copied in from the views and tables of this one (the
/// views `gpus` and `results` have version 2's columns, in its order).
void make_version_2(const std::filesystem::path& file) {
  const auto old_file = std::filesystem::path(file.string() + ".v3");
  std::filesystem::rename(file, old_file);
  {
    fleet::connection raw(file, true);
    raw.exec(schema_v2, "create version 2's schema");
    raw.exec("ATTACH DATABASE '" + old_file.string() + "' AS v3", "attach");
    raw.exec(
        "BEGIN; INSERT INTO runs SELECT run_id, source, ingested_utc, report_schema, "
        "hostname, started_utc, finished_utc, suite, complete, verdict, spec_version, "
        "gpuspec_version, report FROM v3.runs ORDER BY id; "
        "INSERT INTO nodes SELECT r.run_id, n.node, n.at_utc, n.verdict, n.reason_codes, "
        "n.driver, n.cuda_driver, n.cuda_runtime, n.cublas, n.nccl, n.gpuspec_version FROM "
        "v3.nodes n JOIN v3.runs r ON r.id = n.run; "
        "INSERT INTO gpus SELECT * FROM v3.gpus; INSERT INTO results SELECT * FROM v3.results; "
        "INSERT INTO gpu_latest SELECT * FROM v3.gpu_latest; "
        "INSERT INTO node_latest SELECT * FROM v3.node_latest; COMMIT",
        "copy the rows");
    raw.exec("DETACH DATABASE v3", "detach");
    raw.exec(fmt::format("PRAGMA application_id = {}; PRAGMA user_version = 2",
                         fleet::fleet_application_id),
             "write version 2");
  }
  std::filesystem::remove(old_file);
  std::filesystem::remove(old_file.string() + "-wal");
  std::filesystem::remove(old_file.string() + "-shm");
}

/// Turns a database of the version-2 layout (make_version_2) into the version-1 layout as
/// version 1 wrote it: the column declared TEXT, each report's text in it, user_version 1.
void make_version_1(const std::filesystem::path& file) {
  fleet::connection raw(file, false);
  std::vector<std::pair<std::string, std::string>> texts;
  for (const auto& id : run_ids(raw))
    texts.emplace_back(id, fleet::stored_report(raw, id));
  raw.exec("PRAGMA writable_schema = ON; UPDATE sqlite_schema SET sql = replace(sql, 'report "
           "BLOB NOT NULL', 'report TEXT NOT NULL') WHERE name = 'runs'; PRAGMA writable_schema = "
           "OFF",
           "declare the column as version 1 did");
  auto put = raw.prepare("UPDATE runs SET report = ?2 WHERE run_id = ?1");
  for (const auto& [id, text] : texts)
    put.bind(1, id).bind(2, text).run("store the text");
  raw.exec("PRAGMA user_version = 1", "write version 1");
}

/// Every result row as `db export` writes it (JSON Lines).
std::string exported(const fleet::connection& db) {
  std::ostringstream out;
  (void)fleet::export_rows(db, fleet::export_format::jsonl, out);
  return out.str();
}

/// Versions 1 and 2 alike: read as they are by a query (the file left byte for byte as it was),
/// migrated to version 3 in place when opened to write, every query answering as before.
void old_database_is_read_and_migrated(int version) {
  fleet::testing::scratch tmp;
  const auto file = tmp.dir / "fleet.sqlite";
  std::vector<std::string> texts;
  std::string rows, history_rows, lemons_rows;
  {
    auto db = fleet::open_fleet_db(file, {.create = true});
    ingest(db, node_report("n1", "2026-11-01T00:00:00Z"));
    ingest(db, node_report("n2", "2026-11-02T00:00:00Z"));
    for (const auto& id : run_ids(db))
      texts.push_back(fleet::stored_report(db, id));
    rows = exported(db);
    history_rows =
        nlohmann::ordered_json(fleet::history(db, {.model = "h200-sxm-141gb"}).rows).dump();
    lemons_rows = nlohmann::ordered_json(fleet::lemons(db).rows).dump();
  }
  ASSERT_EQ(std::count(rows.begin(), rows.end(), '\n'), 48);
  make_version_2(file);
  if (version == 1)
    make_version_1(file);
  {
    fleet::connection raw(file, std::string_view("mode=ro"));
    ASSERT_EQ(raw.scalar("PRAGMA user_version", "read"), version);
    ASSERT_EQ(text_of(raw, "SELECT type FROM sqlite_schema WHERE name = 'results'"), "table");
    ASSERT_EQ(text_of(raw, "SELECT DISTINCT typeof(report) FROM runs"),
              version == 1 ? "text" : "blob");
  }
  const std::string old_bytes = file_bytes(file);
  {
    // A query reads it as it is, and leaves it byte for byte as it was.
    const auto db = fleet::open_fleet_db(file, {.read_only = true});
    const auto ids = run_ids(db);
    ASSERT_EQ(ids.size(), 2U);
    for (std::size_t i = 0; i < ids.size(); ++i)
      EXPECT_EQ(fleet::stored_report(db, ids[i]), texts[i]);
    EXPECT_EQ(fleet::history(db, {.node = "n1"}).rows.size(), 8U);
    EXPECT_EQ(exported(db), rows);
  }
  EXPECT_EQ(file_bytes(file), old_bytes);
  {
    // Opened to write: migrated, every report compressed, each reading back the same, every
    // query answering as before, the old tables gone.
    auto db = fleet::open_fleet_db(file, {.create = true});
    EXPECT_EQ(db.scalar("PRAGMA user_version", "read"), fleet::fleet_schema_version);
    EXPECT_EQ(text_of(db, "SELECT DISTINCT typeof(report) FROM runs"), "blob");
    EXPECT_EQ(text_of(db, "SELECT type FROM sqlite_schema WHERE name = 'results'"), "view");
    EXPECT_EQ(db.scalar("SELECT count(*) FROM sqlite_schema WHERE name LIKE 'v2_%'", "count"), 0);
    EXPECT_EQ(db.scalar("SELECT count(*) FROM result_rows", "count"), 48);
    EXPECT_EQ(db.scalar("SELECT count(*) FROM gpu_rows", "count"), 16);
    const auto ids = run_ids(db);
    for (std::size_t i = 0; i < ids.size(); ++i)
      EXPECT_EQ(fleet::stored_report(db, ids[i]), texts[i]);
    EXPECT_EQ(exported(db), rows);
    EXPECT_EQ(nlohmann::ordered_json(fleet::history(db, {.model = "h200-sxm-141gb"}).rows).dump(),
              history_rows);
    EXPECT_EQ(nlohmann::ordered_json(fleet::lemons(db).rows).dump(), lemons_rows);
    ingest(db, node_report("n3", "2026-11-03T00:00:00Z"));
    EXPECT_EQ(db.scalar("SELECT count(*) FROM runs", "count"), 3);
    EXPECT_EQ(db.scalar("SELECT count(*) FROM results", "count"), 72);
    EXPECT_EQ(text_of(db, "PRAGMA integrity_check"), "ok");
    EXPECT_EQ(text_of(db, "PRAGMA foreign_key_check"), "<no row>");
  }
}

TEST(fleet_report_blob, AVersion1DatabaseIsReadAsItIsAndMigratedInPlaceWhenWritten) {
  old_database_is_read_and_migrated(1);
}

TEST(fleet_report_blob, AVersion2DatabaseIsReadAsItIsAndMigratedInPlaceWhenWritten) {
  old_database_is_read_and_migrated(2);
}

TEST(fleet_report_blob, AFailedMigrationLeavesTheOldFileAsItWas) {
  fleet::testing::scratch tmp;
  const auto file = tmp.dir / "fleet.sqlite";
  {
    auto db = fleet::open_fleet_db(file, {.create = true});
    ingest(db, node_report("n1", "2026-11-01T00:00:00Z"));
  }
  make_version_2(file);
  {
    // GPU rows lost (a hand-edited file): their result rows have no GPU to refer to.
    fleet::connection raw(file, false);
    raw.exec("DELETE FROM gpus WHERE gpu_index = 0", "lose a GPU row");
  }
  const auto why = db_error_of([&] { (void)fleet::open_fleet_db(file, {.create = true}); });
  EXPECT_NE(why.find(file.string() + ": cannot migrate to schema version 3: 3 of its 24 result "
                                     "rows have no run, node or GPU"),
            std::string::npos)
      << why;
  fleet::connection raw(file, std::string_view("mode=ro"));
  EXPECT_EQ(raw.scalar("PRAGMA user_version", "read"), 2);
  EXPECT_EQ(text_of(raw, "SELECT type FROM sqlite_schema WHERE name = 'results'"), "table");
  EXPECT_EQ(raw.scalar("SELECT count(*) FROM gpus", "count"), 7);
  EXPECT_EQ(raw.scalar("SELECT count(*) FROM results", "count"), 24);
}

TEST(fleet_report_blob, ACorruptOrForgedFrameIsAnErrorNamingTheDatabaseAndTheRun) {
  fleet::testing::scratch tmp;
  const auto file = tmp.dir / "fleet.sqlite";
  auto db = fleet::open_fleet_db(file, {.create = true});
  ingest(db, node_report("n1", "2026-11-01T00:00:00Z"));
  const std::string id = run_ids(db).front();
  auto frame_stmt = db.prepare("SELECT report FROM runs");
  ASSERT_TRUE(frame_stmt.step("read"));
  const std::string frame = frame_stmt.bytes(0);
  frame_stmt.reset();
  const std::string where = file.string() + ": run " + id + ": its stored report ";
  const auto stored_as = [&](const std::string& bytes) {
    db.prepare("UPDATE runs SET report = ?1").bind_bytes(1, bytes).run("corrupt the report");
    return db_error_of([&] { (void)fleet::stored_report(db, id); });
  };
  // One byte flipped in the middle: the content checksum, or the decoder, notices.
  std::string flipped = frame;
  flipped[flipped.size() / 2] = static_cast<char>(flipped[flipped.size() / 2] ^ 0x55);
  EXPECT_EQ(stored_as(flipped).rfind(where + "is corrupt (zstd: ", 0), 0U) << stored_as(flipped);
  EXPECT_EQ(stored_as(frame.substr(0, frame.size() - 9)).rfind(where + "is corrupt", 0), 0U);
  EXPECT_EQ(stored_as("not a frame at all"), where + "is corrupt (not a zstd frame)");
  // A forged header claiming 1 TiB: refused before anything is allocated.
  const std::string forged{"\x28\xb5\x2f\xfd\xe0\x00\x00\x00\x00\x00\x01\x00\x00\x01\x00\x00", 16};
  EXPECT_EQ(stored_as(forged).rfind(where + "claims 1099511627776 bytes", 0), 0U)
      << stored_as(forged);
  // The frame as it was reads back again: the errors changed nothing.
  EXPECT_EQ(stored_as(frame), "");
  EXPECT_EQ(db_error_of([&] { (void)fleet::stored_report(db, "0000000000000000"); }),
            file.string() + ": run 0000000000000000: no such run");
}

/// The shipped healthy 8-GPU report (tests/fixtures/check/healthy.json), as node `node`: its
/// hostname and serials made the node's own, so that each copy is another node's run.
reports::report healthy_fixture_as(const std::string& text, const std::string& node) {
  std::string t = text;
  for (std::size_t p = 0; (p = t.find("dgx-h200-synthetic", p)) != std::string::npos;)
    t.replace(p, 18, node);
  for (std::size_t p = 0; (p = t.find("SYNTHETIC-000", p)) != std::string::npos;)
    t.replace(p, 13, node + "-");
  auto r = reports::parse_report(t, node);
  if (!r)
    throw std::runtime_error(r.error().to_string());
  return std::move(r).value();
}

// What a report costs the database, all of it: the compressed report, its node, 8 GPU and 24
// result rows and their index entries. Issue 35's bound: 15 kB. Measured 2026-12-06: 11.5 kB
// in schema version 3 (version 2: 24.2 kB, its result rows repeating their GPU's, node's and
// run's columns; version 1: 102 kB, 81 kB of it the report's text).
constexpr double max_bytes_per_report = 15'000;
// The report itself, as stored: 3.8 kB of zstd for 80.8 kB of compact JSON.
constexpr double max_report_frame_bytes = 5'000;

TEST(fleet_report_blob, TheShippedHealthyReportCostsTheDatabaseAtMostItsBound) {
  fleet::testing::scratch tmp;
  const auto file = tmp.dir / "fleet.sqlite";
  const std::string text = file_bytes(GPUSPEC_FIXTURES_DIR "/check/healthy.json");
  ASSERT_FALSE(text.empty());
  auto db = fleet::open_fleet_db(file, {.create = true});
  // The first report makes the pages every later one shares (the schema, the tables' roots).
  ingest(db, healthy_fixture_as(text, "node-first"));
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)", "checkpoint");
  const auto before = std::filesystem::file_size(file);
  constexpr int copies = 20;
  for (int i = 0; i < copies; ++i)
    ingest(db, healthy_fixture_as(text, "node-" + std::to_string(i)));
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)", "checkpoint");
  const double per_report = static_cast<double>(std::filesystem::file_size(file) - before) / copies;
  EXPECT_LE(per_report, max_bytes_per_report);
  const double frame =
      static_cast<double>(db.scalar("SELECT avg(length(report)) FROM runs", "avg"));
  EXPECT_LE(frame, max_report_frame_bytes);
  std::cout << "bytes per report: " << per_report << " (the report's frame: " << frame << ")\n";
}

} // namespace
