// Tensor Core peak on Blackwell datacenter GPUs with tcgen05.mma: fp16, bf16, tf32, fp8 (e4m3,
// e5m2), fp6 (e3m2, e2m3) and fp4 (e2m1).
//
// What it measures: the dense fifth-generation Tensor Core throughput of compute capability 10.0
// and 10.3 (B200, B300), which only tcgen05.mma reaches: mma.sync there runs the older path, and
// fp8 mma.sync is even converted to fp16 (kernels::mma_sync_fp8_native). Each block allocates
// 256 columns of tensor memory for one 128×256 FP32 accumulator; one thread issues
// m128n256kK tcgen05.mma instructions back to back with A and B read from shared memory through
// matrix descriptors, and commits them to an mbarrier that the block waits on before it reads
// the accumulator out of tensor memory. Bound by the Tensor Cores alone: the operands (4 KiB of
// A, 2 × 8 KiB of B and -B) are copied into shared memory once, and the loop touches no other
// memory. Two blocks per SM fill its 512 tensor-memory columns, so one block's read-out and
// launch overlap the other's MMAs.
//
// Hardware: compute capability 10.x. Compiled for the family-specific target sm_100f alone (one
// cubin for 10.0 and 10.3; tcgen05.mma kind::f16, tf32 and f8f6f4 exist on sm_100f and sm_103f,
// PTX ISA 8.8), by kernels/CMakeLists.txt; tcgen05_peak_absent.cpp stands in when it is not.
//
// Why this design: as in wgmma_peak.cu, the accumulator alternates A·(-B) and A·B, so after any
// number of instructions it holds exactly A·B, checked against the host for every element of
// every block: a wrong descriptor, layout or tensor-memory map fails the check. The issuing
// thread stores its loop's trip count (work_count.hpp), which the host requires to be `pairs`.
//
// Written without a Blackwell GPU: compiled, checked statically (scripts/inspect-kernels.py:
// UTC*MMA, the tensor-memory allocation and the commit in the SASS) and reviewed against the PTX
// ISA (tcgen05 sections of PTX ISA 8.8/9.0), never run here (docs/measurement.md).

#include "gpuspec/kernels/tcgen05_peak.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include <cuda_runtime.h>

#include "gpuspec/kernels/cuda_check.cuh"
#include "gpuspec/kernels/work_count.cuh"

// tcgen05 needs an architecture- or family-specific target of the 10.x family.
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FAMILY_SPECIFIC__) &&                            \
    __CUDA_ARCH_FAMILY_SPECIFIC__ >= 1000 && __CUDA_ARCH_FAMILY_SPECIFIC__ < 1100
#define GPUSPEC_TCGEN05_COMPILED 1
#else
#define GPUSPEC_TCGEN05_COMPILED 0
#endif

namespace gpuspec::kernels {

namespace tcgen05_detail {

/// Bytes of the operands in dynamic shared memory: A, then B, then -B.
constexpr std::uint32_t a_bytes = tcgen05_m * tcgen05_row_bytes;
constexpr std::uint32_t b_bytes = tcgen05_n * tcgen05_row_bytes;
constexpr std::uint32_t operand_bytes = a_bytes + 2 * b_bytes;
// The launch's dynamic shared memory holds at least the operands (tcgen05_peak.hpp).
static_assert(tcgen05_dynamic_smem_bytes(0, 1 << 20) == static_cast<int>(operand_bytes));

#if GPUSPEC_TCGEN05_COMPILED
/// One tcgen05.mma of kind `Kind` (0 f16, 1 tf32, 2 f8f6f4): D (tensor memory) = A·B + D, or A·B
/// where `accumulate` is 0. Issued by one thread.
template <int Kind>
__device__ __forceinline__ void mma(std::uint32_t d_tmem, std::uint64_t a_desc,
                                    std::uint64_t b_desc, std::uint32_t idesc,
                                    std::uint32_t accumulate) {
  if constexpr (Kind == 0)
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %4, 0;\n"
                 "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\n}\n" ::"r"(d_tmem),
                 "l"(a_desc), "l"(b_desc), "r"(idesc), "r"(accumulate));
  else if constexpr (Kind == 1)
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %4, 0;\n"
                 "tcgen05.mma.cta_group::1.kind::tf32 [%0], %1, %2, %3, p;\n}\n" ::"r"(d_tmem),
                 "l"(a_desc), "l"(b_desc), "r"(idesc), "r"(accumulate));
  else
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %4, 0;\n"
                 "tcgen05.mma.cta_group::1.kind::f8f6f4 [%0], %1, %2, %3, p;\n}\n" ::"r"(d_tmem),
                 "l"(a_desc), "l"(b_desc), "r"(idesc), "r"(accumulate));
}

