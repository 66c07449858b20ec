// Tests of gpuspec's own GEMMs (gemm.custom.*: sgemm_smem_regblock, hgemm_mma_cp_async).
//
// Host tests (run everywhere): the shape parser and tiling checks, the grouped tile order, the
// seeded inputs, the shared-memory swizzle of the Tensor Core kernel (bijective, ldmatrix free
// of bank conflicts, the address identities the kernel's precomputed offsets rely on), the
// launchers' argument checks, and that the check's tolerance separates FP32 rounding from an
// indexing error.
// GPU tests (skipped without a GPU): both kernels on small shapes, every element of C against
// a Dot2 host reference (gemm_check), shapes that exercise one and many K steps, a pipeline
// ring that wraps, and a partial group of tile rows; then both benchmarks through the harness.

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "gpu_test_support.hpp"
#include "gpuspec/benches/gemm_check.hpp"
#include "gpuspec/host/device_probe.hpp"
#include "gpuspec/host/measurement_options.hpp"
#include "gpuspec/host/nvml_library.hpp"
#include "gpuspec/kernels/cuda_check.cuh"
#include "gpuspec/kernels/cuda_handles.cuh"
#include "gpuspec/kernels/fill.hpp"
#include "gpuspec/kernels/hgemm_mma_cp_async.hpp"
#include "gpuspec/kernels/sgemm_smem_regblock.hpp"
#include "gpuspec/reports/model/report_json.hpp"
#include "gpuspec/reports/model/units.hpp"
#include "runner_support.hpp"

namespace k = gpuspec::kernels;
namespace b = gpuspec::benches;
namespace r = gpuspec::reports;

namespace {

constexpr std::uint64_t seed_a = 0x1234, seed_b = 0x5678;

} // namespace

// --- host tests ---------------------------------------------------------------------------------

TEST(gemm_custom_shape, parses_mxnxk_and_rejects_anything_else) {
  EXPECT_EQ(k::parse_gemm_shape("4096x2048x1024"), (k::gemm_shape{4096, 2048, 1024}));
  EXPECT_EQ(k::parse_gemm_shape("1x1x1"), (k::gemm_shape{1, 1, 1}));
  for (const char* bad : {"", "4096", "4096x4096", "4096x4096x", "x4096x4096x4096",
                          "4096x4096x4096x1", "0x128x128", "128x-128x128", "128X128X128",
                          "128x128x128 ", " 128x128x128", "128x+128x128", "99999999999x1x1"})
    EXPECT_FALSE(k::parse_gemm_shape(bad).has_value()) << "'" << bad << "'";
  EXPECT_EQ(k::gemm_shape_text({4096, 2048, 1024}), "4096x2048x1024");
  EXPECT_DOUBLE_EQ(k::gemm_flops({4096, 4096, 4096}), 2.0 * 4096.0 * 4096.0 * 4096.0);
}

TEST(gemm_custom_shape, tiling_requirements_of_each_kernel) {
  EXPECT_EQ(k::sgemm_smem_regblock_shape_error({128, 128, 8}), "");
  EXPECT_EQ(k::sgemm_smem_regblock_shape_error({4096, 8192, 2056}), "");
  EXPECT_NE(k::sgemm_smem_regblock_shape_error({100, 128, 8}), "");
  EXPECT_NE(k::sgemm_smem_regblock_shape_error({128, 192, 8}), "");
  EXPECT_NE(k::sgemm_smem_regblock_shape_error({128, 128, 12}), "");
  EXPECT_NE(k::sgemm_smem_regblock_shape_error({0, 128, 8}), "");
  EXPECT_NE(k::sgemm_smem_regblock_shape_error({128, 128, -8}), "");
  const std::string sgemm_why = k::sgemm_smem_regblock_shape_error({128, 128, 12});
  EXPECT_NE(sgemm_why.find("sgemm_smem_regblock"), std::string::npos) << sgemm_why;
  EXPECT_NE(sgemm_why.find("K = 12"), std::string::npos) << sgemm_why;

  EXPECT_EQ(k::hgemm_mma_cp_async_shape_error({128, 128, 32}), "");
  EXPECT_EQ(k::hgemm_mma_cp_async_shape_error({8192, 4096, 4096}), "");
  EXPECT_NE(k::hgemm_mma_cp_async_shape_error({128, 128, 16}), "");
  EXPECT_NE(k::hgemm_mma_cp_async_shape_error({128, 64, 32}), "");
  const std::string why = k::hgemm_mma_cp_async_shape_error({128, 128, 48});
  EXPECT_NE(why.find("K = 48"), std::string::npos) << why;
  EXPECT_NE(why.find("32"), std::string::npos) << why;

  // The benchmark's shapes satisfy both kernels.
  for (const char* s : {"4096x4096x4096", "2048x2048x2048", "8192x8192x8192"}) {
    const auto shape = k::parse_gemm_shape(s);
    ASSERT_TRUE(shape.has_value());
    EXPECT_EQ(k::sgemm_smem_regblock_shape_error(*shape), "");
    EXPECT_EQ(k::hgemm_mma_cp_async_shape_error(*shape), "");
  }
}

