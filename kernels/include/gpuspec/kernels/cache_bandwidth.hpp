#pragma once
/// Launchers of the cache-bandwidth kernels (kernels/src/cache_bandwidth.cu), and the pure
/// helpers that count their bytes and predict their checksums. CUDA-free: plain pointers to
/// device memory, counts and a stream handle.
///
/// Both kernels read 32-bit words as 16-byte vectors and add them, as unsigned integers
/// (wrapping mod 2^32), into one sum per warp. Integer addition is exact and order-free, so the
/// sum of a whole launch is known on the host exactly: `passes` times the sum of the words read
/// (mod 2^32), whatever the grid, the order or the timing. The host reads the words' values
/// from their seeds (seeded_values.hpp) and compares exactly.

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "gpuspec/kernels/host_device.hpp"
#include "gpuspec/kernels/seeded_values.hpp"
#include "gpuspec/kernels/stream_handle.hpp"

namespace gpuspec::kernels {

/// Threads per block of both kernels (8 warps).
inline constexpr unsigned cache_block_threads = 256;
/// Bytes one thread reads per access: a 128-bit vector (uint4).
inline constexpr unsigned cache_vector_bytes = 16;
/// Sums a launch writes per block: one per warp.
inline constexpr unsigned cache_sums_per_block = cache_block_threads / 32;

/// Shared-memory kernel: the 16-byte vectors each block holds in shared memory (16 KiB, under
/// the 48 KiB a block gets without opting in, on every architecture), and how many of them
/// each thread reads per round (shared_read_vectors / cache_block_threads).
inline constexpr unsigned shared_read_vectors = 1024;
inline constexpr unsigned shared_read_vectors_per_thread =
    shared_read_vectors / cache_block_threads;
static_assert(shared_read_vectors % cache_block_threads == 0);

/// Sums a launch of `blocks` blocks writes (the size of the `sums` buffer).
GPUSPEC_HOST_DEVICE constexpr std::size_t cache_sum_count(unsigned blocks) {
  return static_cast<std::size_t>(blocks) * cache_sums_per_block;
}

/// Bytes the L2 read kernel reads in one launch: the working set once per pass.
GPUSPEC_HOST_DEVICE constexpr std::uint64_t l2_read_bytes(std::uint64_t vectors,
                                                          std::uint64_t passes) {
  return vectors * cache_vector_bytes * passes;
}

/// The shared kernel's passes come in whole rounds: each round, every thread reads its
/// shared_read_vectors_per_thread vectors once, so the block reads its whole array once.
/// `passes` rounded up to a multiple of shared_read_vectors_per_thread (at least one round).
GPUSPEC_HOST_DEVICE constexpr std::uint64_t shared_read_passes(std::uint64_t passes) {
  constexpr std::uint64_t r = shared_read_vectors_per_thread;
  return passes <= r ? r : (passes + r - 1) / r * r;
}

/// Bytes the shared kernel reads from shared memory in one launch: every thread of every block
/// does `passes` 16-byte reads. The one fill from global memory is not counted: it is
/// shared_read_vectors * 16 bytes per block, shared_read_vectors_per_thread / passes of the
/// reads: under 0.1% at the pass counts the benchmark uses.
GPUSPEC_HOST_DEVICE constexpr std::uint64_t shared_read_bytes(std::uint64_t blocks,
                                                              std::uint64_t passes) {
  return blocks * cache_block_threads * passes * cache_vector_bytes;
}

/// How many times a shared-kernel launch reads each source word: once per round per block.
GPUSPEC_HOST_DEVICE constexpr std::uint64_t shared_read_word_repeats(std::uint64_t blocks,
                                                                     std::uint64_t passes) {
  return blocks * (passes / shared_read_vectors_per_thread);
}

/// Sum, mod 2^32, of the bit patterns of the first `words` float values seeded with `seed`
/// (what launch_fill_seeded<float> writes): the words the kernels read.
[[nodiscard]] inline std::uint32_t seeded_word_sum(std::uint64_t seed, std::size_t words) {
  std::uint32_t sum = 0;
  for (std::size_t i = 0; i < words; ++i)
    sum += std::bit_cast<std::uint32_t>(seeded_value<float>(seed, i));
  return sum;
}

/// `count` times `sum`, mod 2^32: what a launch adds up when it reads words summing to `sum`
/// `count` times.
[[nodiscard]] constexpr std::uint32_t repeated_sum(std::uint32_t sum, std::uint64_t count) {
  return static_cast<std::uint32_t>(static_cast<std::uint64_t>(sum) * (count & 0xFFFFFFFFu));
}

/// How many repetitions (passes, loads) make a launch last about `target_seconds`, given that
/// `trial_count` of them took `trial_seconds`: scaled linearly, rounded up, clamped to
/// [min_count, max_count]. A trial that measured nothing usable (0 s, NaN) gives min_count, the
/// short side, which the harness's hold kernel and stopping rule tolerate.
[[nodiscard]] inline std::uint64_t count_for_target(double trial_seconds, std::uint64_t trial_count,
                                                    double target_seconds, std::uint64_t min_count,
                                                    std::uint64_t max_count) {
  if (!(trial_seconds > 0.0) || !std::isfinite(trial_seconds) || trial_count == 0 ||
      !(target_seconds > 0.0))
    return min_count;
  const double per_item = trial_seconds / static_cast<double>(trial_count);
  const double wanted = std::ceil(target_seconds / per_item);
  if (!(wanted < static_cast<double>(max_count)))
    return max_count;
  const auto count = static_cast<std::uint64_t>(wanted);
  return count < min_count ? min_count : count;
}

/// A repetition count for launches of about `target_seconds`: times one launch of `trial`
/// repetitions, then a probe sized for an eighth of the target (long enough that the launch's
/// fixed cost no longer skews the estimate), and scales that to the target (count_for_target).
/// `time_count(n)` enqueues one launch of n repetitions, waits for it and returns its device
/// seconds (CUDA events).
template <class TimeCount>
[[nodiscard]] std::uint64_t calibrate_count(const TimeCount& time_count, std::uint64_t trial,
                                            double target_seconds, std::uint64_t min_count,
                                            std::uint64_t max_count) {
  const std::uint64_t probe =
      count_for_target(time_count(trial), trial, target_seconds / 8, min_count, max_count);
  return count_for_target(time_count(probe), probe, target_seconds, min_count, max_count);
}

/// Resident blocks of the L2 read kernel on the current device (SMs x blocks per SM): one full
/// wave. Queries the device; call it outside timing.
[[nodiscard]] unsigned l2_read_resident_blocks();

/// Resident blocks of the shared-memory kernel on the current device (SMs x blocks per SM, as
/// its 16 KiB of shared memory per block allows). Queries the device; call it outside timing.
[[nodiscard]] unsigned shared_read_resident_blocks();

/// Reads `vectors` 16-byte vectors at `data` (16-byte aligned) `passes` times with
/// ld.global.cg (cached in L2, not in L1: each thread reads the same addresses every pass, and
/// a footprint that fits in L1 would otherwise be served from there), grid-stride, adding the
/// words; writes cache_sum_count(blocks) sums to `sums`. Their total, mod 2^32, is
/// repeated_sum(sum of the words, passes). Throws std::invalid_argument for a misaligned or
/// null pointer, 0 blocks or 0 passes; a launch error throws kernels::cuda_error.
void launch_l2_read(const void* data, std::size_t vectors, unsigned passes, unsigned blocks,
                    std::uint32_t* sums, stream_handle stream);

/// Each of `blocks` blocks copies the shared_read_vectors 16-byte vectors at `source` (16-byte
/// aligned, global memory) into shared memory once, then does `passes` conflict-free 16-byte
/// shared-memory reads per thread (ld.shared.v4), adding the words; writes
/// cache_sum_count(blocks) sums to `sums`. Their total, mod 2^32, is repeated_sum(sum of the
/// source words, shared_read_word_repeats(blocks, passes)). `passes` must be a positive
/// multiple of shared_read_vectors_per_thread (shared_read_passes gives one). Throws
/// std::invalid_argument for a misaligned or null pointer, 0 blocks or a bad pass count.
void launch_shared_read(const void* source, unsigned passes, unsigned blocks, std::uint32_t* sums,
                        stream_handle stream);

} // namespace gpuspec::kernels
