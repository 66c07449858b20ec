// Tensor Core peak on Hopper with warpgroup-level wgmma.mma_async: fp16, bf16, tf32, int8, fp8
// (e4m3 and e5m2).
//
// What it measures: the dense Tensor Core throughput of compute capability 9.0, which mma.sync
// cannot reach there (about 63% of it, as published: kernels::hopper_mma_sync_note).
// Each block holds two warpgroups; each warpgroup issues m64n256kK wgmma instructions back to
// back on one 64×256 accumulator tile, with A and B read from shared memory through matrix
// descriptors. Bound by the Tensor Cores alone: the operands (2 KiB of A, 2 × 8 KiB of B and -B)
// are copied into shared memory once, and the loop touches no other memory. Hardware: sm_90a
// only (wgmma exists on compute capability 9.0 and nowhere else); this file is compiled for
// 90a alone (kernels/CMakeLists.txt), and wgmma_peak_absent.cpp stands in when it is not.
//
// Why this design: the largest shape (N = 256, 128 FP32 accumulator registers per thread) gives
// the most work per instruction and per byte of shared memory read; two warpgroups per SM keep
// the Tensor Cores fed while one waits. No swizzle, K-major A and B: the simplest canonical
// layout (wgmma_peak.hpp explains it and its descriptor). As in mma_peak.cu the accumulator
// alternates A·(-B) and A·B, so after any number of instructions it holds exactly A·B, checked
// against the host for every element of every warpgroup: a layout mistake fails the check. And
// as there, each warpgroup stores its loop's trip count (work_count.hpp), which the host
// requires to be `pairs`: the check of A·B cannot see how many instructions ran.
//
// Written without a Hopper GPU at hand: the layout reasoning follows the PTX ISA (9.7.15.5.1)
// and the first H200 run settles it.

#include "gpuspec/kernels/wgmma_peak.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <cuda_runtime.h>

#include "gpuspec/kernels/cuda_check.cuh"
#include "gpuspec/kernels/work_count.cuh"

// wgmma needs the architecture-specific target sm_90a (__CUDA_ARCH_FEAT_SM90_ALL).
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define GPUSPEC_WGMMA_COMPILED 1
#else
#define GPUSPEC_WGMMA_COMPILED 0
#endif

// The 128 accumulator operands of an m64n256 wgmma: the register list in the PTX text and the
// matching "+f" / "+r" constraints on d[0..127].
#define GPUSPEC_WGMMA_D128_TEXT                                                                    \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "                        \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "               \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "               \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "               \
  "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "               \
  "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "               \
  "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, "         \
  "%111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, "     \
  "%126, %127}"
#define GPUSPEC_WGMMA_D4(C, d, i) "+" C(d[i]), "+" C(d[i + 1]), "+" C(d[i + 2]), "+" C(d[i + 3])
#define GPUSPEC_WGMMA_D16(C, d, i)                                                                 \
  GPUSPEC_WGMMA_D4(C, d, i), GPUSPEC_WGMMA_D4(C, d, i + 4), GPUSPEC_WGMMA_D4(C, d, i + 8),         \
      GPUSPEC_WGMMA_D4(C, d, i + 12)
#define GPUSPEC_WGMMA_D128(C, d)                                                                   \
  GPUSPEC_WGMMA_D16(C, d, 0), GPUSPEC_WGMMA_D16(C, d, 16), GPUSPEC_WGMMA_D16(C, d, 32),            \
      GPUSPEC_WGMMA_D16(C, d, 48), GPUSPEC_WGMMA_D16(C, d, 64), GPUSPEC_WGMMA_D16(C, d, 80),       \
      GPUSPEC_WGMMA_D16(C, d, 96), GPUSPEC_WGMMA_D16(C, d, 112)