/// Waits until phase `parity` of the mbarrier at shared address `bar` has completed.
__device__ __forceinline__ void mbarrier_wait(std::uint32_t bar, std::uint32_t parity) {
  std::uint32_t done = 0;
  do {
    asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                 "selp.u32 %0, 1, 0, p;\n}\n"
                 : "=r"(done)
                 : "r"(bar), "r"(parity)
                 : "memory");
  } while (done == 0);
}

/// Reads 32 consecutive FP32 columns of this warp's 32 tensor-memory lanes (thread i: lane i of
/// the warp's quarter) into r, and waits for the load.
__device__ __forceinline__ void tmem_load_32(std::uint32_t taddr, std::uint32_t (&r)[32]) {
  asm volatile("tcgen05.ld.sync.aligned.32x32b.x32.b32 "
               "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
               "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
               "[%32];\n"
               "tcgen05.wait::ld.sync.aligned;\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]),
                 "=r"(r[7]), "=r"(r[8]), "=r"(r[9]), "=r"(r[10]), "=r"(r[11]), "=r"(r[12]),
                 "=r"(r[13]), "=r"(r[14]), "=r"(r[15]), "=r"(r[16]), "=r"(r[17]), "=r"(r[18]),
                 "=r"(r[19]), "=r"(r[20]), "=r"(r[21]), "=r"(r[22]), "=r"(r[23]), "=r"(r[24]),
                 "=r"(r[25]), "=r"(r[26]), "=r"(r[27]), "=r"(r[28]), "=r"(r[29]), "=r"(r[30]),
                 "=r"(r[31])
               : "r"(taddr)
               : "memory");
}

/// Makes `x` opaque to the compiler, so it stays one register computed once (wgmma_peak.cu).
__device__ __forceinline__ void keep_computed(std::uint64_t& x) { asm("" : "+l"(x)); }

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

/// Thread 0 issues the MMAs: D = A·B, then pairs × (D += A·(-B); D += A·B), and commits them to
/// the mbarrier at `bar`. Returns the trips its loop ran.
template <tc_dtype T>
__device__ __forceinline__ std::uint32_t issue(std::uint32_t d_tmem, std::uint32_t smem_a,
                                               std::uint32_t smem_b_pos, std::uint32_t smem_b_neg,
                                               std::uint32_t bar, std::uint32_t pairs) {
  constexpr int kind = T == tc_dtype::fp16 || T == tc_dtype::bf16 ? 0 : T == tc_dtype::tf32 ? 1 : 2;
  constexpr std::uint32_t idesc = tcgen05_instruction_descriptor(T, tcgen05_m, tcgen05_n);
  const std::uint64_t a_desc = tcgen05_smem_descriptor(smem_a, wgmma_lbo_bytes, wgmma_sbo_bytes);
  const std::uint64_t b_pos_desc =
      tcgen05_smem_descriptor(smem_b_pos, wgmma_lbo_bytes, wgmma_sbo_bytes);
  std::uint64_t b_neg_desc = tcgen05_smem_descriptor(smem_b_neg, wgmma_lbo_bytes, wgmma_sbo_bytes);
  mma<kind>(d_tmem, a_desc, b_pos_desc, idesc, 0); // D = A·B
  std::uint32_t p = 0;
  keep_computed(b_neg_desc);
#pragma unroll 1
  for (; p < pairs; count_trip(p)) {
    mma<kind>(d_tmem, a_desc, b_neg_desc, idesc, 1); // D = A·(-B) + D = 0
    mma<kind>(d_tmem, a_desc, b_pos_desc, idesc, 1); // D = A·B + D = A·B
  }
  // Arrives on the mbarrier once every MMA this thread issued has completed.
  asm volatile(
      "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];\n" ::"r"(bar)
      : "memory");
  return p;
}
#endif

