// expected_value against a plain simulation of each collective: every rank's buffers as host
// arrays, moved and summed the way NCCL's documentation defines each collective, then every
// element of every rank compared. Also the exactness bound: every sum fits bf16 exactly.

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpuspec/collectives/collective_kind.hpp"
#include "gpuspec/collectives/collective_sizes.hpp"
#include "gpuspec/collectives/expected_values.hpp"

namespace gpuspec::collectives {
namespace {

using k = collective_kind;
using buffers = std::vector<std::vector<std::uint32_t>>;

constexpr std::uint64_t seed = 0x636f6c6c65637469ull;

/// Each rank's send data, from input_value.
buffers inputs(k kind, const collective_counts& c, int nranks) {
  buffers in(nranks, std::vector<std::uint32_t>(c.send_count));
  for (int r = 0; r < nranks; ++r)
    for (std::uint64_t i = 0; i < c.send_count; ++i)
      in[r][i] = input_value(kind, seed, r, i, nranks);
  return in;
}

/// The collective done by hand, by its row's value rule (NCCL's definition of each). Reduce
/// leaves non-root buffers at 0 (undefined).
buffers simulate(k kind, const collective_counts& c, int nranks, int root) {
  const buffers in = inputs(kind, c, nranks);
  buffers out(nranks, std::vector<std::uint32_t>(c.recv_count, 0));
  const std::uint64_t chunk = c.param_count;
  for (int r = 0; r < nranks; ++r) {
    for (std::uint64_t i = 0; i < c.recv_count; ++i) {
      std::uint32_t v = 0;
      switch (collective_of(kind).values) {
      case value_rule::sum_all:
        for (int s = 0; s < nranks; ++s)
          v += in[s][i];
        break;
      case value_rule::sum_at_root:
        if (r == root)
          for (int s = 0; s < nranks; ++s)
            v += in[s][i];
        break;
      case value_rule::sum_own_chunk:
        for (int s = 0; s < nranks; ++s)
          v += in[s][r * chunk + i];
        break;
      case value_rule::gather_chunks:
        v = in[i / chunk][i % chunk];
        break;
      case value_rule::exchange_chunks:
        v = in[i / chunk][r * chunk + i % chunk];
        break;
      case value_rule::from_root:
        v = in[root][i];
        break;
      case value_rule::from_previous:
        v = in[(r + nranks - 1) % nranks][i];
        break;
      }
      out[r][i] = v;
    }
  }
  return out;
}

TEST(ExpectedValues, EveryElementOfEveryCollectiveMatchesTheSimulation) {
  for (collective_kind kind : all_collective_kinds) {
    for (int nranks : {1, 2, 3, 8, 256}) {
      const int root = nranks > 1 ? 1 : 0;
      const auto c = counts_for_size(kind, 4096, 2, nranks);
      const buffers want = simulate(kind, c, nranks, root);
      for (int r = 0; r < nranks; ++r)
        for (std::uint64_t i = 0; i < c.recv_count; ++i)
          ASSERT_EQ(expected_value(kind, seed, r, i, nranks, root, c), want[r][i])
              << collective_name(kind) << " nranks " << nranks << " rank " << r << " element " << i;
    }
  }
}

TEST(ExpectedValues, ReductionInputsAreInRangeAndDifferBetweenRanks) {
  std::uint32_t seen_max = 0;
  int differing = 0;
  for (std::uint64_t i = 0; i < 10000; ++i) {
    const auto a = input_value(k::all_reduce, seed, 0, i, 8);
    const auto b = input_value(k::all_reduce, seed, 1, i, 8);
    ASSERT_GE(a, 1u);
    ASSERT_LE(a, input_value_max(8));
    seen_max = std::max(seen_max, a);
    differing += a != b ? 1 : 0;
  }
  EXPECT_EQ(seen_max, 16u);   // all 16 values are used
  EXPECT_GT(differing, 9000); // a rank's data is not another's (a swapped rank is caught)
}

TEST(ExpectedValues, TheReductionRangeShrinksSoTheSumOverAllRanksStaysAt256) {
  EXPECT_EQ(input_value_max(1), 16u);
  EXPECT_EQ(input_value_max(8), 16u);
  EXPECT_EQ(input_value_max(16), 16u);
  EXPECT_EQ(input_value_max(32), 8u);
  EXPECT_EQ(input_value_max(256), 1u);
  EXPECT_EQ(input_value_max(1000), 1u); // beyond 256 ranks the bound no longer holds
  for (int n = 1; n <= 256; ++n)
    EXPECT_LE(input_value_max(n) * static_cast<std::uint32_t>(n), exact_sum_limit) << n;
}

/// True if `v` survives float -> bf16 (the top 16 bits of the float) unchanged.
bool exact_in_bf16(float v) {
  std::uint32_t bits = 0;
  std::memcpy(&bits, &v, sizeof bits);
  return (bits & 0xFFFFu) == 0;
}

/// True if `v` (a normal, positive float) has at most 11 significant bits, as fp16 holds.
bool exact_in_fp16(float v) {
  std::uint32_t bits = 0;
  std::memcpy(&bits, &v, sizeof bits);
  return (bits & 0x1FFFu) == 0; // the 13 low bits of float's 23-bit mantissa are zero
}

TEST(ExpectedValues, EveryPossibleSumIsExactInBf16AndFp16) {
  // Every partial sum of positive inputs is at most the total, at most 256.
  for (std::uint32_t v = 1; v <= exact_sum_limit; ++v) {
    EXPECT_TRUE(exact_in_bf16(static_cast<float>(v))) << v;
    EXPECT_TRUE(exact_in_fp16(static_cast<float>(v))) << v;
  }
  EXPECT_FALSE(exact_in_bf16(257.0f)); // the limit is real: 257 needs 9 significant bits
}

// --- at scale: the check still tells a misplaced chunk, and sums stay exact -------------------

constexpr k moving_kinds[] = {k::all_gather, k::alltoall, k::broadcast, k::sendrecv};
constexpr int rank_counts[] = {2, 3, 4, 5, 7, 8, 9, 16, 31, 32, 64, 100, 128, 200, 255, 256};

/// True if rank `rank`'s expected output from element `first` on differs in some element from
/// `wrong`, the values a misplaced chunk holds there.
bool differs(k kind, int rank, int nranks, int root, const collective_counts& c,
             std::uint64_t first, const std::vector<std::uint32_t>& wrong) {
  for (std::uint64_t i = 0; i < wrong.size(); ++i)
    if (expected_value(kind, seed, rank, first + i, nranks, root, c) != wrong[i])
      return true;
  return false;
}

/// The counts of a call whose per-rank chunk is `chunk_elements` 2-byte elements.
collective_counts counts_with_chunk(k kind, int nranks, std::uint64_t chunk_elements) {
  const bool gathered = kind == k::all_gather || kind == k::alltoall;
  const std::uint64_t bytes = chunk_elements * 2 * (gathered ? nranks : 1);
  const auto c = counts_for_size(kind, bytes, 2, nranks);
  EXPECT_EQ(c.param_count, chunk_elements) << collective_name(kind) << " " << nranks;
  return c;
}

TEST(ExpectedValues, AChunkFromTheWrongRankIsCaughtAtEveryScaleUpTo256Ranks) {
  // One element of the chunk is enough: at one index the values of two ranks always differ.
  for (k kind : moving_kinds) {
    for (int n : rank_counts) {
      const auto c = counts_with_chunk(kind, n, 8);
      const std::uint64_t len = c.param_count;
      for (int from = 0; from < n; ++from) {
        for (int instead = 0; instead < n; ++instead) {
          if (from == instead)
            continue;
          // What rank `instead`'s data looks like where rank `from`'s belongs.
          std::vector<std::uint32_t> wrong(1);
          switch (kind) {
          case k::all_gather: // output chunk `from` of rank 0 holds rank `instead`'s input
            wrong[0] = input_value(kind, seed, instead, 0, n);
            ASSERT_TRUE(differs(kind, 0, n, 0, c, static_cast<std::uint64_t>(from) * len, wrong))
                << n << " " << from;
            break;
          case k::alltoall: // rank 0's chunk `from` holds chunk 0 of rank `instead`
            wrong[0] = input_value(kind, seed, instead, 0, n);
            ASSERT_TRUE(differs(kind, 0, n, 0, c, static_cast<std::uint64_t>(from) * len, wrong))
                << n << " " << from;
            break;
          case k::broadcast: // root `from`'s data expected, rank `instead`'s arrived
            wrong[0] = input_value(kind, seed, instead, 0, n);
            ASSERT_TRUE(differs(kind, 0, n, from, c, 0, wrong)) << n << " " << from;
            break;
          case k::sendrecv: // rank `from`+1 receives from `instead` rather than `from`
            wrong[0] = input_value(kind, seed, instead, 0, n);
            ASSERT_TRUE(differs(kind, (from + 1) % n, n, 0, c, 0, wrong)) << n << " " << from;
            break;
          default:
            break;
          }
        }
      }
    }
  }
}

TEST(ExpectedValues, AChunkFromTheWrongOffsetIsCaughtAtEveryScaleUpTo256Ranks) {
  // The right rank's data from the wrong place: the wrong chunk of alltoall's input, or a chunk
  // shifted by `shift` elements. Caught unless all L hashes coincide (256^-L); L = 8 here.
  constexpr std::uint64_t len = 8;
  for (k kind : moving_kinds) {
    for (int n : rank_counts) {
      const auto c = counts_with_chunk(kind, n, len);
      for (int src = 0; src < n; ++src) {
        // alltoall: rank 0's chunk `src` should be chunk 0 of rank src; try chunk `other`.
        if (kind == k::alltoall) {
          for (int other = 1; other < n; ++other) {
            std::vector<std::uint32_t> wrong(len);
            for (std::uint64_t i = 0; i < len; ++i)
              wrong[i] =
                  input_value(kind, seed, src, static_cast<std::uint64_t>(other) * len + i, n);
            ASSERT_TRUE(differs(kind, 0, n, 0, c, static_cast<std::uint64_t>(src) * len, wrong))
                << n << " " << src << " " << other;
          }
          continue;
        }
        for (std::uint64_t shift = 1; shift <= len; ++shift) {
          std::vector<std::uint32_t> wrong(len);
          for (std::uint64_t i = 0; i < len; ++i)
            wrong[i] = input_value(kind, seed, src, i + shift, n);
          const int rank = kind == k::sendrecv ? (src + 1) % n : 0;
          const int root = kind == k::broadcast ? src : 0;
          const std::uint64_t first =
              kind == k::all_gather ? static_cast<std::uint64_t>(src) * len : 0;
          ASSERT_TRUE(differs(kind, rank, n, root, c, first, wrong))
              << collective_name(kind) << " " << n << " " << src << " shift " << shift;
        }
      }
    }
  }
}

TEST(ExpectedValues, MovedDataUsesTheWholeRangeAt256RanksNotOnlyOne) {
  // The regression: with the reductions' cap applied to every collective, every input at 256
  // ranks was 1 and a misplaced chunk passed.
  std::uint32_t lo = copy_value_count, hi = 0;
  for (int r = 0; r < 256; ++r) {
    for (std::uint64_t i = 0; i < 64; ++i) {
      const auto v = input_value(k::all_gather, seed, r, i, 256);
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  EXPECT_EQ(lo, 1u);
  EXPECT_EQ(hi, copy_value_count);
  EXPECT_EQ(input_value_max(256), 1u); // the reductions keep their cap
}

TEST(ExpectedValues, ReductionsStayExactInFp16AndBf16At256Ranks) {
  for (k kind : {k::all_reduce, k::reduce_scatter, k::reduce}) {
    for (int n : {128, 255, 256}) {
      // 16 elements per rank for reduce_scatter, 512 in all for the others.
      const std::uint64_t bytes = kind == k::reduce_scatter ? std::uint64_t{32} * n : 1024;
      const auto c = counts_for_size(kind, bytes, 2, n);
      ASSERT_GT(c.recv_count, 0u);
      for (std::uint64_t i = 0; i < c.recv_count; ++i) {
        const std::uint32_t v = expected_value(kind, seed, 0, i, n, 0, c);
        ASSERT_LE(v, exact_sum_limit) << collective_name(kind) << " " << n;
        ASSERT_TRUE(exact_in_bf16(static_cast<float>(v)) && exact_in_fp16(static_cast<float>(v)));
      }
    }
  }
}

TEST(ExpectedValues, TheCheckSeedIsNotTheTimedSeed) {
  EXPECT_NE(check_seed(seed), seed);
  int same = 0;
  for (std::uint64_t i = 0; i < 1000; ++i)
    same += input_value(k::all_gather, seed, 1, i, 8) ==
                    input_value(k::all_gather, check_seed(seed), 1, i, 8)
                ? 1
                : 0;
  EXPECT_LT(same, 50); // about 1000/256 expected: a stale output does not pass the check
}

} // namespace
} // namespace gpuspec::collectives
