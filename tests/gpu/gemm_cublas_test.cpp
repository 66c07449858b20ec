// Tests of gemm.cublas.* and of the host GEMM check it shares with gemm.custom.*.
//
// Host tests (run everywhere): the fp16/bf16/fp8 conversions, the seeded GEMM fill, the error
// model and tolerances, sample selection, gemm_check on host GEMMs (exact, perturbed, unwritten,
// out of range), shape and layout parsing, the row-major to cuBLAS mapping (checked by running
// the column-major call it describes on the host), the precision table and the registration.
// GPU tests (skipped without a GPU): one small GEMM of every precision and layout through the
// benchmark's own code path, verified; and the quick cases through the whole harness.

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "gpu_test_support.hpp"
#include "gpuspec/benches/families.hpp"
#include "gpuspec/benches/gemm_check.hpp"
#include "gpuspec/benches/gemm_cublas.hpp"
#include "gpuspec/benches/registry.hpp"
#include "gpuspec/host/device_probe.hpp"
#include "gpuspec/host/measurement_options.hpp"
#include "gpuspec/host/nvml_library.hpp"
#include "gpuspec/kernels/gemm_fill.hpp"
#include "gpuspec/reports/model/report_json.hpp"
#include "runner_support.hpp"

namespace b = gpuspec::benches;
namespace k = gpuspec::kernels;
namespace r = gpuspec::reports;

namespace {

// --- host helpers ---------------------------------------------------------------------------

/// A host matrix of doubles (row-major) with its view.
struct host_matrix {
  std::int64_t rows = 0, cols = 0;
  std::vector<double> values;
  host_matrix(std::int64_t r, std::int64_t c)
      : rows(r), cols(c), values(static_cast<std::size_t>(r * c)) {}
  double& operator()(std::int64_t i, std::int64_t j) {
    return values[static_cast<std::size_t>(i * cols + j)];
  }
  [[nodiscard]] b::matrix_view view() const {
    return {values.data(), b::gemm_element::fp64, rows, cols, cols, b::storage_order::row_major};
  }
};

double fill_value(b::gemm_element e, std::uint64_t seed, std::uint64_t i) {
  const std::uint64_t bits =
      k::gemm_fill_bits(e == b::gemm_element::fp64       ? k::gemm_fill_type::fp64
                        : e == b::gemm_element::fp32     ? k::gemm_fill_type::fp32
                        : e == b::gemm_element::fp16     ? k::gemm_fill_type::fp16
                        : e == b::gemm_element::bf16     ? k::gemm_fill_type::bf16
                        : e == b::gemm_element::int8     ? k::gemm_fill_type::int8
                        : e == b::gemm_element::fp8_e5m2 ? k::gemm_fill_type::fp8_e5m2
                                                         : k::gemm_fill_type::fp8_e4m3,
                        seed, i);
  return b::element_to_double(e, &bits, 0); // little-endian: the low bytes come first
}

/// A, B seeded ±[0.5, 1) doubles; D = A·B in double (exact enough for any tolerance here).
struct host_gemm {
  host_matrix a, b, d;
  host_gemm(std::int64_t m, std::int64_t n, std::int64_t kk) : a(m, kk), b(kk, n), d(m, n) {
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t l = 0; l < kk; ++l)
        a(i, l) = fill_value(b::gemm_element::fp64, 1, static_cast<std::uint64_t>(i * kk + l));
    for (std::int64_t l = 0; l < kk; ++l)
      for (std::int64_t j = 0; j < n; ++j)
        b(l, j) = fill_value(b::gemm_element::fp64, 2, static_cast<std::uint64_t>(l * n + j));
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        long double s = 0;
        for (std::int64_t l = 0; l < kk; ++l)
          s += static_cast<long double>(a(i, l)) * static_cast<long double>(b(l, j));
        d(i, j) = static_cast<double>(s);
      }
  }
};

} // namespace

// --- conversions ------------------------------------------------------------------------------

