// Telemetry: an NVML source, the clocks-event reason names, the window summary and the sampler
// thread (docs/design.md, measurement rule 7).

#include "gpuspec/host/telemetry.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpuspec/host/nvml_library.hpp"
#include "gpuspec/reports/model/statistics.hpp"

namespace gpuspec::host {
namespace {

// The clocks-event reason bits. nvml.h spells them nvmlClocksEventReason* (CUDA 12.2+) and
// nvmlClocksThrottleReason* (every version, aliases since 12.2): the old names compile against
// both, and the values are part of NVML's ABI.
constexpr std::uint64_t reason_gpu_idle = nvmlClocksThrottleReasonGpuIdle;
constexpr std::uint64_t reason_applications_clocks =
    nvmlClocksThrottleReasonApplicationsClocksSetting;
constexpr std::uint64_t reason_sw_power_cap = nvmlClocksThrottleReasonSwPowerCap;
constexpr std::uint64_t reason_hw_slowdown = nvmlClocksThrottleReasonHwSlowdown;
constexpr std::uint64_t reason_sync_boost = nvmlClocksThrottleReasonSyncBoost;
constexpr std::uint64_t reason_sw_thermal = nvmlClocksThrottleReasonSwThermalSlowdown;
constexpr std::uint64_t reason_hw_thermal = nvmlClocksThrottleReasonHwThermalSlowdown;
constexpr std::uint64_t reason_hw_power_brake = nvmlClocksThrottleReasonHwPowerBrakeSlowdown;
constexpr std::uint64_t reason_display_clocks = nvmlClocksThrottleReasonDisplayClockSetting;
static_assert(reason_gpu_idle == 0x1 && reason_applications_clocks == 0x2 &&
              reason_sw_power_cap == 0x4 && reason_hw_slowdown == 0x8 &&
              reason_sync_boost == 0x10 && reason_sw_thermal == 0x20 && reason_hw_thermal == 0x40 &&
              reason_hw_power_brake == 0x80 && reason_display_clocks == 0x100);

struct reason {
  std::uint64_t bit;
  const char* name;
  bool limiting; ///< holds clocks below what the work would get
};
constexpr std::array<reason, 9> reasons = {{
    {reason_gpu_idle, "gpu_idle", false},
    {reason_applications_clocks, "applications_clocks", false},
    {reason_sw_power_cap, "sw_power_cap", true},
    {reason_hw_slowdown, "hw_slowdown", true},
    {reason_sync_boost, "sync_boost", true},
    {reason_sw_thermal, "sw_thermal", true},
    {reason_hw_thermal, "hw_thermal", true},
    {reason_hw_power_brake, "hw_power_brake", true},
    {reason_display_clocks, "display_clocks", true},
}};

constexpr std::uint64_t limiting_mask = [] {
  std::uint64_t mask = 0;
  for (const reason& r : reasons)
    if (r.limiting)
      mask |= r.bit;
  return mask;
}();

/// SM clocks under this fraction of the maximum mark a sample as low-clock (nvbench's rule).
constexpr double low_clock_fraction_of_max = 0.75;

class nvml_telemetry_source final : public telemetry_source {
public:
  explicit nvml_telemetry_source(const nvml_library& nvml) : m_nvml(nvml) {}

