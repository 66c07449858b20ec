// Telemetry rules of one result (docs/check.md, "Diagnosis"): the findings a burn-in
// acceptance wants seen whatever the throughput, and the probable causes of a slow result.

#include <algorithm>
#include <initializer_list>

#include <fmt/format.h>

#include "gpuspec/reports/judge/diagnosis.hpp"

namespace gpuspec::reports::inline judge {
namespace {

bool has_reason(const telemetry_summary& t, std::initializer_list<std::string_view> names) {
  return std::any_of(t.throttle_reasons.begin(), t.throttle_reasons.end(), [&](const auto& r) {
    return std::find(names.begin(), names.end(), r) != names.end();
  });
}

std::string reasons_text(const telemetry_summary& t) {
  std::string out;
  for (const auto& r : t.throttle_reasons) {
    out += out.empty() ? "" : ",";
    out += r;
  }
  return out;
}

std::string max_temperature_text(const telemetry_summary& t) {
  return t.temperature_c_max ? fmt::format(" (max {:.0f} °C)", *t.temperature_c_max)
                             : std::string();
}

class result_diagnoser {
public:
  result_diagnoser(const report& r, const result& res, const device_info* device,
                   verdict_status severity)
      : m_report(r), m_result(res), m_device(device), m_severity(severity) {}

  void add(std::string_view code, std::string cause) {
    auto d = make_diagnosis(code, m_severity, std::move(cause), m_device, m_report.host);
    d.evidence["bench_id"] = m_result.bench_id;
    if (!m_result.telemetry.throttle_reasons.empty())
      d.evidence["throttle_reasons"] = reasons_text(m_result.telemetry);
    m_out.push_back(std::move(d));
  }
  std::vector<diagnosis> take() { return std::move(m_out); }

private:
  const report& m_report;
  const result& m_result;
  const device_info* m_device;
  verdict_status m_severity;
  std::vector<diagnosis> m_out;
};

bool thermal(const telemetry_summary& t) { return has_reason(t, {"hw_thermal", "sw_thermal"}); }
bool slowdown(const telemetry_summary& t) { return has_reason(t, {"hw_slowdown"}); }

/// Power is a cause only where it is not the normal state: SW power capping at the default
/// limit and at full draw is how Tensor Core GEMMs run; a limit below default, a draw that
/// stopped well short of the limit, or a power brake (asserted by the system) are not.
std::string power_cause(const telemetry_summary& t, const device_info* device,
                        const expectation_settings& s) {
  if (has_reason(t, {"hw_power_brake"}))
    return fmt::format("the system asserted the power brake during the measurement ({})",
                       reasons_text(t));
  if (!has_reason(t, {"sw_power_cap"}) || device == nullptr)
    return {};
  if (device->power_limit_w && device->power_limit_default_w &&
      *device->power_limit_w < *device->power_limit_default_w - power_limit_slack_w)
    return fmt::format("SW power capping at a limit of {:g} W, below the default {:g} W",
                       *device->power_limit_w, *device->power_limit_default_w);
  if (device->power_limit_w && t.power_w_max &&
      *t.power_w_max < s.power_draw_fraction * *device->power_limit_w)
    return fmt::format("SW power capping while the draw peaked at {:.0f} W, well short of the "
                       "{:g} W limit (under {:.0f}% of it): a cap the limit does not show",
                       *t.power_w_max, *device->power_limit_w, 100 * s.power_draw_fraction);
  return {};
}

} // namespace

std::vector<diagnosis> result_findings(const report& r, const result& res,
                                       const device_info* device,
                                       const expectation_settings& settings) {
  result_diagnoser out(r, res, device, verdict_status::warn);
  const auto& t = res.telemetry;
  if (thermal(t))
    out.add("GPUSPEC-THERMAL-THROTTLE",
            fmt::format("thermal slowdown during {}: {}{}", res.bench_id, reasons_text(t),
                        max_temperature_text(t)));
  if (slowdown(t))
    out.add("GPUSPEC-HW-SLOWDOWN", fmt::format("HW slowdown during {}: {}{}", res.bench_id,
                                               reasons_text(t), max_temperature_text(t)));
  if (t.temperature_c_max && *t.temperature_c_max < settings.max_plausible_temperature_c) {
    const double peak = *t.temperature_c_max;
    if (peak >= settings.temperature_limit_c)
      out.add("GPUSPEC-GPU-TEMPERATURE-HIGH",
              fmt::format("peaked at {:.0f} °C during {}, at or over the {} °C site limit", peak,
                          res.bench_id, settings.temperature_limit_c));
    else if (device != nullptr && device->temperature_slowdown_c &&
             peak >= *device->temperature_slowdown_c - temperature_margin_c)
      out.add("GPUSPEC-GPU-TEMPERATURE-HIGH",
              fmt::format("peaked at {:.0f} °C during {}, within {} °C of the GPU's own "
                          "slowdown threshold {} °C",
                          peak, res.bench_id, temperature_margin_c,
                          *device->temperature_slowdown_c));
  }
  return out.take();
}

std::vector<diagnosis> explain_result(const report& r, const result& res, const device_info* device,
                                      const expectation_settings& settings,
                                      verdict_status severity) {
  result_diagnoser out(r, res, device, severity);
  const auto& t = res.telemetry;
  if (thermal(t))
    out.add("GPUSPEC-THERMAL-THROTTLE", fmt::format("thermal slowdown during the measurement: {}{}",
                                                    reasons_text(t), max_temperature_text(t)));
  if (slowdown(t))
    out.add("GPUSPEC-HW-SLOWDOWN", fmt::format("HW slowdown during the measurement: {}{}",
                                               reasons_text(t), max_temperature_text(t)));
  if (const std::string power = power_cause(t, device, settings); !power.empty())
    out.add("GPUSPEC-POWER-THROTTLE", power);
  const bool any_reason =
      thermal(t) || slowdown(t) || has_reason(t, {"sw_power_cap", "hw_power_brake"});
  if (!any_reason && t.low_clock_fraction && *t.low_clock_fraction > settings.low_clock_fraction)
    out.add("GPUSPEC-SM-CLOCK-LOW",
            fmt::format("{:.0f}% of telemetry samples had the SM clock under 75% of its maximum",
                        100 * *t.low_clock_fraction));
  if (device != nullptr && t.mem_clock_mhz_median && device->mem_clock_max_mhz &&
      *t.mem_clock_mhz_median < settings.mem_clock_fraction * *device->mem_clock_max_mhz)
    out.add("GPUSPEC-MEMORY-CLOCK-LOW",
            fmt::format("memory clock median {:.0f} MHz, maximum {} MHz", *t.mem_clock_mhz_median,
                        *device->mem_clock_max_mhz));
  return out.take();
}

} // namespace gpuspec::reports::judge
