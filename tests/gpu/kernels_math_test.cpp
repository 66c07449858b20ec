// Host tests of the kernels' CUDA-free headers: grid sizing, the seeded values, the output
// poisons, the work counters' verdict, and the launchers' argument checks (which throw before
// any CUDA call). The STREAM table's own tests are in tests/unit/kernels (every preset).

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpuspec/kernels/fill.hpp"
#include "gpuspec/kernels/hold.hpp"
#include "gpuspec/kernels/l2_flush.hpp"
#include "gpuspec/kernels/launch_math.hpp"
#include "gpuspec/kernels/seeded_values.hpp"
#include "gpuspec/kernels/stream.hpp"
#include "gpuspec/kernels/stream_math.hpp"
#include "gpuspec/kernels/work_count.hpp"

#if defined(__CUDA_RUNTIME_API_H__) || defined(__CUDA_RUNTIME_H__)
#error "the kernels' .hpp headers must not include the CUDA runtime"
#endif

namespace k = gpuspec::kernels;

TEST(launch_math, ceil_div_is_exact_and_does_not_overflow) {
  EXPECT_EQ(k::ceil_div(0, 4), 0u);
  EXPECT_EQ(k::ceil_div(1, 4), 1u);
  EXPECT_EQ(k::ceil_div(4, 4), 1u);
  EXPECT_EQ(k::ceil_div(5, 4), 2u);
  const std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
  EXPECT_EQ(k::ceil_div(max, 2), max / 2 + 1);
}

TEST(launch_math, grid_blocks_covers_every_item_and_is_never_zero) {
  EXPECT_EQ(k::grid_blocks(0, 256), 1u);
  EXPECT_EQ(k::grid_blocks(1, 256), 1u);
  EXPECT_EQ(k::grid_blocks(256, 256), 1u);
  EXPECT_EQ(k::grid_blocks(257, 256), 2u);
  EXPECT_EQ(k::grid_blocks(std::uint64_t{1} << 40, 256),
            k::max_grid_blocks); // capped; kernels loop
}

TEST(launch_math, bit_width_matches_the_standard_library) {
  for (std::uint64_t x : {0ull, 1ull, 2ull, 3ull, 255ull, 256ull, 1ull << 40})
    EXPECT_EQ(k::bit_width(x), static_cast<int>(std::bit_width(x))) << x;
}

TEST(launch_math, alignment_and_overlap_checks) {
  alignas(16) unsigned char buffer[64] = {};
  EXPECT_TRUE(k::is_aligned_16(buffer));
  EXPECT_FALSE(k::is_aligned_16(buffer + 4));
  EXPECT_TRUE(k::is_aligned_16(buffer + 32));
  EXPECT_TRUE(k::byte_ranges_overlap(buffer, 16, buffer + 15, 16));  // one shared byte
  EXPECT_FALSE(k::byte_ranges_overlap(buffer, 16, buffer + 16, 16)); // adjacent
  EXPECT_TRUE(k::byte_ranges_overlap(buffer + 8, 4, buffer, 64));    // inside
  EXPECT_FALSE(k::byte_ranges_overlap(buffer, 0, buffer, 16));       // empty range
}

TEST(seeded_values, are_in_one_to_two_nonzero_and_deterministic) {
  for (std::uint64_t i = 0; i < 100000; ++i) {
    const float f = k::seeded_value<float>(7, i);
    const double d = k::seeded_value<double>(7, i);
    ASSERT_GE(f, 1.0f);
    ASSERT_LT(f, 2.0f);
    ASSERT_GE(d, 1.0);
    ASSERT_LT(d, 2.0);
    ASSERT_EQ(f, k::seeded_value<float>(7, i));
  }
  EXPECT_NE(k::seeded_value<double>(1, 0), k::seeded_value<double>(2, 0));
  EXPECT_NE(k::seeded_value<double>(1, 0), k::seeded_value<double>(1, 1));
}

TEST(seeded_values, are_exact_multiples_of_the_mantissa_step) {
  // 1 + k*2^-23 (float) and 1 + k*2^-52 (double) are exactly representable: no rounding, so
  // host and device agree bit for bit.
  for (std::uint64_t i = 0; i < 1000; ++i) {
    const double f = k::seeded_value<float>(3, i);
    const double scaled = (f - 1.0) * 8388608.0;
    ASSERT_EQ(scaled, std::floor(scaled));
  }
}