TEST(gemm_check_conversions, half_round_trips_every_finite_pattern) {
  for (std::uint32_t bits = 0; bits < 0x10000u; ++bits) {
    const auto h = static_cast<std::uint16_t>(bits);
    const float f = b::half_bits_to_float(h);
    if (std::isnan(f))
      continue;
    ASSERT_EQ(b::float_to_half_bits(f), h) << "half bits " << bits;
  }
  EXPECT_EQ(b::float_to_half_bits(1.0f), 0x3C00u);
  EXPECT_EQ(b::float_to_half_bits(-2.0f), 0xC000u);
  EXPECT_EQ(b::float_to_half_bits(65504.0f), 0x7BFFu);
  EXPECT_EQ(b::float_to_half_bits(1e6f), 0x7C00u);
  EXPECT_EQ(b::float_to_half_bits(1.0f + std::ldexp(1.0f, -11)), 0x3C00u); // tie: to even
  EXPECT_EQ(b::float_to_half_bits(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02u);
  EXPECT_FLOAT_EQ(b::half_bits_to_float(0x0001u), std::ldexp(1.0f, -24));
  EXPECT_TRUE(std::isnan(b::half_bits_to_float(b::float_to_half_bits(NAN))));
  EXPECT_TRUE(std::isnan(b::half_bits_to_float(0xFFFFu))); // the poison
}

TEST(gemm_check_conversions, bf16_and_fp8) {
  for (std::uint32_t bits = 0; bits < 0x10000u; ++bits) {
    const auto h = static_cast<std::uint16_t>(bits);
    const float f = b::bf16_bits_to_float(h);
    if (!std::isnan(f)) {
      ASSERT_EQ(b::float_to_bf16_bits(f), h) << "bf16 bits " << bits;
    }
  }
  EXPECT_EQ(b::float_to_bf16_bits(1.0f), 0x3F80u);
  EXPECT_EQ(b::float_to_bf16_bits(1.0f + std::ldexp(1.0f, -8)), 0x3F80u); // tie: to even
  for (unsigned bits = 0; bits < 256; ++bits) {
    const auto q = static_cast<std::uint8_t>(bits);
    const float f = b::fp8_e4m3_bits_to_float(q);
    if (std::isnan(f)) {
      EXPECT_EQ(bits & 0x7Fu, 0x7Fu);
      continue;
    }
    ASSERT_EQ(b::float_to_fp8_e4m3_bits(f), q) << "e4m3 bits " << bits;
  }
  EXPECT_EQ(b::fp8_e4m3_bits_to_float(0x7E), 448.0f);
  EXPECT_EQ(b::fp8_e4m3_bits_to_float(0x38), 1.0f);
  EXPECT_EQ(b::fp8_e4m3_bits_to_float(0x01), std::ldexp(1.0f, -9));
  EXPECT_EQ(b::float_to_fp8_e4m3_bits(1000.0f), 0x7E); // saturates
  EXPECT_EQ(b::float_to_fp8_e4m3_bits(-1000.0f), 0xFE);
  EXPECT_EQ(b::fp8_e5m2_bits_to_float(0x3C), 1.0f);
  EXPECT_TRUE(std::isinf(b::fp8_e5m2_bits_to_float(0x7C)));
  EXPECT_TRUE(std::isnan(b::fp8_e4m3_bits_to_float(0xFF))); // the poison
}

TEST(gemm_check_conversions, element_to_double_reads_each_type) {
  const double d = -1.5;
  const float f = 0.75f;
  const std::uint16_t h = 0x3C00, bf = 0xBF80;
  const std::int8_t i8 = -7;
  const std::int32_t i32 = 123456;
  const std::uint8_t e4 = 0x38;
  EXPECT_EQ(b::element_to_double(b::gemm_element::fp64, &d, 0), -1.5);
  EXPECT_EQ(b::element_to_double(b::gemm_element::fp32, &f, 0), 0.75);
  EXPECT_EQ(b::element_to_double(b::gemm_element::fp16, &h, 0), 1.0);
  EXPECT_EQ(b::element_to_double(b::gemm_element::bf16, &bf, 0), -1.0);
  EXPECT_EQ(b::element_to_double(b::gemm_element::int8, &i8, 0), -7.0);
  EXPECT_EQ(b::element_to_double(b::gemm_element::int32, &i32, 0), 123456.0);
  EXPECT_EQ(b::element_to_double(b::gemm_element::fp8_e4m3, &e4, 0), 1.0);
  const std::int32_t poison = static_cast<std::int32_t>(0x80808080u);
  EXPECT_LT(b::element_to_double(b::gemm_element::int32, &poison, 0), -2e9);
}

// --- the seeded fill -----------------------------------------------------------------------

TEST(gemm_fill, values_are_non_zero_exact_and_deterministic) {
  for (const auto e : {b::gemm_element::fp64, b::gemm_element::fp32, b::gemm_element::fp16,
                       b::gemm_element::bf16, b::gemm_element::fp8_e4m3}) {
    SCOPED_TRACE(std::string(b::element_name(e)));
    int negative = 0;
    std::set<double> distinct;
    for (std::uint64_t i = 0; i < 4096; ++i) {
      const double v = fill_value(e, 42, i);
      ASSERT_GE(std::fabs(v), 0.5);
      ASSERT_LT(std::fabs(v), 1.0);
      negative += v < 0;
      distinct.insert(v);
      ASSERT_EQ(v, fill_value(e, 42, i));
    }
    EXPECT_GT(negative, 1800); // random signs
    EXPECT_LT(negative, 2300);
    EXPECT_GE(distinct.size(), e == b::gemm_element::fp8_e4m3 ? 16u : 200u);
  }
  int negative = 0;
  for (std::uint64_t i = 0; i < 4096; ++i) {
    const double v = fill_value(b::gemm_element::int8, 7, i);
    ASSERT_NE(v, 0.0);
    ASSERT_LE(std::fabs(v), k::gemm_fill_int8_max);
    negative += v < 0;
  }
  EXPECT_GT(negative, 1800);
  EXPECT_NE(fill_value(b::gemm_element::fp32, 1, 0), fill_value(b::gemm_element::fp32, 2, 0));
  EXPECT_EQ(k::gemm_fill_bytes(k::gemm_fill_type::bf16), 2u);
}

// --- tolerances ----------------------------------------------------------------------------

TEST(gemm_check_tolerance, formula_per_precision) {
  using P = b::gemm_precision;
  const double u24 = std::ldexp(1.0, -24), u23 = std::ldexp(1.0, -23);
  // mixed signs: f = 4 sqrt(K) truncating, min(4 sqrt(K), 16) round to nearest; one sign: K
  EXPECT_DOUBLE_EQ(b::accumulation_factor(4, b::gemm_input_signs::mixed), 8.0);
  EXPECT_DOUBLE_EQ(b::accumulation_factor(4096, b::gemm_input_signs::mixed), 256.0);
  EXPECT_DOUBLE_EQ(b::accumulation_factor(4096, b::gemm_input_signs::mixed, false), 16.0);
  EXPECT_DOUBLE_EQ(b::accumulation_factor(4, b::gemm_input_signs::mixed, false), 8.0);
  EXPECT_DOUBLE_EQ(b::accumulation_factor(4096, b::gemm_input_signs::positive), 4096.0);
  EXPECT_DOUBLE_EQ(b::gemm_tolerance(P::fp32, 4096), u24 + 16 * u23); // FFMA: round to nearest
  EXPECT_DOUBLE_EQ(b::gemm_tolerance(P::fp32, 4096, b::gemm_input_signs::positive),
                   u24 + 4096 * u23);
  EXPECT_DOUBLE_EQ(b::gemm_tolerance(P::bf16, 4096), std::ldexp(1.0, -8) + 256 * u23);
  EXPECT_DOUBLE_EQ(b::gemm_tolerance(P::int8, 16384), 0.0);
  // fp16 accumulation: the cap; fp8: chunks of 128 at 2^-13, then fp32
  EXPECT_DOUBLE_EQ(b::gemm_tolerance(P::fp16_acc16, 16384),
                   std::ldexp(1.0, -11) + 64 * std::ldexp(1.0, -10));
  EXPECT_DOUBLE_EQ(b::gemm_tolerance(P::fp8, 8192),
                   std::ldexp(1.0, -8) + 4 * std::sqrt(128.0) * std::ldexp(1.0, -13) +
                       4 * std::sqrt(8192.0) * u23);
  EXPECT_DOUBLE_EQ(b::gemm_tolerance(P::fp8, 64),
                   std::ldexp(1.0, -8) + 4 * 8.0 * std::ldexp(1.0, -13));
  // near the figures: fp32 ~1e-5 (K-dependent), tf32 ~1e-3, fp16/bf16 under 1e-2
  EXPECT_LT(b::gemm_tolerance(P::fp64, 16384), 4e-15);
  EXPECT_LT(b::gemm_tolerance(P::fp32, 16384), 1e-5);
  EXPECT_GT(b::gemm_tolerance(P::tf32, 16384), 1e-3);
  EXPECT_LT(b::gemm_tolerance(P::tf32, 16384), 3e-3);
  EXPECT_LT(b::gemm_tolerance(P::fp16, 16384), 1e-3);
  EXPECT_LT(b::gemm_tolerance(P::bf16, 16384), 1e-2);
  EXPECT_GT(b::gemm_tolerance(P::fp16_acc16, 16384), b::gemm_tolerance(P::fp16, 16384));
  EXPECT_LT(b::gemm_tolerance(P::fp16_acc16, 16384), 0.07);
  EXPECT_LT(b::gemm_tolerance(P::fp8, 16384), 1.1e-2);
  EXPECT_TRUE(b::int8_sum_fits(16384, 127, 127));
  EXPECT_FALSE(b::int8_sum_fits(200000, 127, 127));
}

// --- sampling ------------------------------------------------------------------------------

TEST(gemm_check_sampling, deterministic_corners_first_in_range) {
  const auto s1 = b::gemm_sample_entries(1000, 3000, 256, 99);
  const auto s2 = b::gemm_sample_entries(1000, 3000, 256, 99);
  const auto s3 = b::gemm_sample_entries(1000, 3000, 256, 100);
  ASSERT_EQ(s1.size(), 260u);
  EXPECT_EQ(s1, s2);
  EXPECT_NE(s1, s3);
  EXPECT_EQ(s1[0], (std::pair<std::int64_t, std::int64_t>{0, 0}));
  EXPECT_EQ(s1[1], (std::pair<std::int64_t, std::int64_t>{0, 2999}));
  EXPECT_EQ(s1[2], (std::pair<std::int64_t, std::int64_t>{999, 0}));
  EXPECT_EQ(s1[3], (std::pair<std::int64_t, std::int64_t>{999, 2999}));
  std::set<std::int64_t> rows;
  for (const auto& [i, j] : s1) {
    ASSERT_GE(i, 0);
    ASSERT_LT(i, 1000);
    ASSERT_GE(j, 0);
    ASSERT_LT(j, 3000);
    rows.insert(i);
  }
  EXPECT_GT(rows.size(), 200u);
  EXPECT_EQ(b::gemm_sample_entries(1, 1, 3, 5).size(), 4u); // one corner, three draws
  b::gemm_check_options o;
  EXPECT_TRUE(b::gemm_full_check(1024, 1024, 1024, o));
  EXPECT_FALSE(b::gemm_full_check(1024, 1024, 4096, o)); // too many terms
  EXPECT_FALSE(b::gemm_full_check(2048, 1024, 8, o));    // too many entries
}

// --- the check on host GEMMs ---------------------------------------------------------------

TEST(gemm_check_host, exact_gemm_passes_full_and_sampled) {
  host_gemm g(40, 56, 72);
  b::gemm_check_options o;
  o.tolerance = b::gemm_tolerance(b::gemm_precision::fp64, 72);
  const auto full = b::gemm_check(g.a.view(), g.b.view(), g.d.view(), o);
  EXPECT_TRUE(full.full);
  EXPECT_EQ(full.checked, 40u * 56u);
  EXPECT_EQ(full.scanned, 40u * 56u);
  EXPECT_TRUE(full.passed()) << b::gemm_verification(full, "exact").detail;
  EXPECT_LE(full.max_error, o.tolerance);

  o.full_check_max_entries = 10; // force sampling
  o.samples = 50;
  const auto sampled = b::gemm_check(g.a.view(), g.b.view(), g.d.view(), o);
  EXPECT_FALSE(sampled.full);
  EXPECT_EQ(sampled.checked, 54u);
  EXPECT_TRUE(sampled.passed());
  const r::verification v = b::gemm_sample_check(g.a.view(), g.b.view(), g.d.view(), o, "host");
  EXPECT_EQ(v.status, r::verification_status::passed);
  ASSERT_TRUE(v.tolerance.has_value());
  EXPECT_EQ(*v.tolerance, o.tolerance);
}

TEST(gemm_check_host, fp32_rounded_output_passes_fp32_bound_and_perturbed_fails) {
  host_gemm g(33, 17, 300);
  std::vector<float> d32(g.d.values.size());
  for (std::size_t i = 0; i < d32.size(); ++i)
    d32[i] = static_cast<float>(g.d.values[i]);
  const b::matrix_view d{d32.data(), b::gemm_element::fp32,      33, 17,
                         17,         b::storage_order::row_major};
  b::gemm_check_options o;
  o.tolerance = b::gemm_tolerance(b::gemm_precision::fp32, 300);
  EXPECT_TRUE(b::gemm_check(g.a.view(), g.b.view(), d, o).passed());

  // One entry off by 100 times the tolerance of its normaliser: caught, located.
  const b::gemm_reference ref = b::gemm_reference_entry(g.a.view(), g.b.view(), 5, 9, o);
  EXPECT_NEAR(ref.value, g.d(5, 9), 1e-12);
  d32[5 * 17 + 9] = static_cast<float>(ref.value + 100 * o.tolerance * ref.normaliser);
  const auto bad = b::gemm_check(g.a.view(), g.b.view(), d, o);
  EXPECT_FALSE(bad.passed());
  EXPECT_EQ(bad.failures, 1u);
  ASSERT_TRUE(bad.first_failure.has_value());
  EXPECT_EQ(bad.first_failure->row, 5);
  EXPECT_EQ(bad.first_failure->col, 9);
  EXPECT_EQ(bad.worst_row, 5);
  EXPECT_EQ(bad.worst_col, 9);
  const auto v = b::gemm_verification(bad, "perturbed");
  EXPECT_EQ(v.status, r::verification_status::failed);
  EXPECT_NE(v.detail.find("(5, 9)"), std::string::npos) << v.detail;

  // A wrong layout (B read transposed) fails almost everywhere.
  const b::matrix_view bt{g.b.values.data(),          b::gemm_element::fp64, 300, 17, 300,
                          b::storage_order::col_major};
  d32[5 * 17 + 9] = static_cast<float>(ref.value);
  const auto wrong = b::gemm_check(g.a.view(), bt, d, o);
  EXPECT_GT(wrong.failures, wrong.checked / 2);
}

TEST(gemm_check_host, scan_catches_unwritten_entries_that_sampling_misses) {
  host_gemm g(64, 64, 8);
  b::gemm_check_options o;
  o.tolerance = 1e-12;
  o.full_check_max_entries = 1;
  o.samples = 0; // only the corners are compared
  g.d(10, 20) = std::numeric_limits<double>::quiet_NaN();
  auto res = b::gemm_check(g.a.view(), g.b.view(), g.d.view(), o);
  EXPECT_EQ(res.failures, 0u);
  EXPECT_EQ(res.scan_failures, 1u);
  EXPECT_FALSE(res.passed());
  ASSERT_TRUE(res.first_scan_failure.has_value());
  EXPECT_EQ(*res.first_scan_failure, (std::pair<std::int64_t, std::int64_t>{10, 20}));
  o.scan_all = false;
  EXPECT_TRUE(b::gemm_check(g.a.view(), g.b.view(), g.d.view(), o).passed());
}

TEST(gemm_check_host, int8_exact_and_int32_poison_out_of_range) {
  const std::int64_t m = 8, n = 12, kk = 64;
  std::vector<std::int8_t> a(static_cast<std::size_t>(m * kk)),
      bm(static_cast<std::size_t>(kk * n));
  for (std::size_t i = 0; i < a.size(); ++i)
    a[i] = static_cast<std::int8_t>(fill_value(b::gemm_element::int8, 3, i));
  for (std::size_t i = 0; i < bm.size(); ++i)
    bm[i] = static_cast<std::int8_t>(fill_value(b::gemm_element::int8, 4, i));
  std::vector<std::int32_t> d(static_cast<std::size_t>(m * n));
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      std::int32_t s = 0;
      for (std::int64_t l = 0; l < kk; ++l)
        s += a[static_cast<std::size_t>(i * kk + l)] * bm[static_cast<std::size_t>(l * n + j)];
      d[static_cast<std::size_t>(i * n + j)] = s;
    }
  const b::matrix_view av{a.data(), b::gemm_element::int8, m, kk, kk, b::storage_order::row_major};
  const b::matrix_view bv{bm.data(), b::gemm_element::int8, kk, n, n, b::storage_order::row_major};
  const b::matrix_view dv{d.data(), b::gemm_element::int32, m, n, n, b::storage_order::row_major};
  b::gemm_check_options o;
  o.tolerance = b::gemm_tolerance(b::gemm_precision::int8, kk);
  o.max_abs = static_cast<double>(kk) * 127 * 127;
  EXPECT_TRUE(b::gemm_check(av, bv, dv, o).passed());
  d[3] += 1; // off by one: int8 is exact
  EXPECT_EQ(b::gemm_check(av, bv, dv, o).failures, 1u);
  d[3] -= 1;
  o.full_check_max_entries = 1;
  o.samples = 0;
  std::memset(&d[50], 0x80, sizeof(std::int32_t)); // the int32 poison, never sampled
  const auto res = b::gemm_check(av, bv, dv, o);
  EXPECT_EQ(res.scan_failures, 1u);
  EXPECT_FALSE(res.passed());
}

