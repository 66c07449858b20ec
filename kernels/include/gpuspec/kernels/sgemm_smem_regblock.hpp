#pragma once
/// Launcher of gpuspec's own FP32 GEMM (kernels/src/sgemm_smem_regblock.cu), and the CUDA-free
/// helpers both hand-written GEMMs share (gemm.custom.*): shape parsing and checks, the grouped
/// tile order and the seeded inputs. Host tests check every helper here.
///
/// Layout: every matrix is dense and row-major, with no padding between rows:
///   A is M x K (element (i, p) at a[i*K + p]), B is K x N (b[p*N + j]), C is M x N (c[i*N + j]),
///   and the kernel computes C = A * B (alpha 1, beta 0: C is written, never read).
/// In cuBLAS's column-major terms this is C^T = B^T * A^T, i.e.
/// cublasSgemm(CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, 1, B, N, A, K, 0, C, N).

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "gpuspec/kernels/host_device.hpp"
#include "gpuspec/kernels/seeded_values.hpp"
#include "gpuspec/kernels/stream_handle.hpp"

namespace gpuspec::kernels {

// --- the FP32 kernel's geometry ---------------------------------------------------------------

/// Block tile of C (rows x columns), the K step of one shared-memory stage, threads per block,
/// and each thread's register tile (sgemm_thread_tile x sgemm_thread_tile elements of C).
inline constexpr int sgemm_block_m = 128;
inline constexpr int sgemm_block_n = 128;
inline constexpr int sgemm_block_k = 8;
inline constexpr int sgemm_block_threads = 256;
inline constexpr int sgemm_thread_tile = 8;
static_assert(sgemm_block_m * sgemm_block_n ==
              sgemm_block_threads * sgemm_thread_tile * sgemm_thread_tile);
/// Each thread loads one float4 of the A tile and one of the B tile per stage.
static_assert(sgemm_block_m * sgemm_block_k == 4 * sgemm_block_threads);
static_assert(sgemm_block_k * sgemm_block_n == 4 * sgemm_block_threads);

// --- shared helpers of both custom GEMMs --------------------------------------------------------

/// A GEMM problem: C (m x n) = A (m x k) * B (k x n).
struct gemm_shape {
  int m = 0, n = 0, k = 0;
  friend constexpr bool operator==(const gemm_shape&, const gemm_shape&) = default;
};

/// 2·M·N·K, the FLOP count of a GEMM (docs/design.md rule 8).
[[nodiscard]] constexpr double gemm_flops(const gemm_shape& s) {
  return 2.0 * static_cast<double>(s.m) * static_cast<double>(s.n) * static_cast<double>(s.k);
}

/// "4096x2048x1024" -> {m 4096, n 2048, k 1024}; nullopt unless it is three positive decimal
/// integers (each below 2^31) joined by 'x'.
[[nodiscard]] inline std::optional<gemm_shape> parse_gemm_shape(std::string_view text) {
  int values[3] = {0, 0, 0};
  const char* p = text.data();
  const char* const end = text.data() + text.size();
  for (int i = 0; i < 3; ++i) {
    if (i > 0) {
      if (p == end || *p != 'x')
        return std::nullopt;
      ++p;
    }
    if (p == end || *p < '0' || *p > '9')
      return std::nullopt;
    const auto [next, ec] = std::from_chars(p, end, values[i]);
    if (ec != std::errc{} || values[i] <= 0)
      return std::nullopt;
    p = next;
  }
  if (p != end)
    return std::nullopt;
  return gemm_shape{values[0], values[1], values[2]};
}

/// "4096x2048x1024"
[[nodiscard]] inline std::string gemm_shape_text(const gemm_shape& s) {
  return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
}

/// "" when a kernel of block tile block_m x block_n and K step block_k can run `s` (every
/// extent positive and a multiple of its tile), else one sentence saying what is wrong.
[[nodiscard]] inline std::string gemm_tiling_error(const gemm_shape& s, int block_m, int block_n,
                                                   int block_k, std::string_view kernel) {
  auto bad = [&](const char* name, int value, int multiple) {
    return std::string(kernel) + ": " + name + " = " + std::to_string(value) +
           " must be a positive multiple of " + std::to_string(multiple) +
           " (the kernel has no edge handling)";
  };
  if (s.m <= 0 || s.m % block_m != 0)
    return bad("M", s.m, block_m);
  if (s.n <= 0 || s.n % block_n != 0)
    return bad("N", s.n, block_n);
  if (s.k <= 0 || s.k % block_k != 0)
    return bad("K", s.k, block_k);
  return {};
}

/// "" when launch_sgemm_smem_regblock accepts `s`, else why not.
[[nodiscard]] inline std::string sgemm_smem_regblock_shape_error(const gemm_shape& s) {
  return gemm_tiling_error(s, sgemm_block_m, sgemm_block_n, sgemm_block_k, "sgemm_smem_regblock");
}

/// Position of a block's tile in the grid of C's tiles.
struct gemm_tile {
  int m = 0; ///< tile row (C rows m*block_m ...)
  int n = 0; ///< tile column
};

/// Block rows that share one sweep across the columns in grouped_tile.
inline constexpr int gemm_tile_group_rows = 8;

/// The tile that the block with linear id `block` (0 <= block < tiles_m*tiles_n) computes, in
/// grouped order (Triton's "grouped ordering", CUTLASS's threadblock swizzle): consecutive
/// blocks walk down a group of `group_rows` tile rows before moving one tile column right, so
/// the blocks resident at one time read a few panels of A and B and reuse them from L2. A
/// bijection from block ids onto tiles for any tiles_m, tiles_n >= 1 and group_rows >= 1.
GPUSPEC_HOST_DEVICE constexpr gemm_tile grouped_tile(int block, int tiles_m, int tiles_n,
                                                     int group_rows) {
  const int blocks_per_group = group_rows * tiles_n;
  const int group = block / blocks_per_group;
  const int first_m = group * group_rows;
  const int rows_here = tiles_m - first_m < group_rows ? tiles_m - first_m : group_rows;
  const int in_group = block % blocks_per_group;
  return {first_m + in_group % rows_here, in_group / rows_here};
}

/// Seeded GEMM inputs: random sign, magnitude in [0.5, 1), never zero, so no product vanishes
/// and the sum of magnitudes (the error bound's scale) is at least 0.25 per term. Exact in FP32.
/// Element `index` of the input seeded `seed`; the fill kernels compute the same value.
GPUSPEC_HOST_DEVICE constexpr float gemm_input_f32(std::uint64_t seed, std::uint64_t index) {
  const std::uint64_t bits = seeded_bits(seed, index);
  // 0.5 + k·2^-24 for a 23-bit k (bits 40..62; bit 63 is the sign): 2^-1·(1 + k·2^-23), a
  // float with every bit of k kept.
  const float magnitude =
      0.5f + static_cast<float>((bits >> 40) & 0x7FFFFFu) * (1.0f / 16777216.0f);
  return (bits >> 63) != 0 ? -magnitude : magnitude;
}

/// The FP16 counterpart: random sign, magnitude 0.5 + k·2^-11 for a 10-bit k, which FP16 holds
/// exactly (exponent -1, mantissa k). Returns the IEEE binary16 bits.
GPUSPEC_HOST_DEVICE constexpr std::uint16_t gemm_input_f16_bits(std::uint64_t seed,
                                                                std::uint64_t index) {
  const std::uint64_t bits = seeded_bits(seed, index);
  const auto mantissa = static_cast<std::uint16_t>((bits >> 40) & 0x3FFu);
  const auto sign = static_cast<std::uint16_t>((bits >> 63) << 15);
  return static_cast<std::uint16_t>(sign | (14u << 10) | mantissa); // biased exponent 14 = -1
}

/// The value of gemm_input_f16_bits, exactly, as a float.
GPUSPEC_HOST_DEVICE constexpr float gemm_input_f16_value(std::uint64_t seed, std::uint64_t index) {
  const std::uint16_t h = gemm_input_f16_bits(seed, index);
  const float magnitude = 0.5f + static_cast<float>(h & 0x3FFu) * (1.0f / 2048.0f);
  return (h & 0x8000u) != 0 ? -magnitude : magnitude;
}

// --- launchers ---------------------------------------------------------------------------------

/// p[i] = gemm_input_f32(seed, i) for i < n, enqueued on `stream`.
void launch_fill_gemm_input_f32(float* p, std::size_t n, std::uint64_t seed, stream_handle stream);

/// C = A * B in FP32, row-major (see the top of this file), enqueued on `stream`.
/// Requirements, each checked (std::invalid_argument otherwise): M and N multiples of 128, K a
/// multiple of 8 (sgemm_smem_regblock_shape_error), a, b, c 16-byte aligned and not null, and
/// C not overlapping A or B. A launch error throws kernels::cuda_error.
void launch_sgemm_smem_regblock(const float* a, const float* b, float* c, const gemm_shape& shape,
                                stream_handle stream);

} // namespace gpuspec::kernels