  telemetry_sample read(int device) override {
    telemetry_sample s;
    s.at = telemetry_clock::now();
    s.device = device;
    const nvml_api& api = m_nvml.api();
    nvmlDevice_t handle = nullptr;
    if (api.handle_by_index == nullptr ||
        api.handle_by_index(static_cast<unsigned>(device), &handle) != NVML_SUCCESS)
      return s;
    unsigned value = 0;
    if (api.clock_info != nullptr && api.clock_info(handle, NVML_CLOCK_SM, &value) == NVML_SUCCESS)
      s.sm_clock_mhz = value;
    if (api.clock_info != nullptr && api.clock_info(handle, NVML_CLOCK_MEM, &value) == NVML_SUCCESS)
      s.mem_clock_mhz = value;
    if (api.temperature != nullptr &&
        api.temperature(handle, NVML_TEMPERATURE_GPU, &value) == NVML_SUCCESS)
      s.temperature_c = value;
    if (api.power_usage != nullptr && api.power_usage(handle, &value) == NVML_SUCCESS)
      s.power_w = value / 1000.0; // milliwatts
    // nvmlDeviceGetCurr*: the link as trained now; a GPU idle in a low P-state may have
    // down-trained it for power saving, so only readings taken while it works judge the link.
    if (api.pcie_gen_current != nullptr && api.pcie_gen_current(handle, &value) == NVML_SUCCESS &&
        value > 0 && value <= 255)
      s.pcie_gen = static_cast<std::uint8_t>(value);
    if (api.pcie_width_current != nullptr &&
        api.pcie_width_current(handle, &value) == NVML_SUCCESS && value > 0 && value <= 255)
      s.pcie_width = static_cast<std::uint8_t>(value);
    unsigned long long mask = 0;
    if (api.clocks_event_reasons != nullptr &&
        api.clocks_event_reasons(handle, &mask) == NVML_SUCCESS)
      s.throttle_mask = mask;

    s.at = telemetry_clock::now(); // stamp when the reads finished
    return s;
  }

private:
  const nvml_library& m_nvml;
};

/// Finite values only: a source reporting NaN or infinity is treated as not reporting.
std::optional<double> usable(const std::optional<double>& v) {
  if (v && std::isfinite(*v))
    return v;
  return std::nullopt;
}

} // namespace

std::unique_ptr<telemetry_source> make_nvml_telemetry_source(const nvml_library& nvml) {
  return std::make_unique<nvml_telemetry_source>(nvml);
}

std::vector<std::string> throttle_reason_names(std::uint64_t mask) {
  std::vector<std::string> names;
  std::uint64_t known = 0;
  for (const reason& r : reasons) {
    known |= r.bit;
    if ((mask & r.bit) != 0)
      names.emplace_back(r.name);
  }
  // Bits a newer driver may add: named by position rather than dropped.
  for (int bit = 0; bit < 64; ++bit) {
    const std::uint64_t b = std::uint64_t{1} << bit;
    if ((mask & b) != 0 && (known & b) == 0)
      names.push_back("unknown_bit_" + std::to_string(bit));
  }
  return names;
}

bool is_performance_limiting(std::uint64_t mask) { return (mask & limiting_mask) != 0; }

reports::telemetry_summary summarize_telemetry(std::span<const telemetry_sample> samples,
                                               int device, telemetry_clock::time_point begin,
                                               telemetry_clock::time_point end,
                                               std::optional<double> sm_clock_max_mhz,
                                               double period_ms) {
  reports::telemetry_summary out;
  out.period_ms = period_ms;

  std::vector<double> sm, mem, temperature, power;
  std::uint64_t mask_union = 0;

  for (const telemetry_sample& s : samples) {
    if (s.device != device || s.at < begin || s.at > end)
      continue;
    ++out.samples;
    if (s.pcie_gen)
      out.pcie_gen_min = std::min<int>(out.pcie_gen_min.value_or(*s.pcie_gen), *s.pcie_gen);
    if (s.pcie_width)
      out.pcie_width_min = std::min<int>(out.pcie_width_min.value_or(*s.pcie_width), *s.pcie_width);
    if (const auto v = usable(s.sm_clock_mhz))
      sm.push_back(*v);
    if (const auto v = usable(s.mem_clock_mhz))
      mem.push_back(*v);
    if (const auto v = usable(s.temperature_c))
      temperature.push_back(*v);
    if (const auto v = usable(s.power_w))
      power.push_back(*v);
    if (s.throttle_mask)
      mask_union |= *s.throttle_mask;
  }
  if (out.samples == 0) {
    out.status = "no telemetry samples in the window";
    return out;
  }

  if (!sm.empty()) {
    const auto [lo, hi] = std::minmax_element(sm.begin(), sm.end());
    out.sm_clock_mhz_min = *lo;
    out.sm_clock_mhz_max = *hi;
    if (sm_clock_max_mhz && std::isfinite(*sm_clock_max_mhz) && *sm_clock_max_mhz > 0) {
      const double threshold = low_clock_fraction_of_max * *sm_clock_max_mhz;
      const auto low = std::count_if(sm.begin(), sm.end(), [&](double v) { return v < threshold; });
      out.low_clock_fraction = static_cast<double>(low) / static_cast<double>(sm.size());
    }
    out.sm_clock_mhz_median = reports::median_of(sm);
  }
  if (!mem.empty()) {
    out.mem_clock_mhz_min = *std::min_element(mem.begin(), mem.end());
    out.mem_clock_mhz_median = reports::median_of(mem);
  }
  if (!temperature.empty())
    out.temperature_c_max = *std::max_element(temperature.begin(), temperature.end());
  if (!power.empty()) {
    out.power_w_mean = reports::mean_of(power);
    out.power_w_max = *std::max_element(power.begin(), power.end());
  }
  // Per sample, not on the union: the same thing, since a bit is limiting or not on its own.
  out.throttle_reasons = throttle_reason_names(mask_union);
  out.throttled = is_performance_limiting(mask_union);
  if (sm.empty() && mem.empty() && temperature.empty() && power.empty() && mask_union == 0 &&
      !out.pcie_gen_min && !out.pcie_width_min)
    out.status = "telemetry samples carried no readings";
  return out;
}

pcie_link_seen summarize_pcie_link(std::span<const telemetry_sample> samples, int device,
                                   telemetry_clock::time_point begin,
                                   telemetry_clock::time_point end) {
  pcie_link_seen out;
  const auto widen = [](std::optional<int>& lo, std::optional<int>& hi, int v) {
    lo = std::min(lo.value_or(v), v);
    hi = std::max(hi.value_or(v), v);
  };
  for (const telemetry_sample& s : samples) {
    if (s.device != device || s.at < begin || s.at > end)
      continue;
    if (s.pcie_gen)
      widen(out.gen_min, out.gen_max, *s.pcie_gen);
    if (s.pcie_width)
      widen(out.width_min, out.width_max, *s.pcie_width);
    if (s.pcie_gen && s.pcie_width)
      ++out.samples;
  }
  return out;
}

namespace {

/// The samples of `device` taken within [begin, end].
std::vector<telemetry_sample> samples_within(const std::deque<telemetry_sample>& samples,
                                             int device, telemetry_clock::time_point begin,
                                             telemetry_clock::time_point end) {
  std::vector<telemetry_sample> window;
  for (const telemetry_sample& sample : samples)
    if (sample.device == device && sample.at >= begin && sample.at <= end)
      window.push_back(sample);
  return window;
}

/// The sample of `device` that `wanted` accepts nearest to [begin, end] (the first of equals),
/// when it lies within `period` of it; else null.
template <class Wanted>
const telemetry_sample* nearest_sample(const std::deque<telemetry_sample>& samples, int device,
                                       telemetry_clock::time_point begin,
                                       telemetry_clock::time_point end,
                                       std::chrono::milliseconds period, Wanted wanted) {
  const telemetry_sample* nearest = nullptr;
  telemetry_clock::duration best = telemetry_clock::duration::max();
  for (const telemetry_sample& sample : samples) {
    if (sample.device != device || !wanted(sample))
      continue;
    const auto distance = sample.at < begin ? begin - sample.at : sample.at - end;
    if (distance < best) {
      best = distance;
      nearest = &sample;
    }
  }
  return nearest == nullptr || best > period ? nullptr : nearest;
}

} // namespace

telemetry_sampler::telemetry_sampler(std::unique_ptr<telemetry_source> source,
                                     std::vector<int> devices, std::chrono::milliseconds period,
                                     std::size_t capacity)
    : m_source(std::move(source)), m_devices(std::move(devices)),
      m_period(std::max(period, std::chrono::milliseconds(1))),
      m_capacity(std::max<std::size_t>(capacity, 1)),
      m_thread([this](std::stop_token stop) { loop(std::move(stop)); }) {}

telemetry_sampler::~telemetry_sampler() {
  // The stop request wakes the wait at once (condition_variable_any with a stop_token), and
  // the jthread joins before the members the loop uses are destroyed.
  m_thread.request_stop();
}

telemetry_sample telemetry_sampler::read_source(int device) {
  const std::lock_guard lock(m_source_mutex);
  try {
    return m_source->read(device);
  } catch (const std::exception&) {
    // A source that throws gives an empty sample; the sampler keeps going.
    telemetry_sample s;
    s.at = telemetry_clock::now();
    s.device = device;
    return s;
  }
}

void telemetry_sampler::keep(const telemetry_sample& s) {
  m_samples.push_back(s);
  while (m_samples.size() > m_capacity)
    m_samples.pop_front();
}

std::size_t telemetry_sampler::held() const {
  const std::lock_guard lock(m_mutex);
  return m_samples.size();
}

void telemetry_sampler::loop(std::stop_token stop) {
  std::vector<telemetry_sample> batch;
  while (!stop.stop_requested()) {
    batch.clear();
    for (const int device : m_devices)
      batch.push_back(read_source(device));
    std::unique_lock lock(m_mutex);
    for (const telemetry_sample& s : batch)
      keep(s);
    // Returns early, and true, as soon as a stop is requested.
    m_wake.wait_for(lock, stop, m_period, [] { return false; });
  }
}

pcie_link_seen telemetry_sampler::pcie_link(int device, telemetry_clock::time_point begin,
                                            telemetry_clock::time_point end) const {
  const std::lock_guard lock(m_mutex);
  pcie_link_seen seen =
      summarize_pcie_link(samples_within(m_samples, device, begin, end), device, begin, end);
  if (seen.samples > 0 || end < begin)
    return seen;
  // Nothing inside a window shorter than the period: the nearest reading of the link, if it
  // lies within one period of the window.
  const telemetry_sample* nearest =
      nearest_sample(m_samples, device, begin, end, m_period,
                     [](const telemetry_sample& s) { return s.pcie_gen && s.pcie_width; });
  if (nearest == nullptr)
    return seen;
  return summarize_pcie_link(std::span(nearest, 1), device, nearest->at, nearest->at);
}

reports::telemetry_summary telemetry_sampler::summary(int device, telemetry_clock::time_point begin,
                                                      telemetry_clock::time_point end,
                                                      std::optional<double> sm_clock_max_mhz) {
  const telemetry_sample fresh = read_source(device);
  const double period_ms = static_cast<double>(m_period.count());

  const std::lock_guard lock(m_mutex);
  keep(fresh);
  reports::telemetry_summary s =
      summarize_telemetry(samples_within(m_samples, device, begin, end), device, begin, end,
                          sm_clock_max_mhz, period_ms);
  if (s.samples > 0 || end < begin)
    return s;

  // Nothing inside a window shorter than the period: take the sample nearest to it, if it lies
  // within one period of the window.
  const telemetry_sample* nearest = nearest_sample(m_samples, device, begin, end, m_period,
                                                   [](const telemetry_sample&) { return true; });
  if (nearest == nullptr)
    return s;
  return summarize_telemetry(std::span(nearest, 1), device, nearest->at, nearest->at,
                             sm_clock_max_mhz, period_ms);
}

namespace {

template <class T> void keep_min(std::optional<T>& into, const std::optional<T>& v) {
  if (v && (!into || *v < *into))
    into = v;
}
template <class T> void keep_max(std::optional<T>& into, const std::optional<T>& v) {
  if (v && (!into || *v > *into))
    into = v;
}

} // namespace

reports::telemetry_summary
merge_gpu_summaries(const std::vector<std::pair<int, reports::telemetry_summary>>& per_gpu) {
  reports::telemetry_summary out;
  if (per_gpu.empty()) {
    out.status = "no telemetry: no GPU";
    return out;
  }
  double power_sum = 0;
  int power_count = 0;
  std::vector<std::string> not_ok;
  for (const auto& [gpu, s] : per_gpu) {
    out.samples += s.samples;
    out.period_ms = std::max(out.period_ms, s.period_ms);
    keep_min(out.sm_clock_mhz_min, s.sm_clock_mhz_min);
    keep_min(out.sm_clock_mhz_median, s.sm_clock_mhz_median);
    keep_min(out.sm_clock_mhz_max, s.sm_clock_mhz_max);
    keep_min(out.mem_clock_mhz_min, s.mem_clock_mhz_min);
    keep_min(out.mem_clock_mhz_median, s.mem_clock_mhz_median);
    keep_max(out.temperature_c_max, s.temperature_c_max);
    keep_max(out.power_w_max, s.power_w_max);
    keep_max(out.low_clock_fraction, s.low_clock_fraction);
    keep_min(out.window_start_s, s.window_start_s);
    keep_max(out.window_end_s, s.window_end_s);
    keep_min(out.pcie_gen_min, s.pcie_gen_min);
    keep_min(out.pcie_width_min, s.pcie_width_min);
    if (s.power_w_mean) {
      power_sum += *s.power_w_mean;
      ++power_count;
    }
    for (const auto& reason : s.throttle_reasons)
      if (std::find(out.throttle_reasons.begin(), out.throttle_reasons.end(), reason) ==
          out.throttle_reasons.end())
        out.throttle_reasons.push_back(reason);
    out.throttled = out.throttled || s.throttled;
    if (s.status != "ok")
      not_ok.push_back(fmt::format("GPU {}: {}", gpu, s.status));
  }
  if (power_count > 0)
    out.power_w_mean = power_sum / power_count;
  out.status = not_ok.empty() ? "ok" : fmt::format("{}", fmt::join(not_ok, "; "));
  return out;
}

std::vector<telemetry_sample> telemetry_sampler::samples(int device,
                                                         telemetry_clock::time_point begin,
                                                         telemetry_clock::time_point end) const {
  std::vector<telemetry_sample> out;
  const std::lock_guard lock(m_mutex);
  for (const auto& s : m_samples)
    if (s.device == device && s.at >= begin && s.at <= end)
      out.push_back(s);
  return out;
}

} // namespace gpuspec::host
