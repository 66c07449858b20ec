#pragma once
/// What a benchmark function sees (nvbench's state). The benchmark allocates and initialises,
/// declares its work, hands the timed work to exec(), and verifies; the harness owns the rest:
/// warm-up, L2 flush, the hold kernel, events, the stopping rule, rates, ceiling, telemetry.
///
///   void stream_triad(bench_state& state) {
///     ... allocate a, b, c; fill b, c with seeded values; poison a ...
///     state.set_bytes_per_iteration(3.0 * n * sizeof(T));
///     state.set_ceiling(ceiling_kind::device_memory_bandwidth);
///     state.exec([&](kernels::stream_ref s) {
///       kernels::launch_stream(kernels::stream_op::triad, arrays, scalar, n, s.handle());
///     });
///     state.set_verification(... check a on the host ...);
///   }
///
/// exec() enqueues `work` on the state's stream only; `work` must be idempotent (each sample
/// runs it again on the same buffers) and must not synchronise. An exception thrown by the
/// benchmark makes its result failed with the exception's text; samples already taken are kept.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpuspec/benches/device_timing.cuh"
#include "gpuspec/benches/registry.hpp"
#include "gpuspec/host/measurement_options.hpp"
#include "gpuspec/host/telemetry.hpp"
#include "gpuspec/kernels/cuda_handles.cuh"
#include "gpuspec/reports/model/report.hpp"
#include "gpuspec/reports/model/result_builder.hpp"
#include "gpuspec/reports/model/statistics.hpp"

namespace gpuspec::benches {

class device_context;

/// cold: the L2 is flushed before every sample (device-memory figures); hot: back-to-back.
enum class cache_mode { cold, hot };

/// Which ceiling the harness attaches to the result.
enum class ceiling_kind {
  none,
  /// memory clock × bus width × 2 / 8 at the clock seen during the run (ceilings.hpp)
  device_memory_bandwidth,
  /// SM count × SM clock × the architecture's rate of a key (set_compute_ceiling)
  compute_peak,
  /// SM count × SM clock × 128 bytes (32 banks × 4 bytes per clock)
  shared_memory_bandwidth,
  /// the PCIe link the card and its slot can reach (the lower of the GPU's and the system's
  /// maxima), × the directions moved (set_pcie_ceiling, pcie_link.hpp)
  pcie_link,
};

class bench_state {
public:
  /// Made by the runner for one case on one device; `context`'s device is current.
  bench_state(const bench_case& c, const reports::device_info& device, device_context& context,
              const host::run_options& options, host::telemetry_sampler* telemetry,
              const std::atomic<bool>& interrupted);

  // --- what the benchmark reads -------------------------------------------------------------
  [[nodiscard]] const std::string& id() const { return m_case.id(); }
  /// The case's value of `axis` (e.g. "dtype" -> "fp32"); throws std::out_of_range if absent.
  [[nodiscard]] const std::string& axis(std::string_view name) const { return m_case.value(name); }
  [[nodiscard]] const host::run_options& options() const { return m_options; }
  /// The inventory of the device (NVML index, clocks, memory bus width, L2 size, ...).
  [[nodiscard]] const reports::device_info& device() const { return m_device; }
  [[nodiscard]] int cuda_device() const;
  [[nodiscard]] std::int64_t l2_bytes() const;
  /// The stream exec() times work on; also fine for setup (initialisation) before exec().
  [[nodiscard]] kernels::stream_ref stream() const;
  /// True once the run was asked to stop; exec() then returns early.
  [[nodiscard]] bool interrupted() const { return m_interrupted.load(); }

