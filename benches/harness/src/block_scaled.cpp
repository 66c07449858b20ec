// Host side of the block-scaled GEMMs (block_scaled.hpp): the format table, the E2M1, E5M2,
// UE8M0 and UE4M3 encodings, quantization into the tiled scale layout, FP4 packing and
// dequantization. Kept out of the family's .cu so host tests check it without a GPU.

#include "gpuspec/benches/block_scaled.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "gpuspec/benches/gemm_check.hpp"
#include "gpuspec/kernels/seeded_values.hpp"

namespace gpuspec::benches {

namespace {

using E = block_element;
using S = block_scale_type;

// id, element, scale, block, tensor scale, ceiling, min_sm, description, torch, documented
const std::array<block_scaled_format, 4> format_table{{
    {"mxfp8_e4m3", E::e4m3, S::ue8m0, 32, false, "fp8_tc", 100,
     "MXFP8 GEMM: E4M3 in with a UE8M0 scale per 32 elements along K (block-scaled), fp32 "
     "accumulate, bf16 out",
     "torch._scaled_mm(a, b.t(), scale_a, scale_b, out_dtype=torch.bfloat16) with "
     "torch.float8_e4m3fn data and torch.float8_e8m0fnu scales (swizzled)",
     true},
    {"mxfp8_e5m2", E::e5m2, S::ue8m0, 32, false, "fp8_tc", 100,
     "MXFP8 GEMM: E5M2 in with a UE8M0 scale per 32 elements along K (block-scaled), fp32 "
     "accumulate, bf16 out",
     "torch._scaled_mm(a, b.t(), scale_a, scale_b, out_dtype=torch.bfloat16) with "
     "torch.float8_e5m2 data and torch.float8_e8m0fnu scales (swizzled)",
     true},
    {"nvfp4", E::e2m1, S::ue4m3, 16, true, "fp4_tc", 100,
     "NVFP4 GEMM: E2M1 in with a UE4M3 scale per 16 elements along K and an FP32 scale per "
     "tensor (in alpha), fp32 accumulate, bf16 out",
     "torch._scaled_mm(a, b.t(), scale_a, scale_b, out_dtype=torch.bfloat16) with "
     "torch.float4_e2m1fn_x2 data and torch.float8_e4m3fn scales (swizzled)",
     true},
    {"mxfp4", E::e2m1, S::ue8m0, 32, false, "fp4_tc", 100,
     "MXFP4 GEMM: E2M1 in with a UE8M0 scale per 32 elements along K (block-scaled), fp32 "
     "accumulate, bf16 out; no cuBLASLt MXFP4 kernel is documented: where the heuristic has "
     "none, not supported",
     "none on CUDA: torch._scaled_mm with torch.float4_e2m1fn_x2 data and torch.float8_e8m0fnu "
     "scales (MXFP4) is implemented for ROCm (hipBLASLt, pytorch/pytorch#165528) only; on CUDA "
     "its FP4 path is NVFP4 (torch.float8_e4m3fn scales per 16)",
     false},
}};

constexpr std::int64_t tile_rows = 128;
constexpr std::int64_t tile_cols = 4;
constexpr std::int64_t tile_bytes = tile_rows * tile_cols; // 512

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

/// Rounds |value| to a binary format of `mantissa_bits` with minimum normal exponent `emin`
/// (round to nearest even; the default rounding mode of nearbyint), saturating at `max`.
/// Returns the rounded magnitude.
double round_magnitude(double a, int mantissa_bits, int emin, double max) {
  if (a >= max)
    return max;
  int e = 0;
  (void)std::frexp(a, &e);
  const int exponent = std::max(e - 1, emin); // subnormals share emin's quantum
  const double quantum = std::ldexp(1.0, exponent - mantissa_bits);
  return std::min(std::nearbyint(a / quantum) * quantum, max);
}

} // namespace

std::span<const block_scaled_format> block_scaled_formats() { return format_table; }

std::string block_scaled_no_algorithm_reason(const block_scaled_format& format,
                                             std::string_view scale_mode, std::string_view call,
                                             int returned, std::string_view status) {
  std::string why = "cuBLASLt has no algorithm for ";
  why.append(format.id)
      .append(" (")
      .append(block_element_name(format.element))
      .append(" A and B, ")
      .append(scale_mode)
      .append(", ")
      .append(call)
      .append("): ")
      .append(block_scaled_heuristic_call)
      .append(" returned ")
      .append(std::to_string(returned))
      .append(" result(s), status ")
      .append(status);
  if (!format.documented)
    why.append(" (the cuBLAS documentation lists no kernel for this format)");
  return why;
}

bool block_scaled_heuristic_declined(std::string_view reason) {
  return reason.starts_with("cuBLASLt has no algorithm for ") &&
         reason.find(block_scaled_heuristic_call) != std::string_view::npos;
}

const block_scaled_format* find_block_scaled_format(std::string_view id) {
  for (const auto& f : format_table)
    if (f.id == id)
      return &f;
  return nullptr;
}

std::vector<std::string> gemm_blockscaled_shapes() {
  return {"8192x8192x8192", "4096x4096x4096", "16384x4096x4096", "128x8192x8192"};
}

std::string_view block_element_name(block_element e) {
  switch (e) {
  case E::e4m3:
    return "E4M3";
  case E::e5m2:
    return "E5M2";
  case E::e2m1:
    return "E2M1";
  }
  return "unknown";
}

int element_bits(block_element e) { return e == E::e2m1 ? 4 : 8; }

double element_max(block_element e) {
  switch (e) {
  case E::e4m3:
    return 448.0;
  case E::e5m2:
    return 57344.0;
  case E::e2m1:
    return 6.0;
  }
  return 0.0;
}

int element_emax(block_element e) {
  switch (e) {
  case E::e4m3:
    return 8;
  case E::e5m2:
    return 15;
  case E::e2m1:
    return 2;
  }
  return 0;
}

// --- encodings ----------------------------------------------------------------------------

float e2m1_bits_to_float(std::uint8_t bits) {
  const unsigned exponent = (bits >> 1) & 0x3u;
  const unsigned mantissa = bits & 0x1u;
  const float magnitude = exponent == 0 ? 0.5f * static_cast<float>(mantissa)
                                        : std::ldexp(1.0f + 0.5f * static_cast<float>(mantissa),
                                                     static_cast<int>(exponent) - 1);
  return (bits & 0x8u) != 0 ? -magnitude : magnitude;
}

std::uint8_t float_to_e2m1_bits(float value) {
  const std::uint8_t sign = std::signbit(value) ? 0x8 : 0x0;
  if (std::isnan(value))
    return sign; // no NaN in E2M1: not produced by the quantizer (finite sources)
  const double r = round_magnitude(std::fabs(static_cast<double>(value)), 1, 0, 6.0);
  // r is one of 0, 0.5, 1, 1.5, 2, 3, 4, 6: its code is its index in that list.
  constexpr std::array<double, 8> values{0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0};
  const auto code =
      static_cast<std::uint8_t>(std::find(values.begin(), values.end(), r) - values.begin());
  return static_cast<std::uint8_t>(sign | code);
}

std::uint8_t float_to_fp8_e5m2_bits(float value) {
  if (std::isnan(value))
    return 0x7F;
  const std::uint8_t sign = std::signbit(value) ? 0x80 : 0x00;
  const double r = round_magnitude(std::fabs(static_cast<double>(value)), 2, -14, 57344.0);
  // E5M2 is the top byte of a binary16 of the same value, and r is exact in E5M2.
  const std::uint16_t half = float_to_half_bits(static_cast<float>(r));
  return static_cast<std::uint8_t>(sign | (half >> 8));
}

float element_to_float(block_element e, std::uint8_t bits) {
  switch (e) {
  case E::e4m3:
    return fp8_e4m3_bits_to_float(bits);
  case E::e5m2:
    return fp8_e5m2_bits_to_float(bits);
  case E::e2m1:
    return e2m1_bits_to_float(bits);
  }
  return 0.0f;
}

std::uint8_t float_to_element(block_element e, float value) {
  switch (e) {
  case E::e4m3:
    return float_to_fp8_e4m3_bits(value);
  case E::e5m2:
    return float_to_fp8_e5m2_bits(value);
  case E::e2m1:
    return float_to_e2m1_bits(value);
  }
  return 0;
}

float ue8m0_to_float(std::uint8_t bits) {
  if (bits == 0xFF)
    return std::numeric_limits<float>::quiet_NaN();
  return std::ldexp(1.0f, static_cast<int>(bits) - 127);
}

float ue4m3_to_float(std::uint8_t bits) {
  return fp8_e4m3_bits_to_float(static_cast<std::uint8_t>(bits & 0x7Fu));
}

float scale_to_float(block_scale_type s, std::uint8_t bits) {
  return s == S::ue8m0 ? ue8m0_to_float(bits) : ue4m3_to_float(bits);
}

std::uint8_t ue8m0_for_amax(float amax, block_element element) {
  if (!(amax > 0.0f))
    return 0; // 2^-127
  int e = 0;
  (void)std::frexp(amax, &e);
  const int shared = std::clamp(e - 1 - element_emax(element), -127, 127);
  return static_cast<std::uint8_t>(shared + 127);
}

float nvfp4_tensor_scale(float amax) {
  return amax > 0.0f ? amax / static_cast<float>(6.0 * 448.0) : 1.0f;
}

std::uint8_t ue4m3_for_amax(float amax, float tensor_scale) {
  const float wanted = amax / 6.0f / tensor_scale;
  const std::uint8_t bits = float_to_fp8_e4m3_bits(std::fabs(wanted));
  return bits == 0 ? std::uint8_t{1} : bits; // never 0: an all-zero block still decodes
}

// --- layout -------------------------------------------------------------------------------

std::int64_t scale_columns(std::int64_t k, int block) { return ceil_div(k, block); }

std::size_t scale_tensor_bytes(std::int64_t rows, std::int64_t k, int block) {
  const std::int64_t padded_rows = ceil_div(rows, tile_rows) * tile_rows;
  const std::int64_t padded_cols = ceil_div(scale_columns(k, block), tile_cols) * tile_cols;
  return static_cast<std::size_t>(padded_rows * padded_cols);
}

std::size_t scale_offset(std::int64_t row, std::int64_t scale_col, std::int64_t scale_cols) {
  const std::int64_t tiles_per_row = ceil_div(scale_cols, tile_cols);
  const std::int64_t tile = (row / tile_rows) * tiles_per_row + scale_col / tile_cols;
  const std::int64_t r = row % tile_rows;
  const std::int64_t c = scale_col % tile_cols;
  return static_cast<std::size_t>(tile * tile_bytes + (r % 32) * 16 + (r / 32) * 4 + c);
}

// --- operands -----------------------------------------------------------------------------

std::uint8_t quantized_operand::element_bits_at(std::int64_t r, std::int64_t c) const {
  const auto i = static_cast<std::size_t>(r * k + c);
  if (element_bits(element) == 8)
    return data[i];
  const std::uint8_t byte = data[i / 2];
  return static_cast<std::uint8_t>((i % 2 == 0 ? byte : byte >> 4) & 0xFu);
}

float quantized_operand::block_scale_at(std::int64_t r, std::int64_t c) const {
  return scale_to_float(scale, scales[scale_offset(r, c / block, scale_columns(k, block))]);
}

float quantized_operand::value_at(std::int64_t r, std::int64_t c) const {
  return element_to_float(element, element_bits_at(r, c)) * block_scale_at(r, c);
}

namespace {

/// The tensor's amax (NVFP4's tensor scale needs it before any block is quantized).
float tensor_amax(std::int64_t rows, std::int64_t k, const source_values& value) {
  float amax = 0.0f;
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < k; ++c)
      amax = std::max(amax, std::fabs(value(r, c)));
  return amax;
}

/// Quantizes the block of row r starting at column c0 into q.
void quantize_block(quantized_operand& q, std::int64_t r, std::int64_t c0,
                    const source_values& value, std::vector<float>& block) {
  float amax = 0.0f;
  for (std::int64_t i = 0; i < q.block; ++i) {
    block[static_cast<std::size_t>(i)] = value(r, c0 + i);
    amax = std::max(amax, std::fabs(block[static_cast<std::size_t>(i)]));
  }
  const std::uint8_t scale_bits =
      q.scale == S::ue8m0 ? ue8m0_for_amax(amax, q.element) : ue4m3_for_amax(amax, q.tensor_scale);
  q.scales[scale_offset(r, c0 / q.block, scale_columns(q.k, q.block))] = scale_bits;
  const float divisor = scale_to_float(q.scale, scale_bits) * q.tensor_scale;
  for (std::int64_t i = 0; i < q.block; ++i) {
    const std::uint8_t bits =
        float_to_element(q.element, block[static_cast<std::size_t>(i)] / divisor);
    const auto at = static_cast<std::size_t>(r * q.k + c0 + i);
    if (element_bits(q.element) == 8)
      q.data[at] = bits;
    else
      q.data[at / 2] |= static_cast<std::uint8_t>(at % 2 == 0 ? bits : bits << 4);
  }
}

} // namespace

