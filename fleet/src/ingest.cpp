// Ingesting reports (ingest.hpp): check, then the rows in one transaction, or in a batch's,
// each report in its own savepoint.

#include "gpuspec/fleet/ingest.hpp"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <set>

#include <sqlite3.h>

#include <fmt/format.h>

#include "gpuspec/fleet/report_blob.hpp"
#include "gpuspec/fleet/selectors.hpp"
#include "gpuspec/reports/judge/check.hpp"
#include "gpuspec/reports/model/report_json.hpp"

namespace gpuspec::fleet {

namespace {

constexpr const char* insert_run =
    "INSERT INTO runs(run_id, source, ingested_utc, report_schema, hostname, started_utc, "
    "finished_utc, suite, complete, verdict, spec_version, gpuspec_version, report) "
    "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)";
constexpr const char* insert_node =
    "INSERT INTO nodes(run_id, node, at_utc, verdict, reason_codes, driver, cuda_driver, "
    "cuda_runtime, cublas, nccl, gpuspec_version) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, "
    "?11)";
constexpr const char* insert_gpu =
    "INSERT INTO gpus(run_id, node, at_utc, gpu_key, gpu_index, serial, uuid, bus_id, model, "
    "vbios, verdict, reason_codes, driver, cuda_driver) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, "
    "?10, ?11, ?12, ?13, ?14)";
constexpr const char* insert_result =
    "INSERT INTO results(run_id, result_index, node, at_utc, gpu_key, gpu_index, serial, uuid, "
    "bus_id, model, bench_id, axes, case_key, metric, value, unit, higher_is_better, status, "
    "reason, reference, reference_value, efficiency, verdict, reason_codes, driver, cuda_driver, "
    "cuda_runtime, cublas, nccl, vbios, gpuspec_version, samples) VALUES(?1, ?2, ?3, ?4, ?5, ?6, "
    "?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, "
    "?26, ?27, ?28, ?29, ?30, ?31, ?32)";
// The latest sighting and the latest pass of each GPU and node, kept up to date on ingest so
// that `db stale` reads one row per GPU, however many runs there are.
constexpr const char* upsert_gpu_latest =
    "INSERT INTO gpu_latest(gpu_key, model, node, last_seen_utc, last_pass_utc) "
    "VALUES(?1, ?2, ?3, ?4, CASE WHEN ?5 = 'pass' THEN ?4 END) "
    "ON CONFLICT(gpu_key) DO UPDATE SET "
    "model = CASE WHEN excluded.last_seen_utc >= last_seen_utc THEN excluded.model ELSE model END, "
    "node = CASE WHEN excluded.last_seen_utc >= last_seen_utc THEN excluded.node ELSE node END, "
    "last_seen_utc = max(last_seen_utc, excluded.last_seen_utc), "
    "last_pass_utc = CASE WHEN excluded.last_pass_utc IS NULL THEN last_pass_utc "
    "WHEN last_pass_utc IS NULL THEN excluded.last_pass_utc "
    "ELSE max(last_pass_utc, excluded.last_pass_utc) END";
constexpr const char* upsert_node_latest =
    "INSERT INTO node_latest(node, last_seen_utc, last_pass_utc) "
    "VALUES(?1, ?2, CASE WHEN ?3 = 'pass' THEN ?2 END) "
    "ON CONFLICT(node) DO UPDATE SET last_seen_utc = max(last_seen_utc, excluded.last_seen_utc), "
    "last_pass_utc = CASE WHEN excluded.last_pass_utc IS NULL THEN last_pass_utc "
    "WHEN last_pass_utc IS NULL THEN excluded.last_pass_utc "
    "ELSE max(last_pass_utc, excluded.last_pass_utc) END";

std::string hash_of_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in)
    return {};
  const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  return run_id_of(bytes);
}

} // namespace

std::string spec_version_of(const std::vector<std::filesystem::path>& files,
                            const std::vector<std::string>& schemas) {
  std::string out;
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (!out.empty())
      out += ", ";
    const auto hash = hash_of_file(files[i]);
    const std::string schema = i < schemas.size() ? schemas[i] : files[i].filename().string();
    out += hash.empty() ? files[i].string() + ": unreadable" : schema + " " + hash;
  }
  return out;
}

ingester::ingester(connection& db, batch_policy batches)
    : m_db(db), m_policy(batches), m_exists(db.prepare("SELECT 1 FROM runs WHERE run_id = ?1")),
      m_run(db.prepare(insert_run)), m_node(db.prepare(insert_node)), m_gpu(db.prepare(insert_gpu)),
      m_result(db.prepare(insert_result)), m_gpu_latest(db.prepare(upsert_gpu_latest)),
      m_node_latest(db.prepare(upsert_node_latest)) {}

