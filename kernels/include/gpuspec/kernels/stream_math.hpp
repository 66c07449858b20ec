#pragma once
/// The STREAM family as data (BabelStream's table): one row per kernel, saying what it reads,
/// writes, moves and computes, and its element-wise expression, which the device kernel and the
/// host's expected value both evaluate; then the launch geometry and the error bounds.
/// CUDA-free, so the host tests check it.
///
/// A new element-wise kernel is one row type below (its data and its expression) added to
/// stream_row_types; the enum names it. The benchmark (benches/families/stream.cpp), the kernel
/// template (kernels/src/stream.cu), the static evidence and the tests read the table.

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string_view>
#include <tuple>

#include "gpuspec/kernels/host_device.hpp"
#include "gpuspec/kernels/launch_math.hpp"

namespace gpuspec::kernels {

/// gpuspec's STREAM kernels, in the table's order ("scale" is BabelStream's Mul).
enum class stream_op { copy, scale, add, triad, dot };

/// One STREAM kernel. Arrays are BabelStream's a, b and c.
struct stream_op_row {
  stream_op op;
  std::string_view name;        ///< the benchmark id is memory.stream.<name>
  std::string_view babelstream; ///< BabelStream's name for the kernel
  std::string_view formula;     ///< what it computes, as the registry describes it
  std::string_view reference;   ///< the host reference the output is checked against
  /// Arrays read, in the order the expression takes them (x, then y).
  std::string_view reads;
  /// The array written, or 0 for a scalar result (the dot, a reduction). Never one it reads:
  /// every repetition then leaves the same output, which the check relies on.
  char writes;
  int flops_per_element;
  bool uses_scalar; ///< the expression takes BabelStream's scalar

  [[nodiscard]] constexpr bool elementwise() const { return writes != 0; }
  /// Arrays moved, counted as STREAM and BabelStream count them: without the write-allocate
  /// read of the destination (docs/design.md rule 8).
  [[nodiscard]] constexpr int arrays_moved() const {
    return static_cast<int>(reads.size()) + (elementwise() ? 1 : 0);
  }
  [[nodiscard]] constexpr bool touches(char array) const {
    return writes == array || reads.find(array) != std::string_view::npos;
  }
};

// The rows. Each element-wise row has apply(x, y, s): the value of one output element from the
// elements x and y of the arrays it reads (y unused where it reads one) and the scalar s.

struct stream_copy {
  static constexpr stream_op_row row{
      stream_op::copy, "copy", "Copy", "c = a", "a", "a", 'c', 0, false};
  template <class T> GPUSPEC_HOST_DEVICE static constexpr T apply(T x, T, T) { return x; }
};

struct stream_scale {
  static constexpr stream_op_row row{
      stream_op::scale, "scale", "Mul", "b = s*c", "scalar*c", "c", 'b', 1, true};
  template <class T> GPUSPEC_HOST_DEVICE static constexpr T apply(T x, T, T s) { return s * x; }
};

struct stream_add {
  static constexpr stream_op_row row{stream_op::add, "add", "Add", "c = a + b", "a+b",
                                     "ab",           'c',   1,     false};
  template <class T> GPUSPEC_HOST_DEVICE static constexpr T apply(T x, T y, T) { return x + y; }
};

struct stream_triad {
  static constexpr stream_op_row row{
      stream_op::triad, "triad", "Triad", "a = b + s*c", "b+scalar*c", "bc", 'a', 2, true};
  template <class T> GPUSPEC_HOST_DEVICE static constexpr T apply(T x, T y, T s) {
    return x + s * y;
  }
};

/// The dot has its own two-stage kernel (launch_dot in stream.hpp) and no element-wise
/// expression.
struct stream_dot {
  static constexpr stream_op_row row{stream_op::dot, "dot", "Dot", "sum(a*b)", "sum(a*b)",
                                     "ab",           0,     2,     false};
};

/// The table, in the enum's order.
using stream_row_types =
    std::tuple<stream_copy, stream_scale, stream_add, stream_triad, stream_dot>;

inline constexpr auto stream_ops = []<class... R>(std::tuple<R...>*) {
  return std::array<stream_op_row, sizeof...(R)>{R::row...};
}(static_cast<stream_row_types*>(nullptr));

[[nodiscard]] constexpr const stream_op_row& stream_row(stream_op op) {
  return stream_ops[static_cast<std::size_t>(op)];
}

namespace detail {
[[nodiscard]] constexpr bool stream_table_is_consistent() {
  for (std::size_t i = 0; i < stream_ops.size(); ++i) {
    const stream_op_row& row = stream_ops[i];
    if (static_cast<std::size_t>(row.op) != i || row.reads.empty() || row.reads.size() > 2)
      return false;
    for (char array : row.reads)
      if (array < 'a' || array > 'c' || array == row.writes)
        return false;
    if (row.writes != 0 && (row.writes < 'a' || row.writes > 'c'))
      return false;
  }
  return true;
}
} // namespace detail
static_assert(detail::stream_table_is_consistent(),
              "stream_ops: rows in the enum's order, reading one or two of a, b, c and writing "
              "one they do not read");

/// Calls f.template operator()<R>() for the row type R of element-wise kernel `op`; returns
/// false, calling nothing, where `op` has no element-wise expression (the dot).
template <class F> constexpr bool visit_stream_elementwise(stream_op op, F&& f) {
  return [&]<class... R>(std::tuple<R...>*) {
    return ([&]<class Row>() {
      if constexpr (Row::row.elementwise()) {
        if (Row::row.op == op) {
          f.template operator()<Row>();
          return true;
        }
      }
      return false;
    }.template operator()<R>() ||
            ...);
  }(static_cast<stream_row_types*>(nullptr));
}

/// Bytes one run of `op` moves over `elements` elements of `element_bytes` each.
[[nodiscard]] constexpr std::uint64_t stream_bytes(stream_op op, std::uint64_t elements,
                                                   std::uint64_t element_bytes) {
  return static_cast<std::uint64_t>(stream_row(op).arrays_moved()) * elements * element_bytes;
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
