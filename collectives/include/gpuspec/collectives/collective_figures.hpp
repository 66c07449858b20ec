#pragma once
/// A collective's figures from its measured times and #wrong counts: what both the one-node
/// benchmark (benches/families/collective.cpp) and gpuspec-mpi's rank
/// (collectives/mpi/src/collective_measure_nccl.cpp) put in their results, so that the two
/// report the same numbers under the same names. Pure and CUDA-free.

#include <cstdint>
#include <span>
#include <vector>

#include "gpuspec/collectives/bandwidth.hpp"
#include "gpuspec/collectives/collective_kind.hpp"

namespace gpuspec::collectives {

struct collective_figures {
  std::vector<double> busbw_gbs, algbw_gbs; ///< per sample
  double median_seconds = 0;                ///< of one call: the result's time_us
  bandwidth_figures median;                 ///< at median_seconds
  double bus_factor = 0;
  double algbw_bytes = 0; ///< per call: the result's bytes per iteration
  std::int64_t wrong = 0; ///< nccl-tests' #wrong, summed over the ranks given
};

/// The figures of `seconds_per_call` (one per sample, at least one) for `param_count` elements
/// of `element_bytes` over `nranks` ranks. The median is nccl-tests' middle sample (the upper
/// one of an even count, as the one-node benchmark has always reported). Throws
/// std::invalid_argument for no samples or a time bandwidth() refuses.
[[nodiscard]] collective_figures figures_of(collective_kind kind, std::uint64_t param_count,
                                            int element_bytes, int nranks,
                                            std::span<const double> seconds_per_call,
                                            std::span<const std::int64_t> wrong_per_rank);

} // namespace gpuspec::collectives