TEST(gemm_custom_geometry, tiles_threads_and_shared_memory_add_up) {
  EXPECT_EQ(k::sgemm_block_threads * k::sgemm_thread_tile * k::sgemm_thread_tile,
            k::sgemm_block_m * k::sgemm_block_n);
  EXPECT_EQ(k::hgemm_block_threads, 128);
  EXPECT_EQ(k::hgemm_warp_m, 64);
  EXPECT_EQ(k::hgemm_warp_n, 64);
  EXPECT_EQ(k::hgemm_tile_bytes, 8192);
  EXPECT_EQ(k::hgemm_smem_bytes, 65536);
  EXPECT_GT(k::hgemm_smem_bytes, 48 * 1024); // hence cudaFuncSetAttribute in the launcher
  // Two blocks per SM fit in sm_80's 164 KiB (and sm_86/89's 100 KiB holds one).
  EXPECT_LE(2 * (k::hgemm_smem_bytes + 1024), 164 * 1024);
  EXPECT_FALSE(k::hgemm_mma_cp_async_supported(7, 5));
  EXPECT_TRUE(k::hgemm_mma_cp_async_supported(8, 0));
  EXPECT_TRUE(k::hgemm_mma_cp_async_supported(8, 9));
  EXPECT_TRUE(k::hgemm_mma_cp_async_supported(9, 0));
}

TEST(gemm_custom_tiles, grouped_order_is_a_bijection_onto_the_tiles) {
  for (int tiles_m : {1, 2, 7, 8, 9, 17, 32, 64})
    for (int tiles_n : {1, 3, 8, 32})
      for (int group : {1, 4, k::gemm_tile_group_rows}) {
        std::set<std::pair<int, int>> seen;
        for (int block = 0; block < tiles_m * tiles_n; ++block) {
          const k::gemm_tile t = k::grouped_tile(block, tiles_m, tiles_n, group);
          ASSERT_GE(t.m, 0);
          ASSERT_LT(t.m, tiles_m);
          ASSERT_GE(t.n, 0);
          ASSERT_LT(t.n, tiles_n);
          seen.insert({t.m, t.n});
        }
        EXPECT_EQ(seen.size(), static_cast<std::size_t>(tiles_m * tiles_n))
            << tiles_m << " x " << tiles_n << " group " << group;
      }
  // Grouped: the first blocks walk down the first group of rows in column 0.
  const k::gemm_tile t1 = k::grouped_tile(1, 32, 32, 8);
  EXPECT_EQ(t1.m, 1);
  EXPECT_EQ(t1.n, 0);
  const k::gemm_tile t8 = k::grouped_tile(8, 32, 32, 8);
  EXPECT_EQ(t8.m, 0);
  EXPECT_EQ(t8.n, 1);
}

TEST(gemm_custom_inputs, f32_values_are_non_zero_exact_and_of_both_signs) {
  int negative = 0;
  double sum = 0;
  constexpr int count = 100000;
  for (int i = 0; i < count; ++i) {
    const float v = k::gemm_input_f32(seed_a, static_cast<std::uint64_t>(i));
    ASSERT_GE(std::fabs(v), 0.5f) << i;
    ASSERT_LT(std::fabs(v), 1.0f) << i;
    // Exact: 0.5 + k·2^-24 for an integer k.
    const double scaled = (std::fabs(static_cast<double>(v)) - 0.5) * 16777216.0;
    ASSERT_EQ(scaled, std::floor(scaled)) << i;
    negative += v < 0 ? 1 : 0;
    sum += v;
  }
  EXPECT_GT(negative, count * 45 / 100);
  EXPECT_LT(negative, count * 55 / 100);
  EXPECT_LT(std::fabs(sum / count), 0.01); // mean near zero: sign and magnitude independent
  EXPECT_NE(k::gemm_input_f32(seed_a, 0), k::gemm_input_f32(seed_b, 0));
}

