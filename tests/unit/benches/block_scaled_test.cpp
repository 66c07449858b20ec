// The block-scaled GEMMs' host side (block_scaled.hpp): the E2M1, E5M2, UE8M0 and UE4M3
// encodings against their known values, quantization round trips for every format, FP4
// packing, the tiled scale layout against the cuBLAS documentation's formula, and the host
// reference passing a correct product and failing one computed with a misplaced scale or left
// unwritten.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <set>
#include <vector>

#include "gpuspec/benches/block_scaled.hpp"
#include "gpuspec/benches/gemm_check.hpp"

namespace b = gpuspec::benches;

namespace {

/// The product a correct GPU would write: bf16(alpha x sum_k A(i, k) B(j, k)) from the operands'
/// dequantized values.
std::vector<std::uint16_t> host_product(const b::quantized_operand& a,
                                        const b::quantized_operand& bq) {
  std::vector<std::uint16_t> d(static_cast<std::size_t>(a.rows * bq.rows));
  const double alpha = static_cast<double>(a.tensor_scale) * static_cast<double>(bq.tensor_scale);
  for (std::int64_t i = 0; i < a.rows; ++i)
    for (std::int64_t j = 0; j < bq.rows; ++j) {
      double sum = 0.0;
      for (std::int64_t k = 0; k < a.k; ++k)
        sum += static_cast<double>(a.value_at(i, k)) * static_cast<double>(bq.value_at(j, k));
      d[static_cast<std::size_t>(i * bq.rows + j)] =
          b::float_to_bf16_bits(static_cast<float>(alpha * sum));
    }
  return d;
}

} // namespace