template <tc_dtype T>
__device__ __forceinline__ void tcgen05_peak_body(
    const std::uint8_t* __restrict__ a_rows, const std::uint8_t* __restrict__ b_pos_rows,
    const std::uint8_t* __restrict__ b_neg_rows, std::uint32_t* __restrict__ out,
    std::uint32_t* __restrict__ trips, std::uint32_t* __restrict__ status, std::uint32_t pairs) {
#if GPUSPEC_TCGEN05_COMPILED
  extern __shared__ __align__(128) std::uint8_t smem[];
  __shared__ std::uint32_t tmem_base_slot;
  __shared__ __align__(8) std::uint64_t mma_done;
  const auto address = [](const void* p) {
    return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
  };
  const unsigned warp = threadIdx.x / 32;
  const std::uint32_t bar = address(&mma_done);

  // Warp 0 allocates the accumulator's columns (the address lands in tmem_base_slot) and gives
  // up the right to allocate more, so a block waiting in its own tcgen05.alloc can proceed.
  if (warp == 0) {
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], %1;\n" ::"r"(
                     address(&tmem_base_slot)),
                 "r"(tcgen05_tmem_columns)
                 : "memory");
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\n" ::: "memory");
  }
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(bar) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  copy_operand(smem, a_rows, tcgen05_m);
  copy_operand(smem + a_bytes, b_pos_rows, tcgen05_n);
  copy_operand(smem + a_bytes + b_bytes, b_neg_rows, tcgen05_n);
  // The operands were written through the generic proxy; tcgen05.mma reads them through the
  // async proxy. The allocation's result crosses threads: the tcgen05 fences around the barrier.
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  asm volatile("tcgen05.fence::before_thread_sync;\n" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;\n" ::: "memory");
  const std::uint32_t d_tmem = tmem_base_slot;

  std::uint32_t p = 0;
  if (threadIdx.x == 0)
    p = issue<T>(d_tmem, address(smem), address(smem + a_bytes), address(smem + a_bytes + b_bytes),
                 bar, pairs);
  mbarrier_wait(bar, 0);
  asm volatile("tcgen05.fence::after_thread_sync;\n" ::: "memory");
  __syncwarp();

  // D's row m is tensor-memory lane m (M = 128, cta_group::1), column n column n. Warp w may read
  // lanes 32w..32w+31 only: lane field (bits 16-31) 32w, column field (bits 0-15) the column.
  std::uint32_t* tile = out + static_cast<std::size_t>(blockIdx.x) * (tcgen05_m * tcgen05_n);
  const unsigned row = 32 * warp + threadIdx.x % 32;
#pragma unroll 1
  for (std::uint32_t col = 0; col < static_cast<std::uint32_t>(tcgen05_n); col += 32) {
    std::uint32_t r[32];
    tmem_load_32(d_tmem + ((32 * warp) << 16) + col, r);
#pragma unroll
    for (int j = 0; j < 32; ++j)
      tile[row * tcgen05_n + col + static_cast<unsigned>(j)] = r[j];
  }

  asm volatile("tcgen05.fence::before_thread_sync;\n" ::: "memory");
  __syncthreads();
  if (warp == 0)
    asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, %1;\n" ::"r"(d_tmem),
                 "r"(tcgen05_tmem_columns)
                 : "memory");
  if (threadIdx.x == 0) {
    trips[blockIdx.x] = p;
    if (blockIdx.x == 0)
      *status = static_cast<std::uint32_t>(__CUDA_ARCH__);
  }
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

} // namespace tcgen05_detail

