#pragma once
/// Events while benchmarks run (issue 12): an NVML event set registered for Xids, single- and
/// double-bit ECC errors and clock changes on the run's GPUs before the first kernel, waited on
/// from its own thread. The error counters say how many errors a GPU had before and after the
/// run; the events say when, so each can be held against the result whose window it fell in.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include <nvml.h>

#include "gpuspec/reports/model/report.hpp"

namespace gpuspec::host {

class nvml_library;

/// One event NVML delivered, with the time the waiting thread took it (NVML's own timestamp is
/// in microseconds since the epoch on the GPU's driver clock; the run's windows are on
/// steady_clock, so the time of delivery is what sets an event inside a window).
struct nvml_event {
  std::chrono::steady_clock::time_point at;
  int device = 0; ///< NVML index
  reports::gpu_event_type type = reports::gpu_event_type::xid;
  std::uint64_t data = 0; ///< the Xid for an Xid event (999: NVML did not know it); else 0
};

/// The event types gpuspec asks for, as NVML's mask bits.
[[nodiscard]] std::uint64_t wanted_event_mask();
/// The event type of one NVML mask bit; nullopt for a bit gpuspec does not ask for.
[[nodiscard]] std::optional<reports::gpu_event_type> event_type_of(std::uint64_t nvml_bit);

/// Events a watcher keeps by default: far more than a healthy run sees; a GPU in an Xid storm
/// keeps its latest ones and counts the rest.
inline constexpr std::size_t default_event_capacity = 4096;

/// Owns one NVML event set (nvmlEventSetCreate ... nvmlEventSetFree) and the thread that waits
/// on it with a short timeout. Move-less: the thread holds `this`. Construction registers every
/// device for the types it supports (nvmlDeviceGetSupportedEventTypes first); a type a GPU lacks
/// is a note, not an error, and so is a driver without the event API.
class nvml_event_watcher {
public:
  nvml_event_watcher(const nvml_library& nvml, std::vector<int> devices,
                     std::chrono::milliseconds wait_timeout = std::chrono::milliseconds(100),
                     std::size_t capacity = default_event_capacity);
  ~nvml_event_watcher();
  nvml_event_watcher(const nvml_event_watcher&) = delete;
  nvml_event_watcher& operator=(const nvml_event_watcher&) = delete;

  /// The events of `device` taken in [begin, end], oldest first.
  [[nodiscard]] std::vector<nvml_event> events(int device,
                                               std::chrono::steady_clock::time_point begin,
                                               std::chrono::steady_clock::time_point end) const;
  /// What could not be watched, one sentence each ("GPU 0 does not report clock-change events").
  [[nodiscard]] const std::vector<std::string>& notes() const { return m_notes; }
  /// Whether any device was registered for any type (else no thread runs).
  [[nodiscard]] bool watching() const { return m_set != nullptr && m_thread.joinable(); }
  /// Events dropped past the capacity (the oldest go first).
  [[nodiscard]] std::size_t dropped() const;

private:
  void loop(std::stop_token stop);
  void keep(const nvml_event& e);
  const nvml_library& m_nvml;
  std::vector<int> m_devices;
  std::vector<nvmlDevice_t> m_handles; ///< parallel to m_devices; null where none
  std::chrono::milliseconds m_wait_timeout;
  std::size_t m_capacity;
  nvmlEventSet_t m_set = nullptr;
  std::vector<std::string> m_notes;
  mutable std::mutex m_mutex; // guards m_events and m_dropped
  std::deque<nvml_event> m_events;
  std::size_t m_dropped = 0;
  std::jthread m_thread; // last: starts after the members it uses exist
};

/// The report's records of `events`, with times in seconds since `origin` (the run's clock).
[[nodiscard]] std::vector<reports::gpu_event>
to_report_events(const std::vector<nvml_event>& events,
                 std::chrono::steady_clock::time_point origin);

/// Sets `r.events` to the events of each of its GPUs during its measurement window
/// (telemetry.window_start_s .. window_end_s, seconds since `origin`). A result without a window
/// (one that never measured) gets none. The watcher's notes (types or GPUs not watched) and the
/// count of events dropped past its capacity go into the result's observations
/// (`events_not_watched`, `events_dropped`), where there are some.
void attach_window_events(reports::result& r, const nvml_event_watcher& watcher,
                          std::chrono::steady_clock::time_point origin);

} // namespace gpuspec::host
