// The stored report (report_blob.hpp, schema version 2): compressed, read back as it was
// written, a version-1 database read as it is and migrated in place, a corrupt or forged frame
// an error naming the database and the run, and the bytes a report costs the database.

#include <gtest/gtest.h>

#include <fstream>
#include <iostream>
#include <iterator>

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

/// Turns a database this build wrote into the version-1 layout as version 1 wrote it: the
/// column declared TEXT, each report's text in it, user_version 1.
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

TEST(fleet_report_blob, AVersion1DatabaseIsReadAsItIsAndMigratedInPlaceWhenWritten) {
  fleet::testing::scratch tmp;
  const auto file = tmp.dir / "fleet.sqlite";
  std::vector<std::string> texts;
  {
    auto db = fleet::open_fleet_db(file, {.create = true});
    ingest(db, node_report("n1", "2026-11-01T00:00:00Z"));
    ingest(db, node_report("n2", "2026-11-02T00:00:00Z"));
    for (const auto& id : run_ids(db))
      texts.push_back(fleet::stored_report(db, id));
  }
  make_version_1(file);
  {
    fleet::connection raw(file, std::string_view("mode=ro"));
    ASSERT_NE(text_of(raw, "SELECT sql FROM sqlite_schema WHERE name = 'runs'")
                  .find("report TEXT NOT NULL"),
              std::string::npos);
    ASSERT_EQ(text_of(raw, "SELECT DISTINCT typeof(report) FROM runs"), "text");
  }
  const std::string v1_bytes = file_bytes(file);
  {
    // A query reads it as it is, and leaves it byte for byte as it was.
    const auto db = fleet::open_fleet_db(file, {.read_only = true});
    const auto ids = run_ids(db);
    ASSERT_EQ(ids.size(), 2U);
    for (std::size_t i = 0; i < ids.size(); ++i)
      EXPECT_EQ(fleet::stored_report(db, ids[i]), texts[i]);
    EXPECT_EQ(fleet::history(db, {.node = "n1"}).rows.size(), 8U);
  }
  EXPECT_EQ(file_bytes(file), v1_bytes);
  {
    // Opened to write: migrated, every report compressed, each reading back the same.
    auto db = fleet::open_fleet_db(file, {.create = true});
    EXPECT_EQ(db.scalar("PRAGMA user_version", "read"), fleet::fleet_schema_version);
    EXPECT_EQ(text_of(db, "SELECT DISTINCT typeof(report) FROM runs"), "blob");
    const auto ids = run_ids(db);
    for (std::size_t i = 0; i < ids.size(); ++i)
      EXPECT_EQ(fleet::stored_report(db, ids[i]), texts[i]);
    ingest(db, node_report("n3", "2026-11-03T00:00:00Z"));
    EXPECT_EQ(db.scalar("SELECT count(*) FROM runs", "count"), 3);
    EXPECT_EQ(text_of(db, "PRAGMA integrity_check"), "ok");
  }
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

// What a report costs the database, all of it: the compressed report, its 8 GPU and 24 result
// rows and their index entries. Measured 2026-12-06: 24.2 kB (version 1: 102 kB, 81 kB of it
// the report's text). Issue 35's target, 15 kB, is not met by compressing the report: the rows
// alone are 20 kB (docs/fleet.md, "Scale"). This bound holds what was reached.
constexpr double max_bytes_per_report = 26'000;
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