namespace gpuspec::kernels {

namespace wgmma_detail {

static_assert(wgmma_d_regs == 128, "the asm operand lists below are written for m64n256");

// Operands after the 128 accumulators: %128 a-desc, %129 b-desc, %130 scale-d (1: D = A·B + D).
// The immediates: imm-scale-a = imm-scale-b = 1 (no negation), imm-trans-a = imm-trans-b = 0
// (both K-major; only f16/bf16 take the transpose operands, int8 takes no scale operands).
template <tc_dtype T> struct wgmma_op;

template <> struct wgmma_op<tc_dtype::fp16> {
  using acc_t = float;
  __device__ __forceinline__ static void run(float (&d)[128], std::uint64_t a_desc,
                                             std::uint64_t b_desc) {
#if GPUSPEC_WGMMA_COMPILED
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 " GPUSPEC_WGMMA_D128_TEXT
                 ", %128, %129, p, 1, 1, 0, 0;\n}\n"
                 : GPUSPEC_WGMMA_D128("f", d)
                 : "l"(a_desc), "l"(b_desc), "r"(1));
#else
    (void)d, (void)a_desc, (void)b_desc;
#endif
  }
};

template <> struct wgmma_op<tc_dtype::bf16> {
  using acc_t = float;
  __device__ __forceinline__ static void run(float (&d)[128], std::uint64_t a_desc,
                                             std::uint64_t b_desc) {
#if GPUSPEC_WGMMA_COMPILED
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 " GPUSPEC_WGMMA_D128_TEXT
                 ", %128, %129, p, 1, 1, 0, 0;\n}\n"
                 : GPUSPEC_WGMMA_D128("f", d)
                 : "l"(a_desc), "l"(b_desc), "r"(1));
#else
    (void)d, (void)a_desc, (void)b_desc;
#endif
  }
};

template <> struct wgmma_op<tc_dtype::tf32> {
  using acc_t = float;
  __device__ __forceinline__ static void run(float (&d)[128], std::uint64_t a_desc,
                                             std::uint64_t b_desc) {
#if GPUSPEC_WGMMA_COMPILED
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 " GPUSPEC_WGMMA_D128_TEXT
                 ", %128, %129, p, 1, 1;\n}\n"
                 : GPUSPEC_WGMMA_D128("f", d)
                 : "l"(a_desc), "l"(b_desc), "r"(1));
#else
    (void)d, (void)a_desc, (void)b_desc;
#endif
  }
};

template <> struct wgmma_op<tc_dtype::fp8_e4m3> {
  using acc_t = float;
  __device__ __forceinline__ static void run(float (&d)[128], std::uint64_t a_desc,
                                             std::uint64_t b_desc) {
#if GPUSPEC_WGMMA_COMPILED
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3 " GPUSPEC_WGMMA_D128_TEXT
                 ", %128, %129, p, 1, 1;\n}\n"
                 : GPUSPEC_WGMMA_D128("f", d)
                 : "l"(a_desc), "l"(b_desc), "r"(1));
#else
    (void)d, (void)a_desc, (void)b_desc;
#endif
  }
};

template <> struct wgmma_op<tc_dtype::fp8_e5m2> {
  using acc_t = float;
  __device__ __forceinline__ static void run(float (&d)[128], std::uint64_t a_desc,
                                             std::uint64_t b_desc) {
#if GPUSPEC_WGMMA_COMPILED
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n256k32.f32.e5m2.e5m2 " GPUSPEC_WGMMA_D128_TEXT
                 ", %128, %129, p, 1, 1;\n}\n"
                 : GPUSPEC_WGMMA_D128("f", d)
                 : "l"(a_desc), "l"(b_desc), "r"(1));
#else
    (void)d, (void)a_desc, (void)b_desc;
#endif
  }
};

template <> struct wgmma_op<tc_dtype::int8> {
  using acc_t = int;
  __device__ __forceinline__ static void run(int (&d)[128], std::uint64_t a_desc,
                                             std::uint64_t b_desc) {
#if GPUSPEC_WGMMA_COMPILED
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n256k32.s32.s8.s8 " GPUSPEC_WGMMA_D128_TEXT
                 ", %128, %129, p;\n}\n"
                 : GPUSPEC_WGMMA_D128("r", d)
                 : "l"(a_desc), "l"(b_desc), "r"(1));
#else
    (void)d, (void)a_desc, (void)b_desc;
#endif
  }
};

/// Keeps the compiler from moving accesses to the accumulators across this point (CUTLASS's
/// warpgroup_fence_operand): the registers are in flight between a wgmma and its wait.
template <class A> __device__ __forceinline__ void fence_operands(A (&d)[128]) {
#pragma unroll
  for (int i = 0; i < 128; ++i) {
    if constexpr (std::is_same_v<A, float>)
      asm volatile("" : "+f"(d[i])::"memory");
    else
      asm volatile("" : "+r"(d[i])::"memory");
  }
}

