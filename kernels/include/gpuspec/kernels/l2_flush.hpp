#pragma once
/// The L2 flush before each cold sample (docs/design.md rule 3). CUDA-free launcher.
///
/// It reads a scratch buffer of at least twice the L2 size. Reading, not writing: a memset
/// (nvbench's way) leaves L2 full of dirty lines, whose write-back then lands inside the next
/// timed kernel and is charged to it; after a read the lines are clean and are dropped for free.
/// The previous sample's dirty output lines are written back during the flush, outside timing.

#include <cstddef>

#include "gpuspec/kernels/stream_handle.hpp"

namespace gpuspec::kernels {

/// Reads `bytes` bytes from `scratch` (16-byte aligned device memory; bytes a multiple of 16)
/// through L2. The buffer must have been zeroed once: the kernel stores to `*sink` (one device
/// unsigned) only if what it read is not all zeros, which keeps the compiler from removing the
/// loads and in practice never writes.
void launch_l2_flush(const void* scratch, std::size_t bytes, unsigned* sink, stream_handle stream);

} // namespace gpuspec::kernels
