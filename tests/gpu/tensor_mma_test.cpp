// Tests of the Tensor Core peak family (tensor.mma.*).
//
// Host tests (run everywhere): the mma.sync register-fragment maps against the PTX ISA's tables
// and as bijections, the operand encodings, the problems the benchmark builds, the work counts
// and the work counters' layout, the output poisons (out of every result's reach), the wgmma
// shared-memory layout, descriptor and accumulator map, the tcgen05 instruction and shared-memory
// descriptors and the fp6/fp4 packing, and the choice of path per type and architecture. Device
// tests (skipped without a GPU, and the Blackwell ones without a Blackwell GPU, which this
// project has never had: they are compiled, never run here): every kernel the GPU can run, small,
// checked element by element against A·B and warp by warp (warpgroup, block) for the trips it
// ran; then tensor.mma.* through the harness.

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "gpu_test_support.hpp"
#include "gpuspec/host/device_probe.hpp"
#include "gpuspec/host/measurement_options.hpp"
#include "gpuspec/host/nvml_library.hpp"
#include "gpuspec/kernels/cuda_check.cuh"
#include "gpuspec/kernels/cuda_handles.cuh"
#include "gpuspec/kernels/fill.hpp"
#include "gpuspec/kernels/mma_peak.hpp"
#include "gpuspec/kernels/tcgen05_peak.hpp"
#include "gpuspec/kernels/wgmma_peak.hpp"
#include "gpuspec/kernels/work_count.hpp"
#include "gpuspec/reports/model/report_json.hpp"
#include "gpuspec/reports/model/units.hpp"
#include "runner_support.hpp"

namespace k = gpuspec::kernels;
namespace b = gpuspec::benches;
namespace r = gpuspec::reports;

using k::mma_variant;
using k::tc_dtype;

namespace {

constexpr std::array<tc_dtype, 9> all_dtypes{
    tc_dtype::fp16,     tc_dtype::bf16,     tc_dtype::tf32,
    tc_dtype::int8,     tc_dtype::fp8_e4m3, tc_dtype::fp8_e5m2,
    tc_dtype::fp6_e3m2, tc_dtype::fp6_e2m3, tc_dtype::fp4_e2m1};

/// Exponent and mantissa bits of a float type.
std::pair<int, int> float_format(tc_dtype t) {
  switch (t) {
  case tc_dtype::fp16:
    return {5, 10};
  case tc_dtype::bf16:
    return {8, 7};
  case tc_dtype::fp8_e4m3:
    return {4, 3};
  case tc_dtype::fp8_e5m2:
    return {5, 2};
  case tc_dtype::fp6_e3m2:
    return {3, 2};
  case tc_dtype::fp6_e2m3:
    return {2, 3};
  case tc_dtype::fp4_e2m1:
    return {2, 1};
  case tc_dtype::tf32:
  case tc_dtype::int8:
    break;
  }
  return {8, 23};
}

/// The value of the packed code `x` (tc_code) of a float type; normal numbers and zero.
double decode_code(tc_dtype t, std::uint32_t x) {
  const auto [exp, man] = float_format(t);
  const int bias = (1 << (exp - 1)) - 1;
  const bool negative = ((x >> (exp + man)) & 1u) != 0;
  const int field = static_cast<int>((x >> man) & ((1u << exp) - 1u));
  const double mantissa = static_cast<double>(x & ((1u << man) - 1u));
  if (field == 0 && mantissa == 0)
    return 0.0;
  const double v = std::ldexp(1.0 + mantissa / std::ldexp(1.0, man), field - bias);
  return negative ? -v : v;
}

std::string name_of(mma_variant v) { return k::mma_ptx(v); }

/// The value of element `e` (bits wide) of a packed 32-bit word, decoded for `t`.
double decode(tc_dtype t, std::uint32_t word, int e) {
  const int bits = k::tc_element_bits(t);
  const std::uint32_t x = bits == 32 ? word : (word >> (e * bits)) & ((1u << bits) - 1u);
  switch (t) {
  case tc_dtype::int8:
    return static_cast<double>(static_cast<std::int8_t>(static_cast<std::uint8_t>(x)));
  case tc_dtype::tf32: {
    float f = 0;
    std::memcpy(&f, &x, sizeof f);
    return f;
  }
  case tc_dtype::fp16:
  case tc_dtype::bf16:
  case tc_dtype::fp8_e4m3:
  case tc_dtype::fp8_e5m2:
    return decode_code(t, x);
  case tc_dtype::fp6_e3m2:
  case tc_dtype::fp6_e2m3: // the 8-bit container: fp6 in bits 0-5, bits 6-7 zero
    return (x & 0xC0u) != 0 ? std::nan("") : decode_code(t, x);
  case tc_dtype::fp4_e2m1: // the 8-bit container: fp4 in bits 2-5, the rest zero
    return (x & 0xC3u) != 0 ? std::nan("") : decode_code(t, x >> 2);
  }
  return 0;
}

} // namespace

// --- mma.sync fragments --------------------------------------------------------------------

TEST(mma_fragments, a_b_and_c_maps_are_bijections_for_every_variant) {
  for (mma_variant v : k::all_mma_variants) {
    SCOPED_TRACE(name_of(v));
    const k::mma_variant_info info = k::mma_info(v);
    const int p = k::mma_elements_per_register(v);
    ASSERT_EQ(32 * info.a_regs * p, info.m * info.k);
    ASSERT_EQ(32 * info.b_regs * p, info.k * info.n);
    ASSERT_EQ(32 * info.c_regs, info.m * info.n);
    std::set<std::pair<int, int>> a, bb, c;
    for (int lane = 0; lane < 32; ++lane) {
      for (int reg = 0; reg < info.a_regs; ++reg)
        for (int e = 0; e < p; ++e) {
          const auto at = k::mma_a_coord(v, lane, reg, e);
          ASSERT_GE(at.row, 0);
          ASSERT_LT(at.row, info.m);
          ASSERT_GE(at.col, 0);
          ASSERT_LT(at.col, info.k);
          a.insert({at.row, at.col});
        }
      for (int reg = 0; reg < info.b_regs; ++reg)
        for (int e = 0; e < p; ++e) {
          const auto at = k::mma_b_coord(v, lane, reg, e);
          ASSERT_LT(at.row, info.k);
          ASSERT_LT(at.col, info.n);
          bb.insert({at.row, at.col});
        }
      for (int i = 0; i < info.c_regs; ++i) {
        const auto at = k::mma_c_coord(lane, i);
        ASSERT_LT(at.row, info.m);
        ASSERT_LT(at.col, info.n);
        c.insert({at.row, at.col});
      }
    }
    EXPECT_EQ(a.size(), static_cast<std::size_t>(info.m * info.k));
    EXPECT_EQ(bb.size(), static_cast<std::size_t>(info.k * info.n));
    EXPECT_EQ(c.size(), static_cast<std::size_t>(info.m * info.n));
  }
}

