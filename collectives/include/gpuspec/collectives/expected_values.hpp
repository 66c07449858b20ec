#pragma once
/// Seeded integer inputs and the exact value every output element of every collective must
/// hold, computed the same on host and device (the comparison kernel calls expected_value for
/// each element, so no buffer is copied back to the host). CUDA-free.
///
/// Why integers: a sum of floating-point values depends on the order NCCL adds them in (ring,
/// tree, NVLS), so a float check needs a tolerance. Sums of small positive integers are exact
/// in every order as long as every partial sum is exactly representable: bf16 has an 8-bit
/// significand, so it holds every integer up to 2^8 = 256 exactly (fp16: 2^11, fp32: 2^24).
///
/// Which value a collective's output holds is its row's value_rule (collective_kind.hpp); the
/// device kernels are given that rule, never the table.
///
/// Two kinds of input, because the two kinds of collective need different things:
///  - The reductions (all_reduce, reduce_scatter, reduce: sums_inputs) take inputs in
///    [1, input_value_max(n)] with input_value_max(n) = min(16, 256 / n), so the sum over n
///    ranks, and every partial sum (all inputs are positive), is at most 256: exact in bf16,
///    fp16 and fp32 for up to 256 ranks. With 16 ranks or fewer the inputs take 16 values.
///  - The others only move data (all_gather, alltoall, broadcast, sendrecv), so nothing is
///    summed and no cap is needed: inputs are 1 + (h(index) + rank) mod 256, every integer in
///    [1, 256] (exact in every type), with h a seeded hash shared by every rank. At one index
///    two ranks' values differ whenever there are at most 256 ranks, so a chunk that arrives
///    from the wrong rank differs from the expected one in every element; one from the wrong
///    offset of the right rank differs unless every element's hash coincides (256^-L for a
///    chunk of L elements). A cap shared with the reductions would make every input 1 at 256
///    ranks, and a misplaced chunk would pass.
/// The check is then equality, and nccl-tests' #wrong is the count of unequal elements.
///
/// Element i of rank r's input is the value before the collective at position i of the data
/// that rank contributes: its send buffer out of place; in place, the same values at the send
/// data's place inside the receive buffer (collective_sizes.hpp).

#include <cstdint>

#include "gpuspec/collectives/collective_kind.hpp"
#include "gpuspec/collectives/collective_sizes.hpp"
#include "gpuspec/kernels/host_device.hpp"
#include "gpuspec/kernels/seeded_values.hpp"

