// The NVML event set of a run (nvml_events.hpp): registration by what each GPU supports, the
// waiting thread, and the bounded list of what it took.

#include "gpuspec/host/nvml_events.hpp"

#include <algorithm>
#include <array>
#include <utility>

#include <fmt/format.h>

#include "gpuspec/host/nvml_library.hpp"

namespace gpuspec::host {
namespace {

using reports::gpu_event_type;

struct wanted_type {
  std::uint64_t bit;
  gpu_event_type type;
  const char* words; ///< for a note when a GPU lacks it
};
// The values are NVML's ABI (nvml.h, "Event Types").
constexpr std::array<wanted_type, 4> wanted = {{
    {nvmlEventTypeXidCriticalError, gpu_event_type::xid, "Xid events"},
    {nvmlEventTypeSingleBitEccError, gpu_event_type::ecc_single_bit, "single-bit ECC events"},
    {nvmlEventTypeDoubleBitEccError, gpu_event_type::ecc_double_bit, "double-bit ECC events"},
    {nvmlEventTypeClock, gpu_event_type::clock_change, "clock-change events"},
}};

} // namespace

std::uint64_t wanted_event_mask() {
  std::uint64_t mask = 0;
  for (const auto& w : wanted)
    mask |= w.bit;
  return mask;
}

std::optional<gpu_event_type> event_type_of(std::uint64_t nvml_bit) {
  for (const auto& w : wanted)
    if (w.bit == nvml_bit)
      return w.type;
  return std::nullopt;
}

nvml_event_watcher::nvml_event_watcher(const nvml_library& nvml, std::vector<int> devices,
                                       std::chrono::milliseconds wait_timeout, std::size_t capacity)
    : m_nvml(nvml), m_devices(std::move(devices)), m_wait_timeout(wait_timeout),
      m_capacity(std::max<std::size_t>(capacity, 1)) {
  const nvml_api& api = m_nvml.api();
  if (api.event_set_create == nullptr || api.event_set_free == nullptr ||
      api.register_events == nullptr || api.event_set_wait == nullptr) {
    m_notes.emplace_back("no GPU events: this NVIDIA driver lacks NVML's event API");
    return;
  }
  if (const nvmlReturn_t s = api.event_set_create(&m_set); s != NVML_SUCCESS) {
    m_set = nullptr;
    m_notes.push_back(
        fmt::format("no GPU events: nvmlEventSetCreate failed: {}", m_nvml.error_text(s)));
    return;
  }
  bool any = false;
  for (const int index : m_devices) {
    nvmlDevice_t handle = nullptr;
    if (const nvmlReturn_t s = api.handle_by_index(static_cast<unsigned>(index), &handle);
        s != NVML_SUCCESS) {
      m_handles.push_back(nullptr);
      m_notes.push_back(fmt::format("GPU {}: no events: {}", index, m_nvml.error_text(s)));
      continue;
    }
    m_handles.push_back(handle);
    unsigned long long supported = 0;
    if (api.supported_event_types == nullptr) {
      supported = wanted_event_mask(); // an old driver: ask, and let registration say no
    } else if (const nvmlReturn_t s = api.supported_event_types(handle, &supported);
               s != NVML_SUCCESS) {
      m_notes.push_back(fmt::format("GPU {}: no events: nvmlDeviceGetSupportedEventTypes: {}",
                                    index, m_nvml.error_text(s)));
      continue;
    }
    std::uint64_t mask = 0;
    for (const auto& w : wanted) {
      if ((supported & w.bit) != 0)
        mask |= w.bit;
      else
        m_notes.push_back(fmt::format("GPU {} does not report {}", index, w.words));
    }
    if (mask == 0)
      continue;
    if (const nvmlReturn_t s = api.register_events(handle, mask, m_set); s != NVML_SUCCESS) {
      m_notes.push_back(fmt::format("GPU {}: no events: nvmlDeviceRegisterEvents: {}", index,
                                    m_nvml.error_text(s)));
      continue;
    }
    any = true;
  }
  if (any)
    m_thread = std::jthread([this](std::stop_token stop) { loop(stop); });
}

nvml_event_watcher::~nvml_event_watcher() {
  // The thread waits at most one timeout; the set is freed only once nothing waits on it.
  if (m_thread.joinable()) {
    m_thread.request_stop();
    m_thread.join();
  }
  if (m_set != nullptr)
    m_nvml.api().event_set_free(m_set); // nothing to do with a failure while closing
}

void nvml_event_watcher::loop(std::stop_token stop) {
  const nvml_api& api = m_nvml.api();
  const auto timeout_ms = static_cast<unsigned>(m_wait_timeout.count());
  while (!stop.stop_requested()) {
    nvmlEventData_t data{};
    const nvmlReturn_t s = api.event_set_wait(m_set, &data, timeout_ms);
    if (s == NVML_ERROR_TIMEOUT)
      continue;
    if (s != NVML_SUCCESS) {
      // A lost GPU or a broken set: waiting again at once would spin. Back off one timeout.
      std::this_thread::sleep_for(m_wait_timeout);
      continue;
    }
    const auto type = event_type_of(data.eventType);
    if (!type)
      continue;
    const auto at = std::find(m_handles.begin(), m_handles.end(), data.device);
    if (at == m_handles.end())
      continue;
    nvml_event e;
    e.at = std::chrono::steady_clock::now();
    e.device = m_devices[static_cast<std::size_t>(at - m_handles.begin())];
    e.type = *type;
    e.data = *type == gpu_event_type::xid ? data.eventData : 0;
    keep(e);
  }
}

void nvml_event_watcher::keep(const nvml_event& e) {
  const std::lock_guard lock(m_mutex);
  if (m_events.size() == m_capacity) {
    m_events.pop_front();
    ++m_dropped;
  }
  m_events.push_back(e);
}

std::vector<nvml_event>
nvml_event_watcher::events(int device, std::chrono::steady_clock::time_point begin,
                           std::chrono::steady_clock::time_point end) const {
  const std::lock_guard lock(m_mutex);
  std::vector<nvml_event> out;
  for (const auto& e : m_events)
    if (e.device == device && e.at >= begin && e.at <= end)
      out.push_back(e);
  return out;
}

std::size_t nvml_event_watcher::dropped() const {
  const std::lock_guard lock(m_mutex);
  return m_dropped;
}

std::vector<reports::gpu_event> to_report_events(const std::vector<nvml_event>& events,
                                                 std::chrono::steady_clock::time_point origin) {
  std::vector<reports::gpu_event> out;
  out.reserve(events.size());
  for (const auto& e : events) {
    reports::gpu_event r;
    r.time_s = std::chrono::duration<double>(e.at - origin).count();
    r.device = e.device;
    r.type = e.type;
    r.source = "nvml";
    if (e.type == gpu_event_type::xid) {
      r.xid = static_cast<int>(e.data);
      r.detail = e.data == 999 ? "NVML: an Xid it does not know (999)"
                               : fmt::format("NVML Xid critical error event, Xid {}", e.data);
    } else {
      r.detail = fmt::format("NVML {} event", reports::to_string(e.type));
    }
    out.push_back(std::move(r));
  }
  return out;
}

void attach_window_events(reports::result& r, const nvml_event_watcher& watcher,
                          std::chrono::steady_clock::time_point origin) {
  r.events.clear();
  // What was not watched is context for every result: no event of those types is no evidence.
  if (!watcher.notes().empty())
    r.observations["events_not_watched"] = watcher.notes();
  if (const std::size_t dropped = watcher.dropped(); dropped > 0)
    r.observations["events_dropped"] = dropped;
  if (!r.telemetry.window_start_s || !r.telemetry.window_end_s)
    return;
  const auto at = [&](double s) {
    return origin + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                        std::chrono::duration<double>(s));
  };
  const auto begin = at(*r.telemetry.window_start_s);
  const auto end = at(*r.telemetry.window_end_s);
  for (const int device : r.devices) {
    auto events = to_report_events(watcher.events(device, begin, end), origin);
    r.events.insert(r.events.end(), events.begin(), events.end());
  }
  std::stable_sort(r.events.begin(), r.events.end(),
                   [](const auto& a, const auto& b) { return a.time_s < b.time_s; });
}

} // namespace gpuspec::host
