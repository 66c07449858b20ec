// expected_value against a plain simulation of each collective: every rank's buffers as host
// arrays, moved and summed the way NCCL's documentation defines each collective, then every
// element of every rank compared. Also the exactness bound: every sum fits bf16 exactly.

#include <cstdint>
#include <cstring>
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
buffers inputs(const collective_counts& c, int nranks) {
  buffers in(nranks, std::vector<std::uint32_t>(c.send_count));
  for (int r = 0; r < nranks; ++r)
    for (std::uint64_t i = 0; i < c.send_count; ++i)
      in[r][i] = input_value(seed, r, i, nranks);
  return in;
}

/// The collective done by hand. Reduce leaves non-root buffers at 0 (undefined).
buffers simulate(k kind, const collective_counts& c, int nranks, int root) {
  const buffers in = inputs(c, nranks);
  buffers out(nranks, std::vector<std::uint32_t>(c.recv_count, 0));
  const std::uint64_t chunk = c.param_count;
  for (int r = 0; r < nranks; ++r) {
    for (std::uint64_t i = 0; i < c.recv_count; ++i) {
      std::uint32_t v = 0;
      switch (kind) {
      case k::all_reduce:
        for (int s = 0; s < nranks; ++s)
          v += in[s][i];
        break;
      case k::reduce:
        if (r == root)
          for (int s = 0; s < nranks; ++s)
            v += in[s][i];
        break;
      case k::reduce_scatter:
        for (int s = 0; s < nranks; ++s)
          v += in[s][r * chunk + i];
        break;
      case k::all_gather:
        v = in[i / chunk][i % chunk];
        break;
      case k::alltoall:
        v = in[i / chunk][r * chunk + i % chunk];
        break;
      case k::broadcast:
        v = in[root][i];
        break;
      case k::sendrecv:
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
    for (int nranks : {1, 2, 3, 8}) {
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

TEST(ExpectedValues, InputsAreInRangeAndDifferBetweenRanks) {
  std::uint32_t seen_max = 0;
  int differing = 0;
  for (std::uint64_t i = 0; i < 10000; ++i) {
    const auto a = input_value(seed, 0, i, 8);
    const auto b = input_value(seed, 1, i, 8);
    ASSERT_GE(a, 1u);
    ASSERT_LE(a, input_value_max(8));
    seen_max = std::max(seen_max, a);
    differing += a != b ? 1 : 0;
  }
  EXPECT_EQ(seen_max, 16u);   // all 16 values are used
  EXPECT_GT(differing, 9000); // a rank's data is not another's (a swapped rank is caught)
}

TEST(ExpectedValues, TheRangeShrinksSoTheSumOverAllRanksStaysAt256) {
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

} // namespace
} // namespace gpuspec::collectives
