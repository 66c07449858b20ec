// hgemm_mma_cp_async: gpuspec's own FP16 Tensor Core GEMM, FP16 in, FP32 accumulate, FP32 out:
// C (M x N, row-major) = A (M x K, row-major) * B (given as N x K row-major, i.e. B
// column-major). Layout and requirements: kernels/include/gpuspec/kernels/hgemm_mma_cp_async.hpp.
//
// What it measures: how close a hand-written, warp-level (mma.sync) Tensor Core GEMM comes to
// cuBLAS on the same shape and to the FP16 Tensor Core peak (gemm.custom.hgemm_tc reports
// both). Bound by the Tensor Core issue rate once the operands arrive in time, which is what
// the pipeline and the conflict-free shared-memory layout are for. Hardware: sm_80 or newer
// (cp.async and mma.sync m16n8k16 with FP32 accumulation); on older architectures the kernel
// compiles to an empty body and the launcher refuses to launch. On Hopper it uses the
// Ampere-style path (mma.sync, not wgmma/TMA), which is the point: the family measures what
// that path reaches there, beside cuBLAS's own kernels.
//
// Design (the Ampere GEMM of CUTLASS's sm80 "multistage" mainloop, written out by hand):
//  - a block of 4 warps computes a 128x128 tile of C, stepping K 32 at a time; the warps are
//    2 x 2, each owning a 64x64 warp tile: 4 x 8 accumulator fragments of mma.sync
//    m16n8k16.row.col.f32.f16.f16.f32 (128 FP32 accumulators per thread);
//  - operands move global -> shared with cp.async.cg (16 bytes, bypassing L1 and registers)
//    in a 4-stage ring: stage kt+3 is in flight while stage kt is computed; one commit_group
//    per stage, wait_group(2) then one __syncthreads per K step (the barrier also tells the
//    block that the stage about to be overwritten has been read);
//  - fragments come from shared memory with ldmatrix.x4 (four 8x8 matrices per instruction:
//    one m16k16 A fragment, or the k16 B fragments of two n8 blocks), 8 ldmatrix per 32 mma;
//  - shared tiles are 128 rows x 64 bytes with an XOR swizzle of 16-byte chunks
//    (hgemm_swizzled_offset) that makes every ldmatrix phase hit all 32 banks once;
//  - the grid is one-dimensional in grouped tile order (grouped_tile) for L2 reuse;
//  - __launch_bounds__(128, 2): two blocks (64 KiB of shared memory each) per SM; every loop
//    over registers is fully unrolled (no local memory).
// No edge handling: M and N must be multiples of 128 and K of 32; the launcher checks.

#include "gpuspec/kernels/hgemm_mma_cp_async.hpp"

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

constexpr int mma_m = 16;
constexpr int mma_n = 8;
constexpr int mma_k = 16;
constexpr int frags_m = hgemm_warp_m / mma_m;                                  // 4
constexpr int frags_n = hgemm_warp_n / mma_n;                                  // 8
constexpr int k_steps = hgemm_block_k / mma_k;                                 // 2
constexpr int row_bytes = hgemm_block_k * 2;                                   // 64
constexpr int rows_per_copy_pass = hgemm_block_threads / hgemm_chunks_per_row; // 32
static_assert(frags_m == 4 && frags_n == 8 && k_steps == 2 && rows_per_copy_pass == 32 &&
              row_bytes == 64);
static_assert(hgemm_stages >= 2 && (hgemm_stages & (hgemm_stages - 1)) == 0);

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800

__device__ __forceinline__ unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void cp_async_16(unsigned smem, const void* global) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smem), "l"(global) : "memory");
}

__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;\n" ::: "memory");
}

template <int pending> __device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(pending) : "memory");
}

__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], unsigned smem) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem)
               : "memory");
}