TEST(mma_fragments, match_the_ptx_isa_tables) {
  // m16n8k16 .f16: lane 5 is groupID 1, threadID_in_group 1. a0,a1 at row g, cols 2t, 2t+1;
  // a2,a3 row g+8; a4..a7 eight columns on. b0,b1 rows 2t, 2t+1; b2,b3 eight rows on; col g.
  EXPECT_EQ(k::mma_a_coord(mma_variant::fp16_m16n8k16, 5, 0, 0).row, 1);
  EXPECT_EQ(k::mma_a_coord(mma_variant::fp16_m16n8k16, 5, 0, 1).col, 3);
  EXPECT_EQ(k::mma_a_coord(mma_variant::fp16_m16n8k16, 5, 1, 1).row, 9); // a3
  EXPECT_EQ(k::mma_a_coord(mma_variant::fp16_m16n8k16, 5, 1, 1).col, 3);
  EXPECT_EQ(k::mma_a_coord(mma_variant::fp16_m16n8k16, 5, 2, 0).row, 1); // a4
  EXPECT_EQ(k::mma_a_coord(mma_variant::fp16_m16n8k16, 5, 2, 0).col, 10);
  EXPECT_EQ(k::mma_a_coord(mma_variant::fp16_m16n8k16, 5, 3, 1).row, 9); // a7
  EXPECT_EQ(k::mma_a_coord(mma_variant::fp16_m16n8k16, 5, 3, 1).col, 11);
  EXPECT_EQ(k::mma_b_coord(mma_variant::fp16_m16n8k16, 5, 1, 1).row, 11); // b3
  EXPECT_EQ(k::mma_b_coord(mma_variant::fp16_m16n8k16, 5, 1, 1).col, 1);
  // m16n8k8 .tf32: lane 6 is g 1, t 2. a0 (g, t), a1 (g+8, t), a2 (g, t+4), a3 (g+8, t+4);
  // b0 (t, g), b1 (t+4, g).
  EXPECT_EQ(k::mma_a_coord(mma_variant::tf32_m16n8k8, 6, 1, 0).row, 9);
  EXPECT_EQ(k::mma_a_coord(mma_variant::tf32_m16n8k8, 6, 1, 0).col, 2);
  EXPECT_EQ(k::mma_a_coord(mma_variant::tf32_m16n8k8, 6, 2, 0).row, 1);
  EXPECT_EQ(k::mma_a_coord(mma_variant::tf32_m16n8k8, 6, 2, 0).col, 6);
  EXPECT_EQ(k::mma_b_coord(mma_variant::tf32_m16n8k8, 6, 1, 0).row, 6);
  EXPECT_EQ(k::mma_b_coord(mma_variant::tf32_m16n8k8, 6, 1, 0).col, 1);
  // m16n8k32 .s8 / .e4m3: lane 7 is g 1, t 3. a8..a11 (register 2) at row g, cols 4t+16+i;
  // b4..b7 (register 1) rows 4t+16+i.
  for (mma_variant v : {mma_variant::int8_m16n8k32, mma_variant::fp8_m16n8k32}) {
    EXPECT_EQ(k::mma_a_coord(v, 7, 2, 3).row, 1);
    EXPECT_EQ(k::mma_a_coord(v, 7, 2, 3).col, 31);
    EXPECT_EQ(k::mma_a_coord(v, 7, 3, 0).row, 9);
    EXPECT_EQ(k::mma_a_coord(v, 7, 3, 0).col, 28);
    EXPECT_EQ(k::mma_b_coord(v, 7, 1, 2).row, 30);
    EXPECT_EQ(k::mma_b_coord(v, 7, 1, 2).col, 1);
  }
  // m16n8k8 .f16 (Turing): a0,a1 row g, a2,a3 row g+8, cols 2t+i; b0,b1 rows 2t+i.
  EXPECT_EQ(k::mma_a_coord(mma_variant::fp16_m16n8k8, 5, 1, 1).row, 9);
  EXPECT_EQ(k::mma_a_coord(mma_variant::fp16_m16n8k8, 5, 1, 1).col, 3);
  EXPECT_EQ(k::mma_b_coord(mma_variant::fp16_m16n8k8, 5, 0, 1).row, 3);
  // m8n8k16 .s8 (Turing): a row g, cols 4t+i; b rows 4t+i, col g; c row g, cols 2t+i.
  EXPECT_EQ(k::mma_a_coord(mma_variant::int8_m8n8k16, 9, 0, 3).row, 2);
  EXPECT_EQ(k::mma_a_coord(mma_variant::int8_m8n8k16, 9, 0, 3).col, 7);
  EXPECT_EQ(k::mma_b_coord(mma_variant::int8_m8n8k16, 9, 0, 3).row, 7);
  EXPECT_EQ(k::mma_b_coord(mma_variant::int8_m8n8k16, 9, 0, 3).col, 2);
  // Accumulators: c0,c1 row g, c2,c3 row g+8, cols 2t, 2t+1.
  EXPECT_EQ(k::mma_c_coord(9, 1).row, 2);
  EXPECT_EQ(k::mma_c_coord(9, 1).col, 3);
  EXPECT_EQ(k::mma_c_coord(9, 2).row, 10);
  EXPECT_EQ(k::mma_c_coord(9, 2).col, 2);
}

// --- operands --------------------------------------------------------------------------------

TEST(tc_operands, encodings_are_exact) {
  EXPECT_EQ(k::tc_encode(tc_dtype::fp16, 1.0), 0x3C00u);
  EXPECT_EQ(k::tc_encode(tc_dtype::fp16, -2.0), 0xC000u);
  EXPECT_EQ(k::tc_encode(tc_dtype::fp16, 1.5), 0x3E00u);
  EXPECT_EQ(k::tc_encode(tc_dtype::fp16, 0.5), 0x3800u);
  EXPECT_EQ(k::tc_encode(tc_dtype::bf16, 1.0), 0x3F80u);
  EXPECT_EQ(k::tc_encode(tc_dtype::bf16, -0.5), 0xBF00u);
  EXPECT_EQ(k::tc_encode(tc_dtype::tf32, 1.5), 0x3FC00000u);
  EXPECT_EQ(k::tc_encode(tc_dtype::tf32, -2.0), 0xC0000000u);
  EXPECT_EQ(k::tc_encode(tc_dtype::fp8_e4m3, 1.0), 0x38u);
  EXPECT_EQ(k::tc_encode(tc_dtype::fp8_e4m3, -2.0), 0xC0u);
  EXPECT_EQ(k::tc_encode(tc_dtype::fp8_e4m3, 1.5), 0x3Cu);
  EXPECT_EQ(k::tc_encode(tc_dtype::fp8_e4m3, 0.5), 0x30u);
  EXPECT_EQ(k::tc_encode(tc_dtype::fp8_e4m3, 448.0), 0x7Eu); // e4m3's largest
  EXPECT_EQ(k::tc_encode(tc_dtype::int8, -7.0), 0xF9u);
  EXPECT_EQ(k::tc_encode(tc_dtype::int8, 7.0), 0x07u);
  EXPECT_EQ(k::tc_encode(tc_dtype::fp16, 0.0), 0u);
  EXPECT_THROW((void)k::tc_encode(tc_dtype::fp16, 0.1), std::invalid_argument);
  EXPECT_THROW((void)k::tc_encode(tc_dtype::fp8_e4m3, 1.0625), std::invalid_argument);
  EXPECT_THROW((void)k::tc_encode(tc_dtype::tf32, 1.0 + 1.0 / 4096.0), std::invalid_argument);
  EXPECT_THROW((void)k::tc_encode(tc_dtype::int8, 0.5), std::invalid_argument);
  // Blackwell's types. e5m2 keeps its top exponent for infinities; e3m2, e2m3 and e2m1 have none.
  EXPECT_EQ(k::tc_encode(tc_dtype::fp8_e5m2, 1.0), 0x3Cu);
  EXPECT_EQ(k::tc_encode(tc_dtype::fp8_e5m2, -1.5), 0xBEu);
  EXPECT_EQ(k::tc_encode(tc_dtype::fp8_e5m2, 57344.0), 0x7Bu); // e5m2's largest
  EXPECT_THROW((void)k::tc_encode(tc_dtype::fp8_e5m2, 65536.0), std::invalid_argument);
  EXPECT_EQ(k::tc_code(tc_dtype::fp6_e3m2, 1.0), 0x0Cu);
  EXPECT_EQ(k::tc_code(tc_dtype::fp6_e3m2, 28.0), 0x1Fu); // e3m2's largest
  EXPECT_EQ(k::tc_code(tc_dtype::fp6_e3m2, -3.0), 0x32u);
  EXPECT_EQ(k::tc_code(tc_dtype::fp6_e2m3, 1.0), 0x08u);
  EXPECT_EQ(k::tc_code(tc_dtype::fp6_e2m3, 7.5), 0x1Fu); // e2m3's largest
  EXPECT_EQ(k::tc_code(tc_dtype::fp4_e2m1, 1.0), 0x2u);
  EXPECT_EQ(k::tc_code(tc_dtype::fp4_e2m1, -3.0), 0xDu);
  EXPECT_EQ(k::tc_code(tc_dtype::fp4_e2m1, 6.0), 0x7u); // e2m1's largest
  EXPECT_THROW((void)k::tc_code(tc_dtype::fp4_e2m1, 2.5), std::invalid_argument);
  EXPECT_THROW((void)k::tc_code(tc_dtype::fp6_e2m3, 0.5), std::invalid_argument); // subnormal
  // In a register (mma.sync kind::f8f6f4): fp6 as is, fp4 two bits up.
  EXPECT_EQ(k::tc_encode(tc_dtype::fp6_e3m2, -3.0), 0x32u);
  EXPECT_EQ(k::tc_encode(tc_dtype::fp4_e2m1, -3.0), 0x34u);
  EXPECT_EQ(k::tc_code(tc_dtype::fp8_e4m3, 1.5), k::tc_encode(tc_dtype::fp8_e4m3, 1.5));
  for (tc_dtype t : all_dtypes)
    for (std::uint64_t i = 0; i < 1000; ++i) {
      const double v = k::tc_operand_value(t, 42, i);
      EXPECT_EQ(decode(t, k::tc_encode(t, v), 0), v) << k::tc_dtype_name(t) << " " << v;
    }
}

