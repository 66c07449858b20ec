#pragma once
/// The STREAM family as data (BabelStream's table): what each kernel moves and computes, the
/// launch geometry, and the dot's error bound. CUDA-free, so the host tests check it.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string_view>

#include "gpuspec/kernels/host_device.hpp"
#include "gpuspec/kernels/launch_math.hpp"

namespace gpuspec::kernels {

/// BabelStream's kernels under gpuspec's ids ("scale" is BabelStream's Mul).
///   copy  c = a          scale b = s·c          add c = a + b
///   triad a = b + s·c    dot   sum(a·b)
enum class stream_op { copy, scale, add, triad, dot };

inline constexpr stream_op all_stream_ops[] = {stream_op::copy, stream_op::scale, stream_op::add,
                                               stream_op::triad, stream_op::dot};

[[nodiscard]] constexpr std::string_view stream_op_name(stream_op op) {
  switch (op) {
  case stream_op::copy:
    return "copy";
  case stream_op::scale:
    return "scale";
  case stream_op::add:
    return "add";
  case stream_op::triad:
    return "triad";
  case stream_op::dot:
    return "dot";
  }
  return "?";
}

/// Arrays each kernel moves, counted as STREAM and BabelStream count them: without the
/// write-allocate read of the destination (DESIGN.md rule 8). copy 2, scale 2, add 3, triad 3,
/// dot 2.
GPUSPEC_HOST_DEVICE constexpr int stream_arrays_moved(stream_op op) {
  switch (op) {
  case stream_op::copy:
    return 2;
  case stream_op::scale:
    return 2;
  case stream_op::add:
    return 3;
  case stream_op::triad:
    return 3;
  case stream_op::dot:
    return 2;
  }
  return 0;
}

/// Floating-point operations per element: copy 0, scale 1, add 1, triad 2 (an FMA), dot 2.
GPUSPEC_HOST_DEVICE constexpr int stream_flops_per_element(stream_op op) {
  switch (op) {
  case stream_op::copy:
    return 0;
  case stream_op::scale:
    return 1;
  case stream_op::add:
    return 1;
  case stream_op::triad:
    return 2;
  case stream_op::dot:
    return 2;
  }
  return 0;
}

/// Bytes one run of `op` moves over `elements` elements of `element_bytes` each.
GPUSPEC_HOST_DEVICE constexpr std::uint64_t stream_bytes(stream_op op, std::uint64_t elements,
                                                         std::uint64_t element_bytes) {
  return static_cast<std::uint64_t>(stream_arrays_moved(op)) * elements * element_bytes;
}

/// Elements per 16-byte vector access: float4 carries 4 floats, double2 carries 2 doubles.
template <class T> inline constexpr unsigned vector_width = static_cast<unsigned>(16 / sizeof(T));

/// Threads per block of the element-wise kernels and of the dot's first stage. 256 threads
/// with one 16-byte vector per thread and an exact grid (many small blocks) keeps enough loads
/// in flight to saturate HBM on every architecture from Turing on, and schedules in units
/// small enough to leave no SM idle at the tail of the grid.
inline constexpr unsigned stream_block_threads = 256;

/// Threads of the dot's second stage (one block summing the partials in double).
inline constexpr unsigned dot_finish_threads = 256;

/// Blocks of an element-wise kernel over `elements` elements of width-`width` vectors: one
/// thread per vector (the last one takes the scalar tail as well, grid-stride).
GPUSPEC_HOST_DEVICE constexpr unsigned stream_grid_blocks(std::uint64_t elements, unsigned width) {
  return grid_blocks(ceil_div(elements, width), stream_block_threads);
}

/// Blocks of the dot's first stage: enough for one vector per thread, but no more than
/// `resident_blocks` (one full wave; each thread then loops grid-stride). At least 1.
GPUSPEC_HOST_DEVICE constexpr unsigned dot_grid_blocks(std::uint64_t elements, unsigned width,
                                                       unsigned resident_blocks) {
  const unsigned exact = stream_grid_blocks(elements, width);
  const unsigned cap = resident_blocks == 0 ? 1u : resident_blocks;
  return exact < cap ? exact : cap;
}

/// A bound on the relative error of launch_dot's result against the exact sum, for inputs
/// whose products are all of one sign (the seeded inputs are all in [1, 2)); with mixed signs
/// multiply by sum|a·b| / |sum a·b|.
///
/// Recursive summation of k terms errs by at most (k - 1)·u relative to sum|x| (Higham, ch. 4),
/// u = eps/2, and a fused multiply-add adds no product rounding. Each first-stage thread
/// accumulates k = (its vectors)·width terms plus at most one tail element (counted here as a
/// whole vector), a shared-memory tree then adds log2(block) levels in T, and the second stage
/// sums the partials in double. The bound uses eps rather than u, a factor 2 of margin, so it
/// never fails a correct result; it is still about 1000 times tighter than n·eps for a 1 GiB
/// array (k is n divided by the threads of one full wave).
template <class T>
[[nodiscard]] constexpr double dot_relative_error_bound(std::uint64_t elements, unsigned blocks) {
  constexpr unsigned width = vector_width<T>;
  const std::uint64_t threads =
      static_cast<std::uint64_t>(blocks == 0 ? 1 : blocks) * stream_block_threads;
  const std::uint64_t vectors = elements / width;
  const std::uint64_t per_thread = ceil_div(vectors, threads) * width + width;
  const double first_stage =
      static_cast<double>(per_thread + static_cast<std::uint64_t>(bit_width(stream_block_threads)) +
                          2) *
      static_cast<double>(std::numeric_limits<T>::epsilon());
  const std::uint64_t finish_per_thread = ceil_div(blocks == 0 ? 1 : blocks, dot_finish_threads);
  const double second_stage =
      static_cast<double>(finish_per_thread +
                          static_cast<std::uint64_t>(bit_width(dot_finish_threads)) + 2) *
      std::numeric_limits<double>::epsilon();
  return first_stage + second_stage;
}

/// Relative error bound of one element-wise STREAM kernel against a host reference, for the
/// positive seeded inputs: at most two roundings (a product and a sum, or one fused
/// multiply-add where the compiler contracts them) of at most eps/2 each, with no cancellation.
/// 4·eps leaves a factor 2 of margin.
template <class T> [[nodiscard]] constexpr double elementwise_relative_error_bound() {
  return 4.0 * static_cast<double>(std::numeric_limits<T>::epsilon());
}

} // namespace gpuspec::kernels
