#pragma once
/// `gpuspec db ingest` (docs/fleet.md): reports into the fleet database, idempotent by run id
/// (record.hpp's run_id_of): a report already there changes nothing. Each report goes in whole
/// or not at all; by default one transaction each, or several reports to one transaction (a
/// batch, each report in its own savepoint) where a commit per report is what costs.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpuspec/fleet/record.hpp"
#include "gpuspec/fleet/sqlite.hpp"

namespace gpuspec::fleet {

/// What judged the reports: the spec table and rules, and a line naming them that every run
/// ingested keeps (`spec_version`, e.g. "gpuspec.specs.v1 5f0c…, gpuspec.expect.v3 a1b2…").
struct judge {
  const reports::spec_table& specs;
  const reports::expectations& rules;
  std::string spec_version;
};

/// "<schema> <16 hex digits of FNV-1a over the file's bytes>" for each file, ", "-joined: the
/// spec table version a run was judged by. A file that cannot be read is "<file>: unreadable".
[[nodiscard]] std::string spec_version_of(const std::vector<std::filesystem::path>& files,
                                          const std::vector<std::string>& schemas);

enum class ingest_status { added, already_present };

/// How far a report may be dated after its ingest (clocks of nodes and of the ingesting host
/// disagree by seconds under NTP): an initial policy, 10 minutes.
inline constexpr long long max_clock_skew_s = 600;

struct ingest_result {
  ingest_status status = ingest_status::added;
  std::string run_id;
  std::size_t gpus = 0, results = 0; ///< rows written (0 when already present)
  /// Dated more than max_clock_skew_s after its ingest: its rows go in, flagged, and its pass
  /// never counts as recent (db stale), whatever clock wrote it.
  bool dated_after_ingest = false;
};

/// How many reports one transaction holds. A batch is committed when it holds `reports`, or
/// when it has held the write lock for `hold` (so that another ingester waits about that long,
/// well within its busy timeout), or on commit(). One report (the default): a commit each.
struct batch_policy {
  std::size_t reports = 1;
  std::chrono::milliseconds hold{0};
};

/// `gpuspec db ingest`'s batches: fewer commits, the time they save measured in docs/fleet.md
/// ("Scale"); a second of the lock at a time keeps two ingesters taking turns. At most 100
/// runs are held in memory to be written again (each about its report's size).
inline constexpr batch_policy ingest_batches{100, std::chrono::milliseconds(1000)};

/// Writes reports into one open database, its statements prepared once.
/// A report whose rows cannot go in as they are (it names one GPU index twice on a node, say):
/// the file is bad, the database is fine, and the files after it go in. Thrown by
/// ingester::ingest before anything of the report is written.
class bad_report : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Why `rec`'s rows cannot all be written: two with one key (a node twice, a GPU index twice on
/// a node, a result twice on a GPU); "" when they can.
[[nodiscard]] std::string duplicate_key(const run_record& rec);

class ingester {
public:
  explicit ingester(connection& db, batch_policy batches = {});
  /// What is not committed when the ingester goes is rolled back, as a crash would leave it:
  /// whole reports or none of them.
  ~ingester() = default;
  ingester(const ingester&) = delete;
  ingester& operator=(const ingester&) = delete;

  /// Judges and writes one report; throws bad_report for a report whose rows cannot go in
  /// (duplicate_key), before writing anything, and db_error (the database named, nothing of this
  /// report left behind) when the database refuses it (full, locked, read-only). The reports
  /// before it in its batch are kept: committed, or, where SQLite rolled the batch back (it
  /// does on a full disk), written again a transaction each while they fit (committed_runs()).
  ingest_result ingest(const reports::report& r, const std::string& source, const judge& j,
                       const std::string& ingested_utc);
  /// Writes a record already made (record_of), as ingest does.
  ingest_result write(const run_record& rec, const std::string& source,
                      const std::string& spec_version, const std::string& ingested_utc);
  /// Commits the open batch, if any: after it every run written is in the file. Throws
  /// db_error when the database refuses it, having kept what fits, as ingest does.
  void commit();
  /// The runs this ingester added that are committed (the rest of a batch is not, yet).
  [[nodiscard]] std::size_t committed_runs() const { return m_committed; }

private:
  /// A run of the open batch, kept to be written again should SQLite roll the batch back.
  struct pending_run {
    run_record rec;
    std::string source, spec_version, ingested_utc;
  };
  ingest_result write_report(const run_record& rec, const std::string& source,
                             const std::string& spec_version, const std::string& ingested_utc);
  void write_node(const run_record& rec, std::int64_t run, const node_record& n,
                  bool dated_after_ingest);
  /// The id of `row`'s case in `cases`, made there the first time it is seen.
  std::int64_t case_id_of(const result_row& row);
  /// Commits the batch; when that fails, its first `keep` runs are written again (replay).
  void commit_batch(std::size_t keep);
  /// After a refused write: this report's savepoint rolled back and the batch before it
  /// committed when the transaction is still open, else the batch written again.
  void recover() noexcept;
  /// The batch is gone (rolled back): its first `keep` runs again, a transaction each, until
  /// one is refused.
  void replay(std::size_t keep) noexcept;
  connection& m_db;
  batch_policy m_policy;
  statement m_exists, m_run, m_node, m_gpu, m_result, m_case, m_find_case, m_gpu_latest,
      m_node_latest;
  /// The cases' ids this ingester has seen (case_id_of), by their columns; forgotten whenever
  /// a transaction is rolled back, which may take some of them with it.
  std::map<std::string, std::int64_t> m_cases;
  std::optional<transaction> m_batch;
  std::chrono::steady_clock::time_point m_batch_start;
  std::vector<pending_run> m_pending; ///< the open batch's runs, when batches hold more than one
  std::size_t m_batch_runs = 0, m_committed = 0;
};

/// The files under each path: a file as it is; every file of a folder (reports and foreign
/// tools' logs alike), recursively, sorted by path, hidden files and folders left out. A path
/// that does not exist is returned as it is (its ingest names it).
[[nodiscard]] std::vector<std::filesystem::path>
report_files(const std::vector<std::filesystem::path>& paths);

} // namespace gpuspec::fleet