TEST(seeded_values, look_uniform) {
  constexpr int n = 200000;
  double sum = 0;
  for (int i = 0; i < n; ++i)
    sum += k::seeded_value<double>(11, static_cast<std::uint64_t>(i));
  EXPECT_NEAR(sum / n, 1.5, 0.01);
}

/// Every element-wise row's launcher, given arrays at `good` and one array at `bad`.
template <class T> void expect_each_array_checked(T* good, T* bad) {
  for (const auto& row : k::stream_ops) {
    if (!row.elementwise()) {
      EXPECT_THROW(k::launch_stream<T>(row.op, {good, good, good}, T(0.4), 16, nullptr),
                   std::invalid_argument)
          << row.name << " has no element-wise kernel";
      continue;
    }
    for (char array : {'a', 'b', 'c'}) {
      if (!row.touches(array))
        continue;
      k::stream_arrays<T> arrays{good, good, good};
      (array == 'a' ? arrays.a : array == 'b' ? arrays.b : arrays.c) = bad;
      EXPECT_THROW(k::launch_stream(row.op, arrays, T(0.4), 16, nullptr), std::invalid_argument)
          << row.name << " " << array;
      (array == 'a' ? arrays.a : array == 'b' ? arrays.b : arrays.c) = nullptr;
      EXPECT_THROW(k::launch_stream(row.op, arrays, T(0.4), 16, nullptr), std::invalid_argument)
          << row.name << " " << array << " missing";
    }
  }
}

TEST(launchers, reject_misaligned_arrays_before_touching_the_gpu) {
  expect_each_array_checked(reinterpret_cast<float*>(std::uintptr_t{0x1000}),
                            reinterpret_cast<float*>(std::uintptr_t{0x1004}));
  auto* dmis = reinterpret_cast<double*>(std::uintptr_t{0x1008});
  auto* dal = reinterpret_cast<double*>(std::uintptr_t{0x1000});
  expect_each_array_checked(dal, dmis);
  EXPECT_THROW(k::launch_dot(dal, dal, dal, 0u, reinterpret_cast<double*>(std::uintptr_t{0x2000}),
                             16, nullptr),
               std::invalid_argument);
  EXPECT_THROW(
      k::launch_l2_flush(reinterpret_cast<void*>(std::uintptr_t{0x1000}), 17, nullptr, nullptr),
      std::invalid_argument);
}

TEST(launchers, hold_rejects_a_timeout_that_is_not_positive) {
  EXPECT_THROW(k::launch_hold(nullptr, nullptr, 0.0, nullptr), std::invalid_argument);
  EXPECT_THROW(k::launch_hold(nullptr, nullptr, -1.0, nullptr), std::invalid_argument);
  EXPECT_THROW(k::launch_hold(nullptr, nullptr, std::nan(""), nullptr), std::invalid_argument);
}

// --- output poisons ----------------------------------------------------------------------------

TEST(poison, byte_words_and_the_nan_word) {
  EXPECT_EQ(k::byte_poison_word(0x80), 0x80808080u);
  EXPECT_EQ(k::byte_poison_word(0xFF), k::nan_poison_word);
  EXPECT_EQ(k::byte_poison_word(0x00), 0u);
  float f = 0;
  static_assert(sizeof f == sizeof k::nan_poison_word);
  std::memcpy(&f, &k::nan_poison_word, sizeof f);
  EXPECT_TRUE(std::isnan(f));
}