namespace {

using tcgen05_detail::tcgen05_peak_body;

// One kernel per type, named after its instruction shape (the static-evidence check finds them).
#define GPUSPEC_TCGEN05_PEAK_KERNEL(NAME, DTYPE)                                                   \
  __global__ void __launch_bounds__(tcgen05_block_threads, 1)                                      \
      NAME(const std::uint8_t* __restrict__ a_rows, const std::uint8_t* __restrict__ b_pos_rows,   \
           const std::uint8_t* __restrict__ b_neg_rows, std::uint32_t* __restrict__ out,           \
           std::uint32_t* __restrict__ trips, std::uint32_t* __restrict__ status,                  \
           std::uint32_t pairs) {                                                                  \
    tcgen05_peak_body<DTYPE>(a_rows, b_pos_rows, b_neg_rows, out, trips, status, pairs);           \
  }

GPUSPEC_TCGEN05_PEAK_KERNEL(tcgen05_peak_fp16_m128n256k16, tc_dtype::fp16)
GPUSPEC_TCGEN05_PEAK_KERNEL(tcgen05_peak_bf16_m128n256k16, tc_dtype::bf16)
GPUSPEC_TCGEN05_PEAK_KERNEL(tcgen05_peak_tf32_m128n256k8, tc_dtype::tf32)
GPUSPEC_TCGEN05_PEAK_KERNEL(tcgen05_peak_e4m3_m128n256k32, tc_dtype::fp8_e4m3)
GPUSPEC_TCGEN05_PEAK_KERNEL(tcgen05_peak_e5m2_m128n256k32, tc_dtype::fp8_e5m2)
GPUSPEC_TCGEN05_PEAK_KERNEL(tcgen05_peak_e3m2_m128n256k32, tc_dtype::fp6_e3m2)
GPUSPEC_TCGEN05_PEAK_KERNEL(tcgen05_peak_e2m3_m128n256k32, tc_dtype::fp6_e2m3)
GPUSPEC_TCGEN05_PEAK_KERNEL(tcgen05_peak_e2m1_m128n256k32, tc_dtype::fp4_e2m1)
#undef GPUSPEC_TCGEN05_PEAK_KERNEL

using tcgen05_kernel = void (*)(const std::uint8_t*, const std::uint8_t*, const std::uint8_t*,
                                std::uint32_t*, std::uint32_t*, std::uint32_t*, std::uint32_t);

tcgen05_kernel kernel_of(tc_dtype t) {
  switch (t) {
  case tc_dtype::fp16:
    return tcgen05_peak_fp16_m128n256k16;
  case tc_dtype::bf16:
    return tcgen05_peak_bf16_m128n256k16;
  case tc_dtype::tf32:
    return tcgen05_peak_tf32_m128n256k8;
  case tc_dtype::fp8_e4m3:
    return tcgen05_peak_e4m3_m128n256k32;
  case tc_dtype::fp8_e5m2:
    return tcgen05_peak_e5m2_m128n256k32;
  case tc_dtype::fp6_e3m2:
    return tcgen05_peak_e3m2_m128n256k32;
  case tc_dtype::fp6_e2m3:
    return tcgen05_peak_e2m3_m128n256k32;
  case tc_dtype::fp4_e2m1:
    return tcgen05_peak_e2m1_m128n256k32;
  case tc_dtype::int8:
    break;
  }
  throw std::invalid_argument(std::string("tcgen05_peak: no kernel for ").append(tc_dtype_name(t)));
}

void require_aligned16(const void* p, const char* what) {
  if (p == nullptr || reinterpret_cast<std::uintptr_t>(p) % 16 != 0)
    throw std::invalid_argument(std::string("launch_tcgen05_peak: ")
                                    .append(what)
                                    .append(" must be 16-byte aligned device memory"));
}

} // namespace

