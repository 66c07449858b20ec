#pragma once
/// What a nccl-tests "size" means for each collective, so that a row of our table and a row of
/// theirs at the same size describe the same collective call. CUDA-free.
///
/// nccl-tests (src/common.cu, setupArgs) turns the size S of a sweep into count = S / element
/// size and asks the collective's GetCollByteCount for the element counts of the send and
/// receive buffers and the `count` argument of the NCCL call (paramcount). The table's "size"
/// column is max(send, receive) bytes and its "count" column is paramcount
/// (writeBenchmarkLinePreamble in TimeTest). The per-rank-chunk collectives (all-gather,
/// reduce-scatter, alltoall) round the chunk count / nranks down to a multiple of 16 bytes.
/// In place, the send buffer lies inside the receive buffer at an offset per rank (all-gather:
/// rank r's chunk; reduce-scatter: the receive buffer is rank r's chunk of the send buffer).

#include <cstdint>

#include "gpuspec/collectives/collective_kind.hpp"

namespace gpuspec::collectives {

/// Element counts of one rank's buffers for one collective call.
struct collective_counts {
  std::uint64_t send_count = 0;  ///< elements of the send buffer
  std::uint64_t recv_count = 0;  ///< elements of the receive buffer
  std::uint64_t param_count = 0; ///< the `count` argument of the NCCL call
  /// In place: where the send data lies inside the receive buffer, in elements per rank
  /// (multiply by the rank): nccl-tests' sendInplaceOffset and recvInplaceOffset.
  std::uint64_t send_inplace_offset = 0;
  std::uint64_t recv_inplace_offset = 0;
  /// The table's "size" column: max(send, receive) bytes.
  std::uint64_t table_bytes = 0;

  friend bool operator==(const collective_counts&, const collective_counts&) = default;
};

/// The counts for a nccl-tests size of `size_bytes` over `nranks` ranks, elements of
/// `element_bytes` (1, 2, 4 or 8). Throws std::invalid_argument for nranks < 1 or an element
/// size that is not one of those.
[[nodiscard]] collective_counts counts_for_size(collective_kind kind, std::uint64_t size_bytes,
                                                int element_bytes, int nranks);

} // namespace gpuspec::collectives
