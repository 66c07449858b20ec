// The burn-in's schedule and time series (burnin_timeline.hpp).

#include "gpuspec/host/burnin_timeline.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace gpuspec::host {

burnin_phase phase_at(const burnin_schedule& s, double elapsed_s) {
  if (elapsed_s >= s.duration_s)
    return burnin_phase::done;
  const double cycle = s.gemm_phase_s + s.memtest_phase_s;
  if (cycle <= 0 || s.memtest_phase_s <= 0)
    return burnin_phase::gemm;
  if (s.gemm_phase_s <= 0)
    return burnin_phase::memtest;
  return std::fmod(elapsed_s, cycle) < s.gemm_phase_s ? burnin_phase::gemm : burnin_phase::memtest;
}

std::string hex_word(std::uint64_t w) { return fmt::format("0x{:016x}", w); }

burnin_timeline::burnin_timeline(double start_s, double interval_s, std::size_t max_intervals)
    : m_start_s(start_s), m_interval_s(interval_s), m_max(max_intervals) {
  if (!(interval_s > 0) || max_intervals < 2)
    throw std::invalid_argument("burnin_timeline: the interval must be positive and the cap 2+");
}

std::pair<double, double> burnin_timeline::window_of(double time_s) const {
  const double k = std::max(0.0, std::floor((time_s - m_start_s) / m_interval_s));
  return {m_start_s + k * m_interval_s, m_start_s + (k + 1) * m_interval_s};
}

burnin_timeline::slot& burnin_timeline::slot_of(double time_s) {
  auto k = static_cast<std::size_t>(std::max(0.0, std::floor((time_s - m_start_s) / m_interval_s)));
  while (k >= m_max) {
    merge_pairs();
    k = static_cast<std::size_t>(std::max(0.0, std::floor((time_s - m_start_s) / m_interval_s)));
  }
  while (m_slots.size() <= k) {
    slot s;
    s.summary.start_s = m_start_s + static_cast<double>(m_slots.size()) * m_interval_s;
    s.summary.end_s = s.summary.start_s + m_interval_s;
    m_slots.push_back(std::move(s));
  }
  return m_slots[k];
}

namespace {

/// The sample-weighted mean of two optional figures (a merged interval's power mean; for its
/// medians, an approximation the docs state).
std::optional<double> weighted(const std::optional<double>& a, std::int64_t na,
                               const std::optional<double>& b, std::int64_t nb) {
  if (!a)
    return b;
  if (!b)
    return a;
  const double wa = na > 0 ? static_cast<double>(na) : 1.0;
  const double wb = nb > 0 ? static_cast<double>(nb) : 1.0;
  return (*a * wa + *b * wb) / (wa + wb);
}

std::optional<double> larger(const std::optional<double>& a, const std::optional<double>& b) {
  if (!a)
    return b;
  if (!b)
    return a;
  return std::max(*a, *b);
}

} // namespace

void burnin_timeline::merge_telemetry(reports::burnin_interval& a,
                                      const reports::burnin_interval& b) {
  a.sm_clock_mhz_median = weighted(a.sm_clock_mhz_median, a.telemetry_samples,
                                   b.sm_clock_mhz_median, b.telemetry_samples);
  a.mem_clock_mhz_median = weighted(a.mem_clock_mhz_median, a.telemetry_samples,
                                    b.mem_clock_mhz_median, b.telemetry_samples);
  a.power_w_mean =
      weighted(a.power_w_mean, a.telemetry_samples, b.power_w_mean, b.telemetry_samples);
  a.temperature_c_max = larger(a.temperature_c_max, b.temperature_c_max);
  a.power_w_max = larger(a.power_w_max, b.power_w_max);
  a.telemetry_samples += b.telemetry_samples;
  for (const auto& r : b.throttle_reasons)
    if (std::find(a.throttle_reasons.begin(), a.throttle_reasons.end(), r) ==
        a.throttle_reasons.end())
      a.throttle_reasons.push_back(r);
}

void burnin_timeline::merge_pairs() {
  std::vector<slot> merged;
  for (std::size_t i = 0; i < m_slots.size(); i += 2) {
    slot s = m_slots[i];
    if (i + 1 < m_slots.size()) {
      const slot& o = m_slots[i + 1];
      auto& a = s.summary;
      const auto& b = o.summary;
      a.end_s = b.end_s;
      a.gemm_iterations += b.gemm_iterations;
      s.gemm_device_s += o.gemm_device_s;
      s.gemm_flops += o.gemm_flops;
      merge_telemetry(a, b);
      a.checksum_mismatches += b.checksum_mismatches;
      a.memtest_words += b.memtest_words;
      a.memtest_bad_words += b.memtest_bad_words;
    } else {
      s.summary.end_s = s.summary.start_s + 2 * m_interval_s;
    }
    merged.push_back(std::move(s));
  }
  m_slots = std::move(merged);
  m_interval_s *= 2;
}

void burnin_timeline::add_gemm(double time_s, double device_s, double flops, bool mismatch) {
  slot& s = slot_of(time_s);
  ++s.summary.gemm_iterations;
  s.gemm_device_s += device_s;
  s.gemm_flops += flops;
  if (mismatch)
    ++s.summary.checksum_mismatches;
}

void burnin_timeline::add_memtest(double time_s, std::int64_t words, std::int64_t bad) {
  slot& s = slot_of(time_s);
  s.summary.memtest_words += words;
  s.summary.memtest_bad_words += bad;
}

void burnin_timeline::set_telemetry(double time_s, const reports::telemetry_summary& t) {
  auto& a = slot_of(time_s).summary;
  if (a.telemetry_samples > 0) {
    reports::burnin_interval b;
    b.telemetry_samples = t.samples;
    b.sm_clock_mhz_median = t.sm_clock_mhz_median;
    b.mem_clock_mhz_median = t.mem_clock_mhz_median;
    b.temperature_c_max = t.temperature_c_max;
    b.power_w_mean = t.power_w_mean;
    b.power_w_max = t.power_w_max;
    b.throttle_reasons = t.throttle_reasons;
    merge_telemetry(a, b);
    return;
  }
  a.telemetry_samples = t.samples;
  a.sm_clock_mhz_median = t.sm_clock_mhz_median;
  a.mem_clock_mhz_median = t.mem_clock_mhz_median;
  a.temperature_c_max = t.temperature_c_max;
  a.power_w_mean = t.power_w_mean;
  a.power_w_max = t.power_w_max;
  a.throttle_reasons = t.throttle_reasons;
}

void burnin_timeline::add_event_samples(const std::vector<reports::burnin_sample>& samples) {
  for (const auto& s : samples) {
    if (m_events.size() >= reports::burnin_max_event_samples)
      return;
    m_events.push_back(s);
  }
}

std::vector<reports::burnin_interval> burnin_timeline::intervals() const {
  std::vector<reports::burnin_interval> out;
  out.reserve(m_slots.size());
  for (const auto& s : m_slots) {
    reports::burnin_interval in = s.summary;
    if (s.gemm_device_s > 0)
      in.throughput = s.gemm_flops / s.gemm_device_s / 1e12;
    out.push_back(std::move(in));
  }
  return out;
}

} // namespace gpuspec::host