__device__ __forceinline__ void wgmma_fence() {
#if GPUSPEC_WGMMA_COMPILED
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#endif
}
__device__ __forceinline__ void wgmma_commit() {
#if GPUSPEC_WGMMA_COMPILED
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
#endif
}
template <int N> __device__ __forceinline__ void wgmma_wait() {
#if GPUSPEC_WGMMA_COMPILED
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
#endif
}
/// Makes `x` opaque to the compiler from here on, so it stays one register computed once. Without
/// it the compiler recomputed the -B descriptor on every trip of the pairs loop: five uniform
/// instructions per trip beside the two wgmma (sm_90a, CUDA 13.0; int8 did so before the loop
/// was counted, every type since). With it the loop is the two wgmma, the fence, three moves and
/// the counter's add, compare and branch. No instruction is emitted.
__device__ __forceinline__ void keep_computed(std::uint64_t& x) { asm("" : "+l"(x)); }

/// Makes this thread's generic-proxy writes to shared memory visible to the async proxy, which
/// wgmma reads its operands through.
__device__ __forceinline__ void fence_proxy_async_shared() {
#if GPUSPEC_WGMMA_COMPILED
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#endif
}

__device__ __forceinline__ std::uint32_t to_word(float x) { return __float_as_uint(x); }
__device__ __forceinline__ std::uint32_t to_word(int x) { return static_cast<std::uint32_t>(x); }

/// Copies `rows` rows of 32 bytes from global memory into the K-major core-matrix layout, in
/// 16-byte pieces, all threads of the block sharing the work.
__device__ __forceinline__ void copy_operand(std::uint8_t* __restrict__ smem,
                                             const std::uint8_t* __restrict__ rows_global,
                                             int rows) {
  const uint4* src = reinterpret_cast<const uint4*>(rows_global);
  for (int piece = static_cast<int>(threadIdx.x); piece < rows * 2;
       piece += static_cast<int>(blockDim.x)) {
    const int row = piece / 2, chunk = piece % 2;
    *reinterpret_cast<uint4*>(smem + wgmma_smem_offset(row, chunk)) = src[piece];
  }
}

/// Extra instructions in flight per warpgroup: the loop commits one group per pair (2 wgmma)
/// and waits until at most this many groups are pending.
constexpr int groups_in_flight = 2;