TEST(block_scaled_encodings, e2m1_known_values_and_rounding) {
  const std::vector<float> values{0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
  for (std::uint8_t code = 0; code < 16; ++code) {
    const float expected = (code & 8) != 0 ? -values[code & 7] : values[code & 7];
    EXPECT_EQ(b::e2m1_bits_to_float(code), expected) << "code " << int{code};
    if ((code & 7) != 0) {
      EXPECT_EQ(b::float_to_e2m1_bits(expected), code) << "code " << int{code};
    }
  }
  EXPECT_EQ(b::float_to_e2m1_bits(0.25f), 0x0);  // tie: to even (0)
  EXPECT_EQ(b::float_to_e2m1_bits(0.75f), 0x2);  // tie: to even (1.0)
  EXPECT_EQ(b::float_to_e2m1_bits(2.5f), 0x4);   // tie: to even (2)
  EXPECT_EQ(b::float_to_e2m1_bits(5.0f), 0x6);   // tie: to even (4)
  EXPECT_EQ(b::float_to_e2m1_bits(5.1f), 0x7);   // 6
  EXPECT_EQ(b::float_to_e2m1_bits(100.0f), 0x7); // saturates to 6
  EXPECT_EQ(b::float_to_e2m1_bits(-3.0f), 0xD);
}

TEST(block_scaled_encodings, e5m2_round_trip_and_saturation) {
  for (unsigned bits = 0; bits < 256; ++bits) {
    if (((bits >> 2) & 0x1Fu) == 0x1Fu)
      continue; // infinities and NaN
    const float f = b::fp8_e5m2_bits_to_float(static_cast<std::uint8_t>(bits));
    if (f == 0.0f && bits != 0)
      continue; // -0
    EXPECT_EQ(b::float_to_fp8_e5m2_bits(f), bits) << "e5m2 bits " << bits;
  }
  EXPECT_EQ(b::float_to_fp8_e5m2_bits(1.0f), 0x3C);
  EXPECT_EQ(b::float_to_fp8_e5m2_bits(1e6f), 0x7B); // 57344, not infinity
  EXPECT_EQ(b::fp8_e5m2_bits_to_float(0x7B), 57344.0f);
  EXPECT_EQ(b::float_to_fp8_e5m2_bits(1.125f), 0x3C); // tie: to even (1.0)
  EXPECT_EQ(b::float_to_fp8_e5m2_bits(1.375f), 0x3E); // tie: to even (1.5)
}

TEST(block_scaled_encodings, scales) {
  EXPECT_EQ(b::ue8m0_to_float(127), 1.0f);
  EXPECT_EQ(b::ue8m0_to_float(130), 8.0f);
  EXPECT_EQ(b::ue8m0_to_float(0), std::ldexp(1.0f, -127));
  EXPECT_TRUE(std::isnan(b::ue8m0_to_float(0xFF)));
  EXPECT_EQ(b::ue4m3_to_float(0x38), 1.0f);
  EXPECT_EQ(b::ue4m3_to_float(0xB8), 1.0f); // no sign bit in UE4M3
  EXPECT_EQ(b::ue4m3_to_float(0x7E), 448.0f);
  // MX v1.0: floor(log2(amax)) - emax(element).
  EXPECT_EQ(b::ue8m0_for_amax(448.0f, b::block_element::e4m3), 127);
  EXPECT_EQ(b::ue8m0_for_amax(1.0f, b::block_element::e4m3), 127 - 8);
  EXPECT_EQ(b::ue8m0_for_amax(0.75f, b::block_element::e5m2), 127 - 1 - 15);
  EXPECT_EQ(b::ue8m0_for_amax(6.0f, b::block_element::e2m1), 127);
  EXPECT_EQ(b::ue8m0_for_amax(0.0f, b::block_element::e2m1), 0);
  // NVFP4: tensor scale amax / (6 x 448); block scale amax(block) / 6 / tensor scale.
  EXPECT_FLOAT_EQ(b::nvfp4_tensor_scale(2688.0f), 1.0f);
  EXPECT_EQ(b::ue4m3_for_amax(6.0f, 1.0f), 0x38);  // 1.0
  EXPECT_EQ(b::ue4m3_for_amax(0.0f, 1.0f), 0x01);  // never 0
  EXPECT_EQ(b::ue4m3_for_amax(12.0f, 0.5f), 0x48); // 4.0
}

TEST(block_scaled_layout, known_offsets) {
  // One tile: (r % 32) x 16 + (r / 32) x 4 + c.
  EXPECT_EQ(b::scale_offset(0, 0, 4), 0u);
  EXPECT_EQ(b::scale_offset(1, 0, 4), 16u);
  EXPECT_EQ(b::scale_offset(31, 0, 4), 496u);
  EXPECT_EQ(b::scale_offset(32, 0, 4), 4u);
  EXPECT_EQ(b::scale_offset(96, 0, 4), 12u);
  EXPECT_EQ(b::scale_offset(0, 3, 4), 3u);
  EXPECT_EQ(b::scale_offset(127, 3, 4), 511u);
  // Tiles: row-tile major, the scale-column tiles of a row of tiles next to each other.
  EXPECT_EQ(b::scale_offset(0, 4, 8), 512u);
  EXPECT_EQ(b::scale_offset(128, 0, 8), 1024u);
  EXPECT_EQ(b::scale_offset(128, 0, 5), 1024u); // 5 columns pad to 2 tiles
  EXPECT_EQ(b::scale_columns(8192, 16), 512);
  EXPECT_EQ(b::scale_tensor_bytes(1, 32, 32), 512u);            // padded to one tile
  EXPECT_EQ(b::scale_tensor_bytes(129, 8192, 16), 256u * 512u); // 2 row tiles x 512 columns
}

TEST(block_scaled_layout, matches_the_documented_rearrangement) {
  // The cuBLAS documentation's layout as its users write it (the PyTorch rearrangement of an
  // R x C scale matrix padded to 128 x 4 tiles): view (R/128, 128, C/4, 4), permute to
  // (R/128, C/4, 128, 4), then each 128 x 4 tile as (4, 32, 4) transposed to (32, 4, 4). Walk
  // that output in order and check that our offset of the element it holds is its position.
  const std::int64_t rows = 256, cols = 12; // 2 x 3 tiles
  std::set<std::size_t> seen;
  std::size_t position = 0;
  for (std::int64_t rt = 0; rt < rows / 128; ++rt)
    for (std::int64_t ct = 0; ct < cols / 4; ++ct)
      for (std::int64_t i = 0; i < 32; ++i) // (32, 4, 4): i, then the 32-row group, then c
        for (std::int64_t g = 0; g < 4; ++g)
          for (std::int64_t c = 0; c < 4; ++c) {
            const std::int64_t row = rt * 128 + g * 32 + i;
            const std::int64_t col = ct * 4 + c;
            EXPECT_EQ(b::scale_offset(row, col, cols), position) << row << ", " << col;
            seen.insert(b::scale_offset(row, col, cols));
            ++position;
          }
  EXPECT_EQ(seen.size(), static_cast<std::size_t>(rows * cols)); // a bijection
  EXPECT_EQ(*seen.rbegin(), static_cast<std::size_t>(rows * cols - 1));
}

TEST(block_scaled_quantize, fp4_packing_low_nibble_first) {
  const b::block_scaled_format& f = *b::find_block_scaled_format("mxfp4");
  // Block amax 6: scale 2^0, so elements are the values themselves.
  const std::vector<float> row{6.0f, -0.5f, 1.0f, 3.0f};
  const auto q = b::quantize_operand(f, 1, 32, [&](std::int64_t, std::int64_t c) {
    return c < 4 ? row[static_cast<std::size_t>(c)] : 0.0f;
  });
  ASSERT_EQ(q.data.size(), 16u);
  EXPECT_EQ(q.scales[0], 127);
  EXPECT_EQ(q.data[0], 0x97); // -0.5 (0x9) high, 6 (0x7) low
  EXPECT_EQ(q.data[1], 0x52); // 3 (0x5) high, 1 (0x2) low
  EXPECT_EQ(q.value_at(0, 1), -0.5f);
  EXPECT_EQ(q.value_at(0, 3), 3.0f);
}

TEST(block_scaled_quantize, round_trips_within_the_element_precision) {
  for (const b::block_scaled_format& f : b::block_scaled_formats()) {
    SCOPED_TRACE(std::string(f.id));
    const std::int64_t rows = 130, k = 256; // two row tiles, the second one padded
    const auto source = b::seeded_block_source(0x5eedull, f.block);
    const b::quantized_operand q = b::quantize_operand(f, rows, k, source);
    EXPECT_EQ(q.scales.size(), b::scale_tensor_bytes(rows, k, f.block));
    EXPECT_EQ(q.data.size(), static_cast<std::size_t>(rows * k * b::element_bits(f.element) / 8));
    EXPECT_EQ(f.tensor_scale, q.tensor_scale != 1.0f);
    const std::vector<float> back = b::dequantize(q);
    const int mantissa_bits = f.element == b::block_element::e4m3   ? 3
                              : f.element == b::block_element::e5m2 ? 2
                                                                    : 1;
    std::size_t saturated = 0;
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t c = 0; c < k; ++c) {
        const double src = source(r, c);
        const double got = static_cast<double>(back[static_cast<std::size_t>(r * k + c)]) *
                           static_cast<double>(q.tensor_scale);
        const double top = b::element_max(f.element) * q.block_scale_at(r, c) * q.tensor_scale;
        if (std::fabs(src) > top) { // beyond the block's range: saturated (MX v1.0 clamps)
          EXPECT_DOUBLE_EQ(std::fabs(got), top);
          ++saturated;
        } else {
          EXPECT_LE(std::fabs(got - src), std::ldexp(std::fabs(src), -(mantissa_bits + 1)))
              << r << ", " << c;
        }
      }
    // MX v1.0's scale puts amax in [2^emax, 2^(emax+1)) x scale, above the element's largest
    // value for part of that range: with this source's [0.5, 1) mantissas, about a quarter of
    // the E4M3 and E5M2 values (beyond 1.75 x 2^emax) and half of the E2M1 ones (beyond 6 of
    // [4, 8)) saturate; NVFP4's scale is picked from amax / 6 and saturates only by rounding.
    const double expected_share = f.tensor_scale                        ? 0.05
                                  : f.element == b::block_element::e2m1 ? 0.55
                                                                        : 0.3;
    EXPECT_LT(static_cast<double>(saturated), expected_share * static_cast<double>(rows * k));
  }
}

