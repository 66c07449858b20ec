// Tensor Core peak with warp-level mma.sync: fp16, bf16, tf32, int8 and fp8 (e4m3).
//
// What it measures: the dense Tensor Core throughput one warp-level mma instruction reaches when
// nothing else limits it. Operands live in registers (loaded once from global memory); each warp
// runs mma_accumulators independent accumulator chains, so the Tensor Core pipeline never waits
// on the previous result, and the launch fills every SM with up to 4 blocks of 8 warps. Bound by
// the Tensor Core issue rate alone (no memory traffic in the loop). Hardware: mma.sync of each
// shape needs sm_80 (sm_75 for the Turing shapes m16n8k8 f16 and m8n8k16 s8, sm_89 for e4m3);
// every kernel exists on every architecture and, compiled for one without its instruction,
// reports that through the status word instead of computing (mma_peak.hpp).
//
// Why this design: an accumulator chain alternates B and -B (mma_peak.hpp), so after any number
// of iterations every accumulator holds exactly A·B, checked bit for bit against the host, with
// no overflow or rounding however long the loop runs. Since that check cannot tell how many
// iterations ran, each warp also stores its loop's trip count (work_count.hpp: the loop counter
// itself, advanced by an opaque add, so the loop body is unchanged). Each kernel is named after its
// instruction so the static-evidence check can find its HMMA/IMMA/QMMA in the SASS. On Hopper
// (sm_90) mma.sync does not reach the dense peak (the wgmma path in src_sm90a does); e4m3
// mma.sync there is even converted to fp16 and run as two HMMA.16816 (cuobjdump -sass).

#include "gpuspec/kernels/mma_peak.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>

#include <cuda_runtime.h>

#include "gpuspec/kernels/cuda_check.cuh"
#include "gpuspec/kernels/work_count.cuh"

namespace gpuspec::kernels {

namespace mma_detail {

/// __CUDA_ARCH__ of the code being compiled (0 in the host pass).
__host__ __device__ constexpr int compiled_arch() {
#if defined(__CUDA_ARCH__)
  return __CUDA_ARCH__;
#else
  return 0;
#endif
}

template <mma_variant V> struct mma_op;

// Each instruction sits behind the architecture it needs, inside its function: compiled for an
// older architecture, the function is empty and the kernel never calls it (variant_compiled).

template <> struct mma_op<mma_variant::fp16_m16n8k16> {
  using acc_t = float;
  __device__ __forceinline__ static void run(float (&c)[4], const std::uint32_t (&a)[4],
                                             const std::uint32_t (&b)[2]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
    (void)c, (void)a, (void)b;
#endif
  }
};

template <> struct mma_op<mma_variant::bf16_m16n8k16> {
  using acc_t = float;
  __device__ __forceinline__ static void run(float (&c)[4], const std::uint32_t (&a)[4],
                                             const std::uint32_t (&b)[2]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
    (void)c, (void)a, (void)b;
#endif
  }
};

template <> struct mma_op<mma_variant::tf32_m16n8k8> {
  using acc_t = float;
  __device__ __forceinline__ static void run(float (&c)[4], const std::uint32_t (&a)[4],
                                             const std::uint32_t (&b)[2]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
    (void)c, (void)a, (void)b;
#endif
  }
};

template <> struct mma_op<mma_variant::int8_m16n8k32> {
  using acc_t = int;
  __device__ __forceinline__ static void run(int (&c)[4], const std::uint32_t (&a)[4],
                                             const std::uint32_t (&b)[2]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
    (void)c, (void)a, (void)b;
#endif
  }
};

template <> struct mma_op<mma_variant::fp8_m16n8k32> {
  using acc_t = float;
  __device__ __forceinline__ static void run(float (&c)[4], const std::uint32_t (&a)[4],
                                             const std::uint32_t (&b)[2]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
    asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
    (void)c, (void)a, (void)b;
#endif
  }
};

template <> struct mma_op<mma_variant::fp16_m16n8k8> {
  using acc_t = float;
  __device__ __forceinline__ static void run(float (&c)[4], const std::uint32_t (&a)[2],
                                             const std::uint32_t (&b)[1]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 750
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(b[0]));
#else
    (void)c, (void)a, (void)b;
#endif
  }
};

template <> struct mma_op<mma_variant::int8_m8n8k16> {
  using acc_t = int;
  __device__ __forceinline__ static void run(int (&c)[2], const std::uint32_t (&a)[1],
                                             const std::uint32_t (&b)[1]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 750
    asm volatile("mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32 "
                 "{%0, %1}, {%2}, {%3}, {%0, %1};"
                 : "+r"(c[0]), "+r"(c[1])
                 : "r"(a[0]), "r"(b[0]));
#else
    (void)c, (void)a, (void)b;
#endif
  }
};

} // namespace mma_detail