TEST(gemm_custom_inputs, f16_bits_decode_to_the_stated_values) {
  int negative = 0;
  for (int i = 0; i < 100000; ++i) {
    const auto idx = static_cast<std::uint64_t>(i);
    const std::uint16_t h = k::gemm_input_f16_bits(seed_b, idx);
    const float v = k::gemm_input_f16_value(seed_b, idx);
    ASSERT_EQ(b::half_bits_to_float(h), v) << i;
    ASSERT_EQ(b::float_to_half_bits(v), h) << i; // exactly representable
    ASSERT_GE(std::fabs(v), 0.5f);
    ASSERT_LT(std::fabs(v), 1.0f);
    negative += v < 0 ? 1 : 0;
  }
  EXPECT_GT(negative, 45000);
  EXPECT_LT(negative, 55000);
}

TEST(gemm_custom_swizzle, is_a_bijection_onto_the_tile) {
  std::set<unsigned> offsets;
  for (int row = 0; row < k::hgemm_tile_rows; ++row)
    for (int chunk = 0; chunk < k::hgemm_chunks_per_row; ++chunk) {
      const unsigned off = k::hgemm_swizzled_offset(row, chunk);
      ASSERT_EQ(off % 16, 0u);
      ASSERT_LT(off, static_cast<unsigned>(k::hgemm_tile_bytes));
      offsets.insert(off);
    }
  EXPECT_EQ(offsets.size(), static_cast<std::size_t>(k::hgemm_tile_rows * k::hgemm_chunks_per_row));
}

TEST(gemm_custom_swizzle, every_ldmatrix_phase_hits_all_32_banks_once) {
  // One phase of ldmatrix reads 8 rows (a multiple of 8 onwards) at one chunk: 8 x 16 bytes,
  // which is conflict-free when the 8 chunks sit in 8 different 16-byte bank groups.
  for (int row0 = 0; row0 < k::hgemm_tile_rows; row0 += 8)
    for (int chunk = 0; chunk < k::hgemm_chunks_per_row; ++chunk) {
      std::set<unsigned> groups;
      for (int r = 0; r < 8; ++r)
        groups.insert((k::hgemm_swizzled_offset(row0 + r, chunk) / 16) % 8);
      EXPECT_EQ(groups.size(), 8u) << "rows " << row0 << "+, chunk " << chunk;
    }
  // A warp's cp.async stores (8 consecutive rows, all 4 chunks) fill 4 whole 128-byte lines.
  for (int row0 = 0; row0 < k::hgemm_tile_rows; row0 += 8) {
    std::set<unsigned> lines;
    std::set<unsigned> offsets;
    for (int r = 0; r < 8; ++r)
      for (int c = 0; c < 4; ++c) {
        lines.insert(k::hgemm_swizzled_offset(row0 + r, c) / 128);
        offsets.insert(k::hgemm_swizzled_offset(row0 + r, c));
      }
    EXPECT_EQ(lines.size(), 4u);
    EXPECT_EQ(offsets.size(), 32u);
  }
}

TEST(gemm_custom_swizzle, offset_identities_the_kernel_relies_on) {
  // The kernel computes one offset per thread and adds constants: rows 32 apart are 2048 bytes
  // apart (copy passes), rows 16 apart 1024 bytes (fragments), at every row and chunk.
  for (int row = 0; row < k::hgemm_tile_rows; ++row)
    for (int chunk = 0; chunk < k::hgemm_chunks_per_row; ++chunk) {
      const unsigned off = k::hgemm_swizzled_offset(row, chunk);
      if (row + 32 < k::hgemm_tile_rows) {
        EXPECT_EQ(k::hgemm_swizzled_offset(row + 32, chunk), off + 2048u);
      }
      if (row + 16 < k::hgemm_tile_rows) {
        EXPECT_EQ(k::hgemm_swizzled_offset(row + 16, chunk), off + 1024u);
      }
    }
}