TEST(tc_operands, the_mma_problem_packs_a_b_and_minus_b_and_its_reference_is_a_times_b) {
  for (mma_variant v : k::all_mma_variants) {
    SCOPED_TRACE(name_of(v));
    const k::mma_variant_info info = k::mma_info(v);
    const int p = k::mma_elements_per_register(v);
    const k::mma_problem pr = k::make_mma_problem(v, 7);
    ASSERT_EQ(pr.a_frag.size(), static_cast<std::size_t>(32 * info.a_regs));
    ASSERT_EQ(pr.b_pos_frag.size(), static_cast<std::size_t>(32 * info.b_regs));
    for (int lane = 0; lane < 32; ++lane) {
      for (int reg = 0; reg < info.a_regs; ++reg)
        for (int e = 0; e < p; ++e) {
          const auto at = k::mma_a_coord(v, lane, reg, e);
          EXPECT_EQ(decode(info.dtype, pr.a_frag[static_cast<std::size_t>(reg * 32 + lane)], e),
                    pr.a[static_cast<std::size_t>(at.row * info.k + at.col)]);
        }
      for (int reg = 0; reg < info.b_regs; ++reg)
        for (int e = 0; e < p; ++e) {
          const auto at = k::mma_b_coord(v, lane, reg, e);
          const double want = pr.b[static_cast<std::size_t>(at.row * info.n + at.col)];
          const auto slot = static_cast<std::size_t>(reg * 32 + lane);
          EXPECT_EQ(decode(info.dtype, pr.b_pos_frag[slot], e), want);
          EXPECT_EQ(decode(info.dtype, pr.b_neg_frag[slot], e), -want);
        }
    }
    std::size_t non_zero = 0;
    for (int m = 0; m < info.m; ++m)
      for (int n = 0; n < info.n; ++n) {
        double sum = 0;
        for (int kk = 0; kk < info.k; ++kk)
          sum += pr.a[static_cast<std::size_t>(m * info.k + kk)] *
                 pr.b[static_cast<std::size_t>(kk * info.n + n)];
        const double c = pr.c[static_cast<std::size_t>(m * info.n + n)];
        EXPECT_EQ(c, sum);
        EXPECT_LE(std::fabs(c), 4.0 * info.k *
                                    (k::tc_is_integer(info.dtype)    ? 49.0 / 4.0
                                     : k::tc_is_sub_byte(info.dtype) ? 9.0 / 4.0
                                                                     : 1.0));
        EXPECT_EQ(c * 4.0, std::floor(c * 4.0)); // a multiple of 1/4: exact in FP32
        non_zero += c != 0.0 ? 1 : 0;
      }
    // Distinct, mostly non-zero entries: a transposed or shuffled layout cannot pass the check.
    EXPECT_GT(non_zero, pr.c.size() * 3 / 4);
    std::set<double> distinct(pr.c.begin(), pr.c.end());
    EXPECT_GT(distinct.size(), 8u);
  }
}

TEST(tc_work, counts_two_operations_per_multiply_add) {
  EXPECT_EQ(k::mma_ops_per_accumulator(0), 1u);
  EXPECT_EQ(k::mma_ops_per_accumulator(3), 7u);
  // 2 blocks × 8 warps × 8 accumulators × 7 instructions × 2·16·8·16.
  EXPECT_DOUBLE_EQ(k::mma_sync_operations(mma_variant::fp16_m16n8k16, 2, 3),
                   2.0 * 8 * 8 * 7 * 4096);
  EXPECT_DOUBLE_EQ(k::mma_sync_operations(mma_variant::tf32_m16n8k8, 1, 0), 8.0 * 8 * 2048);
  EXPECT_DOUBLE_EQ(k::mma_sync_operations(mma_variant::int8_m16n8k32, 1, 0), 8.0 * 8 * 8192);
  EXPECT_DOUBLE_EQ(k::mma_sync_operations(mma_variant::int8_m8n8k16, 1, 0), 8.0 * 8 * 2048);
  EXPECT_EQ(k::mma_output_words(mma_variant::fp16_m16n8k16, 3), 3u * 8 * 8 * 128);
  EXPECT_EQ(k::mma_output_words(mma_variant::int8_m8n8k16, 1), 8u * 8 * 64);
  // wgmma: 2 warpgroups × 7 instructions × 2·64·256·K.
  EXPECT_DOUBLE_EQ(k::wgmma_operations(tc_dtype::fp16, 1, 3), 2.0 * 7 * 2 * 64 * 256 * 16);
  EXPECT_DOUBLE_EQ(k::wgmma_operations(tc_dtype::tf32, 1, 0), 2.0 * 2 * 64 * 256 * 8);
  EXPECT_DOUBLE_EQ(k::wgmma_operations(tc_dtype::fp8_e4m3, 2, 0), 4.0 * 2 * 64 * 256 * 32);
  EXPECT_EQ(k::wgmma_output_words(3), 3u * 2 * 64 * 256);
  // One work counter per warp (mma.sync) and per warpgroup (wgmma).
  EXPECT_EQ(k::mma_count_words(3), 3u * 8);
  EXPECT_EQ(k::wgmma_count_words(3), 3u * 2);
}

TEST(tc_work, counted_trips_account_for_every_credited_operation) {
  // Every unit counting `pairs` trips is exactly the FLOP count: units × accumulators × (1 + 2·
  // pairs) × 2·M·N·K, for both paths. A count one short is 2 instructions per accumulator short.
  for (std::uint32_t pairs : {0u, 1u, 256u, 4096u, k::tc_max_pairs}) {
    const std::uint64_t blocks = 264;
    const double per_warp_trip_ops = 2.0 * k::mma_accumulators * 2.0 * 16 * 8 * 16;
    const double from_counts =
        static_cast<double>(k::mma_count_words(blocks)) *
        (k::mma_accumulators * 2.0 * 16 * 8 * 16 + per_warp_trip_ops * pairs);
    EXPECT_DOUBLE_EQ(from_counts, k::mma_sync_operations(mma_variant::fp16_m16n8k16, blocks, pairs))
        << pairs;
    const double wg_from_counts = static_cast<double>(k::wgmma_count_words(blocks)) *
                                  (1.0 + 2.0 * pairs) * 2.0 * 64 * 256 * 16;
    EXPECT_DOUBLE_EQ(wg_from_counts, k::wgmma_operations(tc_dtype::fp16, blocks, pairs)) << pairs;
  }
  // The largest count stays clear of the counters' poison.
  EXPECT_LT(k::tc_max_pairs, k::work_count_poison);
}

TEST(tc_work, a_warp_that_ran_short_or_never_stored_fails_the_count) {
  // What a device run would leave if one warp's loop stopped early and another warp returned
  // before its store: the accumulators would still hold A·B, the count does not.
  constexpr std::uint32_t pairs = 1000;
  std::vector<std::uint32_t> trips(k::mma_count_words(4), pairs);
  EXPECT_TRUE(k::judge_work_counts(trips, pairs).passed());
  trips[9] = pairs / 2;
  trips[30] = k::work_count_poison;
  const k::work_count_verdict v = k::judge_work_counts(trips, pairs);
  EXPECT_FALSE(v.passed());
  EXPECT_EQ(v.wrong, 1u);
  EXPECT_EQ(v.not_written, 1u);
  const std::string d = k::describe_work_counts(v, "warp");
  EXPECT_NE(d.find("warp 9, counted 500"), std::string::npos) << d;
  EXPECT_NE(d.find("1000 loop trips the FLOP count assumes"), std::string::npos) << d;
}

TEST(tc_poison, no_accumulator_can_hold_the_poison) {
  // INT32: 0x80808080 (not -1, which a result can be), beyond ±K·7·7 for every K used.
  EXPECT_EQ(k::tc_output_poison_word(tc_dtype::int8), 0x80808080u);
  EXPECT_LT(static_cast<std::int32_t>(k::tc_output_poison_word(tc_dtype::int8)),
            -k::tc_int8_max_magnitude);
  EXPECT_NE(k::tc_output_poison_word(tc_dtype::int8), 0xFFFFFFFFu);
  for (mma_variant v : k::all_mma_variants) {
    const k::mma_variant_info info = k::mma_info(v);
    EXPECT_LE(info.k * 49, k::tc_int8_max_magnitude) << name_of(v);
    if (!k::tc_is_integer(info.dtype))
      continue;
    for (std::uint64_t seed : {1ull, 7ull, 1234ull}) {
      const k::mma_problem pr = k::make_mma_problem(v, seed);
      for (double c : pr.c)
        EXPECT_LE(std::fabs(c), k::tc_int8_max_magnitude) << name_of(v);
    }
  }
  const k::wgmma_problem wg = k::make_wgmma_problem(tc_dtype::int8, 99);
  for (double d : wg.d)
    ASSERT_LE(std::fabs(d), k::tc_int8_max_magnitude);
  // FP32 accumulators: the NaN word, which no finite A·B is.
  for (tc_dtype t : all_dtypes) {
    if (k::tc_is_integer(t))
      continue;
    EXPECT_EQ(k::tc_output_poison_word(t), k::nan_poison_word);
    EXPECT_TRUE(std::isnan(k::tc_accumulator_value(false, k::tc_output_poison_word(t))));
    EXPECT_EQ(k::byte_poison_word(k::tc_output_poison_byte(t)), k::tc_output_poison_word(t));
  }
}