  // --- what the benchmark declares ----------------------------------------------------------
  /// Records an observation, what the harness chose or found, e.g. ("array_bytes", n): context
  /// in the report, never part of the key that pairs results (the case's axes are). Throws
  /// std::logic_error for a key that is one of the case's axes.
  void add_parameter(const std::string& key, nlohmann::ordered_json value);
  /// Bytes moved by one run of the work: the metric becomes bandwidth in GB/s (1e9 bytes/s).
  void set_bytes_per_iteration(double bytes);
  /// Floating-point operations of one run of the work: recorded; the metric is TFLOP/s
  /// (1e12 flop/s) when no bytes are declared.
  void set_flops_per_iteration(double flops);
  /// Integer operations of one run of the work (an IMAD or an int8 multiply-add counts 2): the
  /// metric is TOPS (1e12 op/s). Use instead of set_flops_per_iteration for integer work.
  void set_integer_ops_per_iteration(double ops);
  /// The work is `items` dependent steps (loads of a pointer chase, launches): the metric is
  /// latency in ns per item, lower is better. `item` names one ("load", "launch") in the
  /// parameters.
  void set_items_per_iteration(double items, std::string item);
  void set_cache_mode(cache_mode mode) { m_cache_mode = mode; }
  void set_ceiling(ceiling_kind kind) { m_ceiling_kind = kind; }
  /// The compute ceiling of `key` ("fp32", "fp64", "fp16", "int32", "fp16_tc", "bf16_tc",
  /// "tf32_tc", "int8_tc", "fp8_tc", "fp64_tc"): the spec row's peak as the datasheet value and
  /// SM count × SM clock during the run × the rate per SM per clock (reports/arch_rates) as the
  /// clock-adjusted one. `fp32_accumulate`: Tensor Core work accumulating in FP32, which GeForce
  /// parts run at half rate.
  void set_compute_ceiling(std::string key, bool fp32_accumulate = true);
  /// The least device-memory traffic one run of the work needs (a GEMM: A and B read, C
  /// written once): the compute ceiling is then capped by the memory roofline, so a shape too
  /// small to be compute-bound (small-M inference GEMMs) is judged against what it can reach.
  void set_roofline_bytes(double bytes);
  /// The ceiling of a host/device transfer (pcie_link.hpp): the PCIe link as trained, from the
  /// highest generation and width the telemetry sampler read while the work ran (else the
  /// inventory's reading, and its source says so), per direction × `directions` (2 for both
  /// directions at once); the datasheet value from the spec row's PCIe generation and width.
  /// The link readings under load become the parameters pcie_gen_under_load and
  /// pcie_width_under_load.
  void set_pcie_ceiling(int directions);
  /// Whether exec() holds the stream with the hold kernel while a sample is enqueued (true by
  /// default). False for work whose enqueueing waits for the stream itself, such as
  /// cudaMemcpyAsync from pageable memory: behind the hold it would wait until the hold timed
  /// out. The events still time the work; without the hold, the time the host takes to enqueue
  /// it may fall inside the sample (docs/measurement.md).
  void set_launch_hold(bool hold) { m_launch_hold = hold; }

  // --- timing -------------------------------------------------------------------------------
  /// Warm-up (discarded), then samples until options().stopping says stop: per sample, an L2
  /// flush if cold (synchronised, outside timing), the hold kernel, the start event, `work`,
  /// the stop event, release, synchronise. Records device seconds (events) and host seconds
  /// (release to synchronised) per sample. Once per benchmark.
  void exec(const std::function<void(kernels::stream_ref)>& work);

  // --- sustained load (the burn-in, docs/burnin.md) -----------------------------------------
  /// Instead of exec(), for a benchmark that runs for the burn-in's --duration rather than to a
  /// stopping rule: times one run of `work` with the state's events (no hold kernel: a run is
  /// long enough for launch latency not to matter), synchronises, tells the progress callback
  /// (the watchdog's heartbeat) and returns the run's device seconds.
  double time_run(const std::function<void(kernels::stream_ref)>& work);
  /// Device seconds of one run of `work` on the state's stream that is no sample and no timed
  /// run: a calibration or sizing run before exec() (how many passes make a launch of about
  /// 2 ms). Not told to the progress callback; waits for the work.
  double setup_seconds(const std::function<void(kernels::stream_ref)>& work);
  /// What time_batch measured, device seconds.
  struct batch_times {
    double seconds = 0;                ///< the whole batch, its first event to its last
    std::vector<double> timed_seconds; ///< each iteration's timed part alone
  };
  /// Like time_run, for a batch of `iterations` whose each iteration holds a part to time and a
  /// part not to (the burn-in: a GEMM, then the checksum of its output, which must not be
  /// charged to the GEMM): the harness brackets each `timed(i, stream)` with a pair of its own
  /// events and runs `untimed(i, stream)` after the stop event, enqueues the whole batch,
  /// synchronises once and tells the progress callback once. `iterations` from 1 to 1024.
  batch_times time_batch(int iterations, const std::function<void(int, kernels::stream_ref)>& timed,
                         const std::function<void(int, kernels::stream_ref)>& untimed);
  /// Now, in seconds since the run started (the clock every process of the run shares).
  [[nodiscard]] double run_clock_s() const;
  /// The telemetry of [begin_s, end_s] (seconds since the run started); status says why when
  /// there is none.
  [[nodiscard]] reports::telemetry_summary telemetry_between(double begin_s, double end_s) const;
  /// The raw telemetry samples of [begin_s, end_s], for the record's event samples.
  [[nodiscard]] std::vector<reports::burnin_sample> samples_between(double begin_s,
                                                                    double end_s) const;
  /// Ends a sustained benchmark: `samples` (one throughput per interval, in the metric's unit,
  /// over `sample_seconds` of device time each) become the result's samples, `record` its
  /// burn-in record, and [begin_s, end_s] its telemetry window. An interrupted run keeps what
  /// it did (status ok): its record says how much, and the check judges that.
  void finish_sustained(std::vector<double> samples, std::vector<double> sample_seconds,
                        reports::burnin_record record, double begin_s, double end_s);