namespace {

using mma_detail::compiled_arch;
using mma_detail::mma_op;

/// True when the code being compiled has V's instruction.
template <mma_variant V> __host__ __device__ constexpr bool variant_compiled() {
  return compiled_arch() >= mma_info(V).min_sm * 10;
}

__device__ __forceinline__ std::uint32_t to_word(float x) { return __float_as_uint(x); }
__device__ __forceinline__ std::uint32_t to_word(int x) { return static_cast<std::uint32_t>(x); }

/// The body every kernel shares. All register arrays are indexed with compile-time indices only
/// (fully unrolled loops), so they stay in registers.
template <mma_variant V>
__device__ __forceinline__ void
mma_sync_peak_body(const std::uint32_t* __restrict__ a_frag,
                   const std::uint32_t* __restrict__ b_pos_frag,
                   const std::uint32_t* __restrict__ b_neg_frag, std::uint32_t* __restrict__ out,
                   std::uint32_t* __restrict__ trips, std::uint32_t* __restrict__ status,
                   std::uint32_t pairs, std::uint32_t zero) {
  constexpr mma_variant_info info = mma_info(V);
  if constexpr (variant_compiled<V>()) {
    using op = mma_op<V>;
    using acc_t = typename op::acc_t;
    const unsigned lane = threadIdx.x % 32;

    std::uint32_t a[info.a_regs];
    std::uint32_t b_pos[info.b_regs];
    std::uint32_t b_neg[info.b_regs];
#pragma unroll
    for (int r = 0; r < info.a_regs; ++r)
      a[r] = a_frag[r * 32 + lane];
#pragma unroll
    for (int r = 0; r < info.b_regs; ++r) {
      b_pos[r] = b_pos_frag[r * 32 + lane];
      b_neg[r] = b_neg_frag[r * 32 + lane];
    }

    // Every accumulator starts at 0, written as zero·(its own index): `zero` is a kernel
    // argument (always 0) the compiler cannot see through, so the eight chains are different
    // expressions to it. With literal zeros ptxas merges their identical first mma operations
    // (PTX has no volatile) and may in principle merge whole chains.
    acc_t acc[mma_accumulators][info.c_regs];
#pragma unroll
    for (int j = 0; j < mma_accumulators; ++j) {
#pragma unroll
      for (int i = 0; i < info.c_regs; ++i)
        acc[j][i] = static_cast<acc_t>(zero * (j * info.c_regs + i + 1u));
    }

    // D = A·B, then pairs × (D += A·(-B); D += A·B): the accumulators end at A·B. The asm is
    // volatile, so the mma operations keep this order: the 8 chains interleave. `p` is the
    // warp's work counter (count_trip), stored after the loop.
#pragma unroll
    for (int j = 0; j < mma_accumulators; ++j)
      op::run(acc[j], a, b_pos);
    std::uint32_t p = 0;
#pragma unroll 1
    for (; p < pairs; count_trip(p)) {
#pragma unroll
      for (int j = 0; j < mma_accumulators; ++j)
        op::run(acc[j], a, b_neg);
#pragma unroll
      for (int j = 0; j < mma_accumulators; ++j)
        op::run(acc[j], a, b_pos);
    }

    // Each accumulator as a row-major M×N tile: tile (warp · accumulators + j).
    const std::size_t warp =
        static_cast<std::size_t>(blockIdx.x) * mma_warps_per_block + threadIdx.x / 32;
    constexpr int tile_words = info.m * info.n;
#pragma unroll
    for (int j = 0; j < mma_accumulators; ++j) {
      std::uint32_t* tile = out + (warp * mma_accumulators + j) * tile_words;
#pragma unroll
      for (int i = 0; i < info.c_regs; ++i) {
        const matrix_coord at = mma_c_coord(static_cast<int>(lane), i);
        tile[at.row * info.n + at.col] = to_word(acc[j][i]);
      }
    }
    if (lane == 0)
      trips[warp] = p;
    if (blockIdx.x == 0 && threadIdx.x == 0)
      *status = static_cast<std::uint32_t>(compiled_arch());
  } else {
    (void)a_frag, (void)b_pos_frag, (void)b_neg_frag, (void)out, (void)trips, (void)pairs,
        (void)zero;
    if (blockIdx.x == 0 && threadIdx.x == 0)
      *status = tc_status_missing | static_cast<std::uint32_t>(compiled_arch());
  }
}

// One kernel per instruction, named after it (the static-evidence check finds them by name).
#define GPUSPEC_MMA_SYNC_PEAK_KERNEL(NAME, VARIANT)                                                \
  __global__ void __launch_bounds__(mma_block_threads, mma_max_blocks_per_sm)                      \
      NAME(const std::uint32_t* __restrict__ a_frag, const std::uint32_t* __restrict__ b_pos_frag, \
           const std::uint32_t* __restrict__ b_neg_frag, std::uint32_t* __restrict__ out,          \
           std::uint32_t* __restrict__ trips, std::uint32_t* __restrict__ status,                  \
           std::uint32_t pairs, std::uint32_t zero) {                                              \
    mma_sync_peak_body<VARIANT>(a_frag, b_pos_frag, b_neg_frag, out, trips, status, pairs, zero);  \
  }

GPUSPEC_MMA_SYNC_PEAK_KERNEL(mma_sync_peak_fp16_m16n8k16, mma_variant::fp16_m16n8k16)
GPUSPEC_MMA_SYNC_PEAK_KERNEL(mma_sync_peak_bf16_m16n8k16, mma_variant::bf16_m16n8k16)
GPUSPEC_MMA_SYNC_PEAK_KERNEL(mma_sync_peak_tf32_m16n8k8, mma_variant::tf32_m16n8k8)
GPUSPEC_MMA_SYNC_PEAK_KERNEL(mma_sync_peak_int8_m16n8k32, mma_variant::int8_m16n8k32)
GPUSPEC_MMA_SYNC_PEAK_KERNEL(mma_sync_peak_fp8_m16n8k32, mma_variant::fp8_m16n8k32)
GPUSPEC_MMA_SYNC_PEAK_KERNEL(mma_sync_peak_fp16_m16n8k8, mma_variant::fp16_m16n8k8)
GPUSPEC_MMA_SYNC_PEAK_KERNEL(mma_sync_peak_int8_m8n8k16, mma_variant::int8_m8n8k16)
#undef GPUSPEC_MMA_SYNC_PEAK_KERNEL

using mma_kernel = void (*)(const std::uint32_t*, const std::uint32_t*, const std::uint32_t*,
                            std::uint32_t*, std::uint32_t*, std::uint32_t*, std::uint32_t,
                            std::uint32_t);

mma_kernel kernel_of(mma_variant v) {
  switch (v) {
  case mma_variant::fp16_m16n8k16:
    return mma_sync_peak_fp16_m16n8k16;
  case mma_variant::bf16_m16n8k16:
    return mma_sync_peak_bf16_m16n8k16;
  case mma_variant::tf32_m16n8k8:
    return mma_sync_peak_tf32_m16n8k8;
  case mma_variant::int8_m16n8k32:
    return mma_sync_peak_int8_m16n8k32;
  case mma_variant::fp8_m16n8k32:
    return mma_sync_peak_fp8_m16n8k32;
  case mma_variant::fp16_m16n8k8:
    return mma_sync_peak_fp16_m16n8k8;
  case mma_variant::int8_m8n8k16:
    return mma_sync_peak_int8_m8n8k16;
  }
  throw std::invalid_argument("mma_sync_peak: unknown variant");
}

} // namespace