bool tcgen05_peak_built() { return true; }

tcgen05_peak_launch prepare_tcgen05_peak(tc_dtype t) {
  const tcgen05_kernel kernel = kernel_of(t);
  tcgen05_peak_launch prepared;
  prepared.dtype = t;
  int major = 0, sms = 0, per_sm = 0, per_block = 0, resident = 0;
  GPUSPEC_CUDA_CHECK(cudaGetDevice(&prepared.device));
  GPUSPEC_CUDA_CHECK(
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, prepared.device));
  if (major != 10)
    throw std::invalid_argument("prepare_tcgen05_peak: the sm_100f kernels run on compute "
                                "capability 10.x only; this device is " +
                                std::to_string(major) + ".x");
  GPUSPEC_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, prepared.device));
  GPUSPEC_CUDA_CHECK(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor,
                                            prepared.device));
  GPUSPEC_CUDA_CHECK(
      cudaDeviceGetAttribute(&per_block, cudaDevAttrMaxSharedMemoryPerBlockOptin, prepared.device));
  prepared.dynamic_smem_bytes = tcgen05_dynamic_smem_bytes(per_sm, per_block);
  GPUSPEC_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          prepared.dynamic_smem_bytes));
  GPUSPEC_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &resident, kernel, static_cast<int>(tcgen05_block_threads),
      static_cast<std::size_t>(prepared.dynamic_smem_bytes)));
  prepared.blocks =
      static_cast<unsigned>(sms > 0 ? sms : 1) *
      std::clamp(static_cast<unsigned>(resident > 0 ? resident : 1), 1u, tcgen05_blocks_per_sm);
  return prepared;
}

void launch_tcgen05_peak(const tcgen05_peak_launch& prepared, const std::uint8_t* a_rows,
                         const std::uint8_t* b_pos_rows, const std::uint8_t* b_neg_rows,
                         std::uint32_t* out, std::uint32_t* trips, std::uint32_t* status,
                         unsigned blocks, std::uint32_t pairs, stream_handle stream) {
  require_aligned16(a_rows, "a_rows");
  require_aligned16(b_pos_rows, "b_pos_rows");
  require_aligned16(b_neg_rows, "b_neg_rows");
  if (out == nullptr || trips == nullptr || status == nullptr)
    throw std::invalid_argument("launch_tcgen05_peak: out, trips and status must be device memory");
  if (blocks == 0)
    throw std::invalid_argument("launch_tcgen05_peak: blocks must be at least 1");
  if (pairs > tc_max_pairs)
    throw std::invalid_argument("launch_tcgen05_peak: at most " + std::to_string(tc_max_pairs) +
                                " pairs, got " + std::to_string(pairs));
  if (prepared.device < 0)
    throw std::invalid_argument("launch_tcgen05_peak: not prepared (prepare_tcgen05_peak)");
  const tcgen05_kernel kernel = kernel_of(prepared.dtype);
  // The one runtime call per launch: which device is current (no attribute query, no attribute
  // set: the kernel's dynamic shared-memory limit was set on this device by prepare).
  int device = 0;
  GPUSPEC_CUDA_CHECK(cudaGetDevice(&device));
  if (device != prepared.device)
    throw std::invalid_argument("launch_tcgen05_peak: prepared on device " +
                                std::to_string(prepared.device) + ", launched on device " +
                                std::to_string(device));
  kernel<<<blocks, tcgen05_block_threads, static_cast<std::size_t>(prepared.dynamic_smem_bytes),
           stream>>>(a_rows, b_pos_rows, b_neg_rows, out, trips, status, pairs);
  GPUSPEC_CUDA_CHECK_LAUNCH();
}

} // namespace gpuspec::kernels

#undef GPUSPEC_TCGEN05_COMPILED