  // --- result -------------------------------------------------------------------------------
  void set_verification(reports::verification v) { m_result.check = std::move(v); }
  /// Ends the benchmark with status skipped / not_supported and a reason (e.g. a dtype the GPU
  /// lacks). Call it instead of exec().
  void skip(std::string reason);
  void not_supported(std::string reason);

  // --- the harness's side -------------------------------------------------------------------
  /// Marks the result failed with `reason` (the runner calls it with an exception's what()).
  void fail(std::string reason);
  /// The finished result: metric, stats, ceiling, efficiency, status and reason settled.
  [[nodiscard]] reports::result take_result();

private:
  /// The work one run does, as declared: what its samples become (reports/result_builder.hpp).
  [[nodiscard]] reports::work_per_iteration declared_work() const;
  /// One timed run of `work` on the state's stream, counted for the progress callback.
  double timed_run(const std::function<void(kernels::stream_ref)>& work);
  /// A timed run ended: counts it and tells the progress callback.
  void ran(double seconds);
  // exec()'s phases: warm-up (discarded), the samples to the stopping rule, one sample (flush,
  // hold, the timed enqueue), and the telemetry of the samples' window.
  struct sample_guards {
    int hold_timeouts = 0;
    int unresolved = 0; ///< in a row
  };
  struct sample_time {
    double device_seconds = 0;
    double host_seconds = 0; ///< release to synchronised
  };
  void warm_up(const std::function<void(kernels::stream_ref)>& work);
  reports::stop_decision take_samples(const std::function<void(kernels::stream_ref)>& work);
  std::optional<sample_time> take_sample(const std::function<void(kernels::stream_ref)>& work,
                                         sample_guards& guards);
  /// Enqueues one sample between the timer's events behind the hold, releases it and waits;
  /// the host seconds from the release to the work's end.
  double enqueue_sample(const std::function<void(kernels::stream_ref)>& work);
  void summarise_window(std::chrono::steady_clock::time_point begin,
                        std::chrono::steady_clock::time_point end);
  /// The matched spec-table row of the device (run_options::spec_rows), or nullptr.
  [[nodiscard]] const reports::gpu_spec* spec_row() const;
  /// Sets m_result.ceiling_value from m_ceiling_kind, after the telemetry summary.
  void attach_ceiling();
  /// The device-memory bandwidth ceiling at the memory clock seen during the run.
  [[nodiscard]] reports::ceiling memory_ceiling(const reports::gpu_spec* spec) const;

  const bench_case& m_case;
  const reports::device_info& m_device;
  device_context& m_context;
  const host::run_options& m_options;
  host::telemetry_sampler* m_telemetry;
  const std::atomic<bool>& m_interrupted;

  reports::result m_result;
  std::vector<double> m_host_seconds; ///< per sample, release to synchronised
  cache_mode m_cache_mode = cache_mode::cold;
  ceiling_kind m_ceiling_kind = ceiling_kind::none;
  std::string m_ceiling_key;
  std::optional<double> m_roofline_bytes;
  bool m_fp32_accumulate = true;
  bool m_integer_ops = false;
  std::optional<double> m_items_per_iteration;
  int m_pcie_directions = 1;
  bool m_launch_hold = true;
  event_marks m_batch_marks; ///< time_batch's start/stop marks, made once
  std::chrono::steady_clock::time_point m_window_begin{}, m_window_end{}; ///< exec()'s samples
  bool m_exec_done = false;
  bool m_sustained = false; ///< finish_sustained() ended it
  int m_timed_runs = 0;     ///< warm-up runs and samples, for the progress callback
  bool m_was_interrupted = false;
  std::optional<reports::result_status> m_disposition; ///< skip / not_supported / failed
  std::string m_disposition_reason;
};

} // namespace gpuspec::benches
