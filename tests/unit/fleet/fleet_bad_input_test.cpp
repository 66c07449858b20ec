// gpuspec db's bad input: a corrupt file, another program's SQLite file, a newer schema, a full
// disk (SQLite's page limit, and a real write failure under RLIMIT_FSIZE in a child process),
// two writers at once. Each: an error naming the file, and nothing half-written.

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <thread>

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fleet_samples.hpp"
#include "gpuspec/fleet/database.hpp"

namespace {

using namespace gpuspec;
using fleet::testing::node_report;
using fleet::testing::shipped_judge;

std::string bytes_of(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// The db_error's message of `f`, or "" when it did not throw one.
template <class F> std::string error_of(F f) {
  try {
    f();
  } catch (const fleet::db_error& e) {
    return e.what();
  }
  return "";
}

fleet::ingest_result add(fleet::connection& db, const reports::report& r) {
  fleet::ingester in(db);
  return in.ingest(r, "test", shipped_judge(), "2026-12-01T12:00:00Z");
}

std::int64_t runs(const std::filesystem::path& file) {
  const auto db = fleet::open_fleet_db(file);
  return db.scalar("SELECT count(*) FROM runs", "count");
}

std::string integrity(const fleet::connection& db) {
  auto s = db.prepare("PRAGMA integrity_check");
  return s.step("check") ? s.text(0) : "";
}

TEST(fleet_bad_input, ACorruptFileIsRefusedNamingItAndLeftAlone) {
  fleet::testing::scratch tmp;
  const auto file = tmp.dir / "fleet.sqlite";
  std::ofstream(file, std::ios::binary) << std::string(4096, '\x5a');
  const std::string before = bytes_of(file);
  const auto why = error_of([&] { (void)fleet::open_fleet_db(file, {.create = true}); });
  EXPECT_NE(why.find(file.string()), std::string::npos) << why;
  EXPECT_NE(why.find("not a database"), std::string::npos) << why;
  EXPECT_EQ(bytes_of(file), before);
}

TEST(fleet_bad_input, AnotherProgramsSqliteFileIsRefused) {
  fleet::testing::scratch tmp;
  const auto file = tmp.dir / "other.sqlite";
  {
    fleet::connection other(file, true);
    other.exec("CREATE TABLE accounts(id INTEGER)", "create");
  }
  const std::string before = bytes_of(file);
  const auto why = error_of([&] { (void)fleet::open_fleet_db(file, {.create = true}); });
  EXPECT_NE(why.find(file.string() + ": not a gpuspec database"), std::string::npos) << why;
  EXPECT_NE(why.find("accounts"), std::string::npos) << why;
  EXPECT_EQ(bytes_of(file), before);
  // Another application id, too.
  {
    fleet::connection other(file, true);
    other.exec("PRAGMA application_id = 1234", "set");
  }
  EXPECT_NE(error_of([&] { (void)fleet::open_fleet_db(file); }).find("application_id is 0x4d2"),
            std::string::npos);
}

TEST(fleet_bad_input, ANewerSchemaIsRefusedAndNotTouched) {
  fleet::testing::scratch tmp;
  const auto file = tmp.dir / "fleet.sqlite";
  {
    auto db = fleet::open_fleet_db(file, {.create = true});
    (void)add(db, node_report("n1", "2026-11-01T00:00:00Z"));
    db.exec("PRAGMA user_version = 4", "pretend a newer gpuspec wrote it");
  }
  const auto why = error_of([&] { (void)fleet::open_fleet_db(file, {.create = true}); });
  EXPECT_NE(why.find(file.string() + ": schema version 4 is newer than this gpuspec reads (3)"),
            std::string::npos)
      << why;
  // A healthy file of this version opens.
  {
    fleet::connection raw(file, false);
    raw.exec("PRAGMA user_version = 3", "restore");
  }
  EXPECT_EQ(runs(file), 1);
}

TEST(fleet_bad_input, AMissingFileIsNotCreatedByAReader) {
  fleet::testing::scratch tmp;
  const auto why = error_of([&] { (void)fleet::open_fleet_db(tmp.dir / "none.sqlite"); });
  EXPECT_NE(why.find("none.sqlite: no such database"), std::string::npos) << why;
  EXPECT_FALSE(std::filesystem::exists(tmp.dir / "none.sqlite"));
}

TEST(fleet_bad_input, AFullDatabaseKeepsNothingOfTheReportItRefused) {
  fleet::testing::scratch tmp;
  const auto file = tmp.dir / "fleet.sqlite";
  auto db = fleet::open_fleet_db(file, {.create = true});
  (void)add(db, node_report("n1", "2026-11-01T00:00:00Z"));
  const auto pages = db.scalar("PRAGMA page_count", "pages");
  db.exec("PRAGMA max_page_count = " + std::to_string(pages + 3), "limit the size");
  const auto why = error_of([&] { (void)add(db, node_report("n2", "2026-11-02T00:00:00Z")); });
  EXPECT_NE(why.find(file.string()), std::string::npos) << why;
  EXPECT_NE(why.find("full"), std::string::npos) << why;
  EXPECT_EQ(db.scalar("SELECT count(*) FROM runs", "count"), 1);
  EXPECT_EQ(db.scalar("SELECT count(*) FROM gpus WHERE node = 'n2'", "count"), 0);
  EXPECT_EQ(integrity(db), "ok");
  // Room again: the same report goes in whole, with the same connection's statements.
  db.exec("PRAGMA max_page_count = 1073741823", "lift the limit");
  EXPECT_EQ(add(db, node_report("n2", "2026-11-02T00:00:00Z")).status, fleet::ingest_status::added);
  EXPECT_EQ(db.scalar("SELECT count(*) FROM gpus WHERE node = 'n2'", "count"), 8);
}

TEST(fleet_bad_input, ABatchKeepsTheReportsBeforeTheOneAFullDatabaseRefused) {
  fleet::testing::scratch tmp;
  const auto file = tmp.dir / "fleet.sqlite";
  auto db = fleet::open_fleet_db(file, {.create = true});
  fleet::ingester in(db, {100, std::chrono::minutes(1)});
  const auto put = [&](const std::string& node, const std::string& at) {
    return in.ingest(node_report(node, at), "test", shipped_judge(), "2026-12-01T12:00:00Z");
  };
  EXPECT_EQ(put("n1", "2026-11-01T00:00:00Z").status, fleet::ingest_status::added);
  EXPECT_EQ(put("n2", "2026-11-02T00:00:00Z").status, fleet::ingest_status::added);
  EXPECT_EQ(in.committed_runs(), 0U); // both in the open batch
  const auto pages = db.scalar("PRAGMA page_count", "pages");
  db.exec("PRAGMA max_page_count = " + std::to_string(pages + 1), "limit the size");
  const auto why = error_of([&] { (void)put("n3", "2026-11-03T00:00:00Z"); });
  EXPECT_NE(why.find(file.string()), std::string::npos) << why;
  EXPECT_NE(why.find("full"), std::string::npos) << why;
  EXPECT_EQ(in.committed_runs(), 2U);
  EXPECT_EQ(runs(file), 2); // committed: another connection sees them
  EXPECT_EQ(db.scalar("SELECT count(*) FROM gpus WHERE node = 'n3'", "count"), 0);
  EXPECT_EQ(integrity(db), "ok");
  db.exec("PRAGMA max_page_count = 1073741823", "lift the limit");
  EXPECT_EQ(put("n3", "2026-11-03T00:00:00Z").status, fleet::ingest_status::added);
  in.commit();
  EXPECT_EQ(in.committed_runs(), 3U);
  EXPECT_EQ(db.scalar("SELECT count(*) FROM gpus WHERE node = 'n3'", "count"), 8);
}

// The first report of a new file makes its cases (`cases`, schema 3); refused (here by a
// trigger; a full disk alike), it takes them with it, and the ingester forgets their ids: the
// same report again makes them again, its result rows referring to rows that are there.
TEST(fleet_bad_input, ACaseRolledBackWithARefusedReportIsMadeAgain) {
  fleet::testing::scratch tmp;
  const auto file = tmp.dir / "fleet.sqlite";
  auto db = fleet::open_fleet_db(file, {.create = true});
  fleet::ingester in(db, {100, std::chrono::minutes(1)});
  const auto put = [&](const std::string& node, const std::string& at) {
    return in.ingest(node_report(node, at), "test", shipped_judge(), "2026-12-01T12:00:00Z");
  };
  // Refused at its first result row, after its first case is made.
  db.exec("CREATE TEMP TRIGGER refuse BEFORE INSERT ON result_rows BEGIN SELECT "
          "RAISE(ABORT, 'refused by the test'); END",
          "refuse result rows");
  const auto why = error_of([&] { (void)put("n1", "2026-11-01T00:00:00Z"); });
  EXPECT_NE(why.find("refused by the test"), std::string::npos) << why;
  EXPECT_EQ(db.scalar("SELECT count(*) FROM cases", "count"), 0);
  db.exec("DROP TRIGGER refuse", "accept result rows");
  EXPECT_EQ(put("n1", "2026-11-01T00:00:00Z").status, fleet::ingest_status::added);
  EXPECT_EQ(put("n2", "2026-11-02T00:00:00Z").status, fleet::ingest_status::added);
  in.commit();
  EXPECT_EQ(db.scalar("SELECT count(*) FROM results", "count"),
            2 * db.scalar("SELECT count(*) FROM result_rows WHERE gpu IN (SELECT id FROM "
                          "gpu_rows WHERE node = 'n1')",
                          "count"));
  EXPECT_GT(db.scalar("SELECT count(*) FROM cases", "count"), 0);
  auto fk = db.prepare("PRAGMA foreign_key_check");
  EXPECT_FALSE(fk.step("check the references"));
  EXPECT_EQ(integrity(db), "ok");
}

TEST(fleet_bad_input, ABatchCommitsWhenFullAndWhatIsLeftOpenIsRolledBackWhole) {
  fleet::testing::scratch tmp;
  const auto file = tmp.dir / "fleet.sqlite";
  {
    auto db = fleet::open_fleet_db(file, {.create = true});
    fleet::ingester in(db, {2, std::chrono::minutes(1)});
    for (const auto& [node, at] :
         {std::pair{"n1", "2026-11-01T00:00:00Z"}, std::pair{"n2", "2026-11-02T00:00:00Z"},
          std::pair{"n3", "2026-11-03T00:00:00Z"}})
      (void)in.ingest(node_report(node, at), "test", shipped_judge(), "2026-12-01T12:00:00Z");
    EXPECT_EQ(in.committed_runs(), 2U);
    EXPECT_EQ(runs(file), 2);
    // The third report's batch is left open, as a crash would leave it.
  }
  auto db = fleet::open_fleet_db(file);
  EXPECT_EQ(db.scalar("SELECT count(*) FROM runs", "count"), 2);
  EXPECT_EQ(db.scalar("SELECT count(*) FROM gpus WHERE node = 'n3'", "count"), 0);
  EXPECT_EQ(db.scalar("SELECT count(*) FROM results WHERE node = 'n3'", "count"), 0);
  EXPECT_EQ(integrity(db), "ok");
}

TEST(fleet_bad_input, AWriteTheFileSystemRefusesKeepsNothingHalfWritten) {
  // A full disk as the kernel gives it: writes past RLIMIT_FSIZE fail with EFBIG (SIGXFSZ
  // ignored), in a child process so that the limit stays there.
  fleet::testing::scratch tmp;
  const auto file = tmp.dir / "fleet.sqlite";
  {
    auto db = fleet::open_fleet_db(file, {.create = true});
    (void)add(db, node_report("n1", "2026-11-01T00:00:00Z"));
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)", "checkpoint");
  }
  (void)shipped_judge(); // loaded before the limit
  // The new report's pages go to the write-ahead log, emptied by the checkpoint above: a
  // limit of 40 KiB (the shared-memory index's 32 KiB fit) stops them part-way through.
  const rlim_t size = 40960;
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{size, size};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    try {
      auto db = fleet::open_fleet_db(file);
      (void)add(db, node_report("n2", "2026-11-02T00:00:00Z"));
    } catch (const fleet::db_error& e) {
      const std::string why = e.what();
      ::_exit(why.find(file.string()) != std::string::npos ? 0 : 4);
    }
    ::_exit(5); // the write went through: the limit did not bite
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  auto db = fleet::open_fleet_db(file);
  EXPECT_EQ(db.scalar("SELECT count(*) FROM runs", "count"), 1);
  EXPECT_EQ(db.scalar("SELECT count(*) FROM gpus WHERE node = 'n2'", "count"), 0);
  EXPECT_EQ(integrity(db), "ok");
}

TEST(fleet_bad_input, TwoIngestersAtOnceBothGetEverythingIn) {
  fleet::testing::scratch tmp;
  const auto file = tmp.dir / "fleet.sqlite";
  (void)fleet::open_fleet_db(file, {.create = true});
  (void)shipped_judge();
  const auto writer = [&](const std::string& node) {
    auto db = fleet::open_fleet_db(file);
    for (int i = 0; i < 4; ++i)
      (void)add(db, node_report(node, "2026-11-0" + std::to_string(i + 1) + "T00:00:00Z"));
  };
  // And in db ingest's batches, each holding the lock while the other waits its turn.
  const auto batched = [&](const std::string& node) {
    auto db = fleet::open_fleet_db(file);
    fleet::ingester in(db, fleet::ingest_batches);
    for (int i = 0; i < 4; ++i)
      (void)in.ingest(node_report(node, "2026-11-0" + std::to_string(i + 1) + "T00:00:00Z"), "test",
                      shipped_judge(), "2026-12-01T12:00:00Z");
    in.commit();
  };
  std::thread a(writer, "node-a"), b(writer, "node-b");
  a.join();
  b.join();
  std::thread c(batched, "node-c"), d(batched, "node-d");
  c.join();
  d.join();
  auto db = fleet::open_fleet_db(file);
  EXPECT_EQ(db.scalar("SELECT count(*) FROM runs", "count"), 16);
  EXPECT_EQ(db.scalar("SELECT count(*) FROM gpus", "count"), 128);
}

TEST(fleet_bad_input, AWriterThatWaitsTooLongSaysTheDatabaseIsLocked) {
  fleet::testing::scratch tmp;
  const auto file = tmp.dir / "fleet.sqlite";
  auto holder = fleet::open_fleet_db(file, {.create = true});
  auto waiter = fleet::open_fleet_db(file, {.busy_timeout_ms = 100});
  holder.exec("BEGIN IMMEDIATE", "hold the write lock");
  const auto why = error_of([&] { (void)add(waiter, node_report("n1", "2026-11-01T00:00:00Z")); });
  EXPECT_NE(why.find(file.string()), std::string::npos) << why;
  EXPECT_NE(why.find("locked"), std::string::npos) << why;
  holder.exec("ROLLBACK", "release");
  // A reader goes on while a writer holds the lock (WAL).
  holder.exec("BEGIN IMMEDIATE", "hold the write lock");
  EXPECT_EQ(waiter.scalar("SELECT count(*) FROM runs", "read"), 0);
  holder.exec("ROLLBACK", "release");
  EXPECT_EQ(add(waiter, node_report("n1", "2026-11-01T00:00:00Z")).status,
            fleet::ingest_status::added);
}

} // namespace
