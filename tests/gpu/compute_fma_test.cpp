// Tests of the FMA-chain family (kernels/src/fma_chain.cu, benches/families/compute_fma.cpp).
//
// Host tests (run everywhere): operation counts, launch sizing, the fp16 rounding helpers, the
// host references (against closed forms and naive loops), why fp16x2 needs its work counters
// (its output stops depending on the count) and what they must hold, the int32 poison, the
// launchers' argument checks. Device tests (skipped without a GPU): each kernel launched small,
// every output compared bit for bit with the host reference and fp16x2's counters with the
// trips; the full-wave query; the four benchmarks through the runner.

#include <array>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpu_test_support.hpp"
#include "gpuspec/host/device_probe.hpp"
#include "gpuspec/host/measurement_options.hpp"
#include "gpuspec/host/nvml_library.hpp"
#include "gpuspec/kernels/cuda_check.cuh"
#include "gpuspec/kernels/cuda_handles.cuh"
#include "gpuspec/kernels/fill.hpp"
#include "gpuspec/kernels/fma_chain.hpp"
#include "gpuspec/kernels/work_count.hpp"
#include "gpuspec/reports/model/report_json.hpp"
#include "gpuspec/reports/model/units.hpp"
#include "runner_support.hpp"

namespace k = gpuspec::kernels;
namespace b = gpuspec::benches;
namespace r = gpuspec::reports;
using k::fma_dtype;

// --- host: counts and sizing ------------------------------------------------------------------

TEST(fma_chain_math, operation_counts) {
  EXPECT_EQ(k::fma_lanes(fma_dtype::fp32), 1u);
  EXPECT_EQ(k::fma_lanes(fma_dtype::fp64), 1u);
  EXPECT_EQ(k::fma_lanes(fma_dtype::fp16x2), 2u);
  EXPECT_EQ(k::fma_lanes(fma_dtype::int32), 1u);
  // threads x accumulators x iterations x 2, x2 more for fp16x2
  EXPECT_DOUBLE_EQ(k::fma_chain_ops(fma_dtype::fp32, 1000, 64), 1000.0 * 16 * 64 * 2);
  EXPECT_DOUBLE_EQ(k::fma_chain_ops(fma_dtype::fp64, 1000, 64), 1000.0 * 16 * 64 * 2);
  EXPECT_DOUBLE_EQ(k::fma_chain_ops(fma_dtype::int32, 1000, 64), 1000.0 * 16 * 64 * 2);
  EXPECT_DOUBLE_EQ(k::fma_chain_ops(fma_dtype::fp16x2, 1000, 64), 1000.0 * 16 * 64 * 4);
  // A full H100-size wave: no overflow in the double.
  EXPECT_DOUBLE_EQ(k::fma_chain_ops(fma_dtype::fp32, 132ull * 2048, 1u << 20),
                   132.0 * 2048 * 16 * 1048576 * 2);
  EXPECT_EQ(k::fma_dtype_name(fma_dtype::fp16x2), "fp16x2");
}

TEST(fma_chain_math, iterations_aim_at_the_target_time) {
  // 256 flop/SM/clock at 1980 MHz with 2048 threads per SM, 4 ms: 4e-3*1.98e9*256/(2048*32).
  const std::uint32_t it = k::fma_chain_iterations(fma_dtype::fp32, 256, 1980, 2048, 4e-3);
  EXPECT_EQ(it % k::fma_chain_unroll, 0u);
  EXPECT_GE(it, 30937u);
  EXPECT_LT(it, 30937u + k::fma_chain_unroll);
  // The time it gives, at that rate: ops per SM / rate / clock.
  const double seconds =
      2048.0 * it * k::fma_chain_ops_per_thread_iteration(fma_dtype::fp32) / 256.0 / 1980e6;
  EXPECT_NEAR(seconds, 4e-3, 4e-3 * 0.01);
  // fp16x2 does twice the operations per iteration: half the iterations at twice the rate.
  EXPECT_EQ(k::fma_chain_iterations(fma_dtype::fp16x2, 512, 1980, 2048, 4e-3), it);
  // Slow fp64 (4 per SM per clock): few iterations, still at least one trip.
  EXPECT_EQ(k::fma_chain_iterations(fma_dtype::fp64, 4, 1500, 1536, 1e-6), k::fma_chain_unroll);
  // Clamped, and bad inputs give one trip.
  EXPECT_EQ(k::fma_chain_iterations(fma_dtype::fp32, 256, 2000, 32, 100.0),
            k::fma_chain_max_iterations);
  EXPECT_EQ(k::fma_chain_iterations(fma_dtype::fp32, 0, 2000, 2048, 4e-3), k::fma_chain_unroll);
  EXPECT_EQ(k::fma_chain_iterations(fma_dtype::fp32, 256, 2000, 0, 4e-3), k::fma_chain_unroll);
  EXPECT_EQ(k::fma_chain_iterations(fma_dtype::fp32, NAN, 2000, 2048, 4e-3), k::fma_chain_unroll);
  EXPECT_EQ(k::fma_chain_max_iterations % k::fma_chain_unroll, 0u);
}

