// `gpuspec db` end to end, as a user runs it: ingest a folder with a bad file in it, again,
// then each query in text and JSON, and the exit codes.

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <unistd.h>
#include <vector>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "run_process.hpp"

namespace {

using gpuspec::testing::run_in;

class fleet_cli : public gpuspec::testing::scratch_dir_test {
protected:
  gpuspec::testing::process_result db(const std::string& args) {
    return run_in(m_dir, std::string(GPUSPEC_BINARY) + " db " + args + " --db fleet.sqlite");
  }
  void copy_fixture(const std::string& from, const std::string& to) {
    std::filesystem::create_directories((m_dir / to).parent_path());
    std::filesystem::copy_file(std::string(GPUSPEC_FIXTURES_DIR) + "/" + from, m_dir / to);
  }
};

TEST_F(fleet_cli, IngestNamesABadFileSkipsItAndKeepsTheRest) {
  copy_fixture("check/healthy.json", "reports/a-healthy.json");
  copy_fixture("check/degraded-ecc-uncorrected.json", "reports/b-ecc.json");
  copy_fixture("reports/invalid/bad-result-status.json", "reports/c-bad.json");
  copy_fixture("reports/v1/synthetic-interrupted.json", "reports/sub/d-v1.json");
  auto r = db("ingest reports --json");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("c-bad.json"), std::string::npos) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["rows"].size(), 4U);
  EXPECT_EQ(j["rows"][0]["status"], "added");
  EXPECT_EQ(j["rows"][1]["status"], "added");
  EXPECT_EQ(j["rows"][2]["status"], "bad");
  EXPECT_EQ(j["rows"][3]["status"], "added");
  // Again, without the bad file: nothing new, exit code 0.
  std::filesystem::remove(m_dir / "reports/c-bad.json");
  r = db("ingest reports");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("0 new run(s), 3 already present, 0 bad file(s) skipped"), std::string::npos)
      << r.out;
}

TEST_F(fleet_cli, AFolderOfMixedLogsAndReportsIngestsEveryLogItKnowsAndNamesTheRest) {
  // It took only *.json: the foreign tools' logs beside the reports were silently left out.
  copy_fixture("check/healthy.json", "site/a-healthy.json");
  copy_fixture("import/nccl-tests/h100x8-all_reduce-nvls-256M-2G.log", "site/b-nccl.log");
  copy_fixture("import/babelstream/a100-sxm4-80gbx1-cuda-v4-double.log", "site/node2/stream.txt");
  copy_fixture("import/babelstream/v100-pcie-16gbx1-cuda-v4-double.log", "site/node3/stream.txt");
  copy_fixture("import/dcgm/virtualclient-diag-r2-pass.json", "site/node2/diag.json");
  std::ofstream(m_dir / "site/notes.md") << "# what we ran\nall_reduce on node1\n";
  std::ofstream(m_dir / "site/.hidden.swp") << "\x01\x02";
  auto r = db("ingest site --json");
  EXPECT_EQ(r.exit_code, 3) << r.err; // one file could not be read
  EXPECT_NE(r.err.find("notes.md: line 1: not a log gpuspec can import"), std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find(".hidden.swp"), std::string::npos) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["rows"].size(), 6U) << r.out;
  std::map<std::string, std::string> status;
  for (const auto& row : j["rows"])
    status[std::filesystem::path(row["file"].get<std::string>()).filename().string() +
           (row["file"].get<std::string>().find("node3") != std::string::npos ? "@3" : "")] =
        row["status"];
  EXPECT_EQ(status["a-healthy.json"], "added");
  EXPECT_EQ(status["b-nccl.log"], "added");
  EXPECT_EQ(status["stream.txt"], "added");
  EXPECT_EQ(status["stream.txt@3"], "added");
  EXPECT_EQ(status["diag.json"], "added");
  EXPECT_EQ(status["notes.md"], "bad");
  // Filed by node and GPU: the nccl-tests log under the host its rank lines name; the two
  // BabelStream logs, which name none, each under a node of its own, never as one GPU "/0".
  r = db("history --model a100-sxm4-80gb --json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const auto a100 = nlohmann::json::parse(r.out);
  ASSERT_EQ(a100["rows"].size(), 1U) << r.out;
  EXPECT_EQ(a100["rows"][0]["node"].get<std::string>().rfind("unnamed-", 0), 0U) << r.out;
  r = db("history --model v100-pcie-16gb --json");
  const auto v100 = nlohmann::json::parse(r.out);
  ASSERT_EQ(v100["rows"].size(), 1U) << r.out;
  EXPECT_NE(v100["rows"][0]["gpu_key"], a100["rows"][0]["gpu_key"]);
  r = db("history --node host --json");
  EXPECT_EQ(nlohmann::json::parse(r.out)["rows"].size(), 8U) << r.out;
  // Again, nothing lost and nothing doubled: the logs are the same runs.
  std::filesystem::remove(m_dir / "site/notes.md");
  r = db("ingest site");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("0 new run(s), 5 already present, 0 bad file(s) skipped"), std::string::npos)
      << r.out;
}

TEST_F(fleet_cli, AReportNamingAGpuIndexTwiceIsSkippedAndTheFilesAfterItGoIn) {
  // It stopped the ingest on a raw SQLite error (UNIQUE constraint failed), and the files after
  // it never went in.
  copy_fixture("check/healthy.json", "reports/a-healthy.json");
  auto dup = nlohmann::json::parse(
      std::ifstream(std::string(GPUSPEC_FIXTURES_DIR) + "/check/degraded-ecc-uncorrected.json"));
  dup["devices"][1]["index"] = dup["devices"][0]["index"];
  std::ofstream(m_dir / "reports/b-duplicate-index.json") << dup.dump(1);
  copy_fixture("reports/v1/synthetic-interrupted.json", "reports/c-v1.json");
  const auto r = db("ingest reports --json");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("b-duplicate-index.json: GPU index 0 appears twice"), std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("constraint"), std::string::npos) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["rows"].size(), 3U);
  EXPECT_EQ(j["rows"][0]["status"], "added");
  EXPECT_EQ(j["rows"][1]["status"], "bad");
  EXPECT_EQ(j["rows"][2]["status"], "added");
}