TEST(tc_status, says_whether_the_instruction_ran) {
  EXPECT_TRUE(k::tc_status_ran(900));
  EXPECT_FALSE(k::tc_status_ran(k::tc_status_unset));
  EXPECT_FALSE(k::tc_status_ran(k::tc_status_missing | 800));
  EXPECT_EQ(k::tc_status_arch(k::tc_status_missing | 800), 800);
}

// --- wgmma layout ------------------------------------------------------------------------------

TEST(wgmma_layout, shared_memory_offsets_tile_each_operand_exactly) {
  EXPECT_EQ(k::wgmma_smem_offset(0, 0), 0u);
  EXPECT_EQ(k::wgmma_smem_offset(1, 0), 16u); // rows of a core matrix: 16 bytes apart
  EXPECT_EQ(k::wgmma_smem_offset(7, 0), 112u);
  EXPECT_EQ(k::wgmma_smem_offset(0, 1), 128u); // next core matrix along K: LBO
  EXPECT_EQ(k::wgmma_smem_offset(8, 0), 256u); // next 8 rows: SBO
  EXPECT_EQ(k::wgmma_smem_offset(9, 1), 256u + 128u + 16u);
  EXPECT_EQ(k::wgmma_smem_offset(8, 0) - k::wgmma_smem_offset(0, 0), k::wgmma_sbo_bytes);
  EXPECT_EQ(k::wgmma_smem_offset(0, 1) - k::wgmma_smem_offset(0, 0), k::wgmma_lbo_bytes);
  for (int rows : {k::wgmma_m, k::wgmma_n}) {
    std::set<std::uint32_t> seen;
    for (int row = 0; row < rows; ++row)
      for (int chunk = 0; chunk < 2; ++chunk) {
        const std::uint32_t at = k::wgmma_smem_offset(row, chunk);
        EXPECT_EQ(at % 16, 0u);
        EXPECT_LT(at, static_cast<std::uint32_t>(rows * k::wgmma_row_bytes));
        seen.insert(at);
      }
    EXPECT_EQ(seen.size(), static_cast<std::size_t>(rows * 2));
  }
}

TEST(wgmma_layout, descriptor_encodes_the_ptx_isa_example) {
  // PTX ISA, K-major no-swizzle tf32 example: LBO 64·4 bytes -> 16, SBO 32·4 bytes -> 8.
  const std::uint64_t d = k::wgmma_descriptor(0x1230, 256, 128);
  EXPECT_EQ(d & 0x3FFFu, 0x123u);
  EXPECT_EQ((d >> 16) & 0x3FFFu, 16u);
  EXPECT_EQ((d >> 32) & 0x3FFFu, 8u);
  EXPECT_EQ((d >> 49) & 0x7u, 0u); // base offset
  EXPECT_EQ((d >> 62) & 0x3u, 0u); // no swizzle
  const std::uint64_t ours = k::wgmma_descriptor(0x400, k::wgmma_lbo_bytes, k::wgmma_sbo_bytes);
  EXPECT_EQ(ours, 0x40u | (8ull << 16) | (16ull << 32));
  // Addresses wrap at 2^18 (the encode keeps bits 4..17).
  EXPECT_EQ(k::wgmma_descriptor_encode(0x40010), 1u);
}

TEST(wgmma_layout, accumulator_map_covers_the_tile_once) {
  std::set<std::pair<int, int>> seen;
  for (int thread = 0; thread < 128; ++thread)
    for (int i = 0; i < k::wgmma_d_regs; ++i) {
      const auto at = k::wgmma_d_coord(thread, i);
      ASSERT_GE(at.row, 0);
      ASSERT_LT(at.row, k::wgmma_m);
      ASSERT_GE(at.col, 0);
      ASSERT_LT(at.col, k::wgmma_n);
      seen.insert({at.row, at.col});
    }
  EXPECT_EQ(seen.size(), static_cast<std::size_t>(k::wgmma_m * k::wgmma_n));
  // Thread 37 is warp 1, lane 5 (g 1, t 1): d1 at (16 + 1, 3), d2 at (16 + 9, 2), d4 at (17, 10).
  EXPECT_EQ(k::wgmma_d_coord(37, 1).row, 17);
  EXPECT_EQ(k::wgmma_d_coord(37, 1).col, 3);
  EXPECT_EQ(k::wgmma_d_coord(37, 2).row, 25);
  EXPECT_EQ(k::wgmma_d_coord(37, 2).col, 2);
  EXPECT_EQ(k::wgmma_d_coord(37, 4).row, 17);
  EXPECT_EQ(k::wgmma_d_coord(37, 4).col, 10);
  EXPECT_EQ(k::wgmma_d_coord(127, 127).row, 63);
  EXPECT_EQ(k::wgmma_d_coord(127, 127).col, 255);
}

TEST(wgmma_layout, problem_rows_hold_a_b_and_minus_b) {
  for (tc_dtype t : all_dtypes) {
    if (!k::wgmma_has(t))
      continue;
    SCOPED_TRACE(k::tc_dtype_name(t));
    const k::wgmma_problem pr = k::make_wgmma_problem(t, 11);
    const int bytes = k::tc_element_bits(t) / 8;
    ASSERT_EQ(pr.k * bytes, k::wgmma_row_bytes);
    auto element = [&](const std::vector<std::uint8_t>& rows, int row, int col) {
      std::uint32_t word = 0;
      for (int i = 0; i < bytes; ++i)
        word |= static_cast<std::uint32_t>(
                    rows[static_cast<std::size_t>(row * k::wgmma_row_bytes + col * bytes + i)])
                << (8 * i);
      return decode(t, word, 0);
    };
    for (int m = 0; m < k::wgmma_m; ++m)
      for (int kk = 0; kk < pr.k; ++kk)
        EXPECT_EQ(element(pr.a_rows, m, kk), pr.a[static_cast<std::size_t>(m * pr.k + kk)]);
    for (int n = 0; n < k::wgmma_n; ++n)
      for (int kk = 0; kk < pr.k; ++kk) {
        const double want = pr.bt[static_cast<std::size_t>(n * pr.k + kk)];
        EXPECT_EQ(element(pr.b_pos_rows, n, kk), want);
        EXPECT_EQ(element(pr.b_neg_rows, n, kk), -want);
      }
    for (int m = 0; m < k::wgmma_m; m += 7)
      for (int n = 0; n < k::wgmma_n; n += 13) {
        double sum = 0;
        for (int kk = 0; kk < pr.k; ++kk)
          sum += pr.a[static_cast<std::size_t>(m * pr.k + kk)] *
                 pr.bt[static_cast<std::size_t>(n * pr.k + kk)];
        EXPECT_EQ(pr.d[static_cast<std::size_t>(m * k::wgmma_n + n)], sum);
      }
  }
}

// --- tcgen05 (Blackwell 10.x) -----------------------------------------------------------------

TEST(tcgen05_layout, instruction_descriptor_fields_follow_the_ptx_isa) {
  // fp16, M 128, N 256: D F32 (bit 4), A and B F16 (0), K-major, N >> 3 = 32 at bit 17,
  // M >> 4 = 8 at bit 24.
  const std::uint32_t f16 = k::tcgen05_instruction_descriptor(tc_dtype::fp16, 128, 256);
  EXPECT_EQ(f16, (1u << 4) | (32u << 17) | (8u << 24));
  EXPECT_EQ(f16 & 0x7u, 0u);         // dense
  EXPECT_EQ((f16 >> 13) & 0xFu, 0u); // no negation, both K-major
  EXPECT_EQ((f16 >> 23) & 1u, 0u);   // reserved
  EXPECT_EQ((f16 >> 29) & 0x7u, 0u); // reserved, no shift
  const auto types = [](tc_dtype t) {
    const std::uint32_t d = k::tcgen05_instruction_descriptor(t, 128, 256);
    return std::pair{(d >> 7) & 0x7u, (d >> 10) & 0x7u};
  };
  EXPECT_EQ(types(tc_dtype::bf16), (std::pair{1u, 1u}));
  EXPECT_EQ(types(tc_dtype::tf32), (std::pair{2u, 2u}));
  EXPECT_EQ(types(tc_dtype::fp8_e4m3), (std::pair{0u, 0u}));
  EXPECT_EQ(types(tc_dtype::fp8_e5m2), (std::pair{1u, 1u}));
  EXPECT_EQ(types(tc_dtype::fp6_e2m3), (std::pair{3u, 3u}));
  EXPECT_EQ(types(tc_dtype::fp6_e3m2), (std::pair{4u, 4u}));
  EXPECT_EQ(types(tc_dtype::fp4_e2m1), (std::pair{5u, 5u}));
  // The word the e2m1 kernel's SASS loads as its idesc (cuobjdump -sass, CUDA 13.0).
  EXPECT_EQ(k::tcgen05_instruction_descriptor(tc_dtype::fp4_e2m1, 128, 256), 0x08401690u);
  EXPECT_EQ(k::tcgen05_instruction_descriptor(tc_dtype::fp16, 64, 8),
            (1u << 4) | (1u << 17) | (4u << 24));
}