// --- host: fp16 helpers -----------------------------------------------------------------------

TEST(fma_chain_half, known_values) {
  EXPECT_EQ(k::half_bits_from_double(1.0), 0x3C00);
  EXPECT_EQ(k::half_bits_from_double(-2.0), 0xC000);
  EXPECT_EQ(k::half_bits_from_double(0.0), 0x0000);
  EXPECT_EQ(k::half_bits_from_double(-0.0), 0x8000);
  EXPECT_EQ(k::half_bits_from_double(65504.0), 0x7BFF);
  EXPECT_EQ(k::half_bits_from_double(65519.99), 0x7BFF); // rounds down to the largest finite
  EXPECT_EQ(k::half_bits_from_double(65520.0), 0x7C00);  // the tie rounds to even: infinity
  EXPECT_EQ(k::half_bits_from_double(1e9), 0x7C00);
  EXPECT_EQ(k::half_bits_from_double(std::ldexp(1.0, -24)), 0x0001);       // smallest subnormal
  EXPECT_EQ(k::half_bits_from_double(std::ldexp(1.0, -25)), 0x0000);       // tie to even: zero
  EXPECT_EQ(k::half_bits_from_double(std::ldexp(3.0, -25)), 0x0002);       // tie to even: 2
  EXPECT_EQ(k::half_bits_from_double(std::ldexp(1.0, -14)), 0x0400);       // smallest normal
  EXPECT_EQ(k::half_bits_from_double(1.0 + std::ldexp(1.0, -11)), 0x3C00); // tie: even
  EXPECT_EQ(k::half_bits_from_double(1.0 + std::ldexp(3.0, -11)), 0x3C02); // tie: even
  EXPECT_EQ(k::half_bits_from_double(1.0 + std::ldexp(1.0, -11) + 1e-9), 0x3C01); // above tie
  EXPECT_EQ(k::half_bits_from_double(2.0 - std::ldexp(1.0, -12)), 0x4000);        // carries into 2
  EXPECT_EQ(k::half_bits_from_double(NAN) & 0x7C00, 0x7C00);
  EXPECT_NE(k::half_bits_from_double(NAN) & 0x3FF, 0);
  EXPECT_EQ(k::half_bits_from_double(INFINITY), 0x7C00);
  EXPECT_EQ(k::half_bits_from_double(-INFINITY), 0xFC00);
  EXPECT_DOUBLE_EQ(k::half_bits_to_double(0x3555), 0.333251953125);
  EXPECT_TRUE(std::isinf(k::half_bits_to_double(0xFC00)));
  EXPECT_TRUE(std::isnan(k::half_bits_to_double(0x7E00)));
}

TEST(fma_chain_half, every_finite_value_round_trips) {
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    const auto bits = static_cast<std::uint16_t>(h);
    const double v = k::half_bits_to_double(bits);
    if (std::isnan(v))
      continue;
    ASSERT_EQ(k::half_bits_from_double(v), bits) << std::hex << h;
    // Halfway to the next value up (in magnitude) rounds to the even one of the two.
    if ((h & 0x7FFF) < 0x7BFF) {
      const double next = k::half_bits_to_double(static_cast<std::uint16_t>(h + 1));
      const std::uint16_t even = (h & 1) == 0 ? bits : static_cast<std::uint16_t>(h + 1);
      ASSERT_EQ(k::half_bits_from_double((v + next) / 2), even) << std::hex << h;
    }
  }
}

