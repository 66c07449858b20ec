#pragma once
/// The host side of the block-scaled GEMMs (families/gemm_blockscaled.cpp): the formats as a
/// table, their element and scale encodings, the quantization of an operand into elements and
/// per-block scales, the packing of FP4 elements, the tiled scale-factor layout cuBLASLt reads,
/// and the dequantization the host reference multiplies. CUDA-free, unit-tested without a GPU
/// (tests/unit/benches/block_scaled_test.cpp).
///
/// Formats (OCP Microscaling Formats (MX) Specification v1.0; NVIDIA's NVFP4 as cuBLASLt's
/// CUBLASLT_MATMUL_MATRIX_SCALE_VEC16_UE4M3 describes it):
///  - MXFP8: E4M3 or E5M2 elements, one UE8M0 scale (a power of two, 2^(bits - 127)) per 32
///    consecutive elements along K;
///  - MXFP4: E2M1 elements, one UE8M0 scale per 32;
///  - NVFP4: E2M1 elements, one UE4M3 scale (an E4M3 without sign) per 16, and one FP32 scale per
///    tensor. A value is element x block scale (x tensor scale). The tensor scales of A and B go
///    into alpha (alpha = tensor_scale_a x tensor_scale_b): cuBLASLt's block scales are the
///    tiled tensors only.
///
/// Quantization (MX v1.0 section 6.3 for the MX formats; the NVFP4 recipe of NVIDIA's
/// Transformer Engine for NVFP4): a block's amax picks the scale, each element is the value
/// divided by the scale, rounded to nearest even and saturated to the element's largest finite
/// value.
///  - UE8M0: shared exponent = floor(log2(amax)) - emax(element) (emax: 8 for E4M3, 15 for E5M2,
///    2 for E2M1), clamped to [-127, 127]; an all-zero block takes 2^-127;
///  - NVFP4: tensor scale = amax(tensor) / (6 x 448), block scale = UE4M3(amax(block) / 6 /
///    tensor scale), so the block scale uses the UE4M3 range and every element E2M1's.
///
/// Scale layout (cuBLAS documentation, "1D Block Scaling Factors Layout"): an operand of R rows
/// (its non-K dimension) and K columns has R x ceil(K / block) scales, padded to whole tiles of
/// 128 rows x 4 scale columns (512 bytes each). Tiles are stored row-tile major (the tile of
/// rows [128 t, 128 t + 128) and scale columns [4 c, 4 c + 4) is tile t x tiles_per_row + c),
/// and inside a tile scale (r, c) is at byte (r % 32) x 16 + (r / 32) x 4 + c.
///
/// FP4 packing (CUDA_R_4F_E2M1): two elements per byte along K, the lower index in the low
/// nibble.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpuspec/benches/gemm_check.hpp"
#include "gpuspec/reports/model/report.hpp"

