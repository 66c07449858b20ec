// gpuspec db's library over fleet reports: ingest (idempotent, judged by check, v1 and v1.1,
// multi-node), history, stale, lemons, compare and export.

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "check_fixtures.hpp"
#include "fleet_samples.hpp"
#include "gpuspec/fleet/database.hpp"
#include "gpuspec/fleet/queries.hpp"
#include "gpuspec/fleet/report_blob.hpp"
#include "gpuspec/reports/model/report_json.hpp"
#include "gpuspec/reports/model/statistics.hpp"
#include "mig_fixtures.hpp"
#include "stock_fixtures.hpp"

namespace {

using namespace gpuspec;
using fleet::testing::node_report;
using fleet::testing::shipped_judge;

struct fleet_db : ::testing::Test {
  fleet::testing::scratch tmp;
  fleet::connection db = fleet::open_fleet_db(tmp.dir / "fleet.sqlite", {.create = true});
  fleet::ingester in{db};

  fleet::ingest_result add(const reports::report& r) {
    return in.ingest(r, "test", shipped_judge(), "2026-12-01T12:00:00Z");
  }
  std::int64_t count(const char* table) {
    return db.scalar(std::string("SELECT count(*) FROM ") + table, "count");
  }
  std::string text(const std::string& sql) {
    auto s = db.prepare(sql);
    return s.step("read") ? s.text(0) : std::string("<no row>");
  }
};

TEST_F(fleet_db, IngestingTheSameReportTwiceChangesNothing) {
  const auto r = node_report("node-a", "2026-11-30T02:00:00Z");
  const auto first = add(r);
  EXPECT_EQ(first.status, fleet::ingest_status::added);
  EXPECT_EQ(first.gpus, 8U);
  EXPECT_EQ(first.results, r.results.size()); // one GPU each
  const auto rows = count("results");
  // Re-read from its own text (another indentation, the same report): the same run id.
  const auto again = reports::parse_report(reports::to_json_text(r), "copy.json");
  ASSERT_TRUE(again);
  const auto second = add(again.value());
  EXPECT_EQ(second.status, fleet::ingest_status::already_present);
  EXPECT_EQ(second.run_id, first.run_id);
  EXPECT_EQ(count("runs"), 1);
  EXPECT_EQ(count("gpus"), 8);
  EXPECT_EQ(count("results"), rows);
  // Another run of the same node is another run.
  EXPECT_EQ(add(node_report("node-a", "2026-11-30T03:00:00Z")).status, fleet::ingest_status::added);
  EXPECT_EQ(count("runs"), 2);
}

TEST_F(fleet_db, RowsCarryChecksVerdictsAndTheSoftwareStack) {
  auto r = node_report("node-a", "2026-11-30T02:00:00Z");
  r.devices[2].counters_after["ecc.volatile.uncorrected"] = reports::reading::of(3);
  r.devices[2].counters_delta["ecc.volatile.uncorrected"] = reports::reading::of(3);
  (void)add(r);
  EXPECT_EQ(text("SELECT verdict FROM gpus WHERE gpu_key = 'node-a-GPU2'"), "fail");
  EXPECT_NE(text("SELECT reason_codes FROM gpus WHERE gpu_key = 'node-a-GPU2'")
                .find("GPUSPEC-ECC-UNCORRECTED"),
            std::string::npos);
  // The healthy GPUs of the same node pass, with no code.
  EXPECT_EQ(text("SELECT verdict FROM gpus WHERE gpu_key = 'node-a-GPU0'"), "pass");
  EXPECT_EQ(text("SELECT reason_codes FROM gpus WHERE gpu_key = 'node-a-GPU0'"), "");
  EXPECT_EQ(text("SELECT verdict FROM runs"), "fail");
  EXPECT_EQ(text("SELECT spec_version FROM runs"), "shipped specs/ (test)");
  EXPECT_EQ(text("SELECT DISTINCT driver || ' ' || cublas || ' ' || model FROM results"),
            "550.54.15 " + r.host.cublas_version + " h200-sxm-141gb");
  EXPECT_EQ(text("SELECT count(DISTINCT verdict) FROM results WHERE gpu_key = 'node-a-GPU0'"), "1");
  EXPECT_EQ(text("SELECT DISTINCT verdict FROM results WHERE gpu_key = 'node-a-GPU0'"), "pass");
  // The whole report is kept, compressed, and reads back as the same report.
  EXPECT_EQ(text("SELECT typeof(report) FROM runs"), "blob");
  const auto kept =
      reports::parse_report(fleet::stored_report(db, text("SELECT run_id FROM runs")), "report");
  ASSERT_TRUE(kept) << kept.error().to_string();
  EXPECT_EQ(kept.value(), reports::parse_report(reports::to_json_text(r), "r").value());
}

TEST_F(fleet_db, AVersion1ReportAndAMultiNodeReportIngest) {
  const auto v1 =
      reports::load_report(GPUSPEC_FIXTURES_DIR "/reports/v1/synthetic-interrupted.json");
  ASSERT_TRUE(v1);
  (void)add(v1.value());
  EXPECT_EQ(text("SELECT report_schema FROM runs"), "gpuspec.report.v1");
  const auto multi =
      reports::load_report(GPUSPEC_FIXTURES_DIR "/reports/synthetic-multi-node.json");
  ASSERT_TRUE(multi);
  (void)add(multi.value());
  EXPECT_EQ(count("nodes"), 1 + 1 + static_cast<std::int64_t>(multi.value().nodes.size()));
}

TEST_F(fleet_db, HistoryFollowsASerialAcrossTheNodesItMovedThrough) {
  (void)add(node_report("node-a", "2026-11-01T00:00:00Z"));
  auto b = node_report("node-b", "2026-11-20T00:00:00Z");
  b.devices[5].serial = "node-a-GPU3"; // moved from node-a's slot 3 to node-b's slot 5
  (void)add(b);
  const auto h = fleet::history(db, {.serial = "node-a-GPU3"});
  ASSERT_EQ(h.rows.size(), 2U);
  EXPECT_EQ(h.rows[0]["node"], "node-a");
  EXPECT_EQ(h.rows[0]["gpu_index"], 3);
  EXPECT_EQ(h.rows[1]["node"], "node-b");
  EXPECT_EQ(h.rows[1]["gpu_index"], 5);
  EXPECT_EQ(h.rows[1]["verdict"], "pass");
  EXPECT_EQ(fleet::history(db, {.node = "node-b"}).rows.size(), 8U);
  EXPECT_EQ(fleet::history(db, {.model = "h200-sxm-141gb"}).rows.size(), 16U);
  EXPECT_TRUE(fleet::history(db, {.serial = "no-such-serial"}).rows.empty());
}

TEST_F(fleet_db, StaleListsWhatHasNoPassInTheWindowAndNothingElse) {
  const long long now = fleet::utc_seconds("2026-12-01T00:00:00Z");
  (void)add(node_report("fresh", "2026-11-28T00:00:00Z"));
  EXPECT_TRUE(fleet::stale(db, now, 7 * 86400.0).rows.empty()); // healthy: nothing stale
  (void)add(node_report("old", "2026-11-01T00:00:00Z"));
  // A GPU whose latest run failed but which passed a week ago has a stale pass too.
  auto failed = node_report("failing", "2026-11-02T00:00:00Z");
  (void)add(failed);
  failed.run.started_utc = "2026-11-30T00:00:00Z";
  failed.devices[1].counters_delta["ecc.volatile.uncorrected"] = reports::reading::of(1);
  failed.devices[1].counters_after["ecc.volatile.uncorrected"] = reports::reading::of(1);
  (void)add(failed);
  const auto s = fleet::stale(db, now, 7 * 86400.0);
  std::vector<std::string> ids;
  for (const auto& row : s.rows)
    ids.push_back(row["kind"].get<std::string>() + " " + row["id"].get<std::string>());
  // "old": all 8 GPUs and the node; "failing": GPU1 and the node (its latest pass is 11-02).
  EXPECT_EQ(ids.size(), 11U);
  EXPECT_NE(std::find(ids.begin(), ids.end(), "gpu failing-GPU1"), ids.end());
  EXPECT_EQ(std::find(ids.begin(), ids.end(), "gpu failing-GPU0"), ids.end());
  EXPECT_NE(std::find(ids.begin(), ids.end(), "node old"), ids.end());
  EXPECT_EQ(std::find(ids.begin(), ids.end(), "node fresh"), ids.end());
  EXPECT_NEAR(s.rows.front()["age_days"].get<double>(), 29.0, 1.0);
}

TEST_F(fleet_db, AReportDatedAfterItsIngestIsFlaggedAndNeverARecentPass) {
  // A report dated 2027 (its writer's clock, or its writer) ingested on 2026-12-01 counted as
  // a pass in every window until 2027, so db stale never listed its node.
  const long long now = fleet::utc_seconds("2026-12-02T00:00:00Z");
  const auto future = add(node_report("future", "2027-06-01T00:00:00Z"));
  EXPECT_EQ(future.status, fleet::ingest_status::added);
  EXPECT_TRUE(future.dated_after_ingest);
  // Within the clock skew (10 min after the ingest at 12:00): an ordinary report.
  EXPECT_FALSE(add(node_report("skewed", "2026-12-01T12:09:00Z")).dated_after_ingest);
  const auto s = fleet::stale(db, now, 7 * 86400.0);
  std::vector<std::string> ids;
  for (const auto& row : s.rows)
    ids.push_back(row["kind"].get<std::string>() + " " + row["id"].get<std::string>());
  EXPECT_NE(std::find(ids.begin(), ids.end(), "node future"), ids.end());
  EXPECT_NE(std::find(ids.begin(), ids.end(), "gpu future-GPU0"), ids.end());
  EXPECT_EQ(std::find(ids.begin(), ids.end(), "node skewed"), ids.end());
  // A database filled before ingest flagged them: a pass dated after now is no recent pass.
  db.exec("UPDATE node_latest SET last_pass_utc = '2027-06-01T00:00:00Z' WHERE node = 'skewed'",
          "date a pass in the future");
  const auto again = fleet::stale(db, now, 7 * 86400.0);
  bool listed = false;
  for (const auto& row : again.rows)
    listed = listed || row["id"] == "skewed";
  EXPECT_TRUE(listed);
}

TEST_F(fleet_db, LemonsAreSerialsThatFailedTwiceAnywhere) {
  const auto fail_gpu = [](reports::report& r, int d) {
    r.devices[d].counters_after["ecc.volatile.uncorrected"] = reports::reading::of(2);
    r.devices[d].counters_delta["ecc.volatile.uncorrected"] = reports::reading::of(2);
  };
  auto a = node_report("node-a", "2026-11-01T00:00:00Z");
  fail_gpu(a, 3);
  fail_gpu(a, 6); // fails once only: not a lemon
  (void)add(a);
  auto b = node_report("node-b", "2026-11-10T00:00:00Z");
  b.devices[0].serial = "node-a-GPU3"; // RMA'd? No: moved, and failed again
  fail_gpu(b, 0);
  (void)add(b);
  const auto l = fleet::lemons(db);
  ASSERT_EQ(l.rows.size(), 1U);
  EXPECT_EQ(l.rows[0]["gpu_key"], "node-a-GPU3");
  EXPECT_EQ(l.rows[0]["failures"], 2);
  EXPECT_EQ(l.rows[0]["nodes"], "node-a,node-b");
  EXPECT_EQ(l.rows[0]["reason_codes"], "GPUSPEC-ECC-UNCORRECTED");
  EXPECT_EQ(l.rows[0]["first_failure_utc"], "2026-11-01T00:00:00Z");
}

TEST_F(fleet_db, CompareJudgesTheDriverUpgradeByDiffsRules) {
  for (const char* node : {"n1", "n2", "n3"}) {
    (void)add(node_report(node, "2026-11-01T00:00:00Z", "550.54.15"));
    auto after = node_report(node, "2026-11-15T00:00:00Z", "560.35.03");
    if (std::string(node) == "n2")
      for (int d = 0; d < 8; ++d)
        reports::testing::scale_device_results(after, d, 0.9); // 10% slower on n2 only
    (void)add(after);
  }
  fleet::compare_request q;
  std::string why;
  q.before = *fleet::parse_window("driver=..560", true, why);
  q.after = *fleet::parse_window("driver=560..", false, why);
  const auto d = fleet::compare_windows(db, q);
  EXPECT_EQ(d.verdict, reports::check_status::fail);
  EXPECT_EQ(d.devices.size(), 24U);
  std::size_t regressions = 0, unchanged = 0;
  for (const auto& m : d.metrics) {
    const bool on_n2 = m.device.find("n2-") != std::string::npos;
    if (m.kind == reports::change_kind::regression) {
      ++regressions;
      EXPECT_TRUE(on_n2) << m.device;
    } else {
      ++unchanged;
      EXPECT_EQ(m.kind, reports::change_kind::unchanged) << m.device << " " << m.note;
      EXPECT_FALSE(on_n2) << m.device;
    }
  }
  EXPECT_GT(regressions, 0U);
  EXPECT_EQ(regressions * 2, unchanged);
  // By dates, the same; and narrowed to one bench, fewer metrics.
  q.before = *fleet::parse_window("2026-11-10", true, why);
  q.after = *fleet::parse_window("2026-11-10", false, why);
  EXPECT_EQ(fleet::compare_windows(db, q).metrics.size(), d.metrics.size());
  q.bench = "memory.stream";
  const auto narrowed = fleet::compare_windows(db, q);
  EXPECT_LT(narrowed.metrics.size(), d.metrics.size());
  for (const auto& m : narrowed.metrics)
    EXPECT_EQ(m.bench_id.rfind("memory.stream", 0), 0U);
}

TEST_F(fleet_db, CompareOfAnUnchangedFleetPasses) {
  (void)add(node_report("n1", "2026-11-01T00:00:00Z", "550.54.15"));
  (void)add(node_report("n1", "2026-11-15T00:00:00Z", "560.35.03"));
  fleet::compare_request q;
  std::string why;
  q.before = *fleet::parse_window("driver=550", true, why);
  q.after = *fleet::parse_window("driver=560", false, why);
  const auto d = fleet::compare_windows(db, q);
  EXPECT_EQ(d.verdict, reports::check_status::pass);
  EXPECT_FALSE(d.metrics.empty());
}

TEST_F(fleet_db, ExportNeutralisesCellsASpreadsheetWouldRunAsFormulas) {
  // A report's text (a serial, a VBIOS version, a driver) starting with = + - @ tab or CR was
  // written as is: a spreadsheet that opens the CSV runs it (OWASP, "CSV Injection").
  auto r = node_report("n1", "2026-11-01T00:00:00Z");
  r.devices[0].serial = "=HYPERLINK(\"http://x/\",\"ok\")";
  r.devices[0].vbios = "+1+cmd|' /C calc'!A0";
  r.host.driver_version = "@SUM(1,1)";
  r.devices[1].serial = "-2+3";
  (void)add(r);
  std::ostringstream out;
  (void)fleet::export_rows(db, fleet::export_format::csv, out);
  const std::string csv = out.str();
  EXPECT_NE(csv.find(",\"'=HYPERLINK(\"\"http://x/\"\",\"\"ok\"\")\","), std::string::npos) << csv;
  EXPECT_NE(csv.find(",'+1+cmd|' /C calc'!A0,"), std::string::npos);
  EXPECT_NE(csv.find(",\"'@SUM(1,1)\","), std::string::npos);
  EXPECT_NE(csv.find(",'-2+3,"), std::string::npos);
  for (const char* raw : {",=HYPERLINK", ",\"=HYPERLINK", ",+1+cmd", ",@SUM", ",\"@SUM", ",-2+3"})
    EXPECT_EQ(csv.find(raw), std::string::npos) << raw;
}

TEST_F(fleet_db, ExportWritesEveryResultRowWithItsSchema) {
  (void)add(node_report("n1", "2026-11-01T00:00:00Z"));
  std::ostringstream csv, jsonl;
  const auto rows = fleet::export_rows(db, fleet::export_format::csv, csv);
  EXPECT_EQ(static_cast<std::int64_t>(rows), count("results"));
  const std::string text = csv.str();
  EXPECT_EQ(text.substr(0, text.find("\r\n")),
            "run_id,at_utc,node,gpu_key,serial,uuid,bus_id,gpu_index,model,bench_id,axes,metric,"
            "value,unit,status,reference,reference_value,efficiency,verdict,reason_codes,driver,"
            "cuda_driver,cuda_runtime,cublas,nccl,vbios,gpuspec_version");
  EXPECT_NE(text.find("\"{\"\"dtype\"\":\"\"fp32\"\"}\""), std::string::npos); // RFC 4180 quotes
  EXPECT_EQ(fleet::export_rows(db, fleet::export_format::jsonl, jsonl), rows);
  std::istringstream lines(jsonl.str());
  std::string line;
  std::size_t n = 0;
  while (std::getline(lines, line)) {
    const auto j = nlohmann::ordered_json::parse(line);
    EXPECT_EQ(j.at("schema"), fleet::fleet_export_schema);
    EXPECT_EQ(j.size(), 1 + std::size(fleet::export_columns));
    ++n;
  }
  EXPECT_EQ(n, rows);
}

} // namespace