__device__ __forceinline__ void mma_16816(float (&d)[4], const unsigned (&a)[4], unsigned b0,
                                          unsigned b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, "
               "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

#endif

__global__ void __launch_bounds__(hgemm_block_threads, 2)
    hgemm_mma_cp_async_kernel(const std::uint16_t* __restrict__ a,
                              const std::uint16_t* __restrict__ b_nk, float* __restrict__ c, int m,
                              int n, int k) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  extern __shared__ __align__(128) unsigned char smem[];
  const unsigned smem_base = shared_address(smem);

  const gemm_tile tile = grouped_tile(static_cast<int>(blockIdx.x), m / hgemm_block_m,
                                      n / hgemm_block_n, gemm_tile_group_rows);
  const int tid = static_cast<int>(threadIdx.x);
  const int lane = tid & 31;
  const int warp = tid >> 5;
  const int warp_m = warp / hgemm_warps_n;
  const int warp_n = warp % hgemm_warps_n;

  // --- copies: thread tid moves chunk (tid & 3) of rows (tid >> 2) + 32*pass, pass 0..3, of
  // both tiles. Rows 32 apart are 2048 bytes apart in the swizzled tile (the swizzle repeats
  // every 8 lines).
  const std::size_t ld = static_cast<std::size_t>(k); // row pitch of A and of B_nk, in FP16
  const int copy_row = tid >> 2;
  const int copy_chunk = tid & 3;
  const unsigned copy_offset = hgemm_swizzled_offset(copy_row, copy_chunk);
  const auto* a_src = reinterpret_cast<const unsigned char*>(
      a + (static_cast<std::size_t>(tile.m) * hgemm_block_m + copy_row) * ld + copy_chunk * 8);
  const auto* b_src = reinterpret_cast<const unsigned char*>(
      b_nk + (static_cast<std::size_t>(tile.n) * hgemm_block_n + copy_row) * ld + copy_chunk * 8);
  const std::size_t pass_bytes = static_cast<std::size_t>(rows_per_copy_pass) * ld * 2;

  auto copy_stage = [&](int stage, int k_tile) {
    const unsigned a_dst = smem_base + static_cast<unsigned>(stage) * hgemm_stage_bytes;
    const unsigned b_dst = a_dst + hgemm_tile_bytes;
    const std::size_t k_bytes = static_cast<std::size_t>(k_tile) * row_bytes;
#pragma unroll
    for (int pass = 0; pass < hgemm_chunks_per_thread; ++pass) {
      const unsigned dst =
          copy_offset + static_cast<unsigned>(pass) * rows_per_copy_pass * row_bytes;
      cp_async_16(a_dst + dst, a_src + pass * pass_bytes + k_bytes);
      cp_async_16(b_dst + dst, b_src + pass * pass_bytes + k_bytes);
    }
  };

  // --- fragments: ldmatrix addresses of this lane, per k step; fragment i (16 rows further) is
  // 1024 bytes further in the swizzled tile.
  //   A, one m16k16 fragment: lanes 0-15 rows 0-15 at k 0-7, lanes 16-31 rows 0-15 at k 8-15.
  //   B, two n8k16 fragments: lanes 0-7 n 0-7 k 0-7, 8-15 n 0-7 k 8-15, 16-23 n 8-15 k 0-7,
  //   24-31 n 8-15 k 8-15: registers b0, b1 of block 2j then b0, b1 of block 2j+1.
  constexpr unsigned fragment_stride = mma_m * row_bytes; // 1024
  unsigned a_frag_offset[k_steps], b_frag_offset[k_steps];
#pragma unroll
  for (int ks = 0; ks < k_steps; ++ks) {
    a_frag_offset[ks] =
        hgemm_swizzled_offset(warp_m * hgemm_warp_m + (lane & 15), ks * 2 + (lane >> 4));
    b_frag_offset[ks] =
        hgemm_tile_bytes +
        hgemm_swizzled_offset(warp_n * hgemm_warp_n + (lane & 7) + ((lane >> 4) << 3),
                              ks * 2 + ((lane >> 3) & 1));
  }

  float acc[frags_m][frags_n][4];
#pragma unroll
  for (int i = 0; i < frags_m; ++i)
#pragma unroll
    for (int j = 0; j < frags_n; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e)
        acc[i][j][e] = 0.0f;

  const int k_tiles = k / hgemm_block_k;
  // Prologue: stages 0..stages-2 in flight (a group is committed even when empty, so the
  // count of groups, and with it wait_group's meaning, does not depend on K).
#pragma unroll
  for (int s = 0; s < hgemm_stages - 1; ++s) {
    if (s < k_tiles)
      copy_stage(s, s);
    cp_async_commit();
  }

  for (int kt = 0; kt < k_tiles; ++kt) {
    cp_async_wait<hgemm_stages - 2>(); // this thread's copies of tile kt have landed
    __syncthreads(); // everyone's have; and everyone is done with tile kt-1's stage
    const int fetch = kt + hgemm_stages - 1;
    if (fetch < k_tiles)
      copy_stage(fetch & (hgemm_stages - 1), fetch); // into the stage tile kt-1 used
    cp_async_commit();

    const unsigned stage =
        smem_base + static_cast<unsigned>(kt & (hgemm_stages - 1)) * hgemm_stage_bytes;
#pragma unroll
    for (int ks = 0; ks < k_steps; ++ks) {
      unsigned af[frags_m][4];
      unsigned bf[frags_n / 2][4];
#pragma unroll
      for (int i = 0; i < frags_m; ++i)
        ldmatrix_x4(af[i], stage + a_frag_offset[ks] + i * fragment_stride);
#pragma unroll
      for (int j = 0; j < frags_n / 2; ++j)
        ldmatrix_x4(bf[j], stage + b_frag_offset[ks] + j * fragment_stride);
#pragma unroll
      for (int i = 0; i < frags_m; ++i)
#pragma unroll
        for (int j = 0; j < frags_n; ++j)
          mma_16816(acc[i][j], af[i], bf[j / 2][(j & 1) * 2], bf[j / 2][(j & 1) * 2 + 1]);
    }
  }
  cp_async_wait<0>(); // only empty groups can be pending here; leave none behind

  // --- epilogue: accumulator e of fragment (i, j) is row (lane / 4) + 8*(e / 2), column
  // 2*(lane % 4) + (e % 2) of that m16n8 block: two float2 stores per fragment.
  const std::size_t ldc = static_cast<std::size_t>(n);
  const std::size_t row0 = static_cast<std::size_t>(tile.m) * hgemm_block_m +
                           static_cast<std::size_t>(warp_m) * hgemm_warp_m + (lane >> 2);
  const std::size_t col0 = static_cast<std::size_t>(tile.n) * hgemm_block_n +
                           static_cast<std::size_t>(warp_n) * hgemm_warp_n + (lane & 3) * 2;
#pragma unroll
  for (int i = 0; i < frags_m; ++i)
#pragma unroll
    for (int j = 0; j < frags_n; ++j) {
      float* out = c + (row0 + i * mma_m) * ldc + col0 + j * mma_n;
      *reinterpret_cast<float2*>(out) = make_float2(acc[i][j][0], acc[i][j][1]);
      *reinterpret_cast<float2*>(out + 8 * ldc) = make_float2(acc[i][j][2], acc[i][j][3]);
    }
#else
  // Before sm_80: no cp.async, no m16n8k16 mma. The launcher never launches it there; if it
  // ran, C would keep its poison and the check would fail.
  (void)a;
  (void)b_nk;
  (void)c;
  (void)m;
  (void)n;
  (void)k;
#endif
}

