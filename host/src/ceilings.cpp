#include "gpuspec/host/ceilings.hpp"

#include <fmt/format.h>

#include "gpuspec/reports/model/arch_rates.hpp"
#include "gpuspec/reports/model/reference.hpp"

namespace gpuspec::host {

namespace {

std::string spec_source(const reports::gpu_spec& spec, const std::string& group) {
  const auto it = spec.sources.find(group);
  return it == spec.sources.end() ? std::string("no source recorded") : it->second;
}

bool is_integer_key(std::string_view key) { return key == "int8_tc" || key == "int32"; }

} // namespace

double memory_bandwidth_gbps(double mem_clock_mhz, int bus_width_bits) {
  if (!(mem_clock_mhz > 0.0) || bus_width_bits <= 0)
    return 0.0;
  return mem_clock_mhz * 1e6 * static_cast<double>(bus_width_bits) * 2.0 / 8.0 / 1e9;
}

reports::ceiling memory_bandwidth_ceiling(std::optional<double> mem_clock_mhz,
                                          std::string_view clock_origin,
                                          std::optional<int> bus_width_bits,
                                          const reports::gpu_spec* spec) {
  reports::ceiling c;
  c.spec_figure = "memory_bandwidth_gbs";
  if (spec == nullptr)
    c.datasheet_source = "no spec-table row matched this GPU";
  else if (!(spec->memory_bandwidth_gbs > 0))
    c.datasheet_source = fmt::format("spec row {} states no memory bandwidth", spec->id);
  else {
    c.datasheet = spec->memory_bandwidth_gbs;
    c.datasheet_source =
        fmt::format("spec row {}: {}", spec->id, spec_source(*spec, std::string("memory")));
  }
  if (!mem_clock_mhz || !(*mem_clock_mhz > 0.0)) {
    c.clock_adjusted_source =
        "no memory clock known (NVML reported none), so no clock-adjusted ceiling";
    return c;
  }
  if (!bus_width_bits || *bus_width_bits <= 0) {
    c.clock_adjusted_source =
        "no memory bus width known (NVML and CUDA reported none), so no clock-adjusted ceiling";
    return c;
  }
  const double gbps = memory_bandwidth_gbps(*mem_clock_mhz, *bus_width_bits);
  c.clock_adjusted = gbps;
  c.clock_adjusted_source = fmt::format(
      "memory clock {:.0f} MHz ({}) x {}-bit bus x 2 transfers per clock / 8 bits per byte = "
      "{:.1f} GB/s",
      *mem_clock_mhz, clock_origin, *bus_width_bits, gbps);
  return c;
}

reports::ceiling compute_ceiling(const compute_ceiling_inputs& in) {
  reports::ceiling c;
  const std::string key(in.key);
  c.spec_figure = reports::peak_figure(key);
  const char* unit = is_integer_key(in.key) ? "TOPS" : "TFLOP/s";
  // A spec row may say that its architecture's rates do not hold for the model (H20).
  const bool rates_apply = in.spec == nullptr || in.spec->arch_rates_apply;
  const reports::arch_rate_row* row = in.cc_major && in.cc_minor && rates_apply
                                          ? reports::find_arch_rates(*in.cc_major, *in.cc_minor)
                                          : nullptr;
  // A plain double (negative: none), not an optional: GCC 12 -O3 warns (falsely) that an
  // optional read here may be uninitialised.
  const double table_rate = row != nullptr ? reports::rate_of(*row, in.key).value_or(-1.0) : -1.0;
  const bool has_rate = table_rate >= 0.0;
  const bool halved = in.fp32_accumulate && in.device_name.find("GeForce") != std::string::npos &&
                      row != nullptr &&
                      reports::geforce_halves_fp32_accumulate(*in.cc_major, *in.cc_minor, in.key);
  const double rate = has_rate ? table_rate / (halved ? 2.0 : 1.0) : 0.0;
  const std::string rate_text =
      has_rate
          ? fmt::format("{:g} operations per SM per clock ({}{})", rate,
                        reports::rate_source(*row, in.key),
                        halved ? "; halved: GeForce parts run FP32-accumulate at half rate" : "")
          : std::string();

  // --- datasheet: the spec row's figure, else the formula at its boost clock ----------------
  if (in.spec == nullptr) {
    c.datasheet_source = "no spec-table row matched this GPU";
  } else if (const auto it = in.spec->peaks.find(key);
             it != in.spec->peaks.end() && it->second > 0) {
    c.datasheet = it->second;
    c.datasheet_source =
        fmt::format("spec row {}: peaks.{} = {:g} {} (dense), {}", in.spec->id, key, it->second,
                    unit, spec_source(*in.spec, std::string("peaks")));
    if (in.spec->tensor_clock_mhz && reports::is_low_precision_tensor_key(in.key))
      c.datasheet_source += fmt::format(
          "; the datasheet states this figure at {:.0f} MHz, below the {:.0f} MHz boost clock",
          *in.spec->tensor_clock_mhz, in.spec->boost_clock_mhz);
  } else if (has_rate && in.spec->sm_count > 0 && in.spec->boost_clock_mhz > 0) {
    c.datasheet = reports::peak_from_clock(in.spec->sm_count, in.spec->boost_clock_mhz, rate);
    c.datasheet_source = fmt::format(
        "computed, spec row {} states no {} figure: {} SMs x boost clock {:.0f} MHz x {} = {:.2f} "
        "{}",
        in.spec->id, key, in.spec->sm_count, in.spec->boost_clock_mhz, rate_text, *c.datasheet,
        unit);
  } else {
    c.datasheet_source =
        fmt::format("spec row {} states no {} figure, and none can be computed", in.spec->id, key);
  }

  // --- clock-adjusted: the formula at the SM clock seen during the run ----------------------
  if (!rates_apply)
    c.clock_adjusted_source =
        fmt::format("spec row {}: the per-SM rates of its architecture do not hold for this model "
                    "(arch_rates_apply false), so no clock-adjusted ceiling",
                    in.spec->id);
  else if (row == nullptr)
    c.clock_adjusted_source =
        in.cc_major && in.cc_minor
            ? fmt::format("no per-SM rates for compute capability {}.{} in reports/arch_rates",
                          *in.cc_major, *in.cc_minor)
            : std::string("compute capability unknown, so no per-SM rate");
  else if (!has_rate)
    c.clock_adjusted_source = fmt::format("the {} rate table has no {} rate", row->name, key);
  else if (!in.sm_count || *in.sm_count <= 0)
    c.clock_adjusted_source = "SM count unknown, so no clock-adjusted ceiling";
  else if (!in.sm_clock_mhz || !(*in.sm_clock_mhz > 0))
    c.clock_adjusted_source =
        "no SM clock known (NVML reported none), so no clock-adjusted ceiling";
  else {
    c.clock_adjusted = reports::peak_from_clock(*in.sm_count, *in.sm_clock_mhz, rate);
    c.clock_adjusted_source =
        fmt::format("{} SMs x SM clock {:.0f} MHz ({}) x {} = {:.2f} {}", *in.sm_count,
                    *in.sm_clock_mhz, in.clock_origin, rate_text, *c.clock_adjusted, unit);
  }
  return c;
}

reports::ceiling apply_roofline(reports::ceiling compute, double flops, double bytes,
                                const reports::ceiling& memory) {
  if (!(flops > 0) || !(bytes > 0))
    return compute;
  compute.roofline_bytes = bytes;         // the cap is part of the ceiling, binding or not
  const double intensity = flops / bytes; // operations per byte
  auto cap = [&](std::optional<double>& value, std::string& source,
                 const std::optional<double>& gbps, const std::string& gbps_source) {
    if (!value || !gbps || !(*gbps > 0))
      return;
    const double bound = *gbps * 1e9 * intensity / 1e12;
    if (bound >= *value)
      return;
    source = fmt::format("memory-bound (roofline): {:.1f} operations per byte x {:.1f} GB/s = "
                         "{:.2f}, below the compute peak {:.2f}. Bandwidth: {}. Compute: {}",
                         intensity, *gbps, bound, *value, gbps_source, source);
    value = bound;
  };
  cap(compute.datasheet, compute.datasheet_source, memory.datasheet, memory.datasheet_source);
  cap(compute.clock_adjusted, compute.clock_adjusted_source, memory.clock_adjusted,
      memory.clock_adjusted_source);
  return compute;
}

reports::ceiling shared_memory_ceiling(std::optional<int> sm_count,
                                       std::optional<double> sm_clock_mhz,
                                       std::string_view clock_origin) {
  reports::ceiling c;
  c.datasheet_source = "no datasheet states shared-memory bandwidth; see clock_adjusted";
  if (!sm_count || *sm_count <= 0) {
    c.clock_adjusted_source = "SM count unknown, so no clock-adjusted ceiling";
    return c;
  }
  if (!sm_clock_mhz || !(*sm_clock_mhz > 0)) {
    c.clock_adjusted_source =
        "no SM clock known (NVML reported none), so no clock-adjusted ceiling";
    return c;
  }
  const double gbps = static_cast<double>(*sm_count) * *sm_clock_mhz * 1e6 *
                      shared_memory_bytes_per_sm_per_clock / 1e9;
  c.clock_adjusted = gbps;
  c.clock_adjusted_source = fmt::format(
      "{} SMs x SM clock {:.0f} MHz ({}) x 32 banks x 4 bytes per clock (CUDA C++ Programming "
      "Guide, shared memory of compute capability 5.x and later) = {:.1f} GB/s",
      *sm_count, *sm_clock_mhz, clock_origin, gbps);
  return c;
}

} // namespace gpuspec::host