TEST(gemm_custom_launch, rejects_bad_arguments_before_touching_the_gpu) {
  alignas(16) static float f[4];
  alignas(16) static std::uint16_t h[8];
  float* const misaligned = f + 1;
  EXPECT_THROW(k::launch_sgemm_smem_regblock(f, f, f, {100, 128, 8}, nullptr),
               std::invalid_argument);
  EXPECT_THROW(k::launch_sgemm_smem_regblock(nullptr, f, f, {128, 128, 8}, nullptr),
               std::invalid_argument);
  EXPECT_THROW(k::launch_sgemm_smem_regblock(f, misaligned, f, {128, 128, 8}, nullptr),
               std::invalid_argument);
  EXPECT_THROW(k::launch_sgemm_smem_regblock(f, f + 4, f, {128, 128, 8}, nullptr),
               std::invalid_argument); // C overlaps A
  EXPECT_THROW(k::launch_hgemm_mma_cp_async(h, h, f, {128, 128, 16}, nullptr),
               std::invalid_argument);
  EXPECT_THROW(k::launch_hgemm_mma_cp_async(h, nullptr, f, {128, 128, 32}, nullptr),
               std::invalid_argument);
  EXPECT_THROW(k::launch_hgemm_mma_cp_async(h + 1, h, f, {128, 128, 32}, nullptr),
               std::invalid_argument);
  EXPECT_THROW(k::launch_fill_gemm_input_f32(nullptr, 4, 1, nullptr), std::invalid_argument);
  EXPECT_THROW(k::launch_fill_gemm_input_f16(nullptr, 4, 1, nullptr), std::invalid_argument);
}

TEST(gemm_custom_tolerance, separates_fp32_rounding_from_a_missed_k_step) {
  // The benchmark judges sgemm with gemm_tolerance(fp32, K, mixed). A sequential FP32 FMA chain
  // over the seeded inputs stays inside it; the same chain missing one K step of 8 does not.
  constexpr int kk = 4096;
  const double tolerance =
      b::gemm_tolerance(b::gemm_precision::fp32, kk, b::gemm_input_signs::mixed);
  for (int sample = 0; sample < 64; ++sample) {
    float chain = 0.0f, chain_missing = 0.0f;
    double exact = 0.0, magnitude = 0.0;
    const int skipped = (sample * 37) % (kk / 8);
    for (int p = 0; p < kk; ++p) {
      const float x = k::gemm_input_f32(seed_a, static_cast<std::uint64_t>(sample) * kk + p);
      const float y = k::gemm_input_f32(seed_b, static_cast<std::uint64_t>(sample) * kk + p);
      chain = std::fma(x, y, chain);
      if (p / 8 != skipped)
        chain_missing = std::fma(x, y, chain_missing);
      exact += static_cast<double>(x) * static_cast<double>(y); // exact products; tiny sum error
      magnitude += std::fabs(static_cast<double>(x) * static_cast<double>(y));
    }
    EXPECT_LE(std::fabs(chain - exact) / magnitude, tolerance) << sample;
    EXPECT_GT(std::fabs(chain_missing - exact) / magnitude, tolerance) << sample;
  }
}

// --- GPU tests ----------------------------------------------------------------------------------

namespace {

struct gemm_custom_gpu : gpuspec::testing::gpu_test {
  void SetUp() override {
    gpu_test::SetUp();
    if (IsSkipped() || HasFatalFailure())
      return;
    ASSERT_EQ(cudaDeviceGetAttribute(&cc_major, cudaDevAttrComputeCapabilityMajor, 0), cudaSuccess);
    ASSERT_EQ(cudaDeviceGetAttribute(&cc_minor, cudaDevAttrComputeCapabilityMinor, 0), cudaSuccess);
    m_stream.emplace();
    s = m_stream->ref();
  }

  template <class T> std::vector<T> to_host(const k::device_buffer<T>& d) {
    std::vector<T> h(d.size());
    GPUSPEC_CUDA_CHECK(cudaMemcpy(h.data(), d.data(), d.bytes(), cudaMemcpyDeviceToHost));
    return h;
  }

  int cc_major = 0, cc_minor = 0;
  std::optional<k::stream> m_stream;
  k::stream_ref s;
};

/// Shapes for the every-element checks: one tile and one K step; several tiles and K steps;
/// 9 tile rows (a partial group of grouped_tile); a K long enough to wrap the 4-stage ring.
const std::vector<k::gemm_shape> sgemm_shapes{
    {128, 128, 8}, {128, 128, 32}, {256, 384, 64}, {1152, 256, 72}, {128, 256, 520}};
const std::vector<k::gemm_shape> hgemm_shapes{
    {128, 128, 32}, {128, 128, 96}, {256, 384, 64}, {1152, 256, 160}, {128, 256, 544}};

} // namespace