TEST(fma_chain_half, the_parameters_are_the_documented_fractions) {
  EXPECT_EQ(k::fma_fp16x2_a_bits & 0xFFFFu, k::half_bits_from_double(63.0 / 64));
  EXPECT_EQ(k::fma_fp16x2_a_bits >> 16, k::half_bits_from_double(127.0 / 128));
  EXPECT_EQ(k::fma_fp16x2_b_bits & 0xFFFFu, k::half_bits_from_double(3.0 / 64));
  EXPECT_EQ(k::fma_fp16x2_b_bits >> 16, k::half_bits_from_double(3.0 / 256));
}

// --- host: starting values and references ------------------------------------------------------

TEST(fma_chain_reference, starting_values_are_in_range_and_distinct) {
  for (unsigned c = 0; c < k::fma_chain_start_classes; ++c)
    for (unsigned j = 0; j < k::fma_chain_accumulators; ++j) {
      const float f = k::fma_start_fp32(k::fma_chain_seed, c, j);
      EXPECT_GE(f, 1.0f);
      EXPECT_LT(f, 2.0f);
      const double d = k::fma_start_fp64(k::fma_chain_seed, c, j);
      EXPECT_GE(d, 1.0);
      EXPECT_LT(d, 2.0);
      const std::uint32_t h = k::fma_start_fp16x2_bits(k::fma_chain_seed, c, j);
      const double lo = k::half_bits_to_double(static_cast<std::uint16_t>(h & 0xFFFFu));
      const double hi = k::half_bits_to_double(static_cast<std::uint16_t>(h >> 16));
      EXPECT_GE(lo, 1.0);
      EXPECT_LT(lo, 2.0);
      EXPECT_GE(hi, 0.5);
      EXPECT_LT(hi, 1.0);
    }
  EXPECT_EQ(k::fma_start_class(0), 0u);
  EXPECT_EQ(k::fma_start_class(65), 1u);
  EXPECT_NE(k::fma_start_fp32(k::fma_chain_seed, 0, 0), k::fma_start_fp32(k::fma_chain_seed, 1, 0));
  EXPECT_NE(k::fma_start_int32(k::fma_chain_seed, 0, 0),
            k::fma_start_int32(k::fma_chain_seed, 1, 0));
}

TEST(fma_chain_reference, host_fma_is_correctly_rounded) {
  // For these magnitudes x*a + b is exact in double, so one rounding to float is the correctly
  // rounded FMA: std::fma on the host must agree, step by step.
  float x = k::fma_start_fp32(k::fma_chain_seed, 3, 5);
  for (int i = 0; i < 5000; ++i) {
    const float want = static_cast<float>(static_cast<double>(x) * k::fma_fp32_a +
                                          static_cast<double>(k::fma_fp32_b));
    const float got = std::fma(x, k::fma_fp32_a, k::fma_fp32_b);
    ASSERT_EQ(got, want) << i;
    x = got;
  }
}

TEST(fma_chain_reference, float_chains_follow_the_closed_form_and_depend_on_the_count) {
  // x_n = f + a^n (x_0 - f), f = b / (1 - a); rounding adds a small random walk.
  const double a = k::fma_fp32_a, b = k::fma_fp32_b, f = b / (1.0 - a);
  const float x0 = k::fma_start_fp32(k::fma_chain_seed, 7, 2);
  for (std::uint64_t n : {0ull, 32ull, 1024ull, 30944ull, 100000ull}) {
    const float x = k::fma_chain_simulate<float>(x0, k::fma_fp32_a, k::fma_fp32_b, n);
    const double closed = f + std::pow(a, static_cast<double>(n)) * (x0 - f);
    EXPECT_NEAR(x, closed, 1e-4 * f) << n;
    EXPECT_GE(x, x0);
    EXPECT_LT(x, f);
  }
  // Within the counts one launch runs, 32 more steps change the value.
  EXPECT_NE(k::fma_chain_simulate<float>(x0, k::fma_fp32_a, k::fma_fp32_b, 30944),
            k::fma_chain_simulate<float>(x0, k::fma_fp32_a, k::fma_fp32_b, 30976));
  const double xd0 = k::fma_start_fp64(k::fma_chain_seed, 7, 2);
  const double xd = k::fma_chain_simulate<double>(xd0, k::fma_fp64_a, k::fma_fp64_b, 20000);
  const double fd = k::fma_fp64_b / (1.0 - k::fma_fp64_a);
  EXPECT_NEAR(xd, fd + std::pow(k::fma_fp64_a, 20000.0) * (xd0 - fd), 1e-9 * fd);
  EXPECT_NE(xd, k::fma_chain_simulate<double>(xd0, k::fma_fp64_a, k::fma_fp64_b, 20032));
}