quantized_operand quantize_operand(const block_scaled_format& format, std::int64_t rows,
                                   std::int64_t k, const source_values& value) {
  if (rows < 1 || k < 1 || k % format.block != 0)
    throw std::invalid_argument("quantize_operand: " + std::to_string(rows) + " x " +
                                std::to_string(k) + " is not whole blocks of " +
                                std::to_string(format.block) + " along K");
  quantized_operand q;
  q.rows = rows;
  q.k = k;
  q.element = format.element;
  q.scale = format.scale;
  q.block = format.block;
  const auto elements = static_cast<std::size_t>(rows * k);
  q.data.assign(element_bits(format.element) == 8 ? elements : elements / 2, 0);
  q.scales.assign(scale_tensor_bytes(rows, k, format.block), 0);
  if (format.tensor_scale)
    q.tensor_scale = nvfp4_tensor_scale(tensor_amax(rows, k, value));
  std::vector<float> block(static_cast<std::size_t>(format.block));
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c0 = 0; c0 < k; c0 += format.block)
      quantize_block(q, r, c0, value, block);
  return q;
}

source_values seeded_block_source(std::uint64_t seed, int block) {
  return [seed, block](std::int64_t r, std::int64_t c) {
    // One hash per element for sign and mantissa, one per (row, block) for the exponent.
    const std::uint64_t index =
        (static_cast<std::uint64_t>(r) << 32) ^ static_cast<std::uint64_t>(c);
    const std::uint64_t bits = kernels::seeded_bits(seed, index);
    const std::uint64_t block_index =
        (static_cast<std::uint64_t>(r) << 32) ^ static_cast<std::uint64_t>(c / block);
    const int exponent =
        static_cast<int>(kernels::seeded_bits(seed ^ 0x5ca1e5ull, block_index) % 13) - 6;
    const float mantissa = 1.0f + static_cast<float>((bits >> 41) & 0x7FFFFFu) / 8388608.0f;
    const float v = std::ldexp(mantissa, exponent - 1); // [0.5, 1) x 2^e
    return (bits >> 63) != 0 ? -v : v;
  };
}

