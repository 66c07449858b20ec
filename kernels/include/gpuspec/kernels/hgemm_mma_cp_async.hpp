#pragma once
/// Launcher of gpuspec's own FP16 Tensor Core GEMM (kernels/src/hgemm_mma_cp_async.cu), and its
/// CUDA-free geometry (shared-memory swizzle, sizes), which the host tests check.
///
/// Layout ("TN", the layout mma.sync .row.col reads directly):
///   A is M x K FP16, row-major:            element (i, p) at a[i*K + p];
///   B is given as N x K FP16, row-major:   element (p, j) of the K x N operand at b_nk[j*K + p]
///                                          (B column-major, i.e. B transposed, stored densely);
///   C is M x N FP32, row-major:            c[i*N + j] = sum_p A(i, p) * B(p, j), accumulated in
///                                          FP32 (alpha 1, beta 0: C is written, never read).
/// FP16 values travel as their IEEE binary16 bits (std::uint16_t), so this header needs no CUDA
/// type. In cuBLAS's column-major terms: C^T (N x M) = op_T(b_nk as K x N, ld K) *
/// (a as K x M, ld K), i.e. cublasGemmEx(CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, 1, b_nk, R_16F, K,
/// a, R_16F, K, 0, c, R_32F, N, CUBLAS_COMPUTE_32F, ...).

#include <cstddef>
#include <cstdint>
#include <string>

#include "gpuspec/kernels/host_device.hpp"
#include "gpuspec/kernels/sgemm_smem_regblock.hpp" // gemm_shape, grouped_tile, gemm inputs
#include "gpuspec/kernels/stream_handle.hpp"

namespace gpuspec::kernels {

/// Block tile of C, K step of one pipeline stage, warps (2 x 2, each a 64 x 64 warp tile of
/// m16n8k16 mma.sync), and the depth of the cp.async pipeline.
inline constexpr int hgemm_block_m = 128;
inline constexpr int hgemm_block_n = 128;
inline constexpr int hgemm_block_k = 32;
inline constexpr int hgemm_warps_m = 2;
inline constexpr int hgemm_warps_n = 2;
inline constexpr int hgemm_block_threads = 32 * hgemm_warps_m * hgemm_warps_n;
inline constexpr int hgemm_warp_m = hgemm_block_m / hgemm_warps_m; // 64
inline constexpr int hgemm_warp_n = hgemm_block_n / hgemm_warps_n; // 64
inline constexpr int hgemm_stages = 4;

/// One operand tile in shared memory: 128 rows of 32 FP16 (64 bytes), held as 16-byte chunks
/// (8 FP16, the unit of cp.async and of one ldmatrix row): 4 chunks per row, 512 per tile.
inline constexpr int hgemm_tile_rows = 128;
inline constexpr int hgemm_chunks_per_row = hgemm_block_k * 2 / 16;          // 4
inline constexpr int hgemm_tile_bytes = hgemm_tile_rows * hgemm_block_k * 2; // 8 KiB
/// One stage holds the A tile then the B tile; the pipeline holds hgemm_stages stages.
inline constexpr int hgemm_stage_bytes = 2 * hgemm_tile_bytes;
inline constexpr int hgemm_smem_bytes = hgemm_stages * hgemm_stage_bytes; // 64 KiB: > 48 KiB
/// 16-byte chunks each thread copies per operand per stage.
inline constexpr int hgemm_chunks_per_thread =
    hgemm_tile_rows * hgemm_chunks_per_row / hgemm_block_threads; // 4
static_assert(hgemm_block_m == hgemm_tile_rows && hgemm_block_n == hgemm_tile_rows);
static_assert(hgemm_chunks_per_thread * hgemm_block_threads ==
              hgemm_tile_rows * hgemm_chunks_per_row);

/// Byte offset in an operand tile of the 16-byte chunk `chunk` (0..3) of tile row `row`
/// (0..127). Two 64-byte rows share one 128-byte line (32 banks); the chunk's slot in the line,
/// ((row & 1) * 4 + chunk), is XORed with (line & 7). An ldmatrix phase reads one chunk column
/// of 8 consecutive rows starting at a multiple of 8: 4 lines with both parities, which the XOR
/// spreads over all 8 slots (all 32 banks), so ldmatrix is free of bank conflicts; the
/// cp.async stores of a warp (8 whole rows) fill 4 whole lines. A bijection of the tile onto
/// [0, 8 KiB) in steps of 16.
GPUSPEC_HOST_DEVICE constexpr unsigned hgemm_swizzled_offset(int row, int chunk) {
  const unsigned line = static_cast<unsigned>(row) >> 1;
  const unsigned slot =
      (((static_cast<unsigned>(row) & 1u) << 2) | static_cast<unsigned>(chunk)) ^ (line & 7u);
  return line * 128u + slot * 16u;
}

/// Whether a device of compute capability major.minor runs the kernel: mma.sync m16n8k16 with
/// FP32 accumulation, ldmatrix and cp.async together need sm_80.
[[nodiscard]] constexpr bool hgemm_mma_cp_async_supported(int cc_major, int /*cc_minor*/) {
  return cc_major >= 8;
}

/// "" when launch_hgemm_mma_cp_async accepts `s` (M, N multiples of 128, K of 32), else why not.
[[nodiscard]] inline std::string hgemm_mma_cp_async_shape_error(const gemm_shape& s) {
  return gemm_tiling_error(s, hgemm_block_m, hgemm_block_n, hgemm_block_k, "hgemm_mma_cp_async");
}

/// p[i] = gemm_input_f16_bits(seed, i) for i < n, enqueued on `stream`.
void launch_fill_gemm_input_f16(std::uint16_t* p, std::size_t n, std::uint64_t seed,
                                stream_handle stream);

/// C = A * B with FP16 inputs and FP32 accumulation and output, in the layout at the top of
/// this file, enqueued on `stream` on the current device. Requirements, each checked
/// (std::invalid_argument otherwise): the current device is sm_80 or newer
/// (hgemm_mma_cp_async_supported), the shape passes hgemm_mma_cp_async_shape_error, a, b_nk and
/// c are 16-byte aligned and not null, and C does not overlap A or B. Sets the kernel's dynamic
/// shared-memory limit to hgemm_smem_bytes on each call. A launch error throws
/// kernels::cuda_error.
void launch_hgemm_mma_cp_async(const std::uint16_t* a, const std::uint16_t* b_nk, float* c,
                               const gemm_shape& shape, stream_handle stream);

} // namespace gpuspec::kernels