TEST(gemm_check_host, beta_and_c_are_included) {
  host_gemm g(6, 7, 5);
  host_matrix c(6, 7), d(6, 7);
  for (std::int64_t i = 0; i < 6; ++i)
    for (std::int64_t j = 0; j < 7; ++j) {
      c(i, j) = 0.25 * static_cast<double>(i - j);
      d(i, j) = 2.0 * g.d(i, j) - 3.0 * c(i, j);
    }
  b::gemm_check_options o;
  o.alpha = 2.0;
  o.beta = -3.0;
  o.c = c.view();
  o.tolerance = 1e-14;
  EXPECT_TRUE(b::gemm_check(g.a.view(), g.b.view(), d.view(), o).passed());
  o.c.reset();
  EXPECT_THROW((void)b::gemm_check(g.a.view(), g.b.view(), d.view(), o), std::invalid_argument);
}

TEST(gemm_check_host, malformed_views_throw) {
  host_gemm g(4, 5, 6);
  b::gemm_check_options o;
  o.tolerance = 1e-12;
  EXPECT_THROW((void)b::gemm_check(g.b.view(), g.a.view(), g.d.view(), o), std::invalid_argument);
  b::matrix_view bad = g.a.view();
  bad.ld = 2; // below the 6 columns of a row-major 4 x 6
  EXPECT_FALSE(b::check_view(bad, "A").empty());
  EXPECT_THROW((void)b::gemm_check(bad, g.b.view(), g.d.view(), o), std::invalid_argument);
  o.tolerance = -1;
  EXPECT_THROW((void)b::gemm_check(g.a.view(), g.b.view(), g.d.view(), o), std::invalid_argument);
}