TEST(block_scaled_quantize, blocks_span_magnitudes) {
  // The source gives blocks different scales, so a scale read from the wrong place is wrong.
  const auto q = b::quantize_operand(*b::find_block_scaled_format("mxfp8_e4m3"), 128, 1024,
                                     b::seeded_block_source(7, 32));
  std::set<std::uint8_t> distinct(q.scales.begin(), q.scales.end());
  EXPECT_GE(distinct.size(), 10u);
}

TEST(block_scaled_quantize, rejects_partial_blocks) {
  EXPECT_THROW((void)b::quantize_operand(*b::find_block_scaled_format("nvfp4"), 4, 40,
                                         b::seeded_block_source(1, 16)),
               std::invalid_argument);
}

TEST(block_scaled_reference, passes_a_correct_product_and_fails_wrong_ones) {
  for (const b::block_scaled_format& f : b::block_scaled_formats()) {
    SCOPED_TRACE(std::string(f.id));
    const std::int64_t m = 64, n = 48, k = 256;
    const auto a = b::quantize_operand(f, m, k, b::seeded_block_source(11, f.block));
    const auto bq = b::quantize_operand(f, n, k, b::seeded_block_source(12, f.block));
    const std::vector<std::uint16_t> d = host_product(a, bq);
    const auto ok = b::block_scaled_check(a, bq, d.data(), "host product");
    EXPECT_EQ(ok.status, gpuspec::reports::verification_status::passed) << ok.detail;

    // A scale read from another block (what a wrong layout does): two scales of A swapped.
    auto misplaced = a;
    std::swap(misplaced.scales[b::scale_offset(0, 0, b::scale_columns(k, f.block))],
              misplaced.scales[b::scale_offset(1, 0, b::scale_columns(k, f.block))]);
    ASSERT_NE(a.block_scale_at(0, 0), a.block_scale_at(1, 0)); // the source's blocks differ
    const std::vector<std::uint16_t> wrong = host_product(misplaced, bq);
    const auto bad = b::block_scaled_check(a, bq, wrong.data(), "misplaced scale");
    EXPECT_EQ(bad.status, gpuspec::reports::verification_status::failed);

    // An entry never written keeps the NaN poison.
    std::vector<std::uint16_t> unwritten = d;
    unwritten[5] = 0x7FC0;
    EXPECT_EQ(b::block_scaled_check(a, bq, unwritten.data(), "poison").status,
              gpuspec::reports::verification_status::failed);
  }
}