TEST(fma_chain_reference, expected_float_outputs_are_the_ordered_sums) {
  const std::uint64_t n = 96;
  const auto expected =
      k::fma_chain_expected_float<float>(k::fma_fp32_a, k::fma_fp32_b, k::fma_chain_seed, n);
  ASSERT_EQ(expected.size(), k::fma_chain_start_classes);
  for (unsigned c : {0u, 1u, 63u}) {
    float sum = 0;
    for (unsigned j = 0; j < k::fma_chain_accumulators; ++j) {
      float x = k::fma_start_fp32(k::fma_chain_seed, c, j);
      for (std::uint64_t i = 0; i < n; ++i)
        x = std::fma(x, k::fma_fp32_a, k::fma_fp32_b);
      sum = j == 0 ? x : sum + x;
    }
    EXPECT_EQ(expected[c], sum) << c;
  }
  EXPECT_NE(expected[0], expected[1]);
}

TEST(fma_chain_reference, half_chains_step_as_a_rounded_exact_fma) {
  const auto a = static_cast<std::uint16_t>(k::fma_fp16x2_a_bits & 0xFFFFu);
  const auto b = static_cast<std::uint16_t>(k::fma_fp16x2_b_bits & 0xFFFFu);
  const auto x0 = static_cast<std::uint16_t>(k::fma_start_fp16x2_bits(k::fma_chain_seed, 0, 0));
  // One step by hand: x0 * 63/64 + 3/64 is exact in double.
  const double one = k::half_bits_to_double(x0) * (63.0 / 64) + 3.0 / 64;
  EXPECT_EQ(k::fma_chain_simulate_half(x0, a, b, 1), k::half_bits_from_double(one));
  // It approaches the fixed point 3 and settles on a rounding fixed point near it.
  const double settled = k::half_bits_to_double(k::fma_chain_simulate_half(x0, a, b, 100000));
  EXPECT_NEAR(settled, 3.0, 0.1);
  EXPECT_EQ(k::fma_chain_simulate_half(x0, a, b, 100000),
            k::fma_chain_simulate_half(x0, a, b, 200000));
  const auto expected = k::fma_chain_expected_fp16x2(k::fma_fp16x2_a_bits, k::fma_fp16x2_b_bits,
                                                     k::fma_chain_seed, 64);
  ASSERT_EQ(expected.size(), k::fma_chain_start_classes);
  // Lane 0: 16 values near 3 (below it); lane 1: 16 values between 0.5 and 1.5.
  const double lo = k::half_bits_to_double(static_cast<std::uint16_t>(expected[5] & 0xFFFFu));
  const double hi = k::half_bits_to_double(static_cast<std::uint16_t>(expected[5] >> 16));
  EXPECT_GT(lo, 16 * 1.0);
  EXPECT_LT(lo, 16 * 3.0);
  EXPECT_GT(hi, 16 * 0.5);
  EXPECT_LT(hi, 16 * 1.5);
}

TEST(fma_chain_reference, lcg_jump_matches_stepping) {
  for (std::uint64_t n : {0ull, 1ull, 2ull, 3ull, 1000ull, 12345ull}) {
    std::uint32_t x = 0x12345678u;
    for (std::uint64_t i = 0; i < n; ++i)
      x = x * k::fma_int32_a + k::fma_int32_b;
    EXPECT_EQ(k::lcg_jump(k::fma_int32_a, k::fma_int32_b, n)(0x12345678u), x) << n;
  }
  // Full period: a ≡ 1 (mod 4), b odd; the 2^32-th power is the identity, no smaller power of two.
  static_assert(k::fma_int32_a % 4 == 1 && k::fma_int32_b % 2 == 1);
  const auto full = k::lcg_jump(k::fma_int32_a, k::fma_int32_b, std::uint64_t{1} << 32);
  EXPECT_EQ(full.mul, 1u);
  EXPECT_EQ(full.add, 0u);
  const auto half = k::lcg_jump(k::fma_int32_a, k::fma_int32_b, std::uint64_t{1} << 31);
  EXPECT_FALSE(half.mul == 1u && half.add == 0u);
}