namespace gpuspec::benches {

// --- the formats --------------------------------------------------------------------------

enum class block_element { e4m3, e5m2, e2m1 };
enum class block_scale_type { ue8m0, ue4m3 };

/// One row per benchmark, as data (gemm.cublas.<id>).
struct block_scaled_format {
  std::string_view id;       ///< the benchmark is gemm.cublas.<id>
  block_element element;     ///< A and B element type
  block_scale_type scale;    ///< block scale type
  int block = 32;            ///< elements per scale along K
  bool tensor_scale = false; ///< a per-tensor FP32 scale as well (NVFP4)
  std::string_view ceiling;  ///< arch_rates key judging it ("fp8_tc", "fp4_tc")
  int min_sm = 100;          ///< 10·major + minor below which it is not supported
  std::string_view description;
  /// The PyTorch call of the same arithmetic on CUDA, or why there is none.
  std::string_view torch;
  /// False where the cuBLAS documentation lists no kernel for the format (the row asks the
  /// heuristic all the same, and says "not supported" with its answer when it has none).
  bool documented = true;
};

[[nodiscard]] std::span<const block_scaled_format> block_scaled_formats();
[[nodiscard]] const block_scaled_format* find_block_scaled_format(std::string_view id);
/// The shape axis of the block-scaled GEMMs, quick value first: 8192³, 4096³, a transformer
/// layer's 16384×4096×4096 and the small-M 128×8192×8192 (the layout axis is "NT" alone).
[[nodiscard]] std::vector<std::string> gemm_blockscaled_shapes();

/// "E4M3", "E5M2", "E2M1"
[[nodiscard]] std::string_view block_element_name(block_element e);
/// Bits per element: 8 or 4.
[[nodiscard]] int element_bits(block_element e);
/// The largest finite magnitude: 448, 57344, 6.
[[nodiscard]] double element_max(block_element e);
/// The exponent of the largest normal power of two (MX v1.0's emax_elem): 8, 15, 2.
[[nodiscard]] int element_emax(block_element e);

// --- element and scale encodings ----------------------------------------------------------

/// E2M1 (1 sign, 2 exponent bits with bias 1, 1 mantissa bit; no infinities or NaN; values
/// 0, 0.5, 1, 1.5, 2, 3, 4, 6) in the low nibble, to float.
[[nodiscard]] float e2m1_bits_to_float(std::uint8_t bits);
/// float to E2M1 bits, round to nearest even, saturating to ±6.
[[nodiscard]] std::uint8_t float_to_e2m1_bits(float value);
/// float to E5M2 bits, round to nearest even, saturating to ±57344 (CUDA's __NV_SATFINITE).
[[nodiscard]] std::uint8_t float_to_fp8_e5m2_bits(float value);
/// An element's bits to float; its bits from a float (round to nearest even, saturating).
[[nodiscard]] float element_to_float(block_element e, std::uint8_t bits);
[[nodiscard]] std::uint8_t float_to_element(block_element e, float value);

/// UE8M0: 2^(bits - 127); 0xFF is NaN.
[[nodiscard]] float ue8m0_to_float(std::uint8_t bits);
/// UE4M3: an E4M3 of the low 7 bits (the sign bit is not part of the format).
[[nodiscard]] float ue4m3_to_float(std::uint8_t bits);
[[nodiscard]] float scale_to_float(block_scale_type s, std::uint8_t bits);

/// The UE8M0 scale of a block of amax `amax` for `element` (see the file comment).
[[nodiscard]] std::uint8_t ue8m0_for_amax(float amax, block_element element);
/// The NVFP4 tensor scale of a tensor of amax `amax` (amax / (6 x 448); 1 for an all-zero one).
[[nodiscard]] float nvfp4_tensor_scale(float amax);
/// The UE4M3 scale of a block of amax `amax` under `tensor_scale` (round to nearest even; the
/// smallest subnormal for an all-zero block, never 0).
[[nodiscard]] std::uint8_t ue4m3_for_amax(float amax, float tensor_scale);

// --- the scale layout ---------------------------------------------------------------------

/// Scale columns of an operand with K columns: ceil(K / block).
[[nodiscard]] std::int64_t scale_columns(std::int64_t k, int block);
/// Bytes of the tiled scale tensor of an operand of `rows` x `k`: whole 128 x 4 tiles.
[[nodiscard]] std::size_t scale_tensor_bytes(std::int64_t rows, std::int64_t k, int block);
/// The byte offset of scale (row, scale_col) in the tiled layout of an operand whose scale
/// matrix has `scale_cols` columns (see the file comment).
[[nodiscard]] std::size_t scale_offset(std::int64_t row, std::int64_t scale_col,
                                       std::int64_t scale_cols);

// --- operands -----------------------------------------------------------------------------

/// One quantized operand of `rows` x `k`, K contiguous (row-major: our A [M, K] and the NT
/// layout's B [N, K], which are cuBLAS's B and A of the TN call).
struct quantized_operand {
  std::int64_t rows = 0, k = 0;
  block_element element = block_element::e4m3;
  block_scale_type scale = block_scale_type::ue8m0;
  int block = 32;
  /// Elements, row-major, rows x k; FP4 packed two per byte (row x k / 2 bytes; K even).
  std::vector<std::uint8_t> data;
  /// Block scales in the tiled layout (scale_tensor_bytes), padding bytes 0.
  std::vector<std::uint8_t> scales;
  float tensor_scale = 1.0f; ///< NVFP4's per-tensor scale; 1 for the MX formats

