#pragma once
/// What `gpuspec run` shows on stderr while it measures: the plan, then one line per worker (a
/// whole GPU, or a MIG device of a partitioned one: "gpu  0:mig3"), redrawn in place on a
/// terminal, or plain lines (one per case start and result, the result's with the case's wall
/// time, so a log says how long each case took) otherwise.

#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "gpuspec/spine/session.hpp"

namespace gpuspec::cli {

class progress_display final : public spine::session_observer {
public:
  /// `in_place`: redraw one line per GPU (stderr is a terminal); else plain lines.
  progress_display(std::FILE* out, bool in_place, std::string report_path);

  void on_plan(const spine::session_plan& plan) override;
  void on_note(const std::string& text) override;
  void on_worker_started(const spine::worker_job& job, int pid) override;
  void on_case_started(const spine::worker_job& job, int case_index,
                       const spine::planned_case& c) override;
  void on_progress(const spine::worker_job& job, int case_index, int runs) override;
  void on_result(const spine::journal_entry& entry) override;
  void on_worker_lost(const spine::worker_job& job, const std::string& what,
                      const std::string& log_tail) override;
  void on_worker_finished(const spine::worker_job& job) override;

  /// Draws the final state of the GPU lines (in place) and leaves them on screen.
  void close();

private:
  /// A worker's line: its GPU and, on a partitioned GPU, its MIG device's UUID ("" whole).
  using line_key = std::pair<int, std::string>;
  struct gpu_line {
    std::string label; ///< "gpu  0", "gpu  0:mig3"
    std::size_t total = 0, done = 0, ok = 0, failed = 0, skipped = 0;
    std::string current;
    int runs = 0;
    std::string state = "waiting";
    bool lost = false;
    std::chrono::steady_clock::time_point case_started{}; ///< the case in progress's start
  };
  [[nodiscard]] std::string line_of(const gpu_line& g) const;
  /// The line of a job's worker (made on first sight: a job the plan did not list).
  gpu_line& line_for(const line_key& key);
  void redraw(bool force);
  void print_above(const std::string& text);

  std::FILE* m_out;
  bool m_in_place;
  std::string m_report_path;
  std::map<line_key, gpu_line> m_gpus;
  std::vector<line_key> m_order;
  std::size_t m_label_width = 2; ///< of the GPU (and MIG device) part of a line's label
  std::size_t m_drawn = 0;       ///< GPU lines currently on screen (in place)
  std::chrono::steady_clock::time_point m_last_draw{};
  std::size_t m_width = 100;
};

} // namespace gpuspec::cli
