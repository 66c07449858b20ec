#pragma once
/// Per-architecture dense rates per SM per clock, and the ceilings derived from them
/// (docs/design.md, "Spec table contract": one table, two users). `gpuspec specs --check`
/// recomputes the datasheet peaks from it; the benchmarks derive their clock-adjusted ceilings from
/// it. docs/specs.md lists every rate with the whitepaper it comes from.

#include <optional>
#include <span>
#include <string_view>

namespace gpuspec::reports::inline model {

/// One architecture's dense rates: operations per SM per clock (an FMA counts as 2), keyed by
/// the peak keys of spec_table.hpp ("fp32", "fp16_tc", ...). A key absent: no such unit, or
/// the whitepaper does not give it.
struct arch_rate_row {
  int sm = 0;              ///< compute capability as major*10+minor: 70 ... 90, 100, 103, 120
  std::string_view name;   ///< "volta", "turing", "ampere", "ada", "hopper", "blackwell"
  std::string_view source; ///< the whitepaper the rates come from
  std::optional<double> fp64, fp64_tc, fp32, fp16, bf16, tf32_tc, fp16_tc, bf16_tc, int8_tc, fp8_tc;
  /// 32-bit integer multiply-add (IMAD), 2 operations each; from int32_rate_source, not the
  /// whitepaper, and with no datasheet counterpart.
  std::optional<double> int32;
  std::string_view notes; ///< exceptions: GeForce half-rate FP32-accumulate, TC clocks
  /// Blackwell block-scaled and narrow Tensor Core formats (FP6 E2M3/E3M2, FP4 E2M1).
  std::optional<double> fp6_tc, fp4_tc;
  /// The keys (space-separated) whose rate no document prints per SM, inferred from a datasheet
  /// or whitepaper total / SMs / clock, and how (the source rate_source gives for them).
  std::string_view inferred_keys, inferred_basis;
};

/// Where the int32 column comes from.
inline constexpr std::string_view int32_rate_source =
    "CUDA C++ Programming Guide, \"Arithmetic Instructions\", table \"Throughput of Native "
    "Arithmetic Instructions\": 32-bit integer multiply-add, 64 results per clock per SM for "
    "compute capabilities 7.x to 9.0, https://docs.nvidia.com/cuda/cuda-c-programming-guide/";

/// The source of one rate: int32_rate_source for "int32", the inference basis for an inferred
/// rate, the row's whitepaper otherwise.
[[nodiscard]] std::string_view rate_source(const arch_rate_row& row, std::string_view key);

/// True where the row's rate of `key` is inferred from totals rather than read per SM.
[[nodiscard]] bool rate_is_inferred(const arch_rate_row& row, std::string_view key);

/// True for a GeForce part, by its NVML or marketing name ("NVIDIA GeForce RTX 4090").
[[nodiscard]] bool is_geforce_name(std::string_view name);

/// The whole table, sm ascending.
[[nodiscard]] std::span<const arch_rate_row> arch_rate_table();

/// The row of compute capability major.minor; nullptr when the table has none (e.g. sm_110).
[[nodiscard]] const arch_rate_row* find_arch_rates(int cc_major, int cc_minor);

/// Dense operations per SM per clock of `key` on that architecture; nullopt when unknown.
[[nodiscard]] std::optional<double> rate_per_sm_per_clock(int cc_major, int cc_minor,
                                                          std::string_view key);
[[nodiscard]] std::optional<double> rate_of(const arch_rate_row& row, std::string_view key);

/// SM count × clock × rate, in TFLOP/s (TOPS for int8_tc).
[[nodiscard]] double peak_from_clock(int sm_count, double clock_mhz, double rate_per_sm_per_clock);

/// Memory clock × bus width × transfers per clock, in GB/s (1e9 bytes/s).
/// T4: 5001 MHz × 256 bit × 2 = 320 GB/s.
[[nodiscard]] double memory_bandwidth_gbs(double mem_clock_mhz, int bus_width_bits,
                                          double transfers_per_clock);

/// The clock-adjusted ceiling of `key`: the architecture's rate at `clock_mhz` (the SM clock
/// sampled during a measurement). nullopt when the architecture or key is not in the table.
[[nodiscard]] std::optional<double> clock_adjusted_peak(int cc_major, int cc_minor, int sm_count,
                                                        double clock_mhz, std::string_view key);

/// True where GeForce parts of the architecture run the Tensor Core key with FP32 accumulation
/// at half the professional rate the table holds (the arch rows' notes): sm_75 fp16_tc; sm_86
/// and sm_89 fp16_tc, bf16_tc, tf32_tc, fp8_tc; sm_120 fp16_tc, bf16_tc, fp8_tc (not fp4_tc).
[[nodiscard]] bool geforce_halves_fp32_accumulate(int cc_major, int cc_minor, std::string_view key);

/// True for the Tensor Core keys whose datasheet figures Hopper states at a lower clock than
/// the FP32 boost clock (all *_tc keys except fp64_tc).
[[nodiscard]] bool is_low_precision_tensor_key(std::string_view key);

} // namespace gpuspec::reports::model