  /// The element bits of (r, c), unpacked.
  [[nodiscard]] std::uint8_t element_bits_at(std::int64_t r, std::int64_t c) const;
  /// The block scale of (r, c), read through the tiled layout, as a float.
  [[nodiscard]] float block_scale_at(std::int64_t r, std::int64_t c) const;
  /// element x block scale of (r, c) (the tensor scale not applied: it is alpha's).
  [[nodiscard]] float value_at(std::int64_t r, std::int64_t c) const;
};

/// The source values of an operand: value(r, c).
using source_values = std::function<float(std::int64_t, std::int64_t)>;

/// Quantizes rows x k source values into `format` (k a multiple of the block; even for FP4).
[[nodiscard]] quantized_operand quantize_operand(const block_scaled_format& format,
                                                 std::int64_t rows, std::int64_t k,
                                                 const source_values& value);

/// Seeded source values whose blocks span a range of magnitudes, so a scale read from the
/// wrong place shows in the product: a random sign and mantissa times 2^e, e in [-6, 6] random
/// per block of `block` elements along K.
[[nodiscard]] source_values seeded_block_source(std::uint64_t seed, int block);

/// The operand dequantized: rows x k floats, row-major, each value_at(r, c) (exact in float:
/// an element times a power of two, or an E2M1 times a UE4M3).
[[nodiscard]] std::vector<float> dequantize(const quantized_operand& q);

// --- when cuBLASLt has no kernel ------------------------------------------------------------

/// The cuBLASLt call a "no kernel" reason quotes: the heuristic that was asked.
inline constexpr std::string_view block_scaled_heuristic_call = "cublasLtMatmulAlgoGetHeuristic";

/// Why `format` is not supported when cuBLASLt's heuristic found no algorithm: the format, its
/// element type and scale mode, the call (`call`: D type, layout, m, n, k), and what the
/// heuristic answered (`returned` results, `status`), quoting block_scaled_heuristic_call.
[[nodiscard]] std::string block_scaled_no_algorithm_reason(const block_scaled_format& format,
                                                           std::string_view scale_mode,
                                                           std::string_view call, int returned,
                                                           std::string_view status);

/// True when `reason` says cuBLASLt's heuristic offered no kernel (it quotes the heuristic):
/// "not supported" for that reason is an answer of the cuBLASLt in use, for any format, not a
/// fault of the benchmark.
[[nodiscard]] bool block_scaled_heuristic_declined(std::string_view reason);

// --- the host reference -------------------------------------------------------------------

/// The normalised tolerance of a block-scaled GEMM of depth K: gemm_check's FP8 error model
/// (bf16 output, 14-bit accumulation between fp32 promotions: the most lenient of its Tensor
/// Core models; the dequantized inputs are exact, so no input rounding). Initial policy: how
/// Blackwell accumulates block-scaled products is not documented.
[[nodiscard]] double block_scaled_tolerance(std::int64_t k);

/// Checks D[M, N] (bf16, row-major, `d`) against alpha x dequantize(A) · dequantize(B)^T, with
/// A the M x K operand and B the N x K one (the NT layout), alpha = tensor_scale(A) x
/// tensor_scale(B), through gemm_check (every entry, or a seeded sample of large ones, and a
/// scan of D for the NaN poison). `what` names the product in the verification's detail.
[[nodiscard]] reports::verification block_scaled_check(const quantized_operand& a,
                                                       const quantized_operand& b, const void* d,
                                                       const std::string& what);

} // namespace gpuspec::benches