template <tc_dtype T>
__device__ __forceinline__ void wgmma_peak_body(
    const std::uint8_t* __restrict__ a_rows, const std::uint8_t* __restrict__ b_pos_rows,
    const std::uint8_t* __restrict__ b_neg_rows, std::uint32_t* __restrict__ out,
    std::uint32_t* __restrict__ trips, std::uint32_t* __restrict__ status, std::uint32_t pairs) {
#if GPUSPEC_WGMMA_COMPILED
  using op = wgmma_op<T>;
  using acc_t = typename op::acc_t;
  // 16-byte alignment is what the descriptors need; 128 keeps each core matrix in one line.
  __shared__ alignas(128) std::uint8_t smem_a[wgmma_m * wgmma_row_bytes];
  __shared__ alignas(128) std::uint8_t smem_b_pos[wgmma_n * wgmma_row_bytes];
  __shared__ alignas(128) std::uint8_t smem_b_neg[wgmma_n * wgmma_row_bytes];

  copy_operand(smem_a, a_rows, wgmma_m);
  copy_operand(smem_b_pos, b_pos_rows, wgmma_n);
  copy_operand(smem_b_neg, b_neg_rows, wgmma_n);
  fence_proxy_async_shared();
  __syncthreads();

  const auto address = [](const void* p) {
    return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
  };
  const std::uint64_t a_desc = wgmma_descriptor(address(smem_a), wgmma_lbo_bytes, wgmma_sbo_bytes);
  const std::uint64_t b_pos_desc =
      wgmma_descriptor(address(smem_b_pos), wgmma_lbo_bytes, wgmma_sbo_bytes);
  std::uint64_t b_neg_desc =
      wgmma_descriptor(address(smem_b_neg), wgmma_lbo_bytes, wgmma_sbo_bytes);

  acc_t d[128];
#pragma unroll
  for (int i = 0; i < 128; ++i)
    d[i] = acc_t(0);

  // The accumulators were written by ordinary instructions: wgmma.fence orders those writes
  // before the first wgmma. Between wgmma instructions on the same accumulators no fence is
  // needed (the PTX ISA orders same-shape accumulator accesses).
  fence_operands(d);
  wgmma_fence();
  op::run(d, a_desc, b_pos_desc); // D = A·B (D was 0)
  wgmma_commit();
  std::uint32_t p = 0; // the warpgroup's work counter (count_trip), stored after the loop
  keep_computed(b_neg_desc);
#pragma unroll 1
  for (; p < pairs; count_trip(p)) {
    op::run(d, a_desc, b_neg_desc); // D = A·(-B) + D = 0
    op::run(d, a_desc, b_pos_desc); // D = A·B + D = A·B
    wgmma_commit();
    wgmma_wait<groups_in_flight>();
  }
  wgmma_wait<0>();
  fence_operands(d);

  // The warpgroup's tile, row-major 64×256: tile (block · 2 + warpgroup).
  const unsigned warpgroup = threadIdx.x / 128;
  const int thread = static_cast<int>(threadIdx.x % 128);
  std::uint32_t* tile =
      out + (static_cast<std::size_t>(blockIdx.x) * wgmma_warpgroups_per_block + warpgroup) *
                (wgmma_m * wgmma_n);
#pragma unroll
  for (int i = 0; i < 128; ++i) {
    const matrix_coord at = wgmma_d_coord(thread, i);
    tile[at.row * wgmma_n + at.col] = to_word(d[i]);
  }
  if (thread == 0)
    trips[static_cast<std::size_t>(blockIdx.x) * wgmma_warpgroups_per_block + warpgroup] = p;
  if (blockIdx.x == 0 && threadIdx.x == 0)
    *status = static_cast<std::uint32_t>(__CUDA_ARCH__);
#else
  (void)a_rows, (void)b_pos_rows, (void)b_neg_rows, (void)out, (void)trips, (void)pairs;
#if defined(__CUDA_ARCH__)
  if (blockIdx.x == 0 && threadIdx.x == 0)
    *status = tc_status_missing | static_cast<std::uint32_t>(__CUDA_ARCH__);
#else
  (void)status;
#endif
#endif
}

} // namespace wgmma_detail

namespace {

using wgmma_detail::wgmma_peak_body;

// One kernel per instruction, named after it (the static-evidence check finds them by name).
#define GPUSPEC_WGMMA_PEAK_KERNEL(NAME, DTYPE)                                                     \
  __global__ void __launch_bounds__(wgmma_block_threads, 1)                                        \
      NAME(const std::uint8_t* __restrict__ a_rows, const std::uint8_t* __restrict__ b_pos_rows,   \
           const std::uint8_t* __restrict__ b_neg_rows, std::uint32_t* __restrict__ out,           \
           std::uint32_t* __restrict__ trips, std::uint32_t* __restrict__ status,                  \
           std::uint32_t pairs) {                                                                  \
    wgmma_peak_body<DTYPE>(a_rows, b_pos_rows, b_neg_rows, out, trips, status, pairs);             \
  }

GPUSPEC_WGMMA_PEAK_KERNEL(wgmma_peak_fp16_m64n256k16, tc_dtype::fp16)
GPUSPEC_WGMMA_PEAK_KERNEL(wgmma_peak_bf16_m64n256k16, tc_dtype::bf16)
GPUSPEC_WGMMA_PEAK_KERNEL(wgmma_peak_tf32_m64n256k8, tc_dtype::tf32)
GPUSPEC_WGMMA_PEAK_KERNEL(wgmma_peak_int8_m64n256k32, tc_dtype::int8)
GPUSPEC_WGMMA_PEAK_KERNEL(wgmma_peak_fp8_m64n256k32, tc_dtype::fp8_e4m3)
GPUSPEC_WGMMA_PEAK_KERNEL(wgmma_peak_e5m2_m64n256k32, tc_dtype::fp8_e5m2)
#undef GPUSPEC_WGMMA_PEAK_KERNEL

using wgmma_kernel = void (*)(const std::uint8_t*, const std::uint8_t*, const std::uint8_t*,
                              std::uint32_t*, std::uint32_t*, std::uint32_t*, std::uint32_t);

wgmma_kernel kernel_of(tc_dtype t) {
  switch (t) {
  case tc_dtype::fp16:
    return wgmma_peak_fp16_m64n256k16;
  case tc_dtype::bf16:
    return wgmma_peak_bf16_m64n256k16;
  case tc_dtype::tf32:
    return wgmma_peak_tf32_m64n256k8;
  case tc_dtype::int8:
    return wgmma_peak_int8_m64n256k32;
  case tc_dtype::fp8_e4m3:
    return wgmma_peak_fp8_m64n256k32;
  case tc_dtype::fp8_e5m2:
    return wgmma_peak_e5m2_m64n256k32;
  default: // no kernel (wgmma_has)
    break;
  }
  throw std::invalid_argument("wgmma_peak: unknown type");
}

void require_aligned16(const void* p, const char* what) {
  if (p == nullptr || reinterpret_cast<std::uintptr_t>(p) % 16 != 0)
    throw std::invalid_argument(std::string("launch_wgmma_peak: ")
                                    .append(what)
                                    .append(" must be 16-byte aligned device memory"));
}

} // namespace

