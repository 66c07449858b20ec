#pragma once
/// Seeded, non-zero GEMM inputs for every element type the GEMM benchmarks use (docs/design.md rule
/// 6), computed the same on host and device. CUDA-free launcher.
///
/// Element i of an array filled with `seed` takes 64 bits from seeded_bits(seed, i) (the hash of
/// seeded_values.hpp) and becomes:
///  - floating point (fp64, fp32, fp16, bf16, fp8 e4m3 and e5m2): a random sign times a magnitude
///  in
///    [0.5, 1) with every mantissa bit random, built directly as bits (exponent field = bias - 1),
///    so the value is exact in its type, never zero, never subnormal, and identical on host and
///    device. Random signs give sums whose partial sums stay small (gemm_check's "mixed" model)
///    and products well inside every type's range;
///  - int8: a non-zero integer in [-127, 127], so K products fit an int32 accumulator for any
///    K <= 133,000 (127² · K < 2^31).

#include <cstddef>
#include <cstdint>

#include "gpuspec/kernels/host_device.hpp"
#include "gpuspec/kernels/seeded_values.hpp"
#include "gpuspec/kernels/stream_handle.hpp"

namespace gpuspec::kernels {

enum class gemm_fill_type { fp64, fp32, fp16, bf16, fp8_e4m3, int8, fp8_e5m2 };

/// Bytes per element of `type`.
GPUSPEC_HOST_DEVICE constexpr std::size_t gemm_fill_bytes(gemm_fill_type type) {
  switch (type) {
  case gemm_fill_type::fp64:
    return 8;
  case gemm_fill_type::fp32:
    return 4;
  case gemm_fill_type::fp16:
  case gemm_fill_type::bf16:
    return 2;
  case gemm_fill_type::fp8_e4m3:
  case gemm_fill_type::int8:
  case gemm_fill_type::fp8_e5m2:
    return 1;
  }
  return 0;
}

/// Largest magnitude of the int8 fill.
inline constexpr int gemm_fill_int8_max = 127;

/// The bit pattern of element `index` (in the low gemm_fill_bytes(type) bytes).
GPUSPEC_HOST_DEVICE constexpr std::uint64_t gemm_fill_bits(gemm_fill_type type, std::uint64_t seed,
                                                           std::uint64_t index) {
  const std::uint64_t bits = seeded_bits(seed, index);
  const std::uint64_t sign = bits >> 63;
  // Magnitude in [0.5, 1): biased exponent = bias - 1, mantissa = the next random bits.
  switch (type) {
  case gemm_fill_type::fp64:
    return (sign << 63) | (std::uint64_t{1022} << 52) |
           ((bits >> 11) & ((std::uint64_t{1} << 52) - 1));
  case gemm_fill_type::fp32:
    return (sign << 31) | (std::uint64_t{126} << 23) | ((bits >> 40) & 0x7FFFFFu);
  case gemm_fill_type::fp16:
    return (sign << 15) | (std::uint64_t{14} << 10) | ((bits >> 53) & 0x3FFu);
  case gemm_fill_type::bf16:
    return (sign << 15) | (std::uint64_t{126} << 7) | ((bits >> 56) & 0x7Fu);
  case gemm_fill_type::fp8_e4m3:
    return (sign << 7) | (std::uint64_t{6} << 3) | ((bits >> 60) & 0x7u);
  case gemm_fill_type::int8: {
    const auto magnitude = static_cast<std::int64_t>((bits >> 32) % gemm_fill_int8_max) + 1;
    const std::int64_t v = sign != 0 ? -magnitude : magnitude;
    return static_cast<std::uint64_t>(v) & 0xFFu;
  }
  case gemm_fill_type::fp8_e5m2:
    return (sign << 7) | (std::uint64_t{14} << 2) | ((bits >> 61) & 0x3u);
  }
  return 0;
}

/// Fills `n` elements of `type` at device pointer `p` with gemm_fill_bits(type, seed, i).
/// Enqueues on `stream`; throws std::invalid_argument for a null pointer with n > 0 and
/// kernels::cuda_error for a launch error.
void launch_gemm_fill(void* p, gemm_fill_type type, std::size_t n, std::uint64_t seed,
                      stream_handle stream);

} // namespace gpuspec::kernels
