#pragma once
/// `gpuspec db ingest` (docs/fleet.md): reports into the fleet database, one transaction each,
/// idempotent by run id (record.hpp's run_id_of): a report already there changes nothing.

#include <cstddef>
#include <filesystem>
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

struct ingest_result {
  ingest_status status = ingest_status::added;
  std::string run_id;
  std::size_t gpus = 0, results = 0; ///< rows written (0 when already present)
};

/// Writes reports into one open database, its statements prepared once.
class ingester {
public:
  explicit ingester(connection& db);
  /// Judges and writes one report in one transaction; throws db_error (the database named,
  /// nothing of this report left behind) when the database refuses it (full, locked, read-only).
  ingest_result ingest(const reports::report& r, const std::string& source, const judge& j,
                       const std::string& ingested_utc);
  /// Writes a record already made (record_of) in one transaction.
  ingest_result write(const run_record& rec, const std::string& source,
                      const std::string& spec_version, const std::string& ingested_utc);

private:
  void write_node(const run_record& rec, const node_record& n);
  connection& m_db;
  statement m_exists, m_run, m_node, m_gpu, m_result, m_gpu_latest, m_node_latest;
};

/// The report files under each path: a file as it is; a folder's *.json files, recursively,
/// sorted by path. A path that does not exist is returned as it is (its ingest names it).
[[nodiscard]] std::vector<std::filesystem::path>
report_files(const std::vector<std::filesystem::path>& paths);

} // namespace gpuspec::fleet