// ---- partitioned GPUs (docs/mig.md) -------------------------------------------------------

namespace {

/// The partitioned stock node (GPUs 0-3 as 7 x 1g.10gb, 4-7 whole) on `at` with `driver`.
reports::report partitioned_at(const std::string& at, const std::string& driver) {
  auto r = reports::testing::partitioned_node();
  r.host.hostname = "mig-node";
  r.run.started_utc = r.run.finished_utc = at;
  r.host.driver_version = driver;
  for (auto& d : r.devices)
    d.serial = "mig-node-GPU" + std::to_string(d.index);
  return r;
}

} // namespace

TEST_F(fleet_db, CompareKeepsEachMigDeviceApartAndNamesTheSlowOne) {
  (void)add(partitioned_at("2026-11-01T00:00:00Z", "550.54.15"));
  auto after = partitioned_at("2026-11-15T00:00:00Z", "560.35.03");
  for (auto& x : after.results) // GPU 1's MIG device GI 9 at 0.6 of itself
    if (x.mig && x.devices.front() == 1 && x.mig->gpu_instance_id == 9)
      for (double& s : x.samples)
        s *= 0.6;
  for (auto& x : after.results)
    x.stats = reports::summarize(x.samples);
  (void)add(after);
  fleet::compare_request q;
  std::string why;
  q.before = *fleet::parse_window("driver=550", true, why);
  q.after = *fleet::parse_window("driver=560", false, why);
  const auto d = fleet::compare_windows(db, q);
  EXPECT_EQ(d.verdict, reports::check_status::fail);
  std::size_t instances = 0;
  for (const auto& m : d.devices)
    if (m.identity.find(" MIG 1g.10gb, GI ") != std::string::npos)
      ++instances;
  EXPECT_EQ(instances, 4U * 7) << "each MIG device its own, never folded into its GPU";
  std::size_t regressions = 0;
  for (const auto& m : d.metrics)
    if (m.kind == reports::change_kind::regression) {
      ++regressions;
      EXPECT_NE(m.device.find("mig-node-GPU1 MIG 1g.10gb, GI 9 CI 0"), std::string::npos)
          << m.device;
    }
  EXPECT_GT(regressions, 0U);
}