TEST(block_scaled_formats, table) {
  const auto formats = b::block_scaled_formats();
  ASSERT_EQ(formats.size(), 4u);
  for (const auto& f : formats) {
    EXPECT_EQ(f.min_sm, 100);
    EXPECT_EQ(b::find_block_scaled_format(f.id), &f);
    EXPECT_EQ(f.block, f.scale == b::block_scale_type::ue8m0 ? 32 : 16);
    EXPECT_EQ(std::string(f.ceiling), b::element_bits(f.element) == 4 ? "fp4_tc" : "fp8_tc");
  }
  EXPECT_TRUE(b::find_block_scaled_format("nvfp4")->tensor_scale);
  EXPECT_EQ(b::find_block_scaled_format("fp8_tc"), nullptr);
}

TEST(block_scaled_formats, mxfp4_says_no_kernel_is_documented_and_no_cuda_torch_call_exists) {
  const b::block_scaled_format* mxfp4 = b::find_block_scaled_format("mxfp4");
  ASSERT_NE(mxfp4, nullptr);
  EXPECT_FALSE(mxfp4->documented);
  EXPECT_NE(mxfp4->description.find("no cuBLASLt MXFP4 kernel is documented"),
            std::string_view::npos);
  // torch._scaled_mm with float4_e2m1fn_x2 and e8m0 scales is ROCm's: no CUDA equivalent.
  EXPECT_TRUE(mxfp4->torch.starts_with("none on CUDA")) << mxfp4->torch;
  EXPECT_NE(mxfp4->torch.find("ROCm"), std::string_view::npos);
  for (const auto& f : b::block_scaled_formats())
    if (f.id != "mxfp4") {
      EXPECT_TRUE(f.documented) << f.id;
      EXPECT_TRUE(f.torch.starts_with("torch._scaled_mm")) << f.id;
    }
}

TEST(block_scaled_formats, a_heuristic_refusal_is_not_supported_for_every_format) {
  for (const auto& f : b::block_scaled_formats()) {
    const std::string why = b::block_scaled_no_algorithm_reason(
        f, "CUBLASLT_MATMUL_MATRIX_SCALE_VEC32_UE8M0", "bf16 D, TN, m=256, n=192, k=512", 0,
        "CUBLAS_STATUS_NOT_SUPPORTED");
    SCOPED_TRACE(why);
    EXPECT_TRUE(b::block_scaled_heuristic_declined(why));
    EXPECT_NE(why.find(std::string(f.id)), std::string::npos);
    EXPECT_NE(why.find("cublasLtMatmulAlgoGetHeuristic returned 0 result(s), status "
                       "CUBLAS_STATUS_NOT_SUPPORTED"),
              std::string::npos);
    EXPECT_EQ(why.find("documentation lists no kernel") != std::string::npos, !f.documented);
  }
  // Other reasons are not the heuristic's answer: a GPU too old, a run out of memory.
  EXPECT_FALSE(b::block_scaled_heuristic_declined(
      "gemm.cublas.mxfp8_e5m2 needs compute capability 10.0 or newer"));
  EXPECT_FALSE(b::block_scaled_heuristic_declined("cublasLtMatmul failed: CUBLAS_STATUS_EXECUTION"
                                                  "_FAILED (cublasLtMatmulAlgoGetHeuristic ok)"));
  EXPECT_FALSE(b::block_scaled_heuristic_declined(""));
}