bool wgmma_peak_built() { return true; }

wgmma_peak_launch prepare_wgmma_peak(tc_dtype t) {
  const wgmma_kernel kernel = kernel_of(t);
  wgmma_peak_launch prepared;
  prepared.dtype = t;
  int major = 0, minor = 0, sms = 0, per_sm = 0;
  GPUSPEC_CUDA_CHECK(cudaGetDevice(&prepared.device));
  GPUSPEC_CUDA_CHECK(
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, prepared.device));
  GPUSPEC_CUDA_CHECK(
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, prepared.device));
  if (major != 9 || minor != 0)
    throw std::invalid_argument(std::string("prepare_wgmma_peak: the sm_90a kernels run on "
                                            "compute capability 9.0 only; this device is ")
                                    .append(std::to_string(major))
                                    .append(".")
                                    .append(std::to_string(minor)));
  GPUSPEC_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, prepared.device));
  GPUSPEC_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &per_sm, kernel, static_cast<int>(wgmma_block_threads), 0));
  prepared.blocks =
      static_cast<unsigned>(sms > 0 ? sms : 1) * static_cast<unsigned>(per_sm > 0 ? per_sm : 1);
  return prepared;
}

void launch_wgmma_peak(const wgmma_peak_launch& prepared, const std::uint8_t* a_rows,
                       const std::uint8_t* b_pos_rows, const std::uint8_t* b_neg_rows,
                       std::uint32_t* out, std::uint32_t* trips, std::uint32_t* status,
                       unsigned blocks, std::uint32_t pairs, stream_handle stream) {
  require_aligned16(a_rows, "a_rows");
  require_aligned16(b_pos_rows, "b_pos_rows");
  require_aligned16(b_neg_rows, "b_neg_rows");
  if (out == nullptr || trips == nullptr || status == nullptr)
    throw std::invalid_argument("launch_wgmma_peak: out, trips and status must be device memory");
  if (blocks == 0)
    throw std::invalid_argument("launch_wgmma_peak: blocks must be at least 1");
  if (pairs > tc_max_pairs)
    throw std::invalid_argument("launch_wgmma_peak: at most " + std::to_string(tc_max_pairs) +
                                " pairs, got " + std::to_string(pairs));
  if (prepared.device < 0)
    throw std::invalid_argument("launch_wgmma_peak: not prepared (prepare_wgmma_peak)");
  // The one runtime call per launch: which device is current (no attribute query).
  int device = 0;
  GPUSPEC_CUDA_CHECK(cudaGetDevice(&device));
  if (device != prepared.device)
    throw std::invalid_argument("launch_wgmma_peak: prepared on device " +
                                std::to_string(prepared.device) + ", launched on device " +
                                std::to_string(device));
  const wgmma_kernel kernel = kernel_of(prepared.dtype);
  kernel<<<blocks, wgmma_block_threads, 0, stream>>>(a_rows, b_pos_rows, b_neg_rows, out, trips,
                                                     status, pairs);
  GPUSPEC_CUDA_CHECK_LAUNCH();
}

} // namespace gpuspec::kernels

#undef GPUSPEC_WGMMA_D128
#undef GPUSPEC_WGMMA_D16
#undef GPUSPEC_WGMMA_D4
#undef GPUSPEC_WGMMA_D128_TEXT
#undef GPUSPEC_WGMMA_COMPILED
