// sgemm_smem_regblock: gpuspec's own FP32 GEMM, C = A * B, every matrix row-major (see
// kernels/include/gpuspec/kernels/sgemm_smem_regblock.hpp for the layout and requirements).
//
// What it measures: how close a plain, readable CUDA-core GEMM comes to cuBLAS's SGEMM and to
// the FP32 peak (gemm.custom.sgemm reports both). Bound by the FFMA rate when the shared-memory
// traffic per FFMA is low enough, which is what the blocking is for. Any architecture the build
// targets (sm_75 on); no Tensor Cores, no TF32.
//
// Design (the classic register-blocked SGEMM, as in NVIDIA's CUTLASS "SGEMM" tutorials, Volkov's
// "Better performance at lower occupancy" and siboehm's write-up):
//  - a block of 256 threads computes a 128x128 tile of C, stepping K 8 at a time;
//  - each thread accumulates an 8x8 tile of C in registers: two 4x4 quads, 64 rows and 64
//    columns apart, so that its fragments of A and B are two float4 shared-memory reads each
//    (LDS.128) per k: 4 loads for 64 FFMAs;
//  - the A tile is stored transposed in shared memory (k-major, rows padded from 128 to 132
//    floats so the transposing scalar stores do not collide in banks), so reading a thread's 4
//    consecutive rows of A at one k is one aligned float4; the B tile is stored as it is;
//  - the 8 warps are laid out 4 (rows) x 2 (columns) and each warp's 32 threads 4 x 8, so one
//    LDS.128 of a warp touches 64 bytes of A or 128 bytes of B: one shared-memory wavefront;
//  - global loads are float4 (LDG.128), one of A and one of B per thread per stage, issued
//    for the next stage before the current one is computed (register prefetch) and stored to
//    the other of two shared-memory buffers afterwards: one __syncthreads per K step;
//  - the grid is one-dimensional and walks the tiles in grouped order (grouped_tile), so the
//    resident blocks share panels of A and B in L2;
//  - every loop over registers is fully unrolled (no local memory), and __launch_bounds__(256,
//    2) keeps two blocks resident per SM.
// No edge handling: M and N must be multiples of 128 and K of 8; the launcher checks.

#include "gpuspec/kernels/sgemm_smem_regblock.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include <cuda_runtime.h>

#include "gpuspec/kernels/cuda_check.cuh"
#include "gpuspec/kernels/launch_math.hpp"