TEST(poison, byte_avoiding_skips_the_words_that_are_results) {
  // No result is a repeated-byte word: the first choice stands.
  const std::vector<std::uint32_t> plain{1, 2, 0x80808081u, 0x01808080u};
  EXPECT_EQ(k::poison_byte_avoiding(plain), std::uint8_t{0x80});
  // 0x80808080 and 0x81818181 are results: the next byte is taken.
  const std::vector<std::uint32_t> taken{7, 0x80808080u, 0x81818181u, 9};
  EXPECT_EQ(k::poison_byte_avoiding(taken), std::uint8_t{0x82});
  // It wraps past 0xFF to 0x00.
  EXPECT_EQ(k::poison_byte_avoiding(std::vector<std::uint32_t>{0xFFFFFFFFu}, 0xFF),
            std::uint8_t{0x00});
  // Every one of the 256 words a result: no poison.
  std::vector<std::uint32_t> all;
  for (unsigned b = 0; b < 256; ++b)
    all.push_back(k::byte_poison_word(static_cast<std::uint8_t>(b)));
  EXPECT_FALSE(k::poison_byte_avoiding(all).has_value());
  all.pop_back();
  EXPECT_EQ(k::poison_byte_avoiding(all), std::uint8_t{0xFF});
}

// --- work counters -----------------------------------------------------------------------------

TEST(work_count, every_unit_at_the_expected_trips_passes) {
  const std::vector<std::uint32_t> counts(24, 4096);
  const k::work_count_verdict v = k::judge_work_counts(counts, 4096);
  EXPECT_TRUE(v.passed());
  EXPECT_EQ(v.units, 24u);
  EXPECT_EQ(v.counted_total, 24u * 4096);
  EXPECT_FALSE(v.first_bad.has_value());
  const std::string d = k::describe_work_counts(v, "warp");
  EXPECT_NE(d.find("every one of the 24 warps counted 4096 loop trips"), std::string::npos) << d;
  // Zero trips is a count like any other.
  EXPECT_TRUE(k::judge_work_counts(std::vector<std::uint32_t>(3, 0), 0).passed());
}

TEST(work_count, a_short_loop_fails_naming_expected_and_counted) {
  // The case the accumulator check cannot see: warp 5 ran half its trips.
  std::vector<std::uint32_t> counts(16, 300);
  counts[5] = 150;
  const k::work_count_verdict v = k::judge_work_counts(counts, 300);
  EXPECT_FALSE(v.passed());
  EXPECT_EQ(v.wrong, 1u);
  EXPECT_EQ(v.not_written, 0u);
  ASSERT_TRUE(v.first_bad.has_value());
  EXPECT_EQ(*v.first_bad, 5u);
  EXPECT_EQ(v.first_bad_value, 150u);
  EXPECT_EQ(v.counted_total, 15u * 300 + 150);
  const std::string d = k::describe_work_counts(v, "warp");
  EXPECT_NE(d.find("1 of 16 warps counted other than the 300 loop trips"), std::string::npos) << d;
  EXPECT_NE(d.find("warp 5, counted 150"), std::string::npos) << d;
  EXPECT_NE(d.find("counted 4650 trips in all, expected 4800"), std::string::npos) << d;
  // More trips than credited fails too.
  counts[5] = 301;
  EXPECT_FALSE(k::judge_work_counts(counts, 300).passed());
}

TEST(work_count, a_unit_that_never_stored_is_not_written) {
  // Warpgroup 2 returned before its store: its counter keeps the poison.
  std::vector<std::uint32_t> counts(4, 77);
  counts[2] = k::work_count_poison;
  counts[3] = k::work_count_poison;
  const k::work_count_verdict v = k::judge_work_counts(counts, 77);
  EXPECT_FALSE(v.passed());
  EXPECT_EQ(v.not_written, 2u);
  EXPECT_EQ(v.wrong, 0u);
  EXPECT_EQ(v.counted_total, 2u * 77); // the poison is not counted as trips
  ASSERT_TRUE(v.first_bad.has_value());
  EXPECT_EQ(*v.first_bad, 2u);
  const std::string d = k::describe_work_counts(v, "warpgroup");
  EXPECT_NE(d.find("2 of 4 warpgroups never stored their count (not written"), std::string::npos)
      << d;
  EXPECT_NE(d.find("warpgroup 2, not written"), std::string::npos) << d;
}

TEST(work_count, no_counters_never_pass) {
  const k::work_count_verdict v = k::judge_work_counts({}, 5);
  EXPECT_FALSE(v.passed());
  EXPECT_NE(k::describe_work_counts(v, "warp").find("no warps"), std::string::npos);
}