std::string duplicate_key(const run_record& rec) {
  std::set<std::string> nodes;
  for (const auto& n : rec.nodes) {
    if (!nodes.insert(n.node).second)
      return fmt::format("node {} appears twice", n.node);
    std::set<int> indices;
    for (const auto& g : n.gpus)
      if (!indices.insert(g.index).second)
        return fmt::format("GPU index {} appears twice on node {}", g.index, n.node);
    std::set<std::pair<std::size_t, int>> results;
    for (const auto& row : n.results)
      if (row.gpu < n.gpus.size() &&
          !results.insert({row.result_index, n.gpus[row.gpu].index}).second)
        return fmt::format("result {} appears twice on GPU {} of node {}", row.result_index,
                           n.gpus[row.gpu].index, n.node);
  }
  return "";
}

ingest_result ingester::ingest(const reports::report& r, const std::string& source, const judge& j,
                               const std::string& ingested_utc) {
  std::string canonical = canonical_text(r);
  if (canonical.size() > max_report_bytes)
    throw bad_report(fmt::format("{}: {} bytes of JSON, more than the {} a stored report may have",
                                 source, canonical.size(), max_report_bytes));
  const std::string id = run_id_of(canonical);
  m_exists.bind(1, id);
  const bool present = m_exists.step("look the run up");
  m_exists.reset();
  if (present)
    return {ingest_status::already_present, id, 0, 0};
  // Judged before the write lock is taken (one report a transaction: the lock is held only
  // while its rows go in; a batch holds it from its first report to its commit).
  const run_record rec = record_of(r, std::move(canonical), j.specs, j.rules);
  if (const auto problem = duplicate_key(rec); !problem.empty())
    throw bad_report(fmt::format("{}: {}: its rows cannot be told apart", source, problem));
  return write(rec, source, j.spec_version, ingested_utc);
}

namespace {

/// `at_utc` more than max_clock_skew_s after `ingested_utc`.
bool dated_after(const std::string& at_utc, const std::string& ingested_utc) {
  std::string why;
  const auto at = parse_utc_date(at_utc, why);
  const auto in = parse_utc_date(ingested_utc, why);
  return at && in && utc_seconds(*at) > utc_seconds(*in) + max_clock_skew_s;
}

} // namespace

void ingester::write_node(const run_record& rec, const node_record& n, bool dated_after_ingest) {
  // A run dated after its ingest updates no "last pass": its date is no evidence of a recent one.
  const std::string latest_verdict = dated_after_ingest ? "dated after its ingest" : "";
  const auto& s = n.stack;
  m_node.bind(1, rec.run_id).bind(2, n.node).bind(3, rec.at_utc).bind(4, n.verdict);
  m_node.bind(5, n.reason_codes).bind(6, s.driver).bind(7, s.cuda_driver);
  m_node.bind(8, s.cuda_runtime).bind(9, s.cublas).bind(10, s.nccl).bind(11, s.gpuspec_version);
  m_node.run("insert a node");
  m_node_latest.bind(1, n.node).bind(2, rec.at_utc);
  m_node_latest.bind(3, dated_after_ingest ? latest_verdict : n.verdict).run("update a node");
  for (const auto& g : n.gpus) {
    m_gpu.bind(1, rec.run_id).bind(2, n.node).bind(3, rec.at_utc).bind(4, g.gpu_key);
    m_gpu.bind(5, g.index).bind(6, g.serial).bind(7, g.uuid).bind(8, g.bus_id).bind(9, g.model);
    m_gpu.bind(10, g.vbios).bind(11, g.verdict).bind(12, g.reason_codes).bind(13, s.driver);
    m_gpu.bind(14, s.cuda_driver).run("insert a GPU");
    m_gpu_latest.bind(1, g.gpu_key).bind(2, g.model).bind(3, n.node).bind(4, rec.at_utc);
    m_gpu_latest.bind(5, dated_after_ingest ? latest_verdict : g.verdict).run("update a GPU");
  }
  for (const auto& row : n.results) {
    const gpu_row& g = n.gpus.at(row.gpu);
    auto& q = m_result;
    q.bind(1, rec.run_id).bind(2, static_cast<std::int64_t>(row.result_index)).bind(3, n.node);
    q.bind(4, rec.at_utc).bind(5, g.gpu_key).bind(6, g.index).bind(7, g.serial).bind(8, g.uuid);
    q.bind(9, g.bus_id).bind(10, g.model).bind(11, row.bench_id).bind(12, row.axes);
    q.bind(13, row.case_key).bind(14, row.metric).bind(15, row.value).bind(16, row.unit);
    q.bind(17, row.higher_is_better ? 1 : 0).bind(18, row.status).bind(19, row.reason);
    q.bind(20, row.reference).bind(21, row.reference_value).bind(22, row.efficiency);
    q.bind(23, row.verdict).bind(24, row.reason_codes).bind(25, s.driver).bind(26, s.cuda_driver);
    q.bind(27, s.cuda_runtime).bind(28, s.cublas).bind(29, s.nccl).bind(30, g.vbios);
    q.bind(31, s.gpuspec_version).bind_blob(32, row.samples).run("insert a result");
  }
}