// --- shapes, layouts and the cuBLAS mapping --------------------------------------------------

TEST(gemm_cublas_host, shape_parsing) {
  const auto s = b::parse_gemm_shape("16384x4096x4096");
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(*s, (b::gemm_shape{16384, 4096, 4096}));
  EXPECT_EQ(b::gemm_shape_text(*s), "16384x4096x4096");
  for (const char* bad : {"", "1x2", "1x2x3x", "1x2x3x4", "0x1x1", "-1x2x3", " 1x2x3", "1x2x3 ",
                          "1X2X3", "1x+2x3", "2147483648x1x1", "ax1x1"})
    EXPECT_FALSE(b::parse_gemm_shape(bad).has_value()) << bad;
  EXPECT_TRUE(b::parse_gemm_shape("2147483647x1x1").has_value());
  EXPECT_EQ(b::parse_gemm_layout("NN"), b::gemm_layout::nn);
  EXPECT_EQ(b::parse_gemm_layout("NT"), b::gemm_layout::nt);
  EXPECT_FALSE(b::parse_gemm_layout("TN").has_value());
  EXPECT_EQ(b::gemm_layout_name(b::gemm_layout::nt), "NT");
}

TEST(gemm_cublas_host, cublas_call_computes_the_row_major_product) {
  // Run the column-major call the mapping describes, naively, on the row-major operands' memory,
  // and compare with the row-major product the check's views describe.
  const b::gemm_shape s{5, 7, 3};
  for (const auto layout : {b::gemm_layout::nn, b::gemm_layout::nt}) {
    SCOPED_TRACE(std::string(b::gemm_layout_name(layout)));
    const b::cublas_gemm_call c = b::cublas_call_for(s, layout);
    EXPECT_EQ(c.m, s.n);
    EXPECT_EQ(c.n, s.m);
    EXPECT_EQ(c.k, s.k);
    EXPECT_EQ(c.transb, 'N');
    EXPECT_EQ(c.transa, layout == b::gemm_layout::nn ? 'N' : 'T');
    std::vector<double> a(static_cast<std::size_t>(s.m * s.k)),
        bm(static_cast<std::size_t>(s.k * s.n));
    for (std::size_t i = 0; i < a.size(); ++i)
      a[i] = fill_value(b::gemm_element::fp64, 8, i);
    for (std::size_t i = 0; i < bm.size(); ++i)
      bm[i] = fill_value(b::gemm_element::fp64, 9, i);
    // cuBLAS: D'(i, j) = sum_l opA(i, l) · opB(l, j), column-major; its A is our B, its B our A.
    EXPECT_GE(c.lda, c.a_rows);
    EXPECT_GE(c.ldb, c.b_rows);
    EXPECT_EQ(static_cast<std::size_t>(c.a_rows * c.a_cols), bm.size());
    EXPECT_EQ(static_cast<std::size_t>(c.b_rows * c.b_cols), a.size());
    std::vector<double> d(static_cast<std::size_t>(c.ldc * c.n));
    for (std::int64_t i = 0; i < c.m; ++i)
      for (std::int64_t j = 0; j < c.n; ++j) {
        double sum = 0;
        for (std::int64_t l = 0; l < c.k; ++l) {
          const double op_a = c.transa == 'N' ? bm[static_cast<std::size_t>(i + l * c.lda)]
                                              : bm[static_cast<std::size_t>(l + i * c.lda)];
          const double op_b = c.transb == 'N' ? a[static_cast<std::size_t>(l + j * c.ldb)]
                                              : a[static_cast<std::size_t>(j + l * c.ldb)];
          sum += op_a * op_b;
        }
        d[static_cast<std::size_t>(i + j * c.ldc)] = sum;
      }
    b::gemm_views v = b::gemm_host_views(s, layout, b::gemm_element::fp64, b::gemm_element::fp64);
    v.a.data = a.data();
    v.b.data = bm.data();
    v.d.data = d.data();
    b::gemm_check_options o;
    o.tolerance = 1e-14;
    const auto res = b::gemm_check(v.a, v.b, v.d, o);
    EXPECT_TRUE(res.full);
    EXPECT_TRUE(res.passed()) << b::gemm_verification(res, "mapping").detail;
    const std::string torch = b::torch_equivalent(s, layout);
    EXPECT_NE(torch.find(layout == b::gemm_layout::nn ? "torch.matmul" : "linear"),
              std::string::npos);
    EXPECT_NE(torch.find(layout == b::gemm_layout::nn ? "b: [3, 7]" : "b: [7, 3]"),
              std::string::npos)
        << torch;
  }
}