namespace gpuspec::collectives {

/// The largest exact integer every element type holds, with all integers below it: 2^8 (bf16).
inline constexpr std::uint32_t exact_sum_limit = 256;
/// The reductions' range cap with few ranks: 16 values are enough to catch a misplaced element.
inline constexpr std::uint32_t input_value_cap = 16;
/// The number of values a collective that moves data without summing draws from: [1, 256].
inline constexpr std::uint32_t copy_value_count = exact_sum_limit;

/// True for the rules that sum their inputs (their inputs are capped, above).
GPUSPEC_HOST_DEVICE constexpr bool sums_inputs(value_rule rule) {
  return rule == value_rule::sum_all || rule == value_rule::sum_own_chunk ||
         rule == value_rule::sum_at_root;
}

/// The reductions' largest input value for `nranks` ranks: min(16, 256 / nranks), at least 1.
GPUSPEC_HOST_DEVICE constexpr std::uint32_t input_value_max(int nranks) {
  const std::uint32_t n = nranks < 1 ? 1u : static_cast<std::uint32_t>(nranks);
  const std::uint32_t m = exact_sum_limit / n;
  return m < 1 ? 1 : (m > input_value_cap ? input_value_cap : m);
}

/// Element `index` of rank `rank`'s input under `rule`: in [1, input_value_max(nranks)] for a
/// reduction, in [1, 256] and distinct between ranks at one index for the others.
GPUSPEC_HOST_DEVICE constexpr std::uint32_t input_value(value_rule rule, std::uint64_t seed,
                                                        int rank, std::uint64_t index, int nranks) {
  if (!sums_inputs(rule))
    return 1u + static_cast<std::uint32_t>((kernels::seeded_bits(seed, index) % copy_value_count +
                                            static_cast<std::uint64_t>(rank)) %
                                           copy_value_count);
  const std::uint64_t rank_seed = kernels::splitmix64(seed ^ (0x72616e6bull * (rank + 1ull)));
  return 1u + static_cast<std::uint32_t>(kernels::seeded_bits(rank_seed, index) %
                                         input_value_max(nranks));
}

/// The seed of the check's inputs, different from the timed calls' `seed`, so that an output
/// left over from the timed calls does not match what the check expects.
GPUSPEC_HOST_DEVICE constexpr std::uint64_t check_seed(std::uint64_t seed) {
  return kernels::splitmix64(seed ^ 0x636865636bull);
}

/// The sum over every rank of its input at `index`.
GPUSPEC_HOST_DEVICE constexpr std::uint32_t sum_of_ranks(value_rule rule, std::uint64_t seed,
                                                         std::uint64_t index, int nranks) {
  std::uint32_t sum = 0;
  for (int k = 0; k < nranks; ++k)
    sum += input_value(rule, seed, k, index, nranks);
  return sum;
}

/// The value NCCL's output must hold at element `index` of rank `rank`'s receive buffer (index
/// in [0, counts.recv_count)) under `rule` (the collective's row), or 0 where the collective
/// defines nothing (reduce's receive buffer on ranks other than the root: nccl-tests does not
/// check it either). Inputs are at least 1, so 0 is never a defined value. `counts` are those of
/// counts_for_size for the call.
GPUSPEC_HOST_DEVICE constexpr std::uint32_t expected_value(value_rule rule, std::uint64_t seed,
                                                           int rank, std::uint64_t index,
                                                           int nranks, int root,
                                                           const collective_counts& counts) {
  const std::uint64_t chunk = counts.param_count;
  switch (rule) {
  case value_rule::sum_all:
    return sum_of_ranks(rule, seed, index, nranks);
  case value_rule::sum_at_root:
    return rank == root ? sum_of_ranks(rule, seed, index, nranks) : 0;
  case value_rule::sum_own_chunk:
    // Rank r receives the sum of every rank's chunk r.
    return sum_of_ranks(rule, seed, static_cast<std::uint64_t>(rank) * chunk + index, nranks);
  case value_rule::gather_chunks:
    // Chunk k of every rank's output is rank k's input.
    return chunk == 0
               ? 0
               : input_value(rule, seed, static_cast<int>(index / chunk), index % chunk, nranks);
  case value_rule::exchange_chunks:
    // Chunk k of rank r's output is chunk r of rank k's input.
    return chunk == 0
               ? 0
               : input_value(rule, seed, static_cast<int>(index / chunk),
                             static_cast<std::uint64_t>(rank) * chunk + index % chunk, nranks);
  case value_rule::from_root:
    return input_value(rule, seed, root, index, nranks);
  case value_rule::from_previous:
    // nccl-tests' ring: rank r sends to r+1 and receives from r-1 (sendrecv.cu).
    return input_value(rule, seed, (rank + nranks - 1) % nranks, index, nranks);
  }
  return 0;
}

/// The same, host side, for a collective by its row.
[[nodiscard]] inline bool sums_inputs(collective_kind kind) {
  return sums_inputs(collective_of(kind).values);
}
[[nodiscard]] inline std::uint32_t input_value(collective_kind kind, std::uint64_t seed, int rank,
                                               std::uint64_t index, int nranks) {
  return input_value(collective_of(kind).values, seed, rank, index, nranks);
}
[[nodiscard]] inline std::uint32_t expected_value(collective_kind kind, std::uint64_t seed,
                                                  int rank, std::uint64_t index, int nranks,
                                                  int root, const collective_counts& counts) {
  return expected_value(collective_of(kind).values, seed, rank, index, nranks, root, counts);
}

} // namespace gpuspec::collectives