std::vector<float> dequantize(const quantized_operand& q) {
  std::vector<float> out(static_cast<std::size_t>(q.rows * q.k));
  for (std::int64_t r = 0; r < q.rows; ++r)
    for (std::int64_t c = 0; c < q.k; ++c)
      out[static_cast<std::size_t>(r * q.k + c)] = q.value_at(r, c);
  return out;
}

double block_scaled_tolerance(std::int64_t k) {
  return gemm_tolerance(gemm_precision::fp8, k, gemm_input_signs::mixed);
}

reports::verification block_scaled_check(const quantized_operand& a, const quantized_operand& b,
                                         const void* d, const std::string& what) {
  if (a.k != b.k)
    throw std::invalid_argument("block_scaled_check: A has K = " + std::to_string(a.k) +
                                ", B has K = " + std::to_string(b.k));
  const std::vector<float> a_values = dequantize(a);
  const std::vector<float> b_values = dequantize(b);
  // op(A) = A (M x K row-major); op(B) = B^T, K x N, the column-major reading of B [N, K].
  const matrix_view av{a_values.data(),         gemm_element::fp32, a.rows, a.k, a.k,
                       storage_order::row_major};
  const matrix_view bv{b_values.data(),         gemm_element::fp32, b.k, b.rows, b.k,
                       storage_order::col_major};
  const matrix_view dv{d, gemm_element::bf16, a.rows, b.rows, b.rows, storage_order::row_major};
  gemm_check_options options;
  options.alpha = static_cast<double>(a.tensor_scale) * static_cast<double>(b.tensor_scale);
  options.tolerance = block_scaled_tolerance(a.k);
  return gemm_sample_check(av, bv, dv, options, what);
}

} // namespace gpuspec::benches