TEST(tcgen05_layout, shared_memory_descriptor_is_wgmma_s_with_the_version_bit) {
  const std::uint64_t d = k::tcgen05_smem_descriptor(0x400, k::wgmma_lbo_bytes, k::wgmma_sbo_bytes);
  EXPECT_EQ(d, k::wgmma_descriptor(0x400, k::wgmma_lbo_bytes, k::wgmma_sbo_bytes) | (1ull << 46));
  EXPECT_EQ((d >> 46) & 0x7u, 1u); // fixed 0b001
  EXPECT_EQ((d >> 49) & 0x7u, 0u); // base offset
  EXPECT_EQ((d >> 52) & 0x1u, 0u); // relative LBO
  EXPECT_EQ((d >> 61) & 0x7u, 0u); // no swizzle
  EXPECT_EQ(d >> 32, 0x4010u);     // SBO 256 >> 4 and the version: the SASS's descriptor word
}

TEST(tcgen05_layout, rows_pack_every_type_into_32_bytes) {
  for (tc_dtype t : all_dtypes) {
    if (!k::tcgen05_has(t))
      continue;
    SCOPED_TRACE(k::tc_dtype_name(t));
    const k::tcgen05_problem pr = k::make_tcgen05_problem(t, 5);
    ASSERT_EQ(pr.k * k::tc_element_bits(t), 8 * k::tcgen05_row_bytes);
    // Element kk of a row, read back the way the PTX ISA lays the row out: 8/16/32-bit types
    // little-endian at kk·bytes; fp6 and fp4 16 to a 16-byte chunk, packed from bit 0.
    const auto element = [&](const std::vector<std::uint8_t>& rows, int row, int kk) {
      const std::uint8_t* r = rows.data() + row * k::tcgen05_row_bytes;
      if (!k::tc_is_sub_byte(t)) {
        const int bytes = k::tc_element_bits(t) / 8;
        std::uint32_t word = 0;
        for (int i = 0; i < bytes; ++i)
          word |= static_cast<std::uint32_t>(r[kk * bytes + i]) << (8 * i);
        return decode(t, word, 0);
      }
      const int width = k::tc_code_bits(t);
      const std::uint8_t* chunk = r + 16 * (kk / 16);
      std::uint32_t code = 0;
      for (int i = 0; i < width; ++i) {
        const int bit = (kk % 16) * width + i;
        code |= static_cast<std::uint32_t>((chunk[bit / 8] >> (bit % 8)) & 1u) << i;
      }
      return decode_code(t, code);
    };
    for (int m = 0; m < k::tcgen05_m; m += 3)
      for (int kk = 0; kk < pr.k; ++kk)
        ASSERT_EQ(element(pr.a_rows, m, kk), pr.a[static_cast<std::size_t>(m * pr.k + kk)]);
    for (int n = 0; n < k::tcgen05_n; n += 5)
      for (int kk = 0; kk < pr.k; ++kk) {
        const double want = pr.bt[static_cast<std::size_t>(n * pr.k + kk)];
        ASSERT_EQ(element(pr.b_pos_rows, n, kk), want);
        ASSERT_EQ(element(pr.b_neg_rows, n, kk), -want);
      }
    if (k::tc_is_sub_byte(t)) { // the padding of each chunk stays zero
      const int used = 16 * k::tc_code_bits(t) / 8;
      for (std::size_t i = 0; i < pr.b_pos_rows.size(); ++i)
        if (static_cast<int>(i % 16) >= used) {
          ASSERT_EQ(pr.b_pos_rows[i], 0u) << "byte " << i;
        }
    }
    std::set<double> distinct;
    for (int m = 0; m < k::tcgen05_m; m += 9)
      for (int n = 0; n < k::tcgen05_n; n += 11) {
        double sum = 0;
        for (int kk = 0; kk < pr.k; ++kk)
          sum += pr.a[static_cast<std::size_t>(m * pr.k + kk)] *
                 pr.bt[static_cast<std::size_t>(n * pr.k + kk)];
        const double d = pr.d[static_cast<std::size_t>(m * k::tcgen05_n + n)];
        ASSERT_EQ(d, sum);
        ASSERT_EQ(d * 4.0, std::floor(d * 4.0)); // exact in FP32
        ASSERT_LE(std::fabs(d), 9.0 * pr.k);
        distinct.insert(d);
      }
    EXPECT_GT(distinct.size(), 8u);
  }
}

TEST(tcgen05_work, counts_2mnk_per_instruction_per_block) {
  // fp16: 2·128·256·16 per instruction, (1 + 2·pairs) instructions per block.
  EXPECT_EQ(k::tcgen05_operations(tc_dtype::fp16, 1, 0), 2.0 * 128 * 256 * 16);
  EXPECT_EQ(k::tcgen05_operations(tc_dtype::fp4_e2m1, 296, 10), 296.0 * 21 * 2 * 128 * 256 * 32);
  EXPECT_EQ(k::tcgen05_operations(tc_dtype::tf32, 2, 1), 2.0 * 3 * 2 * 128 * 256 * 8);
  EXPECT_EQ(k::tcgen05_output_words(3), 3u * 128 * 256);
  EXPECT_EQ(k::tcgen05_count_words(3), 3u);
  EXPECT_STREQ(k::tcgen05_ptx(tc_dtype::bf16), "tcgen05.mma.cta_group::1.kind::f16");
  EXPECT_STREQ(k::tcgen05_ptx(tc_dtype::tf32), "tcgen05.mma.cta_group::1.kind::tf32");
  EXPECT_STREQ(k::tcgen05_ptx(tc_dtype::fp6_e3m2), "tcgen05.mma.cta_group::1.kind::f8f6f4");
  EXPECT_FALSE(k::tcgen05_has(tc_dtype::int8));
}

// --- which path --------------------------------------------------------------------------------

TEST(tc_plan, picks_the_path_each_gpu_supports) {
  using k::tc_path;
  const auto plan = [](tc_dtype t, int sm, bool built) { return k::plan_tc_peak(t, sm, built); };
  EXPECT_EQ(plan(tc_dtype::fp16, 90, true).path, tc_path::wgmma);
  EXPECT_EQ(plan(tc_dtype::fp8_e4m3, 90, true).path, tc_path::wgmma);
  EXPECT_EQ(plan(tc_dtype::int8, 90, true).path, tc_path::wgmma);
  EXPECT_EQ(plan(tc_dtype::fp16, 90, false).path, tc_path::mma_sync);
  EXPECT_EQ(plan(tc_dtype::fp16, 90, false).variant, mma_variant::fp16_m16n8k16);
  EXPECT_EQ(plan(tc_dtype::fp8_e4m3, 90, false).path, tc_path::not_measured);
  EXPECT_NE(plan(tc_dtype::fp8_e4m3, 90, false).reason.find("wgmma"), std::string::npos);
  EXPECT_EQ(plan(tc_dtype::fp8_e4m3, 100, true).path, tc_path::not_measured);
  EXPECT_EQ(plan(tc_dtype::fp8_e4m3, 89, false).variant, mma_variant::fp8_m16n8k32);
  EXPECT_EQ(plan(tc_dtype::fp8_e4m3, 120, false).path, tc_path::mma_sync);
  EXPECT_EQ(plan(tc_dtype::fp8_e4m3, 86, true).path, tc_path::not_supported);
  EXPECT_NE(plan(tc_dtype::fp8_e4m3, 86, true).reason.find("8.9"), std::string::npos);
  EXPECT_EQ(plan(tc_dtype::fp8_e4m3, 80, false).path, tc_path::not_supported);
  EXPECT_EQ(plan(tc_dtype::bf16, 75, false).path, tc_path::not_supported);
  EXPECT_NE(plan(tc_dtype::bf16, 75, false).reason.find("sm_75"), std::string::npos);
  EXPECT_EQ(plan(tc_dtype::tf32, 75, false).path, tc_path::not_supported);
  EXPECT_EQ(plan(tc_dtype::fp16, 75, false).variant, mma_variant::fp16_m16n8k8);
  EXPECT_EQ(plan(tc_dtype::int8, 75, false).variant, mma_variant::int8_m8n8k16);
  EXPECT_EQ(plan(tc_dtype::int8, 86, false).variant, mma_variant::int8_m16n8k32);
  EXPECT_EQ(plan(tc_dtype::tf32, 80, false).variant, mma_variant::tf32_m16n8k8);
  EXPECT_EQ(plan(tc_dtype::fp16, 70, false).path, tc_path::not_supported);
  for (tc_dtype t : all_dtypes)
    for (int sm : {70, 75, 80, 86, 87, 89, 90, 100, 120})
      for (bool built : {false, true}) {
        const k::tc_plan p = plan(t, sm, built);
        EXPECT_EQ(p.reason.empty(), p.path == tc_path::wgmma || p.path == tc_path::mma_sync);
        if (p.path == tc_path::mma_sync) {
          ASSERT_TRUE(p.variant.has_value());
          EXPECT_EQ(k::mma_info(*p.variant).dtype, t);
          EXPECT_LE(k::mma_info(*p.variant).min_sm, sm);
        }
      }
}

