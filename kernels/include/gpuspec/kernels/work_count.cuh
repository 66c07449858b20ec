#pragma once
/// The device half of the work counters (work_count.hpp): the one operation a counted loop uses.

#include <cstdint>

namespace gpuspec::kernels {

/// Advances a counted loop's counter by one: `for (i = 0; i < n; count_trip(i))`. The add is an
/// `asm volatile`, which the compiler cannot see through, remove, merge or move out of the loop,
/// so after the loop `i` is the number of trips that ran, not a value the compiler derived from
/// `n`; the loop keeps the one add it had. The kernel stores `i` once per counted unit.
__device__ __forceinline__ void count_trip(std::uint32_t& trip) {
  asm volatile("add.u32 %0, %0, 1;" : "+r"(trip));
}

} // namespace gpuspec::kernels