TEST(fma_chain_reference, expected_int32_outputs_sum_each_threads_chains) {
  const std::uint64_t n = 64;
  const auto steps = k::lcg_jump(k::fma_int32_a, k::fma_int32_b, n);
  for (std::uint32_t t : {0u, 1u, 255u, 100000u}) {
    std::uint32_t sum = 0;
    for (unsigned j = 0; j < k::fma_chain_accumulators; ++j) {
      std::uint32_t x = k::fma_start_int32(k::fma_chain_seed, t, j);
      for (std::uint64_t i = 0; i < n; ++i)
        x = x * k::fma_int32_a + k::fma_int32_b;
      sum += x;
    }
    EXPECT_EQ(k::fma_chain_expected_int32(steps, k::fma_chain_seed, t), sum) << t;
  }
}

TEST(fma_chain_work_count, fp16x2_output_stops_depending_on_the_count) {
  // Why fp16x2 counts its trips: once the chains sit on their rounding fixed point, a launch of
  // half the iterations produces the same bits as the full one, so the output check alone would
  // pass a kernel that ran half its loop (fp32, fp64 and int32 outputs do change).
  const std::uint32_t full = 8192, half = full / 2;
  EXPECT_EQ(k::fma_chain_expected_fp16x2(k::fma_fp16x2_a_bits, k::fma_fp16x2_b_bits,
                                         k::fma_chain_seed, full),
            k::fma_chain_expected_fp16x2(k::fma_fp16x2_a_bits, k::fma_fp16x2_b_bits,
                                         k::fma_chain_seed, half));
  EXPECT_NE(
      k::fma_chain_expected_float<float>(k::fma_fp32_a, k::fma_fp32_b, k::fma_chain_seed, full),
      k::fma_chain_expected_float<float>(k::fma_fp32_a, k::fma_fp32_b, k::fma_chain_seed, half));
  EXPECT_NE(k::fma_chain_expected_int32(k::lcg_jump(k::fma_int32_a, k::fma_int32_b, full),
                                        k::fma_chain_seed, 0),
            k::fma_chain_expected_int32(k::lcg_jump(k::fma_int32_a, k::fma_int32_b, half),
                                        k::fma_chain_seed, 0));
  // The counters tell them apart: every warp must have run iterations / unroll trips.
  const std::vector<std::uint32_t> ran_half(k::fma_chain_count_words(7), k::fma_chain_trips(half));
  const k::work_count_verdict v = k::judge_work_counts(ran_half, k::fma_chain_trips(full));
  EXPECT_FALSE(v.passed());
  EXPECT_EQ(v.wrong, ran_half.size());
  const std::string d = k::describe_work_counts(v, "warp");
  EXPECT_NE(d.find("counted other than the 256 loop trips"), std::string::npos) << d;
  EXPECT_NE(d.find("warp 0, counted 128"), std::string::npos) << d;
  EXPECT_TRUE(
      k::judge_work_counts(std::vector<std::uint32_t>(56, 256), k::fma_chain_trips(full)).passed());
}

TEST(fma_chain_work_count, trips_and_counter_layout) {
  EXPECT_EQ(k::fma_chain_warps_per_block, 8u);
  EXPECT_EQ(k::fma_chain_count_words(7), 56u);
  EXPECT_EQ(k::fma_chain_trips(0), 0u);
  EXPECT_EQ(k::fma_chain_trips(4096), 4096u / k::fma_chain_unroll);
  // Every count stays clear of the counters' poison.
  EXPECT_LT(k::fma_chain_trips(k::fma_chain_max_iterations), k::work_count_poison);
  // The FLOP count is the counted trips × unroll × ops per thread-iteration × threads.
  const std::uint32_t iterations = 30944;
  const std::uint64_t blocks = 264;
  const double from_counts = static_cast<double>(k::fma_chain_count_words(blocks)) * 32.0 *
                             k::fma_chain_trips(iterations) * k::fma_chain_unroll *
                             k::fma_chain_ops_per_thread_iteration(fma_dtype::fp16x2);
  EXPECT_DOUBLE_EQ(from_counts, k::fma_chain_ops(fma_dtype::fp16x2,
                                                 blocks * k::fma_chain_block_threads, iterations));
}

