// The memory test's patterns and the GEMM output checksum, host side (memtest_patterns.hpp,
// memtest.hpp, output_checksum.hpp): what the kernels compute, checked against definitions.

#include <algorithm>
#include <bit>
#include <cstdint>
#include <set>
#include <vector>

#include <gtest/gtest.h>

#include "gpuspec/kernels/memtest.hpp"
#include "gpuspec/kernels/memtest_patterns.hpp"
#include "gpuspec/kernels/output_checksum.hpp"

namespace gpuspec::kernels {
namespace {

constexpr std::uint64_t base = 0x7f0000000000;

TEST(MemtestPatterns, WalkingOnesSetOneBitThatMovesWordToWord) {
  for (std::uint64_t i = 0; i < 200; ++i) {
    const auto w = memtest_word(memtest_pattern::walking_ones, 3, base, i, false);
    EXPECT_EQ(std::popcount(w), 1) << i;
    EXPECT_EQ(w, std::uint64_t{1} << ((i + 3) % 64));
    EXPECT_EQ(std::popcount(memtest_word(memtest_pattern::walking_zeros, 3, base, i, false)), 63);
  }
}

TEST(MemtestPatterns, AddressInAddressHoldsTheWordsOwnAddressThenItsComplement) {
  for (std::uint64_t i : {0ull, 1ull, 12345ull}) {
    EXPECT_EQ(memtest_word(memtest_pattern::address, 9, base, i, false), base + 8 * i);
    EXPECT_EQ(memtest_word(memtest_pattern::address, 9, base, i, true), ~(base + 8 * i));
  }
}

TEST(MemtestPatterns, MovingInversionsIsOneValueAndRandomIsSeededAndVaried) {
  const auto mi = memtest_word(memtest_pattern::moving_inversions, 5, base, 0, false);
  std::set<std::uint64_t> random;
  for (std::uint64_t i = 0; i < 1000; ++i) {
    EXPECT_EQ(memtest_word(memtest_pattern::moving_inversions, 5, base, i, false), mi);
    EXPECT_EQ(memtest_word(memtest_pattern::moving_inversions, 5, base, i, true), ~mi);
    random.insert(memtest_word(memtest_pattern::random, 5, base, i, false));
  }
  EXPECT_EQ(random.size(), 1000u);
  EXPECT_NE(memtest_word(memtest_pattern::random, 5, base, 7, false),
            memtest_word(memtest_pattern::random, 6, base, 7, false));
}

TEST(MemtestPatterns, EveryPatternHasAName) {
  std::set<std::string_view> names;
  for (const auto p : memtest_patterns)
    names.insert(name_of(p));
  EXPECT_EQ(names, (std::set<std::string_view>{"walking_ones", "walking_zeros", "moving_inversions",
                                               "address", "random"}));
}

/// What a fill pass writes, on the host.
std::vector<std::uint64_t> filled(memtest_pattern p, std::size_t n, bool inverted) {
  std::vector<std::uint64_t> v(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] = memtest_word(p, 42, base, i, inverted);
  return v;
}

TEST(MemtestCheck, ACleanBufferHasNoBadWord) {
  for (const auto p : memtest_patterns) {
    const auto v = filled(p, 4096, false);
    const auto out = memtest_check_host(v.data(), v.size(), p, 42, base, false);
    EXPECT_EQ(out.bad_words, 0u) << name_of(p);
    EXPECT_EQ(out.recorded, 0u);
  }
}

TEST(MemtestCheck, AFlippedBitIsFoundWithItsAddressAndBothValues) {
  for (const auto p : memtest_patterns) {
    auto v = filled(p, 4096, true);
    v[1000] ^= std::uint64_t{1} << 17; // one bit flipped between the write and the read
    const auto out = memtest_check_host(v.data(), v.size(), p, 42, base, true);
    ASSERT_EQ(out.bad_words, 1u) << name_of(p);
    ASSERT_EQ(out.recorded, 1u);
    EXPECT_EQ(out.first[0].address, base + 8 * 1000);
    EXPECT_EQ(out.first[0].expected, memtest_word(p, 42, base, 1000, true));
    EXPECT_EQ(out.first[0].actual, out.first[0].expected ^ (std::uint64_t{1} << 17));
  }
}

TEST(MemtestCheck, ABadWordReadAgainIsStuckWhenStillWrongAndTransientWhenRight) {
  // A moving-inversions pass found word 1000 wrong in its inverted phase; the pass ends in the
  // first phase, which is what the word must hold when read again.
  const auto p = memtest_pattern::moving_inversions;
  const std::uint64_t left = memtest_word(p, 42, base, 1000, false);
  const std::uint64_t flipped = left ^ (std::uint64_t{1} << 17);
  EXPECT_TRUE(memtest_reread_stuck(left, flipped)) << "degraded: the bit is still flipped";
  EXPECT_FALSE(memtest_reread_stuck(left, left)) << "healthy now: it read wrong once";
  // The phase found in is not what is compared: a word reading its found-in value is stuck.
  EXPECT_TRUE(memtest_reread_stuck(left, memtest_word(p, 42, base, 1000, true)));
}

TEST(MemtestCheck, EveryBadWordIsCountedAndTheFirstSixteenRecorded) {
  auto v = filled(memtest_pattern::random, 10000, false);
  for (std::size_t i = 0; i < 100; ++i)
    v[i * 97] = ~v[i * 97];
  const auto out = memtest_check_host(v.data(), v.size(), memtest_pattern::random, 42, base, false);
  EXPECT_EQ(out.bad_words, 100u);
  EXPECT_EQ(out.recorded, memtest_max_records);
  EXPECT_EQ(out.first[15].address, base + 8 * 15 * 97);
  // Read against the other phase, every word is bad but the hundred complemented ones.
  const auto wrong =
      memtest_check_host(v.data(), v.size(), memtest_pattern::random, 42, base, true);
  EXPECT_EQ(wrong.bad_words, 9900u);
}

TEST(OutputChecksum, IsTheSumOfItsTermsWhateverTheOrder) {
  std::vector<std::uint16_t> bits(5000);
  for (std::size_t i = 0; i < bits.size(); ++i)
    bits[i] = static_cast<std::uint16_t>(seeded_bits(1, i));
  const auto sum = checksum_of(bits.data(), bits.size());
  // The device adds the terms in any order: the same 64 bits.
  std::vector<std::size_t> order(bits.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    order[i] = (i * 7919) % order.size();
  std::uint64_t shuffled = 0;
  for (const std::size_t i : order)
    shuffled += checksum_term(bits[i], i);
  EXPECT_EQ(shuffled, sum);
}

TEST(OutputChecksum, OneFlippedBitOrTwoSwappedElementsChangeIt) {
  std::vector<std::uint16_t> bits(4096);
  for (std::size_t i = 0; i < bits.size(); ++i)
    bits[i] = static_cast<std::uint16_t>(0x3f80 + (i % 97)); // bf16 values near 1
  const auto sum = checksum_of(bits.data(), bits.size());
  for (int bit = 0; bit < 16; ++bit) {
    auto flipped = bits;
    flipped[1234] ^= static_cast<std::uint16_t>(1u << bit);
    EXPECT_NE(checksum_of(flipped.data(), flipped.size()), sum) << bit;
  }
  auto swapped = bits;
  std::swap(swapped[10], swapped[11]);
  EXPECT_NE(checksum_of(swapped.data(), swapped.size()), sum);
}

} // namespace
} // namespace gpuspec::kernels