/// `command` as another user than the one who ingested: nobody (uid 65534) through setpriv
/// when the test runs as root; else as this user, the file and folder made read-only instead.
gpuspec::testing::process_result as_another_user(const std::filesystem::path& dir,
                                                 const std::string& command) {
  if (::geteuid() == 0)
    return run_in(dir, "setpriv --reuid=65534 --regid=65534 --clear-groups " + command);
  return run_in(dir, command);
}

TEST_F(fleet_cli, AQueryLeavesNothingBehindAndReadsAReadOnlyDatabase) {
  // Another user's query left fleet.sqlite-wal and -shm, theirs, so the next ingest failed; and
  // a database the querying user cannot write could not be queried at all.
  copy_fixture("check/healthy.json", "healthy.json");
  ASSERT_EQ(db("ingest healthy.json").exit_code, 0);
  const auto listing = [&] {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(m_dir))
      if (e.path().filename() != "stderr.txt") // run_in's
        names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  };
  ASSERT_EQ(listing(), (std::vector<std::string>{"fleet.sqlite", "healthy.json"}));
  if (::geteuid() == 0 && std::system("command -v setpriv >/dev/null") != 0)
    GTEST_SKIP() << "running as root without setpriv: no other user to query as";
  namespace fs = std::filesystem;
  fs::permissions(m_dir, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                             fs::perms::others_read | fs::perms::others_exec);
  fs::permissions(m_dir / "fleet.sqlite",
                  fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  const auto q = as_another_user(m_dir, std::string(GPUSPEC_BINARY) +
                                            " db history --node dgx-h200-synthetic --db "
                                            "fleet.sqlite --json");
  EXPECT_EQ(q.exit_code, 0) << q.err;
  EXPECT_EQ(nlohmann::json::parse(q.out)["rows"].size(), 8U) << q.out;
  EXPECT_EQ(listing(), (std::vector<std::string>{"fleet.sqlite", "healthy.json"}));
  fs::permissions(m_dir / "fleet.sqlite", fs::perms::owner_read | fs::perms::owner_write);
  // What blocks an ingest is named: a -shm another user left, read-only to the writer.
  if (::geteuid() != 0) {
    std::ofstream(m_dir / "fleet.sqlite-shm") << "";
    fs::permissions(m_dir / "fleet.sqlite-shm", fs::perms::owner_read);
    const auto r = db("ingest healthy.json");
    EXPECT_EQ(r.exit_code, 3);
    EXPECT_NE(r.err.find("fleet.sqlite-shm is not writable by this user"), std::string::npos)
        << r.err;
  }
}

TEST_F(fleet_cli, QueriesPrintTablesAndJsonWithTheirExitCodes) {
  copy_fixture("check/healthy.json", "healthy.json");
  copy_fixture("check/degraded-ecc-uncorrected.json", "ecc.json");
  ASSERT_EQ(db("ingest healthy.json ecc.json").exit_code, 0);
  // Both fixtures are one node whose GPU 2 failed in the second run only (the same serials).
  auto h = db("history --serial SYNTHETIC-0002");
  EXPECT_EQ(h.exit_code, 0) << h.err;
  EXPECT_NE(h.out.find("GPUSPEC-ECC-UNCORRECTED"), std::string::npos) << h.out;
  h = db("history --node dgx-h200-synthetic --json");
  EXPECT_EQ(nlohmann::json::parse(h.out)["rows"].size(), 16U);
  auto s = db("stale --older-than 7d --now 2026-12-03");
  EXPECT_EQ(s.exit_code, 0) << s.out << s.err; // passed on 12-01: nothing stale
  s = db("stale --older-than 7d --now 2026-12-30 --json");
  EXPECT_EQ(s.exit_code, 1);
  EXPECT_EQ(nlohmann::json::parse(s.out)["rows"].size(), 9U); // 8 GPUs and the node
  auto l = db("lemons");
  EXPECT_EQ(l.exit_code, 0) << l.out; // failed once: not a lemon
  auto e = db("export --csv");
  EXPECT_EQ(e.exit_code, 0) << e.err;
  EXPECT_EQ(e.out.rfind("run_id,at_utc,node,", 0), 0U);
  auto bad = db("stale --older-than 7");
  EXPECT_EQ(bad.exit_code, 3);
  EXPECT_NE(bad.err.find("--older-than"), std::string::npos) << bad.err;
  bad = db("compare --before driver=560..550 --after driver=560..");
  EXPECT_EQ(bad.exit_code, 3);
  EXPECT_NE(bad.err.find("the range is empty"), std::string::npos) << bad.err;
}

TEST_F(fleet_cli, AFileThatIsNotAGpuspecDatabaseIsExitCode3NamingIt) {
  std::ofstream(m_dir / "fleet.sqlite") << "not sqlite at all, just text";
  const auto r = db("history --serial X");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("fleet.sqlite"), std::string::npos) << r.err;
  const auto missing = run_in(m_dir, std::string(GPUSPEC_BINARY) + " db lemons --db none.sqlite");
  EXPECT_EQ(missing.exit_code, 3);
  EXPECT_NE(missing.err.find("none.sqlite: no such database"), std::string::npos) << missing.err;
}

} // namespace