TEST(fma_chain_poison, int32_poison_is_no_threads_result) {
  // Any word is a possible int32 result, so the poison is picked against the known results.
  const std::uint64_t threads = 3 * k::fma_chain_block_threads;
  const std::vector<std::uint32_t> all =
      k::fma_chain_expected_int32_all(threads, 96, k::fma_chain_seed);
  ASSERT_EQ(all.size(), threads);
  const auto steps = k::lcg_jump(k::fma_int32_a, k::fma_int32_b, 96);
  for (std::uint32_t t : {0u, 1u, 255u, 767u})
    EXPECT_EQ(all[t], k::fma_chain_expected_int32(steps, k::fma_chain_seed, t)) << t;
  const auto byte = k::poison_byte_avoiding(all);
  ASSERT_TRUE(byte.has_value());
  for (std::uint32_t r : all)
    ASSERT_NE(r, k::byte_poison_word(*byte));
  // Were a thread's result 0x80808080, the poison would move on.
  std::vector<std::uint32_t> with_collision = all;
  with_collision[5] = k::byte_poison_word(*byte);
  const auto other = k::poison_byte_avoiding(with_collision);
  ASSERT_TRUE(other.has_value());
  EXPECT_NE(*other, *byte);
}

TEST(fma_chain_launchers, reject_bad_arguments_before_launching) {
  // No CUDA call happens before these checks, so this runs without a GPU.
  auto* fake = reinterpret_cast<float*>(std::uintptr_t{256});
  EXPECT_THROW(k::launch_fma_chain_fp32(nullptr, 1, 32, 1.0f, 0.0f, 1, nullptr),
               std::invalid_argument);
  EXPECT_THROW(k::launch_fma_chain_fp32(fake, 0, 32, 1.0f, 0.0f, 1, nullptr),
               std::invalid_argument);
  EXPECT_THROW(k::launch_fma_chain_fp32(fake, (1u << 24) + 1, 32, 1.0f, 0.0f, 1, nullptr),
               std::invalid_argument);
  EXPECT_THROW(k::launch_fma_chain_fp32(fake, 1, 33, 1.0f, 0.0f, 1, nullptr),
               std::invalid_argument);
  EXPECT_THROW(k::launch_fma_chain_fp64(nullptr, 1, 32, 1.0, 0.0, 1, nullptr),
               std::invalid_argument);
  EXPECT_THROW(k::launch_fma_chain_fp16x2(nullptr, nullptr, 1, 32, 0, 0, 1, nullptr),
               std::invalid_argument);
  auto* words = reinterpret_cast<std::uint32_t*>(std::uintptr_t{256});
  EXPECT_THROW(k::launch_fma_chain_fp16x2(words, nullptr, 1, 32, 0, 0, 1, nullptr),
               std::invalid_argument); // no work counters
  EXPECT_THROW(k::launch_fma_chain_int32(reinterpret_cast<std::uint32_t*>(fake), 1,
                                         k::fma_chain_max_iterations + k::fma_chain_unroll, 1, 1, 1,
                                         nullptr),
               std::invalid_argument);
}

// --- device: every output of small launches ---------------------------------------------------

namespace {

template <class T> std::vector<T> to_host(const k::device_buffer<T>& d) {
  std::vector<T> h(d.size());
  GPUSPEC_CUDA_CHECK(cudaMemcpy(h.data(), d.data(), d.bytes(), cudaMemcpyDeviceToHost));
  return h;
}

/// Blocks: enough threads for every class many times over, not a multiple of anything.
constexpr unsigned test_blocks = 7;
constexpr std::size_t test_threads = std::size_t{test_blocks} * k::fma_chain_block_threads;
const std::vector<std::uint32_t> test_iterations{0, 32, 96, 4096};

struct fma_chain_gpu : gpuspec::testing::gpu_test {};

} // namespace