TEST(tc_plan, blackwell_gets_its_own_kernels_where_the_build_has_them) {
  using k::tc_path;
  const k::tc_builds all{true, true, true}, none{};
  const auto plan = [](tc_dtype t, int sm, const k::tc_builds& b) {
    return k::plan_tc_peak(t, sm, b);
  };
  // 10.x: tcgen05 for every type but int8, B200 (10.0) and B300 (10.3) alike.
  for (int sm : {100, 103})
    for (tc_dtype t : all_dtypes) {
      SCOPED_TRACE(std::string(k::tc_dtype_name(t)) + " sm_" + std::to_string(sm));
      EXPECT_EQ(plan(t, sm, all).path,
                t == tc_dtype::int8 ? tc_path::not_measured : tc_path::tcgen05);
    }
  // Without the tcgen05 build: fp8 would be fp16 HMMA, fp6/fp4 have no path; both say why.
  EXPECT_EQ(plan(tc_dtype::fp8_e5m2, 100, none).path, tc_path::not_measured);
  EXPECT_NE(plan(tc_dtype::fp8_e5m2, 100, none).reason.find("tcgen05"), std::string::npos);
  EXPECT_EQ(plan(tc_dtype::fp4_e2m1, 103, none).path, tc_path::not_measured);
  EXPECT_NE(plan(tc_dtype::fp4_e2m1, 103, none).reason.find("100 or 103"), std::string::npos);
  EXPECT_EQ(plan(tc_dtype::fp16, 100, none).path, tc_path::mma_sync);
  // 12.x: mma.sync; fp8 native (QMMA), fp6/fp4 through kind::f8f6f4 when built.
  for (int sm : {120, 121}) {
    EXPECT_EQ(plan(tc_dtype::fp8_e5m2, sm, none).variant, mma_variant::e5m2_m16n8k32);
    EXPECT_EQ(plan(tc_dtype::fp6_e3m2, sm, all).variant, mma_variant::e3m2_m16n8k32);
    EXPECT_EQ(plan(tc_dtype::fp6_e2m3, sm, all).variant, mma_variant::e2m3_m16n8k32);
    EXPECT_EQ(plan(tc_dtype::fp4_e2m1, sm, all).variant, mma_variant::e2m1_m16n8k32);
    EXPECT_EQ(plan(tc_dtype::fp4_e2m1, sm, none).path, tc_path::not_measured);
    EXPECT_NE(plan(tc_dtype::fp4_e2m1, sm, none).reason.find("sm_120f"), std::string::npos);
    EXPECT_EQ(plan(tc_dtype::fp16, sm, all).path, tc_path::mma_sync); // tcgen05 is 10.x only
  }
  // Hopper: wgmma for its six types (e4m3 and e5m2 among them); fp6/fp4 no hardware.
  EXPECT_EQ(plan(tc_dtype::fp8_e4m3, 90, all).path, tc_path::wgmma);
  EXPECT_EQ(plan(tc_dtype::fp8_e5m2, 90, all).path, tc_path::wgmma);
  for (int sm : {80, 89, 90, 110})
    for (tc_dtype t : {tc_dtype::fp6_e3m2, tc_dtype::fp6_e2m3, tc_dtype::fp4_e2m1}) {
      EXPECT_EQ(plan(t, sm, all).path, tc_path::not_supported);
      EXPECT_NE(plan(t, sm, all).reason.find("Blackwell"), std::string::npos);
    }
  EXPECT_EQ(plan(tc_dtype::fp8_e5m2, 89, none).variant, mma_variant::e5m2_m16n8k32);
  EXPECT_EQ(plan(tc_dtype::fp8_e5m2, 86, all).path, tc_path::not_supported);
  for (tc_dtype t : all_dtypes)
    for (int sm : {75, 80, 86, 89, 90, 100, 103, 110, 120, 121})
      for (const k::tc_builds& b : {all, none}) {
        const k::tc_plan p = plan(t, sm, b);
        EXPECT_EQ(p.reason.empty(), p.path == tc_path::wgmma || p.path == tc_path::mma_sync ||
                                        p.path == tc_path::tcgen05);
        if (p.path == tc_path::mma_sync) {
          ASSERT_TRUE(p.variant.has_value());
          EXPECT_EQ(k::mma_info(*p.variant).dtype, t);
          EXPECT_LE(k::mma_info(*p.variant).min_sm, sm);
        }
      }
}

TEST(tc_plan, blackwell_launchers_match_the_build) {
  auto* rows = reinterpret_cast<const std::uint8_t*>(std::uintptr_t{0x1000});
  auto* words = reinterpret_cast<std::uint32_t*>(std::uintptr_t{0x2000});
  k::tcgen05_peak_launch prepared; // as prepare_tcgen05_peak fills it, without a device
  prepared.device = 0;
  prepared.blocks = 1;
  if (!k::tcgen05_peak_built()) {
    EXPECT_THROW((void)k::prepare_tcgen05_peak(tc_dtype::fp16), std::logic_error);
    EXPECT_THROW(
        k::launch_tcgen05_peak(prepared, rows, rows, rows, words, words, words, 1, 0, nullptr),
        std::logic_error);
  } else {
    // The argument checks come before any CUDA call.
    EXPECT_THROW(
        k::launch_tcgen05_peak(prepared, nullptr, rows, rows, words, words, words, 1, 0, nullptr),
        std::invalid_argument);
    EXPECT_THROW(
        k::launch_tcgen05_peak(prepared, rows, rows, rows, words, nullptr, words, 1, 0, nullptr),
        std::invalid_argument); // no work counters
    EXPECT_THROW(k::launch_tcgen05_peak(prepared, rows, rows, rows, words, words, words, 1,
                                        k::tc_max_pairs + 1, nullptr),
                 std::invalid_argument);
    EXPECT_THROW(k::launch_tcgen05_peak(k::tcgen05_peak_launch{}, rows, rows, rows, words, words,
                                        words, 1, 0, nullptr),
                 std::invalid_argument); // not prepared
    EXPECT_THROW((void)k::prepare_tcgen05_peak(tc_dtype::int8),
                 std::invalid_argument); // no int8 kernel
  }
  if (!k::mma_f8f6f4_built()) {
    EXPECT_THROW(k::launch_mma_sync_peak(mma_variant::e2m1_m16n8k32, words, words, words, words,
                                         words, words, 1, 0, nullptr),
                 std::logic_error);
  }
  EXPECT_THROW(k::launch_mma_sync_peak(mma_variant::e2m1_m16n8k32, words, words, words, words,
                                       nullptr, words, 1, 0, nullptr),
               std::invalid_argument); // the argument checks come first
}