ingest_result ingester::write(const run_record& rec, const std::string& source,
                              const std::string& spec_version, const std::string& ingested_utc) {
  if (!m_batch) {
    m_batch.emplace(m_db);
    m_batch_start = std::chrono::steady_clock::now();
  }
  ingest_result out;
  try {
    m_db.exec("SAVEPOINT report", "begin a report");
    out = write_report(rec, source, spec_version, ingested_utc);
    m_db.exec("RELEASE report", "end a report");
  } catch (const db_error&) {
    recover();
    throw;
  }
  const bool added = out.status == ingest_status::added;
  if (added) {
    ++m_batch_runs;
    if (m_policy.reports > 1)
      m_pending.push_back({rec, source, spec_version, ingested_utc});
  }
  if (m_batch_runs >= m_policy.reports ||
      std::chrono::steady_clock::now() - m_batch_start >= m_policy.hold)
    commit_batch(m_pending.size() - (added && !m_pending.empty() ? 1 : 0)); // not this one
  return out;
}

void ingester::commit() { commit_batch(m_pending.size()); }

void ingester::commit_batch(std::size_t keep) {
  if (!m_batch)
    return;
  try {
    m_batch->commit();
  } catch (const db_error&) {
    replay(keep);
    throw;
  }
  m_batch.reset();
  m_committed += m_batch_runs;
  m_batch_runs = 0;
  m_pending.clear();
}

void ingester::recover() noexcept {
  m_exists.reset();
  sqlite3* db = m_db.handle();
  // The transaction still open and this report's rows dropped: the batch's before it are
  // whole, and go in. Else SQLite rolled the transaction back (it does on a full disk) or the
  // savepoint would not roll back: the batch is written again.
  if (sqlite3_get_autocommit(db) == 0 &&
      sqlite3_exec(db, "ROLLBACK TO report", nullptr, nullptr, nullptr) == SQLITE_OK) {
    sqlite3_exec(db, "RELEASE report", nullptr, nullptr, nullptr);
    try {
      commit_batch(m_pending.size());
    } catch (const db_error&) {
      // replayed what fit; the error being handled is the one to report
    }
    return;
  }
  replay(m_pending.size());
}

void ingester::replay(std::size_t keep) noexcept {
  m_batch.reset();
  m_batch_runs = 0;
  std::vector<pending_run> runs = std::move(m_pending);
  m_pending.clear();
  for (std::size_t i = 0; i < keep && i < runs.size(); ++i) {
    try {
      transaction t(m_db);
      const auto& p = runs[i];
      const bool added = write_report(p.rec, p.source, p.spec_version, p.ingested_utc).status ==
                         ingest_status::added;
      t.commit();
      m_committed += added ? 1 : 0;
    } catch (const db_error&) {
      return; // refused too: the rest of the batch is not in, and committed_runs() says so
    }
  }
}

ingest_result ingester::write_report(const run_record& rec, const std::string& source,
                                     const std::string& spec_version,
                                     const std::string& ingested_utc) {
  // Again under the lock: another ingester may have written the same run meanwhile.
  m_exists.bind(1, rec.run_id);
  const bool present = m_exists.step("look the run up");
  m_exists.reset();
  if (present)
    return {ingest_status::already_present, rec.run_id, 0, 0};
  m_run.bind(1, rec.run_id).bind(2, source).bind(3, ingested_utc).bind(4, rec.report_schema);
  m_run.bind(5, rec.hostname).bind(6, rec.started_utc).bind(7, rec.finished_utc);
  m_run.bind(8, rec.suite).bind(9, rec.complete ? 1 : 0).bind(10, rec.verdict);
  m_run.bind(11, spec_version).bind(12, rec.gpuspec_version);
  m_run.bind_bytes(13, compress_report(rec.canonical));
  m_run.run("insert the run");
  ingest_result out{ingest_status::added, rec.run_id, 0, 0};
  out.dated_after_ingest = dated_after(rec.at_utc, ingested_utc);
  for (const auto& n : rec.nodes) {
    write_node(rec, n, out.dated_after_ingest);
    out.gpus += n.gpus.size();
    out.results += n.results.size();
  }
  return out;
}

std::vector<std::filesystem::path> report_files(const std::vector<std::filesystem::path>& paths) {
  std::vector<std::filesystem::path> out;
  for (const auto& p : paths) {
    std::error_code ec;
    if (!std::filesystem::is_directory(p, ec)) {
      out.push_back(p);
      continue;
    }
    std::vector<std::filesystem::path> found;
    for (const auto& e : std::filesystem::recursive_directory_iterator(p, ec))
      if (e.is_regular_file() && e.path().extension() == ".json")
        found.push_back(e.path());
    std::sort(found.begin(), found.end());
    out.insert(out.end(), found.begin(), found.end());
  }
  return out;
}

} // namespace gpuspec::fleet