namespace gpuspec::kernels {

namespace {

constexpr int block_m = sgemm_block_m;
constexpr int block_n = sgemm_block_n;
constexpr int block_k = sgemm_block_k;
/// Row pitch of the transposed A tile in shared memory: 128 + 4 floats. A warp's transposing
/// stores write rows r..r+15 at k and at k+4; with the pad those land 16 banks apart instead of
/// on the same banks. 528 bytes keeps the rows 16-byte aligned for the float4 reads.
constexpr int a_pitch = block_m + 4;
/// Half the tile: each thread's two quads are this far apart in rows and in columns.
constexpr int half_tile = block_m / 2;
static_assert(block_m == block_n && half_tile == 64);
static_assert((a_pitch * sizeof(float)) % 16 == 0);

__device__ __forceinline__ float4 load_float4(const float* p) {
  return *reinterpret_cast<const float4*>(p);
}

__global__ void __launch_bounds__(sgemm_block_threads, 2)
    sgemm_smem_regblock_kernel(const float* __restrict__ a, const float* __restrict__ b,
                               float* __restrict__ c, int m, int n, int k) {
  __shared__ __align__(16) float a_tile[2][block_k][a_pitch]; // A transposed: [k][row]
  __shared__ __align__(16) float b_tile[2][block_k][block_n]; // B as is: [k][column]

  const int tiles_m = m / block_m;
  const int tiles_n = n / block_n;
  const gemm_tile tile =
      grouped_tile(static_cast<int>(blockIdx.x), tiles_m, tiles_n, gemm_tile_group_rows);
  const int tid = static_cast<int>(threadIdx.x);

  // Global loads: A's 128x8 tile is 256 float4 (2 per row), B's 8x128 tile 256 float4 (32 per
  // row); one of each per thread.
  const int a_row = tid >> 1;
  const int a_col = (tid & 1) * 4;
  const int b_row = tid >> 5;
  const int b_col = (tid & 31) * 4;
  const float* a_next =
      a + (static_cast<std::size_t>(tile.m) * block_m + a_row) * static_cast<std::size_t>(k) +
      a_col;
  const float* b_next = b + static_cast<std::size_t>(b_row) * static_cast<std::size_t>(n) +
                        static_cast<std::size_t>(tile.n) * block_n + b_col;
  const std::size_t b_step = static_cast<std::size_t>(block_k) * static_cast<std::size_t>(n);

  // This thread's 8x8 of C: rows ty*4 + {0..3} and 64 + ty*4 + {0..3}, columns likewise with
  // tx. Warps 4 (rows) x 2 (columns), lanes 4 x 8.
  const int warp = tid >> 5;
  const int lane = tid & 31;
  const int ty = (warp >> 1) * 4 + (lane >> 3);
  const int tx = (warp & 1) * 8 + (lane & 7);

  float4 a_stage = load_float4(a_next);
  float4 b_stage = load_float4(b_next);
  a_tile[0][a_col + 0][a_row] = a_stage.x;
  a_tile[0][a_col + 1][a_row] = a_stage.y;
  a_tile[0][a_col + 2][a_row] = a_stage.z;
  a_tile[0][a_col + 3][a_row] = a_stage.w;
  *reinterpret_cast<float4*>(&b_tile[0][b_row][b_col]) = b_stage;
  __syncthreads();

  float acc[sgemm_thread_tile][sgemm_thread_tile];
#pragma unroll
  for (int i = 0; i < sgemm_thread_tile; ++i)
#pragma unroll
    for (int j = 0; j < sgemm_thread_tile; ++j)
      acc[i][j] = 0.0f;

  const int k_steps = k / block_k;
  for (int step = 0; step < k_steps; ++step) {
    const int current = step & 1;
    const bool more = step + 1 < k_steps;
    if (more) { // prefetch the next stage into registers; stored after the FFMAs
      a_next += block_k;
      b_next += b_step;
      a_stage = load_float4(a_next);
      b_stage = load_float4(b_next);
    }

#pragma unroll
    for (int kk = 0; kk < block_k; ++kk) {
      const float4 a_lo = load_float4(&a_tile[current][kk][ty * 4]);
      const float4 a_hi = load_float4(&a_tile[current][kk][half_tile + ty * 4]);
      const float4 b_lo = load_float4(&b_tile[current][kk][tx * 4]);
      const float4 b_hi = load_float4(&b_tile[current][kk][half_tile + tx * 4]);
      const float af[sgemm_thread_tile] = {a_lo.x, a_lo.y, a_lo.z, a_lo.w,
                                           a_hi.x, a_hi.y, a_hi.z, a_hi.w};
      const float bf[sgemm_thread_tile] = {b_lo.x, b_lo.y, b_lo.z, b_lo.w,
                                           b_hi.x, b_hi.y, b_hi.z, b_hi.w};
#pragma unroll
      for (int i = 0; i < sgemm_thread_tile; ++i)
#pragma unroll
        for (int j = 0; j < sgemm_thread_tile; ++j)
          acc[i][j] = fmaf(af[i], bf[j], acc[i][j]);
    }

    if (more) { // the other buffer was last read in the previous step, before its barrier
      const int other = current ^ 1;
      a_tile[other][a_col + 0][a_row] = a_stage.x;
      a_tile[other][a_col + 1][a_row] = a_stage.y;
      a_tile[other][a_col + 2][a_row] = a_stage.z;
      a_tile[other][a_col + 3][a_row] = a_stage.w;
      *reinterpret_cast<float4*>(&b_tile[other][b_row][b_col]) = b_stage;
    }
    __syncthreads();
  }

  // Epilogue: each row of the thread's two quads is two float4 stores.
  const std::size_t row0 = static_cast<std::size_t>(tile.m) * block_m + ty * 4;
  const std::size_t col0 = static_cast<std::size_t>(tile.n) * block_n + tx * 4;
  const std::size_t ldc = static_cast<std::size_t>(n);
#pragma unroll
  for (int i = 0; i < sgemm_thread_tile; ++i) {
    const std::size_t row = row0 + (i < 4 ? i : half_tile + i - 4);
    float* out = c + row * ldc + col0;
    *reinterpret_cast<float4*>(out) = make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
    *reinterpret_cast<float4*>(out + half_tile) =
        make_float4(acc[i][4], acc[i][5], acc[i][6], acc[i][7]);
  }
}

__global__ void __launch_bounds__(256)
    fill_gemm_input_f32_kernel(float* __restrict__ p, std::size_t n, std::uint64_t seed) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride)
    p[i] = gemm_input_f32(seed, i);
}

} // namespace