TEST_F(fma_chain_gpu, fp32_every_thread_bit_for_bit) {
  for (std::uint32_t n : test_iterations) {
    SCOPED_TRACE(n);
    k::device_buffer<float> out(test_threads);
    k::poison_with_nan(out.data(), out.bytes(), nullptr);
    k::launch_fma_chain_fp32(out.data(), test_blocks, n, k::fma_fp32_a, k::fma_fp32_b,
                             k::fma_chain_seed, nullptr);
    GPUSPEC_CUDA_CHECK(cudaDeviceSynchronize());
    const auto got = to_host(out);
    const auto want =
        k::fma_chain_expected_float<float>(k::fma_fp32_a, k::fma_fp32_b, k::fma_chain_seed, n);
    for (std::size_t t = 0; t < got.size(); ++t)
      ASSERT_EQ(got[t], want[k::fma_start_class(static_cast<std::uint32_t>(t))]) << t;
  }
}

TEST_F(fma_chain_gpu, fp64_every_thread_bit_for_bit) {
  for (std::uint32_t n : test_iterations) {
    SCOPED_TRACE(n);
    k::device_buffer<double> out(test_threads);
    k::poison_with_nan(out.data(), out.bytes(), nullptr);
    k::launch_fma_chain_fp64(out.data(), test_blocks, n, k::fma_fp64_a, k::fma_fp64_b,
                             k::fma_chain_seed, nullptr);
    GPUSPEC_CUDA_CHECK(cudaDeviceSynchronize());
    const auto got = to_host(out);
    const auto want =
        k::fma_chain_expected_float<double>(k::fma_fp64_a, k::fma_fp64_b, k::fma_chain_seed, n);
    for (std::size_t t = 0; t < got.size(); ++t)
      ASSERT_EQ(got[t], want[k::fma_start_class(static_cast<std::uint32_t>(t))]) << t;
  }
}

TEST_F(fma_chain_gpu, fp16x2_every_thread_bit_for_bit) {
  for (std::uint32_t n : test_iterations) {
    SCOPED_TRACE(n);
    k::device_buffer<std::uint32_t> out(test_threads);
    k::device_buffer<std::uint32_t> trips(k::fma_chain_count_words(test_blocks));
    k::poison_with_nan(out.data(), out.bytes(), nullptr);
    k::poison_with_nan(trips.data(), trips.bytes(), nullptr);
    k::launch_fma_chain_fp16x2(out.data(), trips.data(), test_blocks, n, k::fma_fp16x2_a_bits,
                               k::fma_fp16x2_b_bits, k::fma_chain_seed, nullptr);
    GPUSPEC_CUDA_CHECK(cudaDeviceSynchronize());
    const auto got = to_host(out);
    const auto want = k::fma_chain_expected_fp16x2(k::fma_fp16x2_a_bits, k::fma_fp16x2_b_bits,
                                                   k::fma_chain_seed, n);
    for (std::size_t t = 0; t < got.size(); ++t)
      ASSERT_EQ(got[t], want[k::fma_start_class(static_cast<std::uint32_t>(t))])
          << t << std::hex << " got 0x" << got[t];
    // Every warp counted n / unroll trips; one trip more is not what it ran.
    const auto counted = to_host(trips);
    const k::work_count_verdict work = k::judge_work_counts(counted, k::fma_chain_trips(n));
    EXPECT_TRUE(work.passed()) << k::describe_work_counts(work, "warp");
    EXPECT_FALSE(k::judge_work_counts(counted, k::fma_chain_trips(n) + 1).passed());
  }
}

TEST_F(fma_chain_gpu, int32_every_thread_exact) {
  for (std::uint32_t n : test_iterations) {
    SCOPED_TRACE(n);
    k::device_buffer<std::uint32_t> out(test_threads);
    k::poison_with_nan(out.data(), out.bytes(), nullptr);
    k::launch_fma_chain_int32(out.data(), test_blocks, n, k::fma_int32_a, k::fma_int32_b,
                              k::fma_chain_seed, nullptr);
    GPUSPEC_CUDA_CHECK(cudaDeviceSynchronize());
    const auto got = to_host(out);
    const auto steps = k::lcg_jump(k::fma_int32_a, k::fma_int32_b, n);
    for (std::size_t t = 0; t < got.size(); ++t)
      ASSERT_EQ(got[t], k::fma_chain_expected_int32(steps, k::fma_chain_seed,
                                                    static_cast<std::uint32_t>(t)))
          << t;
  }
}

