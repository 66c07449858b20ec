#pragma once
/// The run's journal: an append-only file beside the report, one JSON line per result as it
/// arrives, from which the report is written at the end and from which a report can be
/// recovered when the coordinator itself was killed (docs/design.md, "Report contract").
///
///   line 1        {"journal": "gpuspec.journal.v1", "report": {<the report, no results>}}
///   then          {"device": 3, "case": 5, "result": {<a result>}}      one per result
///   last, if any  {"end": {<the report as finished, no results>}}
///
/// Each line is one write(2) of the whole line, so a coordinator killed at any moment leaves
/// whole lines and at most one line cut short at the end. The lines are not fsync'ed one by
/// one (a result every few hundred milliseconds would make a 12-hour burn-in pay for
/// thousands of disk flushes): the journal survives the coordinator's death, the report
/// written from it is fsync'ed.

#include <filesystem>
#include <string>
#include <vector>

#include "gpuspec/reports/model/outcome.hpp"
#include "gpuspec/reports/model/report.hpp"

namespace gpuspec::spine {

inline constexpr std::string_view journal_version = "gpuspec.journal.v1";

/// "<report>.journal", the journal of a report path.
[[nodiscard]] std::filesystem::path journal_path_for(const std::filesystem::path& report);

/// A result with where it belongs in the plan: its GPU and its case's position there.
struct journal_entry {
  int device = 0;
  int case_index = 0;
  reports::result result;
  /// From the node-wide job (one case over several GPUs): such results follow every one-GPU
  /// result in the report.
  bool node_wide = false;
};

class journal_writer {
public:
  /// Creates `path` (replacing a journal left there) and writes the header line: `header`
  /// without its results. Throws std::system_error naming the file when it cannot.
  journal_writer(std::filesystem::path path, const reports::report& header);
  journal_writer(const journal_writer&) = delete;
  journal_writer& operator=(const journal_writer&) = delete;
  ~journal_writer();

  /// Appends one result line. Throws std::system_error naming the file on a write error.
  void append(const journal_entry& entry);
  /// Appends the end line: `finished` without its results.
  void finish(const reports::report& finished);
  [[nodiscard]] const std::filesystem::path& path() const { return m_path; }

private:
  void write_line(const std::string& line);
  std::filesystem::path m_path;
  int m_fd = -1;
};

/// Results in report order: one-GPU results by the position of their GPU in `run.devices` (the
/// order the run was asked for), a partitioned GPU's by MIG device (GPU instance, then compute
/// instance), then by case; node-wide results after them, by case. Stable for
/// results of one GPU and case.
void sort_into_report_order(std::vector<journal_entry>& entries, const std::vector<int>& devices);

/// What a journal holds.
struct journal_contents {
  reports::report report;     ///< the end line's report (or the header's), with the results
  bool finished = false;      ///< the end line was there
  bool last_line_cut = false; ///< a last line cut short (the writer died in it) was dropped
  std::size_t results = 0;
  /// Result lines the journal holds more than once, byte for byte (a copy put together by
  /// hand, a line written again): each kept once, and the count said.
  std::size_t duplicate_lines = 0;
};

/// Reads a journal: the header, every result line, the end line if any. A last line cut short
/// is dropped and said so; anything else that is not a journal line is an error naming the
/// file and the line ("line 12: result.stats.median: ..."). Never throws on bad input.
[[nodiscard]] reports::outcome<journal_contents> read_journal(const std::filesystem::path& file);

/// The report a journal holds, as `gpuspec run --recover` writes it: the results in report
/// order; a journal without its end line gives `complete: false` with a reason naming the
/// journal (the run was stopped before it finished: the coordinator was killed or crashed).
/// A result line the journal holds twice is one result; `duplicate_lines`, when given, is how
/// many were dropped (an incomplete report's reason says it too).
[[nodiscard]] reports::outcome<reports::report>
recover_report(const std::filesystem::path& journal, std::size_t* duplicate_lines = nullptr);

} // namespace gpuspec::spine