void launch_fill_gemm_input_f32(float* p, std::size_t n, std::uint64_t seed, stream_handle stream) {
  if (n == 0)
    return;
  if (p == nullptr)
    throw std::invalid_argument("launch_fill_gemm_input_f32: null pointer");
  constexpr unsigned fill_threads = 256;
  constexpr unsigned max_fill_blocks = 1u << 20; // grid-stride beyond 2^28 elements
  const unsigned blocks = std::min(grid_blocks(n, fill_threads), max_fill_blocks);
  fill_gemm_input_f32_kernel<<<blocks, fill_threads, 0, stream>>>(p, n, seed);
  GPUSPEC_CUDA_CHECK_LAUNCH();
}

void launch_sgemm_smem_regblock(const float* a, const float* b, float* c, const gemm_shape& shape,
                                stream_handle stream) {
  if (const std::string why = sgemm_smem_regblock_shape_error(shape); !why.empty())
    throw std::invalid_argument(why);
  if (a == nullptr || b == nullptr || c == nullptr)
    throw std::invalid_argument("launch_sgemm_smem_regblock: a, b and c must be device memory");
  if (!is_aligned_16(a) || !is_aligned_16(b) || !is_aligned_16(c))
    throw std::invalid_argument(
        "launch_sgemm_smem_regblock: a, b and c must be 16-byte aligned (float4 accesses)");
  const auto m = static_cast<std::size_t>(shape.m);
  const auto n = static_cast<std::size_t>(shape.n);
  const auto k = static_cast<std::size_t>(shape.k);
  const std::size_t c_bytes = m * n * sizeof(float);
  if (byte_ranges_overlap(c, c_bytes, a, m * k * sizeof(float)) ||
      byte_ranges_overlap(c, c_bytes, b, k * n * sizeof(float)))
    throw std::invalid_argument("launch_sgemm_smem_regblock: C overlaps A or B");
  const std::uint64_t blocks = static_cast<std::uint64_t>(shape.m / sgemm_block_m) *
                               static_cast<std::uint64_t>(shape.n / sgemm_block_n);
  if (blocks > static_cast<std::uint64_t>(std::numeric_limits<int>::max()))
    throw std::invalid_argument("launch_sgemm_smem_regblock: " + gemm_shape_text(shape) +
                                " has more tiles than the kernel's int block index holds");
  sgemm_smem_regblock_kernel<<<static_cast<unsigned>(blocks), sgemm_block_threads, 0, stream>>>(
      a, b, c, shape.m, shape.n, shape.k);
  GPUSPEC_CUDA_CHECK_LAUNCH();
}

} // namespace gpuspec::kernels
