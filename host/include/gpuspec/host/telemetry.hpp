#pragma once
/// Telemetry sampled on a background thread while benchmarks run (docs/design.md rule 7).

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "gpuspec/reports/model/report.hpp"

namespace gpuspec::host {

using telemetry_clock = std::chrono::steady_clock;

struct telemetry_sample {
  telemetry_clock::time_point at;
  int device = 0; ///< NVML index
  /// The PCIe link's current generation and width (lanes). Small types, next to `device`: they
  /// fill its padding, so a sample stays 96 bytes (x86-64).
  std::optional<std::uint8_t> pcie_gen, pcie_width;
  std::optional<double> sm_clock_mhz, mem_clock_mhz, temperature_c, power_w;
  std::optional<std::uint64_t> throttle_mask; ///< NVML clocks-event reason bits
};

/// Where samples come from: NVML on a real machine, a script in the tests.
class telemetry_source {
public:
  virtual ~telemetry_source() = default;
  virtual telemetry_sample read(int device) = 0;
};

class nvml_library;
/// Reads clocks, temperature, power and clocks-event reasons through NVML.
[[nodiscard]] std::unique_ptr<telemetry_source>
make_nvml_telemetry_source(const nvml_library& nvml);

/// Names of the performance-limiting reasons in `mask` ("sw_power_cap", "hw_slowdown",
/// "hw_thermal", "sw_thermal", "hw_power_brake", "sync_boost", "display_clocks"); idle and
/// application-clock bits are not throttling and are named but do not set `throttled`.
[[nodiscard]] std::vector<std::string> throttle_reason_names(std::uint64_t mask);
[[nodiscard]] bool is_performance_limiting(std::uint64_t mask);

/// Summary of the samples of `device` in [begin, end]. `sm_clock_max_mhz` (if known) is used
/// for the low-clock fraction (samples under 75% of it). No sample: status says so.
[[nodiscard]] reports::telemetry_summary
summarize_telemetry(std::span<const telemetry_sample> samples, int device,
                    telemetry_clock::time_point begin, telemetry_clock::time_point end,
                    std::optional<double> sm_clock_max_mhz, double period_ms);

/// One summary for a case that ran on several GPUs at once (node-wide: a collective), from each
/// GPU's summary of the same window (`per_gpu`: NVML index and summary, in run order): for each
/// figure the worst GPU (lowest clocks, highest temperature and power, the largest low-clock
/// fraction, the lowest PCIe link), the mean of the GPUs' mean power, the union of throttle
/// reasons, and the samples of all. Status "ok" only if every GPU's is; else "GPU 3: <its
/// status>" for each that is not.
[[nodiscard]] reports::telemetry_summary
merge_gpu_summaries(const std::vector<std::pair<int, reports::telemetry_summary>>& per_gpu);

/// The PCIe link of `device` over the samples in [begin, end]: the lowest and highest generation
/// and width reported, and how many samples carried a reading of both.
struct pcie_link_seen {
  std::int64_t samples = 0;
  std::optional<int> gen_min, gen_max, width_min, width_max;
  friend bool operator==(const pcie_link_seen&, const pcie_link_seen&) = default;
};
[[nodiscard]] pcie_link_seen summarize_pcie_link(std::span<const telemetry_sample> samples,
                                                 int device, telemetry_clock::time_point begin,
                                                 telemetry_clock::time_point end);

/// Samples a sampler keeps by default: at 20 ms for one GPU, the last 21 minutes; 96 bytes each
/// (x86-64, GCC 12), 6 MiB in all.
inline constexpr std::size_t default_telemetry_capacity = std::size_t{1} << 16;

/// Polls `devices` every `period` on its own thread from construction until destruction.
/// The source is read from that thread and from summary(), one call at a time. Destruction
/// stops the thread at once, without waiting out the period. Bounded in memory for runs of any
/// length: it keeps the last `capacity` samples, so a window longer than that (21 minutes at
/// 20 ms for one GPU) is summarised over its latest part.
class telemetry_sampler {
public:
  telemetry_sampler(std::unique_ptr<telemetry_source> source, std::vector<int> devices,
                    std::chrono::milliseconds period = std::chrono::milliseconds(20),
                    std::size_t capacity = default_telemetry_capacity);
  ~telemetry_sampler();
  telemetry_sampler(const telemetry_sampler&) = delete;
  telemetry_sampler& operator=(const telemetry_sampler&) = delete;

  /// Summary of one device over a window. Takes one fresh sample first, so a window shorter
  /// than the period is not left empty: when no sample falls inside [begin, end], the
  /// sample nearest to the window is used if it lies within one period of it.
  [[nodiscard]] reports::telemetry_summary summary(int device, telemetry_clock::time_point begin,
                                                   telemetry_clock::time_point end,
                                                   std::optional<double> sm_clock_max_mhz);
  /// The PCIe link of one device over a window (summarize_pcie_link). As summary(): when no
  /// sample inside [begin, end] read the link, the nearest sample within one period of the
  /// window is used (summary() takes a fresh one just after the window).
  [[nodiscard]] pcie_link_seen pcie_link(int device, telemetry_clock::time_point begin,
                                         telemetry_clock::time_point end) const;
  /// The raw samples of one device in [begin, end] (a burn-in keeps them around an event).
  [[nodiscard]] std::vector<telemetry_sample> samples(int device, telemetry_clock::time_point begin,
                                                      telemetry_clock::time_point end) const;
  [[nodiscard]] std::chrono::milliseconds period() const { return m_period; }
  /// Samples held now (at most the capacity).
  [[nodiscard]] std::size_t held() const;

private:
  void loop(std::stop_token stop);
  telemetry_sample read_source(int device);
  void keep(const telemetry_sample& s); ///< appends, dropping the oldest past the capacity
  std::unique_ptr<telemetry_source> m_source;
  std::vector<int> m_devices;
  std::chrono::milliseconds m_period;
  std::size_t m_capacity;
  std::mutex m_source_mutex;  // guards m_source
  mutable std::mutex m_mutex; // guards m_samples
  std::condition_variable_any m_wake;
  std::deque<telemetry_sample> m_samples;
  std::jthread m_thread; // last: starts after the members it uses exist
};

} // namespace gpuspec::host
