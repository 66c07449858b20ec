#pragma once
/// Launchers of the STREAM kernels (kernels/src/stream.cu): one for every element-wise row of
/// the table (stream_math.hpp), one for the dot. CUDA-free: plain pointers to device memory,
/// element counts and a stream handle.
///
/// Every launcher:
///  - takes device pointers that are 16-byte aligned (cudaMalloc gives 256) and arrays that do
///    not overlap; it throws std::invalid_argument for a misaligned or missing array;
///  - accepts any element count, including 0 and counts that are not a multiple of the vector
///    width (the tail is done with scalar accesses);
///  - enqueues on `stream` and returns at once; a launch error throws kernels::cuda_error.
/// Instantiated for float and double.

#include <cstddef>

#include "gpuspec/kernels/stream_handle.hpp"
#include "gpuspec/kernels/stream_math.hpp"

namespace gpuspec::kernels {

/// BabelStream's three arrays; those a kernel does not touch may be null.
template <class T> struct stream_arrays {
  T* a = nullptr;
  T* b = nullptr;
  T* c = nullptr;

  [[nodiscard]] constexpr T* operator[](char name) const {
    return name == 'a' ? a : name == 'b' ? b : name == 'c' ? c : nullptr;
  }
};

/// The element-wise kernel of row `op`: for every i < n, arrays[row.writes][i] =
/// apply(x[i], y[i], scalar), x and y the arrays of row.reads. Throws std::invalid_argument
/// for an op with no element-wise expression (the dot: launch_dot).
template <class T>
void launch_stream(stream_op op, const stream_arrays<T>& arrays, T scalar, std::size_t n,
                   stream_handle stream);

/// Blocks of the dot's first stage that fit on the current device at once (SMs × resident
/// blocks per SM): pass it to dot_grid_blocks. Queries the device; call it outside timing.
template <class T> [[nodiscard]] unsigned dot_resident_blocks();

/// *result = sum(a[i] · b[i]) in two stages, both enqueued on `stream`: `blocks` blocks write
/// one partial sum each (accumulated in T, as BabelStream does) into `partials`, which must
/// hold `blocks` elements; then one block adds the partials in double into `*result`. Use
/// dot_grid_blocks(n, vector_width<T>, dot_resident_blocks<T>()) for `blocks`; its error
/// bound is dot_relative_error_bound<T>(n, blocks). Deterministic: no atomics.
template <class T>
void launch_dot(const T* a, const T* b, T* partials, unsigned blocks, double* result, std::size_t n,
                stream_handle stream);

} // namespace gpuspec::kernels