__global__ void __launch_bounds__(256)
    fill_gemm_input_f16_kernel(std::uint16_t* __restrict__ p, std::size_t n, std::uint64_t seed) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride)
    p[i] = gemm_input_f16_bits(seed, i);
}

} // namespace

void launch_fill_gemm_input_f16(std::uint16_t* p, std::size_t n, std::uint64_t seed,
                                stream_handle stream) {
  if (n == 0)
    return;
  if (p == nullptr)
    throw std::invalid_argument("launch_fill_gemm_input_f16: null pointer");
  constexpr unsigned fill_threads = 256;
  constexpr unsigned max_fill_blocks = 1u << 20; // grid-stride beyond 2^28 elements
  const unsigned blocks = std::min(grid_blocks(n, fill_threads), max_fill_blocks);
  fill_gemm_input_f16_kernel<<<blocks, fill_threads, 0, stream>>>(p, n, seed);
  GPUSPEC_CUDA_CHECK_LAUNCH();
}

void launch_hgemm_mma_cp_async(const std::uint16_t* a, const std::uint16_t* b_nk, float* c,
                               const gemm_shape& shape, stream_handle stream) {
  if (const std::string why = hgemm_mma_cp_async_shape_error(shape); !why.empty())
    throw std::invalid_argument(why);
  if (a == nullptr || b_nk == nullptr || c == nullptr)
    throw std::invalid_argument("launch_hgemm_mma_cp_async: a, b_nk and c must be device memory");
  if (!is_aligned_16(a) || !is_aligned_16(b_nk) || !is_aligned_16(c))
    throw std::invalid_argument(
        "launch_hgemm_mma_cp_async: a, b_nk and c must be 16-byte aligned (16-byte cp.async)");
  const auto m = static_cast<std::size_t>(shape.m);
  const auto n = static_cast<std::size_t>(shape.n);
  const auto k = static_cast<std::size_t>(shape.k);
  const std::size_t c_bytes = m * n * sizeof(float);
  if (byte_ranges_overlap(c, c_bytes, a, m * k * 2) ||
      byte_ranges_overlap(c, c_bytes, b_nk, n * k * 2))
    throw std::invalid_argument("launch_hgemm_mma_cp_async: C overlaps A or B");

  int device = 0, major = 0, minor = 0;
  GPUSPEC_CUDA_CHECK(cudaGetDevice(&device));
  GPUSPEC_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  GPUSPEC_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  if (!hgemm_mma_cp_async_supported(major, minor))
    throw std::invalid_argument("launch_hgemm_mma_cp_async: needs sm_80 or newer (cp.async, "
                                "mma.sync m16n8k16); device " +
                                std::to_string(device) + " is sm_" + std::to_string(major) +
                                std::to_string(minor));

  const std::uint64_t blocks = static_cast<std::uint64_t>(shape.m / hgemm_block_m) *
                               static_cast<std::uint64_t>(shape.n / hgemm_block_n);
  if (blocks > static_cast<std::uint64_t>(std::numeric_limits<int>::max()))
    throw std::invalid_argument("launch_hgemm_mma_cp_async: " + gemm_shape_text(shape) +
                                " has more tiles than the kernel's int block index holds");
  GPUSPEC_CUDA_CHECK(cudaFuncSetAttribute(
      hgemm_mma_cp_async_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, hgemm_smem_bytes));
  hgemm_mma_cp_async_kernel<<<static_cast<unsigned>(blocks), hgemm_block_threads, hgemm_smem_bytes,
                              stream>>>(a, b_nk, c, shape.m, shape.n, shape.k);
  GPUSPEC_CUDA_CHECK_LAUNCH();
}

} // namespace gpuspec::kernels
