#pragma once
/// What a node-wide benchmark sees: one case over several GPUs at once (a collective over every
/// selected GPU, later a copy between two). bench_state is its one-GPU sibling; this one leaves
/// the timing to the benchmark, because only the benchmark knows what a timed run over N GPUs
/// is (nccl-tests: the slowest rank's time per iteration).
///
///   void all_reduce(node_state& state) {
///     ... communicators over state.devices(), buffers per GPU, seeded inputs ...
///     for each sample: time the collective on every GPU, keep the slowest; state.ran(...)
///     state.set_samples(seconds, busbw_gbs, reports::metric_unit::gigabytes_per_second, "busbw");
///     state.set_verification(... #wrong over every rank ...);
///   }
///
/// Registered with registry::add_node (registry.hpp). The worker that runs node-wide cases is
/// given every selected GPU (docs/architecture.md, "Node-wide cases"); host types only, so a
/// benchmark's host side compiles without nvcc.

#include <any>
#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpuspec/benches/registry.hpp"
#include "gpuspec/host/measurement_options.hpp"
#include "gpuspec/reports/model/report.hpp"
#include "gpuspec/reports/model/result_builder.hpp"

namespace gpuspec::benches {

/// One GPU of a node-wide case.
struct node_device {
  reports::device_info info; ///< the inventory's record (NVML index, PCI bus id, spec id, ...)
  int cuda_device = -1;      ///< the CUDA ordinal, matched by PCI bus id (never by hiding GPUs)
};

/// State a benchmark keeps across the cases of one worker: NCCL communicators over the same
/// GPUs are made once, not per size. Owned by the worker's executor; destroyed (in reverse
/// order of creation) when the worker ends.
class node_cache {
public:
  /// The object stored under `key`, made by `make` on first use.
  template <class T> T& get(const std::string& key, const std::function<T()>& make) {
    auto it = m_objects.find(key);
    if (it == m_objects.end()) {
      m_order.push_back(key);
      it = m_objects.emplace(key, std::make_any<T>(make())).first;
    }
    return std::any_cast<T&>(it->second);
  }
  /// Drops the object under `key` (a communicator that was aborted must not be reused).
  void erase(const std::string& key);
  ~node_cache();
  node_cache() = default;
  node_cache(const node_cache&) = delete;
  node_cache& operator=(const node_cache&) = delete;

private:
  std::map<std::string, std::any> m_objects;
  std::vector<std::string> m_order;
};

class node_state {
public:
  /// Made by the worker for one case; `deadline` is when the coordinator's watchdog would stop
  /// the worker if no timed run were reported (the case's setup allowance + 2 x --max-time
  /// after its start).
  node_state(const bench_case& c, std::vector<node_device> devices,
             const host::run_options& options, node_cache& cache,
             const std::atomic<bool>& interrupted, std::chrono::steady_clock::time_point deadline);

  // --- what the benchmark reads -------------------------------------------------------------
  [[nodiscard]] const std::string& id() const { return m_case.id(); }
  [[nodiscard]] const std::string& axis(std::string_view name) const { return m_case.value(name); }
  [[nodiscard]] const host::run_options& options() const { return m_options; }
  /// The GPUs of the case, in the run's order (NVML index order).
  [[nodiscard]] const std::vector<node_device>& devices() const { return m_devices; }
  [[nodiscard]] node_cache& cache() { return m_cache; }
  [[nodiscard]] bool interrupted() const { return m_interrupted.load(); }
  /// Seconds until the watchdog's deadline for this case, as last extended by ran(): a
  /// benchmark with its own abort (ncclCommAbort) aborts well before it, so that its result
  /// names what was stuck instead of the watchdog killing the worker.
  [[nodiscard]] double seconds_left() const;

  // --- what the benchmark tells -------------------------------------------------------------
  /// A timed run (warm-up or sample) ended: `runs` so far, this one's seconds. The worker turns
  /// it into progress messages, which extend the watchdog's deadline as for one-GPU cases.
  void ran(int runs, double run_seconds);
  /// The harness's sampling of a node-wide case whose one run `run` enqueues, times with the
  /// harness's events (device_timing.cuh: event_pair, device_seconds) and returns in device
  /// seconds: one warm-up run (discarded), then max(10, stopping.min_samples) runs, each told to
  /// ran(), fewer if the run is interrupted. Sets the window to the samples' span; returns the
  /// samples' device seconds.
  std::vector<double> time_samples(const std::function<double()>& run);
  /// An observation (algorithm, transport, NCCL version, #wrong): context, never a key. Throws
  /// std::logic_error for a key that is one of the case's axes.
  void add_parameter(const std::string& key, nlohmann::ordered_json value);
  /// The timed samples: device seconds of each and the metric each gives, in `unit`; `metric`
  /// names it ("busbw"). The statistics are computed from these.
  void set_samples(std::vector<double> sample_seconds, std::vector<double> values,
                   reports::metric_unit unit, std::string metric, bool higher_is_better = true);
  /// The timed samples as the one builder makes them (reports/result_builder.hpp): each
  /// sample's value, the metric, its unit and direction from the work one run does, as
  /// bench_state derives them (bytes: bandwidth in GB/s, and bytes_per_iteration; items: latency
  /// in ns per item).
  void set_work_samples(std::vector<double> sample_seconds,
                        const reports::work_per_iteration& work);
  void set_bytes_per_iteration(double bytes);
  void set_ceiling(reports::ceiling c) { m_result.ceiling_value = std::move(c); }
  void set_verification(reports::verification v) { m_result.check = std::move(v); }
  void set_stop_reason(std::string reason) { m_result.stop_reason = std::move(reason); }
  /// The span of the timed samples (first sample's start to last sample's end): the window the
  /// telemetry is summarised over. Unset: the whole case, setup included.
  void set_window(std::chrono::steady_clock::time_point begin,
                  std::chrono::steady_clock::time_point end) {
    m_window = {begin, end};
  }
  [[nodiscard]] const std::optional<
      std::pair<std::chrono::steady_clock::time_point, std::chrono::steady_clock::time_point>>&
  window() const {
    return m_window;
  }
  /// Ends the case without a measurement, with its reason (one GPU, NCCL absent at run time).
  void skip(std::string reason);
  void not_supported(std::string reason);
  /// Marks the result failed (a collective aborted at its deadline: name the size and the
  /// ranks that had not arrived).
  void fail(std::string reason);

  // --- the harness's side -------------------------------------------------------------------
  /// The finished result: identity (id, axes, devices), statistics, efficiency against the
  /// ceiling's reference, status and reason settled. The worker adds telemetry and timing.
  [[nodiscard]] reports::result take_result();

private:
  const bench_case& m_case;
  std::vector<node_device> m_devices;
  const host::run_options& m_options;
  node_cache& m_cache;
  const std::atomic<bool>& m_interrupted;
  std::chrono::steady_clock::time_point m_deadline;
  double m_longest_run_s = 0;
  std::optional<
      std::pair<std::chrono::steady_clock::time_point, std::chrono::steady_clock::time_point>>
      m_window;
  reports::result m_result;
};

using node_benchmark_function = std::function<void(node_state&)>;

} // namespace gpuspec::benches
