#pragma once
/// The burn-in's schedule and its time series (docs/burnin.md), host code shared by the CUDA
/// benchmark (benches/families/burnin.cpp) and the tests' stand-in worker: which phase runs
/// when, and the per-interval summary of the work done and the telemetry seen, bounded for a
/// run of any length.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpuspec/reports/model/burnin_record.hpp"
#include "gpuspec/reports/model/report.hpp"

namespace gpuspec::host {

/// GEMM for `gemm_phase_s`, then the memory test for `memtest_phase_s`, again and again until
/// `duration_s` has passed (the phase in progress then ends at its next iteration).
struct burnin_schedule {
  double duration_s = 0;
  double gemm_phase_s = 45;
  double memtest_phase_s = 15;
};

enum class burnin_phase { gemm, memtest, done };

/// The phase `elapsed_s` after the load started.
[[nodiscard]] burnin_phase phase_at(const burnin_schedule& s, double elapsed_s);

/// "0x" and 16 lower-case hex digits: a checksum or word as a report writes it.
[[nodiscard]] std::string hex_word(std::uint64_t w);

/// The per-interval time series of one GPU's burn-in. Work is added as it completes (its time
/// in seconds since the run started); each interval's telemetry is set once it has passed.
/// Past `max_intervals`, neighbouring intervals merge in pairs and the interval doubles, so the
/// series covers the whole run at a coarser grain (a 48-hour run keeps 1440 two-minute ones).
class burnin_timeline {
public:
  explicit burnin_timeline(double start_s, double interval_s = 60,
                           std::size_t max_intervals = reports::burnin_max_intervals);

  /// A GEMM iteration that ended at `time_s` after `device_s` of device time.
  void add_gemm(double time_s, double device_s, double flops, bool mismatch);
  /// A memory-test pass over `words` that ended at `time_s`, `bad` of them wrong.
  void add_memtest(double time_s, std::int64_t words, std::int64_t bad);
  /// The telemetry of a window inside the interval holding `time_s`: the first sets it, later
  /// ones merge into it (sample-weighted means, maxima, the union of throttle reasons).
  void set_telemetry(double time_s, const reports::telemetry_summary& t);
  /// Raw samples kept around an event, up to reports::burnin_max_event_samples in all.
  void add_event_samples(const std::vector<reports::burnin_sample>& samples);

  /// [start, end) of the interval holding `time_s`, in seconds since the run started.
  [[nodiscard]] std::pair<double, double> window_of(double time_s) const;
  [[nodiscard]] double interval_s() const { return m_interval_s; }
  /// The series as the report holds it: throughput in TFLOP/s (the GEMM's flops over its device
  /// time in the interval).
  [[nodiscard]] std::vector<reports::burnin_interval> intervals() const;
  [[nodiscard]] const std::vector<reports::burnin_sample>& event_samples() const {
    return m_events;
  }

private:
  struct slot {
    reports::burnin_interval summary;
    double gemm_device_s = 0;
    double gemm_flops = 0;
  };
  slot& slot_of(double time_s);
  void merge_pairs();
  /// Adds b's telemetry into a's: sample-weighted means (for the medians, an approximation
  /// docs/burnin.md states), maxima, the union of throttle reasons.
  static void merge_telemetry(reports::burnin_interval& a, const reports::burnin_interval& b);

  double m_start_s;
  double m_interval_s;
  std::size_t m_max;
  std::vector<slot> m_slots;
  std::vector<reports::burnin_sample> m_events;
};

} // namespace gpuspec::host