TEST(tc_plan, wgmma_launchers_match_the_build) {
  k::wgmma_peak_launch prepared; // as prepare_wgmma_peak fills it, without a device
  prepared.device = 0;
  prepared.blocks = 1;
  if (!k::wgmma_peak_built()) {
    EXPECT_THROW((void)k::prepare_wgmma_peak(tc_dtype::fp16), std::logic_error);
    EXPECT_THROW(k::launch_wgmma_peak(prepared, nullptr, nullptr, nullptr, nullptr, nullptr,
                                      nullptr, 1, 0, nullptr),
                 std::logic_error);
  } else {
    EXPECT_THROW(k::launch_wgmma_peak(prepared, nullptr, nullptr, nullptr, nullptr, nullptr,
                                      nullptr, 1, 0, nullptr),
                 std::invalid_argument);
    // The argument checks come before any CUDA call: fake, aligned device addresses.
    auto* rows = reinterpret_cast<const std::uint8_t*>(std::uintptr_t{0x1000});
    auto* words = reinterpret_cast<std::uint32_t*>(std::uintptr_t{0x2000});
    EXPECT_THROW(
        k::launch_wgmma_peak(prepared, rows, rows, rows, words, nullptr, words, 1, 0, nullptr),
        std::invalid_argument); // no work counters
    EXPECT_THROW(k::launch_wgmma_peak(prepared, rows, rows, rows, words, words, words, 1,
                                      k::tc_max_pairs + 1, nullptr),
                 std::invalid_argument);
    EXPECT_THROW(k::launch_wgmma_peak(k::wgmma_peak_launch{}, rows, rows, rows, words, words, words,
                                      1, 0, nullptr),
                 std::invalid_argument); // not prepared
    EXPECT_THROW((void)k::prepare_wgmma_peak(tc_dtype::fp4_e2m1),
                 std::invalid_argument); // no fp4 kernel
  }
  EXPECT_THROW(k::launch_mma_sync_peak(mma_variant::fp16_m16n8k16, nullptr, nullptr, nullptr,
                                       nullptr, nullptr, nullptr, 1, 0, nullptr),
               std::invalid_argument);
  auto* words = reinterpret_cast<std::uint32_t*>(std::uintptr_t{0x2000});
  EXPECT_THROW(k::launch_mma_sync_peak(mma_variant::fp16_m16n8k16, words, words, words, words,
                                       nullptr, words, 1, 0, nullptr),
               std::invalid_argument); // no work counters
  EXPECT_THROW(k::launch_mma_sync_peak(mma_variant::fp16_m16n8k16, words, words, words, words,
                                       words, words, 1, k::tc_max_pairs + 1, nullptr),
               std::invalid_argument);
}

// --- on a GPU --------------------------------------------------------------------------------

