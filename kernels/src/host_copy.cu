// SM-driven copies between host and device memory (transfer.* engine=sm).
//
// What they measure: how fast the SMs move data across the PCIe link by loading from or storing
// to mapped pinned host memory, bound by the link (and the host's memory controller), never by
// the SMs: 16-byte accesses, a full wave of 512-thread blocks, 8 loads in flight per thread
// before its stores, so enough reads are outstanding to cover the round trip to host memory.
// Any architecture the build targets (mapped host memory and 128-bit accesses exist on all).
//
// Host memory is read with ld.global.cv and written with st.global.wt: for system memory the
// PTX ISA defines .cv as "fetch again" (a matching L2 line is discarded) and .wt as a write
// through the L2, so each sample crosses the link. Device memory is read with ld.global.cg and
// written with st.global.cg (L2 only, no L1 allocation).

#include "gpuspec/kernels/host_copy.hpp"

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include <cuda_runtime.h>

#include "gpuspec/kernels/cuda_check.cuh"
#include "gpuspec/kernels/launch_math.hpp"

namespace gpuspec::kernels {

namespace {

constexpr unsigned warp_threads = 32;
static_assert(host_copy_block_threads % (2 * warp_threads) == 0,
              "the split-warp copy needs an even number of warps per block");

template <host_copy_direction D> __device__ __forceinline__ uint4 load_source(const uint4* p) {
  if constexpr (D == host_copy_direction::host_to_device)
    return __ldcv(p); // host memory: fetch again
  else
    return __ldcg(p); // device memory: L2 only
}

template <host_copy_direction D>
__device__ __forceinline__ void store_destination(uint4* p, uint4 v) {
  if constexpr (D == host_copy_direction::host_to_device)
    __stcg(p, v); // device memory
  else
    __stwt(p, v); // host memory: write through
}

/// Copies vectors i, i + stride, ... below `vectors`: host_copy_loads_in_flight loads, then
/// their stores, while a whole group fits; then one at a time.
template <host_copy_direction D>
__device__ __forceinline__ void copy_strided(const uint4* __restrict__ src, uint4* __restrict__ dst,
                                             std::size_t i, std::size_t stride,
                                             std::size_t vectors) {
  constexpr unsigned k = host_copy_loads_in_flight;
  for (; i + (k - 1) * stride < vectors; i += k * stride) {
    uint4 v[k];
#pragma unroll
    for (unsigned j = 0; j < k; ++j)
      v[j] = load_source<D>(src + i + j * stride);
#pragma unroll
    for (unsigned j = 0; j < k; ++j)
      store_destination<D>(dst + i + j * stride, v[j]);
  }
  for (; i < vectors; i += stride)
    store_destination<D>(dst + i, load_source<D>(src + i));
}

/// One kernel per direction, named for it (the static evidence checks each one's accesses).
__global__ void __launch_bounds__(host_copy_block_threads)
    h2d_vec4_kernel(const uint4* __restrict__ host_src, uint4* __restrict__ device_dst,
                    std::size_t vectors) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  copy_strided<host_copy_direction::host_to_device>(host_src, device_dst, i, stride, vectors);
}

__global__ void __launch_bounds__(host_copy_block_threads)
    d2h_vec4_kernel(const uint4* __restrict__ device_src, uint4* __restrict__ host_dst,
                    std::size_t vectors) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  copy_strided<host_copy_direction::device_to_host>(device_src, host_dst, i, stride, vectors);
}

/// Even warps copy host -> device, odd warps device -> host; each half of the grid strides over
/// its own `vectors`. A whole warp takes one branch.
__global__ void __launch_bounds__(host_copy_block_threads)
    bidir_split_warp_kernel(const uint4* __restrict__ host_src, uint4* __restrict__ device_dst,
                            const uint4* __restrict__ device_src, uint4* __restrict__ host_dst,
                            std::size_t vectors) {
  const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t warp = thread / warp_threads;
  const std::size_t lane = thread % warp_threads;
  const std::size_t warps = static_cast<std::size_t>(gridDim.x) * blockDim.x / warp_threads;
  const std::size_t stride = warps / 2 * warp_threads;
  const std::size_t i = warp / 2 * warp_threads + lane;
  if (warp % 2 == 0)
    copy_strided<host_copy_direction::host_to_device>(host_src, device_dst, i, stride, vectors);
  else
    copy_strided<host_copy_direction::device_to_host>(device_src, host_dst, i, stride, vectors);
}