TEST(gemm_cublas_host, precision_table_and_axes) {
  const std::vector<std::string> ids{
      "fp64",    "fp32",    "tf32_tc", "fp16_tc",          "fp16_tc_acc16",
      "bf16_tc", "int8_tc", "fp8_tc",  "fp8_e4m3_e5m2_tc", "fp8_e5m2_e4m3_tc"};
  const auto table = b::gemm_cublas_precisions();
  ASSERT_EQ(table.size(), ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) {
    EXPECT_EQ(table[i].id, ids[i]);
    EXPECT_EQ(b::find_gemm_cublas_precision(ids[i]), &table[i]);
  }
  EXPECT_EQ(b::find_gemm_cublas_precision("fp4"), nullptr);
  const auto* acc16 = b::find_gemm_cublas_precision("fp16_tc_acc16");
  EXPECT_EQ(acc16->ceiling, "fp16_tc");
  EXPECT_FALSE(acc16->fp32_accumulate);
  EXPECT_EQ(b::gemm_compute_name(acc16->compute), "CUBLAS_COMPUTE_16F");
  EXPECT_EQ(b::gemm_compute_name(b::find_gemm_cublas_precision("tf32_tc")->compute),
            "CUBLAS_COMPUTE_32F_FAST_TF32");
  EXPECT_EQ(b::find_gemm_cublas_precision("tf32_tc")->min_sm, 80);
  EXPECT_EQ(b::find_gemm_cublas_precision("bf16_tc")->min_sm, 80);
  EXPECT_EQ(b::find_gemm_cublas_precision("fp8_tc")->min_sm, 89);
  // The mixed FP8 pairs: A and B apart; E5M2 x E5M2 is not a cuBLASLt combination.
  const auto* e4e5 = b::find_gemm_cublas_precision("fp8_e4m3_e5m2_tc");
  EXPECT_EQ(b::a_element(*e4e5), b::gemm_element::fp8_e4m3);
  EXPECT_EQ(b::b_element(*e4e5), b::gemm_element::fp8_e5m2);
  const auto* e5e4 = b::find_gemm_cublas_precision("fp8_e5m2_e4m3_tc");
  EXPECT_EQ(b::a_element(*e5e4), b::gemm_element::fp8_e5m2);
  EXPECT_EQ(b::b_element(*e5e4), b::gemm_element::fp8_e4m3);
  for (const auto& p : table) {
    EXPECT_FALSE(b::a_element(p) == b::gemm_element::fp8_e5m2 &&
                 b::b_element(p) == b::gemm_element::fp8_e5m2)
        << p.id;
    if (p.numerics == b::gemm_precision::fp8) {
      EXPECT_EQ(p.min_sm, 89) << p.id;
      EXPECT_EQ(p.ceiling, "fp8_tc") << p.id;
      EXPECT_EQ(b::gemm_cublas_layouts(p).front(), "NT") << p.id;
    } else {
      EXPECT_EQ(b::a_element(p), b::b_element(p)) << p.id;
    }
  }
  EXPECT_EQ(b::gemm_device_bytes({64, 32, 16}, *e4e5, 0), 64u * 16 + 16u * 32 + 64u * 32 * 2);
  EXPECT_TRUE(b::find_gemm_cublas_precision("int8_tc")->integer_ops);
  EXPECT_EQ(b::find_gemm_cublas_precision("int8_tc")->cd, b::gemm_element::int32);

  const auto shapes = b::gemm_cublas_shapes();
  EXPECT_EQ(shapes.front(), "4096x4096x4096");
  for (const auto& s : shapes)
    EXPECT_TRUE(b::parse_gemm_shape(s).has_value()) << s;
  EXPECT_NE(std::find(shapes.begin(), shapes.end(), "16384x4096x4096"), shapes.end());
  EXPECT_NE(std::find(shapes.begin(), shapes.end(), "1x8192x8192"), shapes.end());
  EXPECT_EQ(std::set<std::string>(shapes.begin(), shapes.end()).size(), shapes.size());
  EXPECT_EQ(b::gemm_cublas_layouts(*b::find_gemm_cublas_precision("fp8_tc")).front(), "NT");
  EXPECT_EQ(b::gemm_cublas_layouts(*b::find_gemm_cublas_precision("fp16_tc")).front(), "NN");
  // 8192^3 fp16: three 128 MiB matrices and the workspace
  EXPECT_EQ(b::gemm_device_bytes({8192, 8192, 8192}, *b::find_gemm_cublas_precision("fp16_tc"),
                                 b::gemm_cublas_workspace_bytes),
            3ull * 8192 * 8192 * 2 + (32ull << 20));
}

