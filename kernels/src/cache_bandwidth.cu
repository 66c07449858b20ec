// Cache bandwidth kernels: reads from a working set held in L2, and reads from shared memory.
//
// What they measure: the bandwidth at which all SMs together read from L2 (cache.l2.read) and
// from their shared memory (cache.shared). Bound by the L2 (its slices and the crossbar to the
// SMs) and by the shared-memory banks respectively; neither does more arithmetic than one
// integer add per word read. Any architecture the build targets (sm_75 on): 16-byte loads and
// 16 KiB of static shared memory per block.
//
// Both kernels add what they read as unsigned integers into four accumulators per thread (so
// no load is dead and the adds form four short independent chains), then reduce each warp with
// shuffles and write one sum per warp. Integer sums are exact, so the host predicts a launch's
// total bit for bit from the seeds.
//
// The loads are inline PTX, for two reasons. Each pass reads the same addresses and no store
// intervenes, so a compiler that saw that could load once and multiply; and the PTX states the
// cache operator explicitly:
//  - L2: ld.global.cg.v4.u32 (SASS LDG.E.128.STRONG.GPU). Cached in L2, never in L1: every
//    thread rereads its own addresses each pass, and with a footprint per SM of (working set /
//    SMs), which can fit in L1 (e.g. half of a 50 MiB L2 over 132 SMs is ~190 KiB, under H100's
//    256 KiB L1), the default caching would measure L1 instead of L2. `asm volatile` keeps NVVM
//    from merging them; ptxas, which optimises the PTX loads again, cannot hoist them either,
//    since each pass is an inner loop whose trip count it does not know.
//  - shared: ld.volatile.shared.v4.u32 (SASS LDS.128). A round's four reads have fixed
//    addresses, and ptxas does hoist plain ld.shared out of the round loop (seen in its SASS:
//    four loads, then the same registers added again and again); .volatile forbids that, and
//    costs nothing here, since shared memory has no cache for it to bypass.
//
// Shared-memory bank arithmetic (the ceiling is 32 banks x 4 bytes per SM per clock): thread t
// reads vector t + k * 256 of the block's array. A warp's 128-bit read covers 512 contiguous
// bytes; the hardware serves it in four phases of eight threads, each phase 128 contiguous bytes
// that hit each of the 32 banks once. So every phase is conflict-free and a warp's read takes
// four bank cycles for 512 bytes: 128 bytes per clock, exactly the ceiling. Reaching it needs
// one LDS.128 every four clocks per SM, which the eight blocks of eight warps resident on
// sm_80/90 (fewer on sm_75/86/89, still several warps per scheduler) keep in flight; the four
// integer adds per read fit in the other issue slots. 128-bit rather than 32-bit reads: the
// same bytes per bank cycle with a quarter of the load instructions, so issue never limits it.

#include "gpuspec/kernels/cache_bandwidth.hpp"

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include <cuda_runtime.h>

#include "gpuspec/kernels/cuda_check.cuh"

