// The memory test (memtest.hpp, docs/burnin.md): fill a buffer with a pattern, read every word
// back, count the words that differ and record the first few. Grid-stride loops over 64-bit
// words; bound by memory bandwidth. A moving-inversions step reads each word and writes its
// complement in one pass, ascending or descending, as memtest86 does (the order matters for
// faults that couple neighbouring cells).

#include "gpuspec/kernels/memtest.hpp"

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include "gpuspec/kernels/cuda_check.cuh"
#include "gpuspec/kernels/launch_math.hpp"

namespace gpuspec::kernels {

namespace {

constexpr unsigned memtest_block_threads = 256;
/// A few waves of blocks on any GPU this builds for; each thread walks many words.
constexpr unsigned memtest_max_blocks = 8192;

unsigned memtest_blocks(std::size_t count) {
  const unsigned b = grid_blocks(count, memtest_block_threads);
  return b > memtest_max_blocks ? memtest_max_blocks : b;
}

__global__ void __launch_bounds__(memtest_block_threads)
    memtest_fill_kernel(std::uint64_t* __restrict__ words, std::size_t count, memtest_pattern p,
                        std::uint64_t seed, bool inverted) {
  const auto base = reinterpret_cast<std::uint64_t>(words);
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride)
    words[i] = memtest_word(p, seed, base, i, inverted);
}

__device__ void record_bad(memtest_outcome* outcome, std::uint64_t address, std::uint64_t expected,
                           std::uint64_t actual) {
  atomicAdd(reinterpret_cast<unsigned long long*>(&outcome->bad_words), 1ull);
  const unsigned slot = atomicAdd(&outcome->recorded, 1u);
  if (slot < memtest_max_records)
    outcome->first[slot] = {address, expected, actual};
  else
    atomicSub(&outcome->recorded, 1u); // keep `recorded` at the number of filled records
}

__global__ void __launch_bounds__(memtest_block_threads)
    memtest_check_kernel(std::uint64_t* __restrict__ words, std::size_t count, memtest_pattern p,
                         std::uint64_t seed, bool inverted, bool then_invert, bool descending,
                         memtest_outcome* __restrict__ outcome) {
  const auto base = reinterpret_cast<std::uint64_t>(words);
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t k = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < count;
       k += stride) {
    const std::size_t i = descending ? count - 1 - k : k;
    const std::uint64_t expected = memtest_word(p, seed, base, i, inverted);
    // volatile: read the word from memory, not from a value the compiler kept
    const std::uint64_t actual = *static_cast<volatile std::uint64_t*>(words + i);
    if (actual != expected)
      record_bad(outcome, base + 8 * i, expected, actual);
    if (then_invert)
      words[i] = ~expected;
  }
}

} // namespace

void memtest_fill(std::uint64_t* words, std::size_t count, memtest_pattern p, std::uint64_t seed,
                  bool inverted, stream_handle stream) {
  if (count == 0)
    return;
  memtest_fill_kernel<<<memtest_blocks(count), memtest_block_threads, 0, stream>>>(words, count, p,
                                                                                   seed, inverted);
  GPUSPEC_CUDA_CHECK_LAUNCH();
}

void memtest_check(std::uint64_t* words, std::size_t count, memtest_pattern p, std::uint64_t seed,
                   bool inverted, bool then_invert, bool descending, memtest_outcome* outcome,
                   stream_handle stream) {
  if (count == 0)
    return;
  memtest_check_kernel<<<memtest_blocks(count), memtest_block_threads, 0, stream>>>(
      words, count, p, seed, inverted, then_invert, descending, outcome);
  GPUSPEC_CUDA_CHECK_LAUNCH();
}

} // namespace gpuspec::kernels