TEST_F(gemm_custom_gpu, fills_match_the_host_bit_for_bit) {
  constexpr std::size_t n = (1u << 16) + 3;
  k::device_buffer<float> f(n);
  k::device_buffer<std::uint16_t> h(n);
  k::launch_fill_gemm_input_f32(f.data(), n, seed_a, s.handle());
  k::launch_fill_gemm_input_f16(h.data(), n, seed_b, s.handle());
  s.synchronize();
  const auto fh = to_host(f);
  const auto hh = to_host(h);
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(fh[i], k::gemm_input_f32(seed_a, i)) << i;
    ASSERT_EQ(hh[i], k::gemm_input_f16_bits(seed_b, i)) << i;
  }
}

TEST_F(gemm_custom_gpu, sgemm_every_element_matches_the_host_reference) {
  for (const k::gemm_shape& shape : sgemm_shapes) {
    SCOPED_TRACE(k::gemm_shape_text(shape));
    const auto m = static_cast<std::size_t>(shape.m), n = static_cast<std::size_t>(shape.n),
               kk = static_cast<std::size_t>(shape.k);
    k::device_buffer<float> a(m * kk), bm(kk * n), c(m * n);
    k::launch_fill_gemm_input_f32(a.data(), a.size(), seed_a, s.handle());
    k::launch_fill_gemm_input_f32(bm.data(), bm.size(), seed_b, s.handle());
    k::poison_with_nan(c.data(), c.bytes(), s.handle());
    k::launch_sgemm_smem_regblock(a.data(), bm.data(), c.data(), shape, s.handle());
    s.synchronize();
    const auto ah = to_host(a), bh = to_host(bm), ch = to_host(c);
    const b::matrix_view av{ah.data(), b::gemm_element::fp32,      shape.m, shape.k,
                            shape.k,   b::storage_order::row_major};
    const b::matrix_view bv{bh.data(), b::gemm_element::fp32,      shape.k, shape.n,
                            shape.n,   b::storage_order::row_major};
    const b::matrix_view cv{ch.data(), b::gemm_element::fp32,      shape.m, shape.n,
                            shape.n,   b::storage_order::row_major};
    b::gemm_check_options options;
    options.tolerance = b::gemm_tolerance(b::gemm_precision::fp32, shape.k);
    options.full_check_max_entries = std::uint64_t{1} << 22;
    options.full_check_max_terms = std::uint64_t{1} << 32;
    const b::gemm_check_result result = b::gemm_check(av, bv, cv, options);
    EXPECT_TRUE(result.full);
    EXPECT_EQ(result.checked, m * n);
    EXPECT_TRUE(result.passed()) << b::gemm_verification(result, "sgemm").detail;
  }
}

TEST_F(gemm_custom_gpu, hgemm_every_element_matches_the_host_reference) {
  if (!k::hgemm_mma_cp_async_supported(cc_major, cc_minor))
    GTEST_SKIP() << "hgemm_mma_cp_async needs sm_80; this GPU is sm_" << cc_major << cc_minor;
  for (const k::gemm_shape& shape : hgemm_shapes) {
    SCOPED_TRACE(k::gemm_shape_text(shape));
    const auto m = static_cast<std::size_t>(shape.m), n = static_cast<std::size_t>(shape.n),
               kk = static_cast<std::size_t>(shape.k);
    k::device_buffer<std::uint16_t> a(m * kk), bnk(n * kk);
    k::device_buffer<float> c(m * n);
    k::launch_fill_gemm_input_f16(a.data(), a.size(), seed_a, s.handle());
    k::launch_fill_gemm_input_f16(bnk.data(), bnk.size(), seed_b, s.handle());
    k::poison_with_nan(c.data(), c.bytes(), s.handle());
    k::launch_hgemm_mma_cp_async(a.data(), bnk.data(), c.data(), shape, s.handle());
    s.synchronize();
    const auto ah = to_host(a), bh = to_host(bnk);
    const auto ch = to_host(c);
    const b::matrix_view av{ah.data(), b::gemm_element::fp16,      shape.m, shape.k,
                            shape.k,   b::storage_order::row_major};
    // B(p, j) at b_nk[j*K + p]: column-major K x N with ld K.
    const b::matrix_view bv{bh.data(), b::gemm_element::fp16,      shape.k, shape.n,
                            shape.k,   b::storage_order::col_major};
    const b::matrix_view cv{ch.data(), b::gemm_element::fp32,      shape.m, shape.n,
                            shape.n,   b::storage_order::row_major};
    b::gemm_error_model model = b::error_model(b::gemm_precision::fp16);
    model.output_unit = std::ldexp(1.0, -24); // fp32 output
    b::gemm_check_options options;
    options.tolerance = b::gemm_tolerance(model, shape.k);
    options.full_check_max_entries = std::uint64_t{1} << 22;
    options.full_check_max_terms = std::uint64_t{1} << 32;
    const b::gemm_check_result result = b::gemm_check(av, bv, cv, options);
    EXPECT_TRUE(result.full);
    EXPECT_EQ(result.checked, m * n);
    EXPECT_TRUE(result.passed()) << b::gemm_verification(result, "hgemm").detail;
  }
}

