#include "gpuspec/benches/ceilings.hpp"

#include <fmt/format.h>

namespace gpuspec::benches {

double memory_bandwidth_gbps(double mem_clock_mhz, int bus_width_bits) {
  if (!(mem_clock_mhz > 0.0) || bus_width_bits <= 0)
    return 0.0;
  return mem_clock_mhz * 1e6 * static_cast<double>(bus_width_bits) * 2.0 / 8.0 / 1e9;
}

reports::ceiling memory_bandwidth_ceiling(std::optional<double> mem_clock_mhz,
                                          std::string_view clock_origin,
                                          std::optional<int> bus_width_bits) {
  reports::ceiling c;
  c.datasheet_source = "no spec table yet";
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

} // namespace gpuspec::benches