TEST(gemm_cublas_host, registration) {
  b::registry reg;
  b::register_gemm_cublas_benchmarks(reg);
  ASSERT_EQ(reg.benchmarks().size(), 10u);
  for (const char* id :
       {"gemm.cublas.fp64", "gemm.cublas.fp32", "gemm.cublas.tf32_tc", "gemm.cublas.fp16_tc",
        "gemm.cublas.fp16_tc_acc16", "gemm.cublas.bf16_tc", "gemm.cublas.int8_tc",
        "gemm.cublas.fp8_tc", "gemm.cublas.fp8_e4m3_e5m2_tc", "gemm.cublas.fp8_e5m2_e4m3_tc"}) {
    const auto* def = reg.find(id);
    ASSERT_NE(def, nullptr) << id;
    ASSERT_EQ(def->axes().size(), 2u);
    EXPECT_EQ(def->axes()[0].name, "shape");
    EXPECT_EQ(def->axes()[1].name, "layout");
    EXPECT_TRUE(def->runs_in("standard"));
  }
  const auto quick = b::select_cases(reg, "quick", "");
  ASSERT_EQ(quick.size(), 6u); // not fp16_tc_acc16, not the fp8 rows
  for (const auto& c : quick)
    EXPECT_EQ(c.value("shape"), "4096x4096x4096");
  EXPECT_EQ(b::select_cases(reg, "standard", "").size(), 10u * 10u * 2u);
}