void require_copy_arguments(const void* p, const char* name, std::size_t bytes, unsigned blocks,
                            const char* launcher) {
  if (bytes % 16 != 0)
    throw std::invalid_argument(std::string(launcher) + ": bytes must be a multiple of 16, got " +
                                std::to_string(bytes));
  if (bytes > 0 && p == nullptr)
    throw std::invalid_argument(std::string(launcher) + ": " + name + " is null");
  if (!is_aligned_16(p))
    throw std::invalid_argument(std::string(launcher) + ": " + name +
                                " must be 16-byte aligned for 128-bit accesses");
  if (blocks == 0)
    throw std::invalid_argument(std::string(launcher) + ": blocks must be at least 1");
}

} // namespace

unsigned host_copy_resident_blocks() {
  int device = 0;
  GPUSPEC_CUDA_CHECK(cudaGetDevice(&device));
  int sms = 0;
  GPUSPEC_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  int per_sm = 0;
  GPUSPEC_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &per_sm, bidir_split_warp_kernel, static_cast<int>(host_copy_block_threads), 0));
  const long long blocks = static_cast<long long>(sms > 0 ? sms : 1) * (per_sm > 0 ? per_sm : 1);
  return static_cast<unsigned>(blocks);
}

void launch_host_copy(const void* src, void* dst, std::size_t bytes, host_copy_direction direction,
                      unsigned blocks, stream_handle stream) {
  require_copy_arguments(src, "src", bytes, blocks, "launch_host_copy");
  require_copy_arguments(dst, "dst", bytes, blocks, "launch_host_copy");
  if (byte_ranges_overlap(src, bytes, dst, bytes))
    throw std::invalid_argument("launch_host_copy: src and dst overlap");
  const auto* s = static_cast<const uint4*>(src);
  auto* d = static_cast<uint4*>(dst);
  const std::size_t vectors = bytes / 16;
  if (direction == host_copy_direction::host_to_device)
    h2d_vec4_kernel<<<blocks, host_copy_block_threads, 0, stream>>>(s, d, vectors);
  else
    d2h_vec4_kernel<<<blocks, host_copy_block_threads, 0, stream>>>(s, d, vectors);
  GPUSPEC_CUDA_CHECK_LAUNCH();
}

void launch_host_copy_bidirectional(const void* host_src, void* device_dst, const void* device_src,
                                    void* host_dst, std::size_t bytes, unsigned blocks,
                                    stream_handle stream) {
  constexpr const char* launcher = "launch_host_copy_bidirectional";
  require_copy_arguments(host_src, "host_src", bytes, blocks, launcher);
  require_copy_arguments(device_dst, "device_dst", bytes, blocks, launcher);
  require_copy_arguments(device_src, "device_src", bytes, blocks, launcher);
  require_copy_arguments(host_dst, "host_dst", bytes, blocks, launcher);
  if (byte_ranges_overlap(host_src, bytes, device_dst, bytes) ||
      byte_ranges_overlap(device_src, bytes, host_dst, bytes) ||
      byte_ranges_overlap(device_dst, bytes, host_dst, bytes))
    throw std::invalid_argument(std::string(launcher) + ": buffers overlap");
  bidir_split_warp_kernel<<<blocks, host_copy_block_threads, 0, stream>>>(
      static_cast<const uint4*>(host_src), static_cast<uint4*>(device_dst),
      static_cast<const uint4*>(device_src), static_cast<uint4*>(host_dst), bytes / 16);
  GPUSPEC_CUDA_CHECK_LAUNCH();
}

} // namespace gpuspec::kernels