TEST_F(fleet_db, AMigDevicesResultIsNeverComparedWithAWholeGpus) {
  // The node whole on driver 550, partitioned on 560: GPUs 0-3's MIG results have no pair.
  auto whole = partitioned_at("2026-11-01T00:00:00Z", "550.54.15");
  const auto stock = reports::testing::stock_systems();
  whole.results = reports::testing::stock_report(
                      *std::find_if(stock.begin(), stock.end(),
                                    [](const auto& s) { return s.spec_id == "a100-sxm4-80gb"; }),
                      "quick")
                      .results;
  for (auto& dev : whole.devices) {
    dev.mig_mode = "disabled";
    dev.mig_instances.clear();
  }
  (void)add(whole);
  (void)add(partitioned_at("2026-11-15T00:00:00Z", "560.35.03"));
  fleet::compare_request q;
  std::string why;
  q.before = *fleet::parse_window("driver=550", true, why);
  q.after = *fleet::parse_window("driver=560", false, why);
  const auto d = fleet::compare_windows(db, q);
  EXPECT_FALSE(d.metrics.empty()) << "GPUs 4-7 are whole on both sides";
  for (const auto& m : d.metrics) {
    EXPECT_EQ(m.device.find("MIG"), std::string::npos) << m.device << " " << m.bench_id;
  }
  // The database keeps a MIG device's results as a case of its own.
  EXPECT_GT(db.scalar("SELECT count(*) FROM cases WHERE instr(case_key, 'MIG 1g.10gb, GI 7') > 0",
                      "count"),
            0);
}