// --- GPU tests ------------------------------------------------------------------------------

namespace {

int current_sm() {
  int major = 0, minor = 0;
  EXPECT_EQ(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0), cudaSuccess);
  EXPECT_EQ(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0), cudaSuccess);
  return major * 10 + minor;
}

} // namespace

using gemm_cublas_gpu = gpuspec::testing::gpu_test;

TEST_F(gemm_cublas_gpu, every_precision_and_layout_verifies_on_small_shapes) {
  const int sm = current_sm();
  // Fully checked shapes (a small-M one among them) and a sampled one (M·N·K > 2^31).
  const std::vector<b::gemm_shape> shapes{{256, 512, 128}, {1, 1024, 512}, {1024, 1536, 2048}};
  for (const auto& p : b::gemm_cublas_precisions())
    for (const auto& shape : shapes)
      for (const auto layout : {b::gemm_layout::nn, b::gemm_layout::nt}) {
        SCOPED_TRACE(std::string(p.id) + " " + b::gemm_shape_text(shape) + " " +
                     std::string(b::gemm_layout_name(layout)));
        const b::gemm_cublas_trial t = b::run_gemm_cublas_trial(p.id, shape, layout);
        if (sm < p.min_sm) {
          EXPECT_EQ(t.status, r::result_status::not_supported) << t.reason;
          continue;
        }
        if (t.status == r::result_status::not_supported) {
          // Only the restricted precisions may lack a layout or shape, and never the TN layout
          // (our NT) at the plain 256x512x128.
          EXPECT_TRUE(p.numerics == b::gemm_precision::int8 || p.numerics == b::gemm_precision::fp8)
              << t.reason;
          EXPECT_FALSE(layout == b::gemm_layout::nt && shape == shapes.front()) << t.reason;
          continue;
        }
        ASSERT_EQ(t.status, r::result_status::ok) << t.reason;
        EXPECT_EQ(t.check.status, r::verification_status::passed) << t.check.detail;
      }
}

