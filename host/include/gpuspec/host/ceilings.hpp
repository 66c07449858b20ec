#pragma once
/// The ceilings the benchmarks attach to their results (docs/design.md, report contract: the
/// datasheet value and the clock-adjusted value at the clock seen during the run, each with its
/// source). Pure functions, host only: tested without a GPU.
///
/// Device memory: GB/s = memory clock (MHz) × 1e6 × bus width (bits) × 2 / 8 / 1e9. With the
/// memory clock as NVML reports it, this matches the vendor figures for HBM2, HBM2e, HBM3 and
/// GDDR6/6X: A100 40GB 1215 MHz × 5120 bit = 1555 GB/s; H100 SXM 2619 MHz × 5120 bit = 3352
/// GB/s; RTX 4090 10501 MHz × 384 bit = 1008 GB/s. Not HBM3e's: an H200 at 3201 MHz × 6144 bit
/// gives 4917 GB/s, its datasheet 4.8 TB/s (issue 17). Hence a device-memory result's reference
/// is the datasheet (reference.hpp), and its efficiency is against that.
///
/// Compute: SM count × SM clock × dense operations per SM per clock of the architecture
/// (reports/arch_rates, the same table `gpuspec specs --check` uses). The datasheet value is the
/// matched spec row's peak; where the row has none (an int32 pipe, a part without a published
/// figure) it is the same formula at the row's boost clock, and the source says so.

#include <optional>
#include <string>
#include <string_view>

#include "gpuspec/reports/model/report.hpp"
#include "gpuspec/reports/model/spec_table.hpp"

namespace gpuspec::host {

/// The memory formula above; 0 for a non-positive clock or width.
[[nodiscard]] double memory_bandwidth_gbps(double mem_clock_mhz, int bus_width_bits);

/// Each ceiling names the spec-table figure its datasheet value stands for (`spec_figure`), so
/// that `check` can hold it to its own table; apply_roofline records the bytes it capped by.
/// Which of the two values judges the result is reference.hpp's choose_reference, once.

/// The ceiling of a device-memory bandwidth result: `datasheet` from the spec row (nullptr: no
/// row, and the source says so) and `clock_adjusted` from the memory clock seen during the run,
/// its source spelling out the formula, the clock and where the clock came from
/// (`clock_origin`, e.g. "median of NVML telemetry during the measurement"). No clock or no bus
/// width: clock_adjusted is empty and the source says which is missing.
[[nodiscard]] reports::ceiling memory_bandwidth_ceiling(std::optional<double> mem_clock_mhz,
                                                        std::string_view clock_origin,
                                                        std::optional<int> bus_width_bits,
                                                        const reports::gpu_spec* spec = nullptr);

/// What a compute ceiling is computed from.
struct compute_ceiling_inputs {
  std::string_view key; ///< arch_rates key: "fp32", "fp16_tc", "int32", ...
  std::optional<int> cc_major, cc_minor;
  std::optional<int> sm_count;
  std::optional<double> sm_clock_mhz; ///< the SM clock seen during the measurement
  std::string_view clock_origin;      ///< where that clock came from
  std::string_view device_name;       ///< NVML's name: "GeForce" parts halve some TC rates
  /// True when the kernel accumulates in FP32 (mma.sync with f32 accumulators): the rate GeForce
  /// parts halve (arch_rates.hpp, geforce_halves_fp32_accumulate).
  bool fp32_accumulate = true;
  const reports::gpu_spec* spec = nullptr; ///< the matched row, or nullptr
};

/// The ceiling of a compute-throughput result, in TFLOP/s (TOPS for integer keys).
[[nodiscard]] reports::ceiling compute_ceiling(const compute_ceiling_inputs& in);

/// Caps a compute ceiling by the memory roofline (Williams, Waterman, Patterson, "Roofline",
/// CACM 2009): a kernel that must move at least `bytes` to do `flops` cannot beat
/// bandwidth × flops / bytes. Applied to the datasheet and the clock-adjusted values separately,
/// each with the matching bandwidth of `memory`; where the bound is lower, the value and its
/// source are replaced and the source names both figures.
[[nodiscard]] reports::ceiling apply_roofline(reports::ceiling compute, double flops, double bytes,
                                              const reports::ceiling& memory);

/// Shared-memory bandwidth: 32 banks × 4 bytes per SM per clock (CUDA C++ Programming Guide,
/// "Shared Memory" of compute capabilities 5.x and later: 32 banks, successive 32-bit words in
/// successive banks, each bank serving one 32-bit word per clock), × SM count × SM clock, in
/// GB/s. No datasheet states it, so `datasheet` is empty and the source says so.
[[nodiscard]] reports::ceiling shared_memory_ceiling(std::optional<int> sm_count,
                                                     std::optional<double> sm_clock_mhz,
                                                     std::string_view clock_origin);

/// Bytes per SM per clock of shared memory, from the rule above.
inline constexpr double shared_memory_bytes_per_sm_per_clock = 32.0 * 4.0;

} // namespace gpuspec::host
