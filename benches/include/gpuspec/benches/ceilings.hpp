#pragma once
/// Clock-adjusted ceilings the benchmarks attach to their results. Pure functions, host only.
///
/// Until the spec table exists (a later issue), a device-memory bandwidth result is judged
/// against the bandwidth its memory clock and bus width give:
///   GB/s = memory clock (MHz) × 1e6 × bus width (bits) × 2 / 8 / 1e9
/// With the memory clock as NVML reports it, this matches the vendor figures for HBM2, HBM2e,
/// HBM3, HBM3e and GDDR6/6X: A100 40GB 1215 MHz × 5120 bit = 1555 GB/s; H100 SXM 2619 MHz ×
/// 5120 bit = 3352 GB/s; RTX 4090 10501 MHz × 384 bit = 1008 GB/s.

#include <optional>
#include <string>
#include <string_view>

#include "gpuspec/reports/report.hpp"

namespace gpuspec::benches {

/// The formula above; 0 for a non-positive clock or width.
[[nodiscard]] double memory_bandwidth_gbps(double mem_clock_mhz, int bus_width_bits);

/// The ceiling of a device-memory bandwidth result: `datasheet` empty ("no spec table yet") and
/// `clock_adjusted` from the memory clock seen during the run, its source spelling out the
/// formula, the clock and where the clock came from (`clock_origin`, e.g. "median of NVML
/// telemetry during the measurement"). No clock or no bus width: clock_adjusted is empty and
/// the source says which is missing.
[[nodiscard]] reports::ceiling memory_bandwidth_ceiling(std::optional<double> mem_clock_mhz,
                                                        std::string_view clock_origin,
                                                        std::optional<int> bus_width_bits);

} // namespace gpuspec::benches