namespace gpuspec::kernels {

namespace {

static_assert(sizeof(uint4) == cache_vector_bytes);

/// 16 bytes from global memory through L2 only (ld.global.cg).
__device__ __forceinline__ uint4 load_l2_only(const uint4* p) {
  uint4 v;
  asm volatile("ld.global.cg.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p));
  return v;
}

/// 16 bytes from shared memory at the 32-bit shared-window address `address`; volatile, so
/// ptxas reads it every time.
__device__ __forceinline__ uint4 load_shared(unsigned address) {
  uint4 v;
  asm volatile("ld.volatile.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "r"(address));
  return v;
}

struct accumulators {
  std::uint32_t x = 0, y = 0, z = 0, w = 0;
  __device__ __forceinline__ void add(uint4 v) {
    x += v.x;
    y += v.y;
    z += v.z;
    w += v.w;
  }
  [[nodiscard]] __device__ __forceinline__ std::uint32_t total() const { return x + y + z + w; }
};

/// Adds `value` over the warp and writes it, from lane 0, to the warp's slot of `sums`.
/// Every block has cache_block_threads threads, a whole number of full warps.
__device__ __forceinline__ void write_warp_sum(std::uint32_t value, std::uint32_t* sums) {
  for (int offset = 16; offset > 0; offset /= 2)
    value += __shfl_xor_sync(0xFFFFFFFFu, value, offset);
  if ((threadIdx.x & 31u) == 0)
    sums[static_cast<std::size_t>(blockIdx.x) * cache_sums_per_block + threadIdx.x / 32] = value;
}

__global__ void __launch_bounds__(cache_block_threads)
    l2_read_vec4_kernel(const uint4* __restrict__ data, std::size_t vectors, unsigned passes,
                        std::uint32_t* __restrict__ sums) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  accumulators acc;
  for (unsigned pass = 0; pass < passes; ++pass) {
    std::size_t i = first;
    // Four independent loads in flight per thread, then the remainder one at a time.
    for (; i + 3 * stride < vectors; i += 4 * stride) {
      const uint4 v0 = load_l2_only(data + i);
      const uint4 v1 = load_l2_only(data + i + stride);
      const uint4 v2 = load_l2_only(data + i + 2 * stride);
      const uint4 v3 = load_l2_only(data + i + 3 * stride);
      acc.add(v0);
      acc.add(v1);
      acc.add(v2);
      acc.add(v3);
    }
    for (; i < vectors; i += stride)
      acc.add(load_l2_only(data + i));
  }
  write_warp_sum(acc.total(), sums);
}

__global__ void __launch_bounds__(cache_block_threads)
    shared_read_vec4_kernel(const uint4* __restrict__ source, unsigned rounds,
                            std::uint32_t* __restrict__ sums) {
  __shared__ uint4 tile[shared_read_vectors];
  for (unsigned i = threadIdx.x; i < shared_read_vectors; i += cache_block_threads)
    tile[i] = source[i];
  __syncthreads();

  // Thread t reads vectors t, t + 256, t + 512, t + 768: a quarter-warp covers 128 contiguous
  // bytes, one word in each bank (see the file comment).
  const auto base = static_cast<unsigned>(__cvta_generic_to_shared(tile + threadIdx.x));
  constexpr unsigned step = cache_block_threads * cache_vector_bytes;
  accumulators acc;
#pragma unroll 4
  for (unsigned round = 0; round < rounds; ++round) {
#pragma unroll
    for (unsigned k = 0; k < shared_read_vectors_per_thread; ++k)
      acc.add(load_shared(base + k * step));
  }
  write_warp_sum(acc.total(), sums);
}

void require_aligned(const void* p, const char* launcher, const char* what) {
  if (p == nullptr || reinterpret_cast<std::uintptr_t>(p) % cache_vector_bytes != 0)
    throw std::invalid_argument(std::string(launcher) + ": " + what +
                                " must be a 16-byte aligned device pointer");
}

template <class Kernel> unsigned resident_blocks(Kernel kernel) {
  int device = 0;
  GPUSPEC_CUDA_CHECK(cudaGetDevice(&device));
  int sms = 0;
  GPUSPEC_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  int per_sm = 0;
  GPUSPEC_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &per_sm, kernel, static_cast<int>(cache_block_threads), 0));
  return static_cast<unsigned>(sms > 0 ? sms : 1) * static_cast<unsigned>(per_sm > 0 ? per_sm : 1);
}

} // namespace

unsigned l2_read_resident_blocks() { return resident_blocks(l2_read_vec4_kernel); }

unsigned shared_read_resident_blocks() { return resident_blocks(shared_read_vec4_kernel); }

void launch_l2_read(const void* data, std::size_t vectors, unsigned passes, unsigned blocks,
                    std::uint32_t* sums, stream_handle stream) {
  require_aligned(data, "launch_l2_read", "data");
  if (sums == nullptr)
    throw std::invalid_argument("launch_l2_read: sums must be device memory");
  if (blocks == 0 || passes == 0)
    throw std::invalid_argument("launch_l2_read: blocks and passes must be at least 1");
  l2_read_vec4_kernel<<<blocks, cache_block_threads, 0, stream>>>(static_cast<const uint4*>(data),
                                                                  vectors, passes, sums);
  GPUSPEC_CUDA_CHECK_LAUNCH();
}

void launch_shared_read(const void* source, unsigned passes, unsigned blocks, std::uint32_t* sums,
                        stream_handle stream) {
  require_aligned(source, "launch_shared_read", "source");
  if (sums == nullptr)
    throw std::invalid_argument("launch_shared_read: sums must be device memory");
  if (blocks == 0)
    throw std::invalid_argument("launch_shared_read: blocks must be at least 1");
  if (passes == 0 || passes % shared_read_vectors_per_thread != 0)
    throw std::invalid_argument("launch_shared_read: passes is " + std::to_string(passes) +
                                ": it must be a positive multiple of " +
                                std::to_string(shared_read_vectors_per_thread));
  shared_read_vec4_kernel<<<blocks, cache_block_threads, 0, stream>>>(
      static_cast<const uint4*>(source), passes / shared_read_vectors_per_thread, sums);
  GPUSPEC_CUDA_CHECK_LAUNCH();
}

} // namespace gpuspec::kernels
