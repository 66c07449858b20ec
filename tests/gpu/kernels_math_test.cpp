// Host tests of the kernels' CUDA-free headers: grid sizing, the STREAM table, the seeded values,
// the dot's error bound, the output poisons, the work counters' verdict, and the launchers'
// argument checks (which throw before any CUDA call).

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <set>
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

TEST(stream_math, bytes_moved_follow_babelstream) {
  EXPECT_EQ(k::stream_arrays_moved(k::stream_op::copy), 2);
  EXPECT_EQ(k::stream_arrays_moved(k::stream_op::scale), 2);
  EXPECT_EQ(k::stream_arrays_moved(k::stream_op::add), 3);
  EXPECT_EQ(k::stream_arrays_moved(k::stream_op::triad), 3);
  EXPECT_EQ(k::stream_arrays_moved(k::stream_op::dot), 2);
  EXPECT_EQ(k::stream_bytes(k::stream_op::triad, 1000, 8), 24000u);
  EXPECT_EQ(k::stream_bytes(k::stream_op::copy, std::uint64_t{1} << 28, 4), std::uint64_t{2} << 30);
  EXPECT_EQ(k::stream_flops_per_element(k::stream_op::copy), 0);
  EXPECT_EQ(k::stream_flops_per_element(k::stream_op::triad), 2);
  EXPECT_EQ(k::stream_flops_per_element(k::stream_op::dot), 2);
}

TEST(stream_math, names_are_the_gpuspec_ids) {
  std::set<std::string_view> names;
  for (auto op : k::all_stream_ops)
    names.insert(k::stream_op_name(op));
  EXPECT_EQ(names, (std::set<std::string_view>{"copy", "scale", "add", "triad", "dot"}));
}

TEST(stream_math, vector_widths_are_16_bytes) {
  EXPECT_EQ(k::vector_width<float>, 4u);
  EXPECT_EQ(k::vector_width<double>, 2u);
}

TEST(stream_math, grid_gives_one_vector_per_thread_including_the_tail) {
  // 1 GiB of floats: 2^26 float4 vectors, 2^18 blocks of 256.
  EXPECT_EQ(k::stream_grid_blocks(std::uint64_t{1} << 28, 4), 1u << 18);
  // A tail needs its own thread when the count is not a multiple of the width.
  EXPECT_EQ(k::stream_grid_blocks(1024, 4), 1u);
  EXPECT_EQ(k::stream_grid_blocks(1025, 4), 2u);
  EXPECT_EQ(k::stream_grid_blocks(3, 4), 1u);
  EXPECT_EQ(k::stream_grid_blocks(0, 4), 1u);
}

TEST(stream_math, dot_grid_is_one_wave_at_most) {
  EXPECT_EQ(k::dot_grid_blocks(std::uint64_t{1} << 28, 4, 1056), 1056u);
  EXPECT_EQ(k::dot_grid_blocks(100, 4, 1056), 1u);
  EXPECT_EQ(k::dot_grid_blocks(100, 4, 0), 1u);
}

TEST(stream_math, dot_bound_scales_with_elements_per_thread_not_n) {
  const double small = k::dot_relative_error_bound<float>(1000, 1);
  const double big = k::dot_relative_error_bound<float>(std::uint64_t{1} << 28, 1056);
  // 2^28 floats over 1056*256 threads: about 1000 terms per thread.
  EXPECT_GT(big, 900 * 1.19e-7);
  EXPECT_LT(big, 1200 * 1.19e-7);
  EXPECT_LT(big, 1e-3 * (std::uint64_t{1} << 28) * 1.19e-7); // far tighter than n*eps
  EXPECT_GT(small, 0.0);
  // fp64 bound is in double's epsilon.
  EXPECT_LT(k::dot_relative_error_bound<double>(std::uint64_t{1} << 27, 1056), 1e-12);
}

TEST(stream_math, elementwise_bound_is_a_few_eps) {
  EXPECT_DOUBLE_EQ(k::elementwise_relative_error_bound<float>(),
                   4.0 * std::numeric_limits<float>::epsilon());
  EXPECT_DOUBLE_EQ(k::elementwise_relative_error_bound<double>(),
                   4.0 * std::numeric_limits<double>::epsilon());
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

TEST(launchers, reject_misaligned_arrays_before_touching_the_gpu) {
  auto* misaligned = reinterpret_cast<float*>(std::uintptr_t{0x1004});
  auto* aligned = reinterpret_cast<float*>(std::uintptr_t{0x1000});
  EXPECT_THROW(k::launch_copy(misaligned, aligned, 16, nullptr), std::invalid_argument);
  EXPECT_THROW(k::launch_triad(aligned, aligned, misaligned, 0.4f, 16, nullptr),
               std::invalid_argument);
  auto* dmis = reinterpret_cast<double*>(std::uintptr_t{0x1008});
  auto* dal = reinterpret_cast<double*>(std::uintptr_t{0x1000});
  EXPECT_THROW(k::launch_add(dal, dmis, dal, 16, nullptr), std::invalid_argument);
  EXPECT_THROW(k::launch_scale(dmis, dal, 0.4, 16, nullptr), std::invalid_argument);
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