TEST_F(fma_chain_gpu, full_wave_fills_every_sm) {
  int sms = 0, max_threads = 0;
  GPUSPEC_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  GPUSPEC_CUDA_CHECK(
      cudaDeviceGetAttribute(&max_threads, cudaDevAttrMaxThreadsPerMultiProcessor, 0));
  for (fma_dtype d : k::all_fma_dtypes) {
    SCOPED_TRACE(std::string(k::fma_dtype_name(d)));
    const k::fma_chain_wave w = k::fma_chain_full_wave(d);
    EXPECT_EQ(w.sm_count, static_cast<unsigned>(sms));
    EXPECT_GE(w.blocks_per_sm, 1u);
    EXPECT_EQ(w.blocks, w.sm_count * w.blocks_per_sm);
    EXPECT_EQ(w.threads_per_sm, w.blocks_per_sm * k::fma_chain_block_threads);
    EXPECT_LE(w.threads_per_sm, static_cast<unsigned>(max_threads));
    // At least half the SM's threads: enough warps per scheduler to hide the FMA latency.
    EXPECT_GE(2 * w.threads_per_sm, static_cast<unsigned>(max_threads));
  }
}

// --- device: the benchmarks through the runner --------------------------------------------------

TEST_F(fma_chain_gpu, benchmarks_are_ok_verified_and_near_the_ceiling) {
  gpuspec::testing::runner_inventory inv;
  gpuspec::testing::take_runner_inventory(inv);
  if (HasFatalFailure())
    return;
  r::report& report = inv.report;

  gpuspec::testing::run_quietly(
      gpuspec::testing::short_run_options(inv, "quick", "^compute\\.fma\\.", 5, 50, 1.0), inv);

  ASSERT_EQ(report.results.size(), 4u);
  const std::array<std::string, 4> ids{"compute.fma.fp32", "compute.fma.fp64", "compute.fma.fp16x2",
                                       "compute.fma.int32"};
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const r::result& res = report.results[i];
    SCOPED_TRACE(res.bench_id + " " + r::parameters_of(res).dump());
    EXPECT_EQ(res.bench_id, ids[i]);
    EXPECT_EQ(res.status, r::result_status::ok) << res.reason;
    EXPECT_EQ(res.check.status, r::verification_status::passed) << res.check.detail;
    // fp16x2 alone carries the work counters; its verification says every warp ran its trips.
    EXPECT_EQ(res.check.detail.find("work count: every one of the") != std::string::npos, i == 2)
        << res.check.detail;
    EXPECT_EQ(res.cache_state, "hot");
    EXPECT_EQ(res.metric, "throughput");
    EXPECT_EQ(r::to_string(res.unit), i == 3 ? "TOPS" : "TFLOP/s");
    EXPECT_GT(res.stats.median, 0.0);
    EXPECT_LT(res.stats.median, 1.0e4);
    // One launch: 0.5 to 50 ms (the sizing aims at 4 ms at the maximum clock).
    ASSERT_FALSE(res.sample_seconds.empty());
    EXPECT_GT(res.sample_seconds[0], 0.5e-3);
    EXPECT_LT(res.sample_seconds[0], 50e-3);
    const std::uint64_t threads = r::parameters_of(res).at("threads").get<std::uint64_t>();
    const std::uint64_t iterations = r::parameters_of(res).at("iterations").get<std::uint64_t>();
    ASSERT_TRUE(res.flops_per_iteration.has_value());
    EXPECT_DOUBLE_EQ(*res.flops_per_iteration, static_cast<double>(threads) *
                                                   static_cast<double>(iterations) * 16.0 *
                                                   (i == 2 ? 4.0 : 2.0));
    if (res.efficiency) {
      // The target is 0.95 of the clock-adjusted peak (judged by `gpuspec check`, not here); this
      // only catches gross errors: an operation count off by a factor, a pipe left mostly idle.
      std::cout << res.bench_id << ": " << res.stats.median << " " << r::to_string(res.unit) << ", "
                << *res.efficiency << " of the clock-adjusted peak\n";
      EXPECT_GT(*res.efficiency, 0.3);
      EXPECT_LT(*res.efficiency, 1.1);
    }
  }
  EXPECT_NO_THROW((void)r::to_json(report));
}
