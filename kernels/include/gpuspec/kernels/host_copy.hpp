#pragma once
/// SM-driven host/device copies (transfer.* with engine=sm, kernels/src/host_copy.cu): kernels
/// that read or write host memory through its device mapping (mapped pinned memory), so the
/// SMs, not a copy engine, issue the PCIe traffic. CUDA-free: plain pointers, byte counts and a
/// stream handle.
///
/// Every launcher:
///  - takes 16-byte aligned pointers and a byte count that is a multiple of 16 (throws
///    std::invalid_argument otherwise, before any CUDA call): each access is 128 bits wide;
///  - copies exactly `bytes` (grid-stride loops; no truncation to a multiple of the grid);
///  - reads host memory with ld.global.cv and writes it with st.global.wt: the PTX ISA defines
///    both for system memory (fetch again, discarding a matching L2 line; write through the L2),
///    so every sample crosses the link and none is served from an L2 line of an earlier one;
///  - enqueues on `stream` and returns at once; a launch error throws kernels::cuda_error.

#include <cstddef>

#include "gpuspec/kernels/stream_handle.hpp"

namespace gpuspec::kernels {

/// Threads per block of the copy kernels (16 warps).
inline constexpr unsigned host_copy_block_threads = 512;
/// 16-byte loads each thread issues before its stores: the link's latency (a round trip to host
/// memory) is covered by many reads in flight, as nvbandwidth's SM copy does.
inline constexpr unsigned host_copy_loads_in_flight = 8;

enum class host_copy_direction { host_to_device, device_to_host };

/// Blocks of the copy kernels that fit on the current device at once (SMs x resident blocks per
/// SM): the grid of a copy that keeps every SM busy. Queries the device; call it outside timing.
[[nodiscard]] unsigned host_copy_resident_blocks();

/// Blocks for copying `vectors` 16-byte vectors with `resident` blocks available: one full wave
/// when there is enough work, fewer when a thread per vector needs fewer. At least 1.
[[nodiscard]] constexpr unsigned host_copy_grid_blocks(std::size_t vectors, unsigned resident) {
  const std::size_t needed = (vectors + host_copy_block_threads - 1) / host_copy_block_threads;
  const std::size_t cap = resident > 0 ? resident : 1;
  const std::size_t blocks = needed < cap ? needed : cap;
  return static_cast<unsigned>(blocks > 0 ? blocks : 1);
}

/// dst[0, bytes) = src[0, bytes). host_to_device: `src` is the device address of mapped pinned
/// host memory and `dst` device memory; device_to_host the other way round. `blocks` blocks of
/// host_copy_block_threads (host_copy_grid_blocks).
void launch_host_copy(const void* src, void* dst, std::size_t bytes, host_copy_direction direction,
                      unsigned blocks, stream_handle stream);

/// Both directions at once in one kernel, nvbandwidth's split-warp copy: even warps copy
/// host_src -> device_dst, odd warps device_src -> host_dst, `bytes` each. host_src and host_dst
/// are device addresses of mapped pinned host memory. `blocks` as above, for 2 x bytes.
void launch_host_copy_bidirectional(const void* host_src, void* device_dst, const void* device_src,
                                    void* host_dst, std::size_t bytes, unsigned blocks,
                                    stream_handle stream);

} // namespace gpuspec::kernels