TEST_F(gemm_cublas_gpu, quick_cases_run_through_the_harness) {
  gpuspec::testing::runner_inventory inv;
  gpuspec::testing::take_runner_inventory(inv);
  if (HasFatalFailure())
    return;
  r::report& report = inv.report;

  gpuspec::testing::run_quietly(
      gpuspec::testing::short_run_options(inv, "quick", "^gemm\\.cublas\\.", 3, 20, 1.0), inv);

  ASSERT_EQ(report.results.size(), 6u);
  for (const auto& res : report.results) {
    SCOPED_TRACE(res.bench_id + " " + r::parameters_of(res).dump());
    if (res.status == r::result_status::not_supported || res.status == r::result_status::skipped)
      continue; // an old GPU (bf16/tf32) or a slow one (fp64 beyond the quick budget)
    ASSERT_EQ(res.status, r::result_status::ok) << res.reason;
    EXPECT_EQ(res.check.status, r::verification_status::passed) << res.check.detail;
    EXPECT_EQ(res.cache_state, "hot");
    EXPECT_EQ(r::parameters_of(res).at("m").get<std::int64_t>(), 4096);
    EXPECT_EQ(r::parameters_of(res).at("api"), "cublasLtMatmul");
    EXPECT_GE(r::parameters_of(res).at("heuristic_results").get<int>(), 1);
    EXPECT_TRUE(r::parameters_of(res).contains("compute_type"));
    EXPECT_TRUE(r::parameters_of(res).contains("algo_id"));
    EXPECT_GT(res.stats.median, 0.1);   // T(FL)OP/s: any supported GPU does more
    EXPECT_LT(res.stats.median, 1.0e4); // and less than 10 POP/s
  }
}
