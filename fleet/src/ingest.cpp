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
    "INSERT INTO nodes(run, node, at_utc, verdict, reason_codes, driver, cuda_driver, "
    "cuda_runtime, cublas, nccl, gpuspec_version) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, "
    "?11)";
constexpr const char* insert_gpu =
    "INSERT INTO gpu_rows(run, node, at_utc, gpu_key, gpu_index, serial, uuid, bus_id, model, "
    "vbios, verdict, reason_codes) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)";
// A result's case (what it measured, in which unit) is one of a few dozen: a row of `cases`
// each, made the first time one is seen, its id kept by the ingester (case_id_of).
constexpr const char* insert_case =
    "INSERT INTO cases(bench_id, axes, case_key, metric, unit, higher_is_better) "
    "VALUES(?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT DO NOTHING";
constexpr const char* find_case =
    "SELECT id FROM cases WHERE bench_id = ?1 AND axes = ?2 AND case_key = ?3 AND metric = ?4 "
    "AND unit = ?5 AND higher_is_better = ?6";
constexpr const char* insert_result =
    "INSERT INTO result_rows(gpu, result_index, case_id, value, status, reason, reference, "
    "reference_value, efficiency, verdict, reason_codes, samples) VALUES(?1, ?2, ?3, ?4, ?5, ?6, "
    "?7, ?8, ?9, ?10, ?11, ?12)";
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
      m_result(db.prepare(insert_result)), m_case(db.prepare(insert_case)),
      m_find_case(db.prepare(find_case)), m_gpu_latest(db.prepare(upsert_gpu_latest)),
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

std::int64_t ingester::case_id_of(const result_row& row) {
  std::string key = row.bench_id;
  for (const std::string* part : {&row.axes, &row.case_key, &row.metric, &row.unit}) {
    key += '\0';
    key += *part;
  }
  key += row.higher_is_better ? "\01" : "\00";
  if (const auto it = m_cases.find(key); it != m_cases.end())
    return it->second;
  const int better = row.higher_is_better ? 1 : 0;
  m_case.bind(1, row.bench_id).bind(2, row.axes).bind(3, row.case_key).bind(4, row.metric);
  m_case.bind(5, row.unit).bind(6, better).run("insert a case");
  m_find_case.bind(1, row.bench_id).bind(2, row.axes).bind(3, row.case_key);
  m_find_case.bind(4, row.metric).bind(5, row.unit).bind(6, better);
  const bool found = m_find_case.step("look a case up");
  const std::int64_t id = found ? m_find_case.integer(0) : 0;
  m_find_case.reset();
  if (!found)
    throw db_error(fmt::format("{}: the case {} {} just written is not there", m_db.file(),
                               row.case_key, row.metric));
  m_cases.emplace(std::move(key), id);
  return id;
}

void ingester::write_node(const run_record& rec, std::int64_t run, const node_record& n,
                          bool dated_after_ingest) {
  // A run dated after its ingest updates no "last pass": its date is no evidence of a recent one.
  const std::string latest_verdict = dated_after_ingest ? "dated after its ingest" : "";
  const auto& s = n.stack;
  m_node.bind(1, run).bind(2, n.node).bind(3, rec.at_utc).bind(4, n.verdict);
  m_node.bind(5, n.reason_codes).bind(6, s.driver).bind(7, s.cuda_driver);
  m_node.bind(8, s.cuda_runtime).bind(9, s.cublas).bind(10, s.nccl).bind(11, s.gpuspec_version);
  m_node.run("insert a node");
  m_node_latest.bind(1, n.node).bind(2, rec.at_utc);
  m_node_latest.bind(3, dated_after_ingest ? latest_verdict : n.verdict).run("update a node");
  std::vector<std::int64_t> gpu_ids;
  gpu_ids.reserve(n.gpus.size());
  for (const auto& g : n.gpus) {
    m_gpu.bind(1, run).bind(2, n.node).bind(3, rec.at_utc).bind(4, g.gpu_key);
    m_gpu.bind(5, g.index).bind(6, g.serial).bind(7, g.uuid).bind(8, g.bus_id).bind(9, g.model);
    m_gpu.bind(10, g.vbios).bind(11, g.verdict).bind(12, g.reason_codes).run("insert a GPU");
    gpu_ids.push_back(sqlite3_last_insert_rowid(m_db.handle()));
    m_gpu_latest.bind(1, g.gpu_key).bind(2, g.model).bind(3, n.node).bind(4, rec.at_utc);
    m_gpu_latest.bind(5, dated_after_ingest ? latest_verdict : g.verdict).run("update a GPU");
  }
  for (const auto& row : n.results) {
    const std::int64_t case_id = case_id_of(row);
    auto& q = m_result;
    q.bind(1, gpu_ids.at(row.gpu)).bind(2, static_cast<std::int64_t>(row.result_index));
    q.bind(3, case_id).bind(4, row.value).bind(5, row.status).bind(6, row.reason);
    q.bind(7, row.reference).bind(8, row.reference_value).bind(9, row.efficiency);
    q.bind(10, row.verdict).bind(11, row.reason_codes).bind_blob(12, row.samples);
    q.run("insert a result");
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
  m_find_case.reset();
  m_cases.clear(); // a case this report made is rolled back with it
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
  m_find_case.reset();
  m_cases.clear(); // the cases the batch made are rolled back with it
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
      m_find_case.reset();
      m_cases.clear();
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
  const std::int64_t run = sqlite3_last_insert_rowid(m_db.handle());
  ingest_result out{ingest_status::added, rec.run_id, 0, 0};
  out.dated_after_ingest = dated_after(rec.at_utc, ingested_utc);
  for (const auto& n : rec.nodes) {
    write_node(rec, run, n, out.dated_after_ingest);
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
    // Every file, not only *.json: a folder of foreign tools' logs beside reports is read whole,
    // and what cannot be read is named by its ingest (docs/fleet.md). Hidden files and folders
    // (".git", an editor's ".swp") are not a site's logs.
    std::vector<std::filesystem::path> found;
    for (auto it = std::filesystem::recursive_directory_iterator(p, ec);
         it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
      if (ec)
        break;
      if (it->path().filename().string().starts_with('.')) {
        if (it->is_directory(ec))
          it.disable_recursion_pending();
        continue;
      }
      if (it->is_regular_file(ec))
        found.push_back(it->path());
    }
    std::sort(found.begin(), found.end());
    out.insert(out.end(), found.begin(), found.end());
  }
  return out;
}

} // namespace gpuspec::fleet
