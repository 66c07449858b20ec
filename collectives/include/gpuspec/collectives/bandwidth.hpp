#pragma once
/// nccl-tests' bandwidth figures, as pure functions (doc/PERFORMANCE.md of NVIDIA/nccl-tests
/// explains them; the factors are each collective's GetBw in src/<collective>.cu). CUDA-free.
///
/// algbw is the data of the call over its time: paramcount x element size, times nranks for the
/// collectives whose count is per-rank chunk (all-gather, reduce-scatter, alltoall), in GB/s
/// (1e9 bytes/s). busbw = algbw x a factor that makes it comparable to the hardware's link
/// bandwidth whatever the rank count: all-reduce 2(n-1)/n; all-gather, reduce-scatter and
/// alltoall (n-1)/n; broadcast, reduce and sendrecv 1.

#include <cstdint>

#include "gpuspec/collectives/collective_kind.hpp"

namespace gpuspec::collectives {

/// busbw / algbw for `kind` over `nranks` ranks. 0 for all-reduce, all-gather, reduce-scatter
/// and alltoall at one rank (no bus traffic), as nccl-tests computes it. Throws
/// std::invalid_argument for nranks < 1.
[[nodiscard]] double bus_factor(collective_kind kind, int nranks);

/// The factor by which a link's bandwidth may be exceeded in busbw when the switch reduces
/// (NVLink SHARP): max(1, bus_factor) for the rows with switch_reduces (all-reduce), else 1
/// (collective_ceiling.hpp's in_switch_factor).
[[nodiscard]] double in_switch_factor(collective_kind kind, int nranks);

/// Bytes that algbw counts for one call: param_count x element_bytes (x nranks for the chunked
/// collectives).
[[nodiscard]] double algbw_bytes(collective_kind kind, std::uint64_t param_count, int element_bytes,
                                 int nranks);

struct bandwidth_figures {
  double algbw_gbs = 0;
  double busbw_gbs = 0;
};

/// algbw and busbw in GB/s for one call of `seconds`. Throws std::invalid_argument for a time
/// that is not positive and finite, or nranks < 1.
[[nodiscard]] bandwidth_figures bandwidth(collective_kind kind, std::uint64_t param_count,
                                          int element_bytes, int nranks, double seconds);

} // namespace gpuspec::collectives