unsigned mma_sync_peak_blocks(mma_variant v) {
  int device = 0;
  GPUSPEC_CUDA_CHECK(cudaGetDevice(&device));
  int sms = 0;
  GPUSPEC_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  int per_sm = 0;
  GPUSPEC_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &per_sm, kernel_of(v), static_cast<int>(mma_block_threads), 0));
  const unsigned resident = per_sm < 1 ? 1u
                            : static_cast<unsigned>(per_sm) > mma_max_blocks_per_sm
                                ? mma_max_blocks_per_sm
                                : static_cast<unsigned>(per_sm);
  return static_cast<unsigned>(sms > 0 ? sms : 1) * resident;
}

void launch_mma_sync_peak(mma_variant v, const std::uint32_t* a_frag,
                          const std::uint32_t* b_pos_frag, const std::uint32_t* b_neg_frag,
                          std::uint32_t* out, std::uint32_t* trips, std::uint32_t* status,
                          unsigned blocks, std::uint32_t pairs, stream_handle stream) {
  if (a_frag == nullptr || b_pos_frag == nullptr || b_neg_frag == nullptr || out == nullptr ||
      trips == nullptr || status == nullptr)
    throw std::invalid_argument("launch_mma_sync_peak: every pointer must be device memory");
  if (blocks == 0)
    throw std::invalid_argument("launch_mma_sync_peak: blocks must be at least 1");
  if (pairs > tc_max_pairs)
    throw std::invalid_argument("launch_mma_sync_peak: at most " + std::to_string(tc_max_pairs) +
                                " pairs, got " + std::to_string(pairs));
  const mma_kernel kernel = kernel_of(v);
  const std::uint32_t zero = 0; // see mma_sync_peak_body
  kernel<<<blocks, mma_block_threads, 0, stream>>>(a_frag, b_pos_frag, b_neg_frag, out, trips,
                                                   status, pairs, zero);
  GPUSPEC_CUDA_CHECK_LAUNCH();
}

} // namespace gpuspec::kernels
