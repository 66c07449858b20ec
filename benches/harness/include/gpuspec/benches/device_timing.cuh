#pragma once
/// The one place CUDA events are paired for timing (issue 18). Every figure of device time the
/// suite takes goes through these: bench_state's warm-up runs and samples, its sustained runs and
/// batches, a benchmark's calibration and sizing runs (bench_state::setup_seconds), and the
/// node-wide cases' runs on their own streams (device_seconds). No family records a timing event
/// of its own; events made without timing (cudaEventDisableTiming) to order streams are no
/// timing and stay where they are used.

#include <cstddef>
#include <functional>
#include <vector>

#include "gpuspec/kernels/cuda_handles.cuh"

namespace gpuspec::benches {

/// A start and a stop event for one timed span of a stream's work at a time; made once, reused.
class event_pair {
public:
  /// The span begins: what is enqueued on `s` from here is timed.
  void begin(kernels::stream_ref s) { m_start.record(s); }
  /// The span ends after what is enqueued on `s` so far.
  void end(kernels::stream_ref s) { m_stop.record(s); }
  /// Waits until the span's work is done.
  void wait() const { m_stop.synchronize(); }
  /// Device seconds of the span (about 0.5 us resolution); after wait().
  [[nodiscard]] double seconds() const { return kernels::event::elapsed_seconds(m_start, m_stop); }
  /// begin, `enqueue`, end, wait: the device seconds of what `enqueue` put on `s`.
  double time(kernels::stream_ref s, const std::function<void()>& enqueue);

private:
  kernels::event m_start, m_stop;
};

/// Device seconds of what `enqueue` puts on `s`, between a pair of events made for it; waits for
/// it. For work on a stream the benchmark made itself (a node-wide case's GPUs).
double device_seconds(kernels::stream_ref s, const std::function<void()>& enqueue);

/// Events recorded in order on one stream, for several spans timed in one submission (a batch
/// of iterations, alternating pairs of kernels): mark 0, work, mark 1, work, ... Events are
/// made by reserve() and reused.
class event_marks {
public:
  /// Makes marks 0 to `count` - 1 if not made yet: before the submission, so that creating an
  /// event never falls between two pieces of timed work.
  void reserve(std::size_t count);
  /// Mark `i` (0-based, below what was reserved) is recorded on `s` now.
  void mark(std::size_t i, kernels::stream_ref s);
  /// Waits until mark `i` has completed (and with it every mark before it on its stream).
  void wait(std::size_t i) const { m_events.at(i).synchronize(); }
  /// Device seconds from mark `from` to mark `to`; both must have completed.
  [[nodiscard]] double seconds_between(std::size_t from, std::size_t to) const {
    return kernels::event::elapsed_seconds(m_events.at(from), m_events.at(to));
  }

private:
  std::vector<kernels::event> m_events;
};

} // namespace gpuspec::benches
