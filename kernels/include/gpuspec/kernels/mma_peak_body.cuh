#pragma once
// The body of the mma.sync peak kernels (mma_peak.hpp), shared by the translation unit of the
// generic variants (mma_peak.cu, built for every architecture of the list) and that of the
// kind::f8f6f4 variants (kernels/src_sm120f/mma_f8f6f4_peak.cu, built for sm_120f alone): one
// mma_op per instruction, each behind the architecture it needs, and one body for all. Private
// to the kernels library: device code, included by its .cu files only.

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include "gpuspec/kernels/mma_peak.hpp"
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

template <> struct mma_op<mma_variant::e5m2_m16n8k32> {
  using acc_t = float;
  __device__ __forceinline__ static void run(float (&c)[4], const std::uint32_t (&a)[4],
                                             const std::uint32_t (&b)[2]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
    asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
    (void)c, (void)a, (void)b;
#endif
  }
};

/// True in code compiled for a family-specific 12.x target (sm_120f), which has mma.sync with
/// kind::f8f6f4; plain sm_120 code does not.
__host__ __device__ constexpr bool f8f6f4_compiled() {
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FAMILY_SPECIFIC__) &&                            \
    __CUDA_ARCH_FAMILY_SPECIFIC__ >= 1200 && __CUDA_ARCH_FAMILY_SPECIFIC__ < 1300
  return true;
#else
  return false;
#endif
}

// mma.sync with kind::f8f6f4 (sm_120f): the type of A and B is in the instruction, each element
// in an 8-bit container (tc_encode).
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FAMILY_SPECIFIC__) &&                            \
    __CUDA_ARCH_FAMILY_SPECIFIC__ >= 1200 && __CUDA_ARCH_FAMILY_SPECIFIC__ < 1300
#define GPUSPEC_MMA_F8F6F4(TYPE)                                                                   \
  asm volatile("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32." TYPE "." TYPE ".f32 "         \
               "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"                   \
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])                                    \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]))
#else
#define GPUSPEC_MMA_F8F6F4(TYPE) (void)c, (void)a, (void)b
#endif

#define GPUSPEC_MMA_F8F6F4_OP(VARIANT, TYPE)                                                       \
  template <> struct mma_op<VARIANT> {                                                             \
    using acc_t = float;                                                                           \
    __device__ __forceinline__ static void run(float (&c)[4], const std::uint32_t (&a)[4],         \
                                               const std::uint32_t (&b)[2]) {                      \
      GPUSPEC_MMA_F8F6F4(TYPE);                                                                    \
    }                                                                                              \
  };
GPUSPEC_MMA_F8F6F4_OP(mma_variant::e3m2_m16n8k32, "e3m2")
GPUSPEC_MMA_F8F6F4_OP(mma_variant::e2m3_m16n8k32, "e2m3")
GPUSPEC_MMA_F8F6F4_OP(mma_variant::e2m1_m16n8k32, "e2m1")
#undef GPUSPEC_MMA_F8F6F4_OP
#undef GPUSPEC_MMA_F8F6F4

/// True when the code being compiled has V's instruction.
template <mma_variant V> __host__ __device__ constexpr bool variant_compiled() {
  return compiled_arch() >= mma_info(V).min_sm * 10 && (!mma_is_f8f6f4(V) || f8f6f4_compiled());
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

} // namespace mma_detail

/// The kernel signature every mma.sync peak kernel has.
using mma_kernel = void (*)(const std::uint32_t*, const std::uint32_t*, const std::uint32_t*,
                            std::uint32_t*, std::uint32_t*, std::uint32_t*, std::uint32_t,
                            std::uint32_t);

/// The kind::f8f6f4 kernel of `v` (mma_is_f8f6f4), from kernels/src_sm120f/mma_f8f6f4_peak.cu,
/// or nullptr in a build without it (mma_f8f6f4_peak_absent.cpp).
mma_kernel mma_f8f6f4_kernel(mma_variant v);

// One kernel per instruction, named after it (the static-evidence check finds them by name).
#define GPUSPEC_MMA_SYNC_PEAK_KERNEL(NAME, VARIANT)                                                \
  __global__ void __launch_bounds__(mma_block_threads, mma_max_blocks_per_sm)                      \
      NAME(const std::uint32_t* __restrict__ a_frag, const std::uint32_t* __restrict__ b_pos_frag, \
           const std::uint32_t* __restrict__ b_neg_frag, std::uint32_t* __restrict__ out,          \
           std::uint32_t* __restrict__ trips, std::uint32_t* __restrict__ status,                  \
           std::uint32_t pairs, std::uint32_t zero) {                                              \
    mma_detail::mma_sync_peak_body<VARIANT>(a_frag, b_pos_frag, b_neg_frag, out, trips, status,    \
                                            pairs, zero);                                          \
  }

} // namespace gpuspec::kernels