TEST_F(gemm_custom_gpu, hgemm_launcher_refuses_gpus_before_sm80) {
  if (k::hgemm_mma_cp_async_supported(cc_major, cc_minor))
    GTEST_SKIP() << "this GPU is sm_" << cc_major << cc_minor << ": the kernel runs here";
  k::device_buffer<std::uint16_t> a(128 * 32), bnk(128 * 32);
  k::device_buffer<float> c(128 * 128);
  EXPECT_THROW(
      k::launch_hgemm_mma_cp_async(a.data(), bnk.data(), c.data(), {128, 128, 32}, s.handle()),
      std::invalid_argument);
}

TEST_F(gemm_custom_gpu, benchmarks_run_through_the_harness_verified_and_beside_cublas) {
  gpuspec::testing::runner_inventory inv;
  gpuspec::testing::take_runner_inventory(inv);
  if (HasFatalFailure())
    return;
  r::report& report = inv.report;

  // quick: 4096^3 only
  gpuspec::testing::run_quietly(
      gpuspec::testing::short_run_options(inv, "quick", "^gemm\\.custom\\.", 5, 20, 2.0), inv);

  ASSERT_EQ(report.results.size(), 2u);
  const bool tc_supported = k::hgemm_mma_cp_async_supported(cc_major, cc_minor);
  for (const auto& res : report.results) {
    SCOPED_TRACE(res.bench_id + " " + r::parameters_of(res).dump());
    if (res.bench_id == "gemm.custom.hgemm_tc" && !tc_supported) {
      EXPECT_EQ(res.status, r::result_status::not_supported) << res.reason;
      EXPECT_NE(res.reason.find("sm_80"), std::string::npos) << res.reason;
      continue;
    }
    EXPECT_EQ(res.status, r::result_status::ok) << res.reason;
    EXPECT_EQ(res.check.status, r::verification_status::passed) << res.check.detail;
    EXPECT_EQ(res.metric, "throughput");
    EXPECT_EQ(r::to_string(res.unit), "TFLOP/s");
    EXPECT_EQ(res.cache_state, "hot");
    EXPECT_EQ(r::parameters_of(res).at("shape"), "4096x4096x4096");
    EXPECT_GT(res.stats.median, 0.1); // TFLOP/s: any sm_75+ GPU does more on either
    EXPECT_FALSE(r::parameters_of(res).contains("cublas_error"))
        << r::parameters_of(res).value("cublas_error", std::string());
    ASSERT_TRUE(r::parameters_of(res).contains("fraction_of_cublas"));
    const double fraction = r::parameters_of(res).at("fraction_of_cublas").get<double>();
    EXPECT_GT(fraction, 0.05);
    EXPECT_LT(fraction, 5.0);
    EXPECT_GT(r::parameters_of(res).at("cublas_tflops").get<double>(), 0.1);
    // cuBLAS agrees with us to rounding: relative to max(|C|, rms C), far below 1e-3.
    EXPECT_LT(r::parameters_of(res).at("cublas_max_rel_diff").get<double>(), 1e-3);
    EXPECT_EQ(r::parameters_of(res).at("cublas_non_finite").get<std::uint64_t>(), 0u);
  }
}