namespace {

struct tensor_kernels : gpuspec::testing::gpu_test {
  void SetUp() override {
    gpu_test::SetUp();
    if (IsSkipped() || HasFatalFailure())
      return;
    cudaDeviceProp prop{};
    ASSERT_EQ(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
    sm = prop.major * 10 + prop.minor;
    if (sm < 75)
      GTEST_SKIP() << "no mma.sync before sm_75; this GPU is sm_" << sm;
  }

  template <class T> static k::device_buffer<T> upload(const std::vector<T>& host) {
    k::device_buffer<T> d(host.size());
    GPUSPEC_CUDA_CHECK(
        cudaMemcpy(d.data(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
    return d;
  }

  /// The work counters of a launch, as the kernel stored them.
  static std::vector<std::uint32_t> counts(const k::device_buffer<std::uint32_t>& trips) {
    std::vector<std::uint32_t> host(trips.size());
    GPUSPEC_CUDA_CHECK(
        cudaMemcpy(host.data(), trips.data(), trips.bytes(), cudaMemcpyDeviceToHost));
    return host;
  }

  /// Checks every word of `out` against `tile` repeated; returns the number of mismatches.
  static std::size_t mismatches(const k::device_buffer<std::uint32_t>& out,
                                const std::vector<double>& tile, bool integer, std::string& first) {
    std::vector<std::uint32_t> host(out.size());
    GPUSPEC_CUDA_CHECK(cudaMemcpy(host.data(), out.data(), out.bytes(), cudaMemcpyDeviceToHost));
    std::size_t bad = 0;
    for (std::size_t i = 0; i < host.size(); ++i) {
      const double got = k::tc_accumulator_value(integer, host[i]);
      const double want = tile[i % tile.size()];
      if (got != want) {
        if (bad == 0)
          first = "word " + std::to_string(i) + " (tile " + std::to_string(i / tile.size()) +
                  ", element " + std::to_string(i % tile.size()) + "): got " + std::to_string(got) +
                  ", expected " + std::to_string(want);
        ++bad;
      }
    }
    return bad;
  }

  int sm = 0;
};

} // namespace

TEST_F(tensor_kernels, every_mma_sync_variant_this_gpu_runs_computes_a_times_b) {
  for (mma_variant v : k::all_mma_variants) {
    const k::mma_variant_info info = k::mma_info(v);
    if (info.min_sm > sm || (k::mma_is_f8f6f4(v) && (sm / 10 != 12 || !k::mma_f8f6f4_built())))
      continue;
    SCOPED_TRACE(name_of(v));
    const k::mma_problem pr = k::make_mma_problem(v, 1234);
    const auto a = upload(pr.a_frag), bp = upload(pr.b_pos_frag), bn = upload(pr.b_neg_frag);
    for (unsigned blocks : {1u, 3u}) {
      for (std::uint32_t pairs : {0u, 1u, 17u}) {
        k::device_buffer<std::uint32_t> out(k::mma_output_words(v, blocks));
        k::device_buffer<std::uint32_t> trips(k::mma_count_words(blocks));
        k::device_buffer<std::uint32_t> status(1);
        k::poison_with_byte(out.data(), out.bytes(), k::tc_output_poison_byte(info.dtype), nullptr);
        k::poison_with_nan(trips.data(), trips.bytes(), nullptr);
        GPUSPEC_CUDA_CHECK(cudaMemset(status.data(), 0, sizeof(std::uint32_t)));
        k::launch_mma_sync_peak(v, a.data(), bp.data(), bn.data(), out.data(), trips.data(),
                                status.data(), blocks, pairs, nullptr);
        GPUSPEC_CUDA_CHECK(cudaDeviceSynchronize());
        std::uint32_t word = 0;
        GPUSPEC_CUDA_CHECK(cudaMemcpy(&word, status.data(), sizeof word, cudaMemcpyDeviceToHost));
        ASSERT_TRUE(k::tc_status_ran(word)) << "status " << word;
        std::string first;
        EXPECT_EQ(mismatches(out, pr.c, k::tc_is_integer(info.dtype), first), 0u)
            << "blocks " << blocks << " pairs " << pairs << ": " << first;
        // Every warp ran exactly `pairs` trips, and a count one off is caught.
        const std::vector<std::uint32_t> got = counts(trips);
        const k::work_count_verdict work = k::judge_work_counts(got, pairs);
        EXPECT_TRUE(work.passed()) << "blocks " << blocks << " pairs " << pairs << ": "
                                   << k::describe_work_counts(work, "warp");
        EXPECT_EQ(work.units, static_cast<std::size_t>(blocks) * k::mma_warps_per_block);
        EXPECT_FALSE(k::judge_work_counts(got, pairs + 1).passed());
      }
    }
  }
}

TEST_F(tensor_kernels, mma_sync_blocks_fill_the_device) {
  int sms = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), cudaSuccess);
  const unsigned blocks = k::mma_sync_peak_blocks(mma_variant::fp16_m16n8k8);
  EXPECT_GE(blocks, static_cast<unsigned>(sms));
  EXPECT_LE(blocks, static_cast<unsigned>(sms) * k::mma_max_blocks_per_sm);
}

TEST_F(tensor_kernels, every_wgmma_kernel_computes_a_times_b_on_hopper) {
  if (sm != 90)
    GTEST_SKIP() << "wgmma runs on compute capability 9.0 only; this GPU is sm_" << sm;
  if (!k::wgmma_peak_built())
    GTEST_SKIP() << "this build has no sm_90a kernels (its architecture list lacks 90)";
  for (tc_dtype t : all_dtypes) {
    if (!k::wgmma_has(t))
      continue;
    SCOPED_TRACE(k::wgmma_ptx(t));
    const k::wgmma_problem pr = k::make_wgmma_problem(t, 99);
    const auto a = upload(pr.a_rows), bp = upload(pr.b_pos_rows), bn = upload(pr.b_neg_rows);
    // Prepared once (the device queries), launched many times without one.
    const k::wgmma_peak_launch prepared = k::prepare_wgmma_peak(t);
    EXPECT_EQ(prepared.dtype, t);
    EXPECT_EQ(prepared.device, 0);
    EXPECT_GE(prepared.blocks, 1u);
    for (unsigned blocks : {1u, 2u}) {
      for (std::uint32_t pairs : {0u, 1u, 9u}) {
        k::device_buffer<std::uint32_t> out(k::wgmma_output_words(blocks));
        k::device_buffer<std::uint32_t> trips(k::wgmma_count_words(blocks));
        k::device_buffer<std::uint32_t> status(1);
        k::poison_with_byte(out.data(), out.bytes(), k::tc_output_poison_byte(t), nullptr);
        k::poison_with_nan(trips.data(), trips.bytes(), nullptr);
        GPUSPEC_CUDA_CHECK(cudaMemset(status.data(), 0, sizeof(std::uint32_t)));
        k::launch_wgmma_peak(prepared, a.data(), bp.data(), bn.data(), out.data(), trips.data(),
                             status.data(), blocks, pairs, nullptr);
        GPUSPEC_CUDA_CHECK(cudaDeviceSynchronize());
        std::uint32_t word = 0;
        GPUSPEC_CUDA_CHECK(cudaMemcpy(&word, status.data(), sizeof word, cudaMemcpyDeviceToHost));
        ASSERT_TRUE(k::tc_status_ran(word)) << "status " << word;
        std::string first;
        EXPECT_EQ(mismatches(out, pr.d, k::tc_is_integer(t), first), 0u)
            << "blocks " << blocks << " pairs " << pairs << ": " << first;
        // Every warpgroup ran exactly `pairs` trips, and a count one off is caught.
        const std::vector<std::uint32_t> got = counts(trips);
        const k::work_count_verdict work = k::judge_work_counts(got, pairs);
        EXPECT_TRUE(work.passed()) << "blocks " << blocks << " pairs " << pairs << ": "
                                   << k::describe_work_counts(work, "warpgroup");
        EXPECT_EQ(work.units, static_cast<std::size_t>(blocks) * k::wgmma_warpgroups_per_block);
        EXPECT_FALSE(k::judge_work_counts(got, pairs + 1).passed());
      }
    }
  }
}

TEST_F(tensor_kernels, every_tcgen05_kernel_computes_a_times_b_on_blackwell_10x) {
  if (sm / 10 != 10)
    GTEST_SKIP() << "tcgen05 runs on compute capability 10.x only; this GPU is sm_" << sm;
  if (!k::tcgen05_peak_built())
    GTEST_SKIP() << "this build has no sm_100f kernels (its architecture list lacks 100 and 103)";
  for (tc_dtype t : all_dtypes) {
    if (!k::tcgen05_has(t))
      continue;
    SCOPED_TRACE(k::tc_dtype_name(t));
    const k::tcgen05_problem pr = k::make_tcgen05_problem(t, 99);
    const auto a = upload(pr.a_rows), bp = upload(pr.b_pos_rows), bn = upload(pr.b_neg_rows);
    // Prepared once (device queries, the shared-memory attribute), launched many times.
    const k::tcgen05_peak_launch prepared = k::prepare_tcgen05_peak(t);
    const unsigned full = prepared.blocks;
    EXPECT_GE(full, 1u);
    int sms = 0;
    GPUSPEC_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    EXPECT_EQ(full, static_cast<unsigned>(sms) * k::tcgen05_blocks_per_sm);
    for (unsigned blocks : {1u, 2u, full}) {
      for (std::uint32_t pairs : {0u, 1u, 9u}) {
        k::device_buffer<std::uint32_t> out(k::tcgen05_output_words(blocks));
        k::device_buffer<std::uint32_t> trips(k::tcgen05_count_words(blocks));
        k::device_buffer<std::uint32_t> status(1);
        k::poison_with_byte(out.data(), out.bytes(), k::tc_output_poison_byte(t), nullptr);
        k::poison_with_nan(trips.data(), trips.bytes(), nullptr);
        GPUSPEC_CUDA_CHECK(cudaMemset(status.data(), 0, sizeof(std::uint32_t)));
        k::launch_tcgen05_peak(prepared, a.data(), bp.data(), bn.data(), out.data(), trips.data(),
                               status.data(), blocks, pairs, nullptr);
        GPUSPEC_CUDA_CHECK(cudaDeviceSynchronize());
        std::uint32_t word = 0;
        GPUSPEC_CUDA_CHECK(cudaMemcpy(&word, status.data(), sizeof word, cudaMemcpyDeviceToHost));
        ASSERT_TRUE(k::tc_status_ran(word)) << "status " << word;
        std::string first;
        EXPECT_EQ(mismatches(out, pr.d, false, first), 0u)
            << "blocks " << blocks << " pairs " << pairs << ": " << first;
        const std::vector<std::uint32_t> got = counts(trips);
        const k::work_count_verdict work = k::judge_work_counts(got, pairs);
        EXPECT_TRUE(work.passed()) << "blocks " << blocks << " pairs " << pairs << ": "
                                   << k::describe_work_counts(work, "block");
        EXPECT_EQ(work.units, static_cast<std::size_t>(blocks));
        EXPECT_FALSE(k::judge_work_counts(got, pairs + 1).passed());
      }
    }
  }
}

// --- through the harness -----------------------------------------------------------------------

TEST_F(tensor_kernels, tensor_mma_benchmarks_are_ok_or_say_why_not) {
  gpuspec::testing::runner_inventory inv;
  gpuspec::testing::take_runner_inventory(inv);
  if (HasFatalFailure())
    return;
  r::report& report = inv.report;

  gpuspec::testing::run_quietly(
      gpuspec::testing::short_run_options(inv, "standard", "^tensor\\.mma\\.", 3, 10, 1.0), inv);

  ASSERT_EQ(report.results.size(), all_dtypes.size());
  for (const auto& res : report.results) {
    SCOPED_TRACE(res.bench_id + " " + r::parameters_of(res).dump());
    if (res.status != r::result_status::ok) {
      EXPECT_TRUE(res.status == r::result_status::not_supported ||
                  res.status == r::result_status::skipped)
          << res.reason;
      EXPECT_FALSE(res.reason.empty());
      continue;
    }
    EXPECT_EQ(res.check.status, r::verification_status::passed) << res.check.detail;
    // The verification covers the work counters: every unit ran the credited pairs.
    const std::string ran = r::parameters_of(res).at("path").get<std::string>();
    const std::string unit = ran == "wgmma" ? "warpgroups" : ran == "tcgen05" ? "blocks" : "warps";
    EXPECT_NE(res.check.detail.find("work count: every one of the"), std::string::npos)
        << res.check.detail;
    EXPECT_NE(res.check.detail.find(
                  unit + " counted " +
                  std::to_string(r::parameters_of(res).at("pairs").get<std::uint64_t>()) +
                  " loop trips"),
              std::string::npos)
        << res.check.detail;
    EXPECT_EQ(res.metric, "throughput");
    EXPECT_EQ(r::to_string(res.unit), res.bench_id == "tensor.mma.int8" ? "TOPS" : "TFLOP/s");
    EXPECT_EQ(res.cache_state, "hot");
    const std::string path = r::parameters_of(res).at("path").get<std::string>();
    EXPECT_EQ(path, sm == 90 && k::wgmma_peak_built()          ? "wgmma"
                    : sm / 10 == 10 && k::tcgen05_peak_built() ? "tcgen05"
                                                               : "mma.sync");
    EXPECT_GT(res.stats.median, 1.0);
    // The ceiling the plan chose, recorded: fp6 and fp4 run kind::f8f6f4 at the FP8 rate.
    const bool sub_byte = res.bench_id == "tensor.mma.fp6" ||
                          res.bench_id == "tensor.mma.fp6_e2m3" || res.bench_id == "tensor.mma.fp4";
    const nlohmann::ordered_json params = r::parameters_of(res);
    ASSERT_TRUE(params.contains("ceiling_key"));
    if (sub_byte) {
      EXPECT_EQ(params.at("ceiling_key").get<std::string>(), "fp8_tc");
      EXPECT_TRUE(params.contains("ceiling_note"));
    } else {
      EXPECT_FALSE(params.contains("ceiling_note"));
    }
    if (res.efficiency) {
      EXPECT_GT(*res.efficiency, 0.0);
      EXPECT_LT(*res.efficiency, 1.15) << "faster than the clock-adjusted peak: work miscounted";
    }
  }
  const auto find = [&](const std::string& id) {
    return std::find_if(report.results.begin(), report.results.end(),
                        [&](const r::result& x) { return x.bench_id == id; });
  };
  if (sm < 80) {
    EXPECT_EQ(find("tensor.mma.bf16")->status, r::result_status::not_supported);
  }
  if (sm < 89) {
    EXPECT_EQ(find("tensor.mma.fp8")->status, r::result_status::not_supported);
  }
  if (sm / 10 == 10) { // no tcgen05 kind::i8 kernel; mma.sync there is not the int8 peak's path
    EXPECT_EQ(find("tensor.mma.int8")->status, r::result_status::skipped);
    EXPECT_NE(find("tensor.mma.int8")->reason.find("kind::i8"), std::string::npos);
  }
  if (sm == 90 && k::wgmma_peak_built()) {
    EXPECT_EQ(find("tensor.mma.fp8_e5m2")->status, r::result_status::ok);
  }
  if (sm / 10 != 10 && sm / 10 != 12) { // fp6 and fp4 are Blackwell's
    EXPECT_EQ(find("tensor.mma.fp6")->status, r::result_status::not_supported);
    EXPECT_EQ(find("tensor.mma.fp4")->status, r::result_status::not_supported);
  }
}
