// Host-side GEMM verification (gemm_check.hpp): exact conversions of the stored element types to
// double, a compensated (Dot2) reference per checked entry, the per-precision tolerances, and a
// multithreaded full or sampled comparison plus a scan of every output entry.
//
// Full checks walk the rows of op(A) in blocks converted once to double, and give each thread a
// slice of the columns of op(B), so the memory used stays at a block of A plus one column per
// thread whatever the shape.

#include "gpuspec/benches/gemm_check.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

#include "gpuspec/benches/verification.hpp"
#include "gpuspec/kernels/seeded_values.hpp"

namespace gpuspec::benches {

// --- element types ------------------------------------------------------------------------

std::size_t element_bytes(gemm_element type) {
  switch (type) {
  case gemm_element::fp64:
    return 8;
  case gemm_element::fp32:
  case gemm_element::int32:
    return 4;
  case gemm_element::fp16:
  case gemm_element::bf16:
    return 2;
  case gemm_element::fp8_e4m3:
  case gemm_element::fp8_e5m2:
  case gemm_element::int8:
    return 1;
  }
  throw std::invalid_argument("element_bytes: unknown gemm_element");
}

std::string_view element_name(gemm_element type) {
  switch (type) {
  case gemm_element::fp64:
    return "fp64";
  case gemm_element::fp32:
    return "fp32";
  case gemm_element::fp16:
    return "fp16";
  case gemm_element::bf16:
    return "bf16";
  case gemm_element::fp8_e4m3:
    return "fp8_e4m3";
  case gemm_element::fp8_e5m2:
    return "fp8_e5m2";
  case gemm_element::int8:
    return "int8";
  case gemm_element::int32:
    return "int32";
  }
  return "unknown";
}

bool is_integer(gemm_element type) {
  return type == gemm_element::int8 || type == gemm_element::int32;
}

float half_bits_to_float(std::uint16_t bits) {
  const std::uint32_t sign = static_cast<std::uint32_t>(bits & 0x8000u) << 16;
  const std::uint32_t exponent = (bits >> 10) & 0x1Fu;
  const std::uint32_t mantissa = bits & 0x3FFu;
  float magnitude = 0.0f;
  if (exponent == 0)
    magnitude = std::ldexp(static_cast<float>(mantissa), -24); // subnormal: m · 2^-24
  else if (exponent == 31)
    magnitude = mantissa == 0 ? std::numeric_limits<float>::infinity()
                              : std::numeric_limits<float>::quiet_NaN();
  else
    return std::bit_cast<float>(sign | ((exponent + 112u) << 23) | (mantissa << 13));
  return std::bit_cast<float>(sign | std::bit_cast<std::uint32_t>(magnitude));
}

namespace {

/// |value| rounded to nearest even on a grid of `quantum` (a power of two), as a count.
double round_to_quantum(double magnitude, double quantum) {
  return std::nearbyint(magnitude / quantum); // the default rounding mode: to nearest even
}

} // namespace

std::uint16_t float_to_half_bits(float value) {
  const std::uint32_t f = std::bit_cast<std::uint32_t>(value);
  const auto sign = static_cast<std::uint16_t>((f >> 16) & 0x8000u);
  if (std::isnan(value))
    return static_cast<std::uint16_t>(sign | 0x7E00u);
  const double a = std::fabs(static_cast<double>(value));
  if (a >= 65520.0) // 65504 + half an ulp (32) rounds to infinity
    return static_cast<std::uint16_t>(sign | 0x7C00u);
  if (a <
      std::ldexp(1.0, -14)) { // subnormal range: quantum 2^-24; 1024 quanta is the minimum normal
    const auto q = static_cast<std::uint32_t>(round_to_quantum(a, std::ldexp(1.0, -24)));
    return static_cast<std::uint16_t>(sign | q);
  }
  int e = 0;
  (void)std::frexp(a, &e); // a = f · 2^e, f in [0.5, 1): a in [2^(e-1), 2^e)
  const int exponent = e - 1;
  auto q = static_cast<std::uint32_t>(round_to_quantum(a, std::ldexp(1.0, exponent - 10)));
  int biased = exponent + 15;
  if (q == 2048) { // rounded up to the next binade
    q = 1024;
    ++biased;
  }
  if (biased >= 31)
    return static_cast<std::uint16_t>(sign | 0x7C00u);
  return static_cast<std::uint16_t>(sign | (static_cast<std::uint32_t>(biased) << 10) | (q - 1024));
}

float bf16_bits_to_float(std::uint16_t bits) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
}

std::uint16_t float_to_bf16_bits(float value) {
  const std::uint32_t f = std::bit_cast<std::uint32_t>(value);
  if (std::isnan(value))
    return static_cast<std::uint16_t>(((f >> 16) & 0x8000u) | 0x7FC0u);
  const std::uint32_t rounding = 0x7FFFu + ((f >> 16) & 1u); // to nearest even
  return static_cast<std::uint16_t>((f + rounding) >> 16);
}

float fp8_e4m3_bits_to_float(std::uint8_t bits) {
  const bool negative = (bits & 0x80u) != 0;
  const unsigned exponent = (bits >> 3) & 0xFu;
  const unsigned mantissa = bits & 0x7u;
  float magnitude = 0.0f;
  if (exponent == 15 && mantissa == 7)
    return std::numeric_limits<float>::quiet_NaN();
  if (exponent == 0)
    magnitude = std::ldexp(static_cast<float>(mantissa), -9); // m/8 · 2^-6
  else
    magnitude =
        std::ldexp(1.0f + static_cast<float>(mantissa) / 8.0f, static_cast<int>(exponent) - 7);
  return negative ? -magnitude : magnitude;
}

std::uint8_t float_to_fp8_e4m3_bits(float value) {
  if (std::isnan(value))
    return 0x7F;
  const std::uint8_t sign = std::signbit(value) ? 0x80 : 0x00;
  const double a = std::fabs(static_cast<double>(value));
  if (a >= 448.0)
    return static_cast<std::uint8_t>(sign | 0x7E); // saturate to the largest finite, 448
  if (a < std::ldexp(1.0, -6)) { // subnormal: quantum 2^-9; 8 quanta is the minimum normal
    const auto q = static_cast<unsigned>(round_to_quantum(a, std::ldexp(1.0, -9)));
    return static_cast<std::uint8_t>(sign | q);
  }
  int e = 0;
  (void)std::frexp(a, &e);
  const int exponent = e - 1;
  auto q = static_cast<unsigned>(round_to_quantum(a, std::ldexp(1.0, exponent - 3)));
  int biased = exponent + 7;
  if (q == 16) {
    q = 8;
    ++biased;
  }
  // a < 448 keeps the result at or below S.1111.110 (448).
  return static_cast<std::uint8_t>(sign | (static_cast<unsigned>(biased) << 3) | (q - 8));
}

float fp8_e5m2_bits_to_float(std::uint8_t bits) {
  // E5M2 is the top byte of a binary16 with the same value.
  return half_bits_to_float(static_cast<std::uint16_t>(static_cast<std::uint16_t>(bits) << 8));
}

namespace {

template <class T> T load(const void* data, std::size_t index) {
  T v;
  std::memcpy(&v, static_cast<const unsigned char*>(data) + index * sizeof(T), sizeof(T));
  return v;
}

/// Calls f(decode) with a decoder for `type`: decode(data, index) -> double. One dispatch per
/// loop instead of per element.
template <class F> decltype(auto) with_decoder(gemm_element type, const F& f) {
  switch (type) {
  case gemm_element::fp64:
    return f([](const void* p, std::size_t i) { return load<double>(p, i); });
  case gemm_element::fp32:
    return f([](const void* p, std::size_t i) { return static_cast<double>(load<float>(p, i)); });
  case gemm_element::fp16:
    return f([](const void* p, std::size_t i) {
      return static_cast<double>(half_bits_to_float(load<std::uint16_t>(p, i)));
    });
  case gemm_element::bf16:
    return f([](const void* p, std::size_t i) {
      return static_cast<double>(bf16_bits_to_float(load<std::uint16_t>(p, i)));
    });
  case gemm_element::fp8_e4m3:
    return f([](const void* p, std::size_t i) {
      return static_cast<double>(fp8_e4m3_bits_to_float(load<std::uint8_t>(p, i)));
    });
  case gemm_element::fp8_e5m2:
    return f([](const void* p, std::size_t i) {
      return static_cast<double>(fp8_e5m2_bits_to_float(load<std::uint8_t>(p, i)));
    });
  case gemm_element::int8:
    return f(
        [](const void* p, std::size_t i) { return static_cast<double>(load<std::int8_t>(p, i)); });
  case gemm_element::int32:
    return f(
        [](const void* p, std::size_t i) { return static_cast<double>(load<std::int32_t>(p, i)); });
  }
  throw std::invalid_argument("gemm check: unknown gemm_element");
}

} // namespace

double element_to_double(gemm_element type, const void* data, std::size_t index) {
  return with_decoder(type, [&](auto decode) { return decode(data, index); });
}

// --- views --------------------------------------------------------------------------------

double matrix_view::at(std::int64_t r, std::int64_t c) const {
  return element_to_double(type, data, offset(r, c));
}

std::size_t matrix_view::span_elements() const {
  if (rows <= 0 || cols <= 0)
    return 0;
  return offset(rows - 1, cols - 1) + 1;
}

std::string check_view(const matrix_view& v, std::string_view name) {
  if (v.rows < 0 || v.cols < 0)
    return fmt::format("matrix {} has a negative dimension ({} x {})", name, v.rows, v.cols);
  const std::int64_t contiguous = v.order == storage_order::col_major ? v.rows : v.cols;
  if (v.ld < std::max<std::int64_t>(1, contiguous))
    return fmt::format("matrix {} ({} x {}, {}) has leading dimension {}, below {}", name, v.rows,
                       v.cols, v.order == storage_order::col_major ? "column-major" : "row-major",
                       v.ld, std::max<std::int64_t>(1, contiguous));
  if (v.data == nullptr && v.rows > 0 && v.cols > 0)
    return fmt::format("matrix {} ({} x {}) has no data", name, v.rows, v.cols);
  return {};
}

// --- precisions and tolerances ------------------------------------------------------------

std::string_view precision_name(gemm_precision p) {
  switch (p) {
  case gemm_precision::fp64:
    return "fp64";
  case gemm_precision::fp32:
    return "fp32";
  case gemm_precision::tf32:
    return "tf32";
  case gemm_precision::fp16:
    return "fp16";
  case gemm_precision::fp16_acc16:
    return "fp16_acc16";
  case gemm_precision::bf16:
    return "bf16";
  case gemm_precision::fp8:
    return "fp8";
  case gemm_precision::int8:
    return "int8";
  }
  return "unknown";
}

gemm_error_model error_model(gemm_precision p) {
  const double u64 = std::ldexp(1.0, -53);
  const double u32 = std::ldexp(1.0, -24);
  const double u16 = std::ldexp(1.0, -11);
  const double ubf16 = std::ldexp(1.0, -8);
  // Tensor Core fp32 accumulation aligns and truncates: one ulp, twice round-to-nearest's u.
  const double tc_acc32 = std::ldexp(1.0, -23);
  gemm_error_model m;
  switch (p) {
  case gemm_precision::fp64: // DFMA or DMMA (FP64 Tensor Cores): IEEE fused, round to nearest
    m.accumulate_unit = 2.0 * u64;
    m.output_unit = u64;
    m.truncating = false;
    return m;
  case gemm_precision::fp32: // FFMA: IEEE fused, round to nearest (u_acc doubled for margin)
    m.accumulate_unit = 2.0 * u32;
    m.output_unit = u32;
    m.truncating = false;
    return m;
  case gemm_precision::tf32:
    // Each fp32 input truncated or rounded to 10 explicit mantissa bits: <= 2^-10 relative
    // each, so a product carries <= 2 · 2^-10 (first order).
    m.input_rounding = 2.0 * std::ldexp(1.0, -10);
    m.accumulate_unit = tc_acc32;
    m.output_unit = u32;
    return m;
  case gemm_precision::fp16: // fp16 products are exact in fp32; fp16 output
    m.accumulate_unit = tc_acc32;
    m.output_unit = u16;
    return m;
  case gemm_precision::fp16_acc16: // the accumulator itself is fp16, truncating
    m.accumulate_unit = 2.0 * u16;
    m.output_unit = u16;
    m.mixed_cap = 64.0;
    return m;
  case gemm_precision::bf16:
    m.accumulate_unit = tc_acc32;
    m.output_unit = ubf16;
    return m;
  case gemm_precision::fp8:
    // Hopper's FP8 MMA keeps about 14 bits in its accumulator (DeepSeek-V3 technical report,
    // 2024); cuBLASLt promotes to fp32 periodically unless FAST_ACCUM is set. Output bf16.
    m.accumulate_unit = std::ldexp(1.0, -13);
    m.accumulate_chunk = 128;
    m.promoted_unit = tc_acc32;
    m.output_unit = ubf16;
    return m;
  case gemm_precision::int8:
    return m;
  }
  throw std::invalid_argument("error_model: unknown gemm_precision");
}

double accumulation_factor(std::int64_t k, gemm_input_signs signs, bool truncating) {
  const auto kd = static_cast<double>(std::max<std::int64_t>(k, 1));
  if (signs == gemm_input_signs::positive)
    return kd;
  const double f = 4.0 * std::sqrt(kd);
  return truncating ? f : std::min(f, 16.0);
}

double gemm_tolerance(const gemm_error_model& m, std::int64_t k, gemm_input_signs signs) {
  const bool chunked = m.accumulate_chunk > 0 && k > m.accumulate_chunk;
  double f = accumulation_factor(chunked ? m.accumulate_chunk : k, signs, m.truncating);
  if (signs == gemm_input_signs::mixed)
    f = std::min(f, m.mixed_cap);
  double tolerance = m.input_rounding + m.output_unit + f * m.accumulate_unit;
  if (chunked)
    tolerance += accumulation_factor(k, signs, true) * m.promoted_unit;
  return tolerance;
}

double gemm_tolerance(gemm_precision p, std::int64_t k, gemm_input_signs signs) {
  return gemm_tolerance(error_model(p), k, signs);
}

bool int8_sum_fits(std::int64_t k, int max_abs_a, int max_abs_b) {
  if (k < 0 || max_abs_a < 0 || max_abs_b < 0)
    return false;
  const double worst = static_cast<double>(k) * max_abs_a * max_abs_b;
  return worst <= static_cast<double>(std::numeric_limits<std::int32_t>::max());
}

// --- sampling -----------------------------------------------------------------------------

std::vector<std::pair<std::int64_t, std::int64_t>>
gemm_sample_entries(std::int64_t m, std::int64_t n, std::size_t count, std::uint64_t seed) {
  std::vector<std::pair<std::int64_t, std::int64_t>> entries;
  if (m <= 0 || n <= 0)
    return entries;
  entries.reserve(count + 4);
  for (const auto& corner :
       {std::pair<std::int64_t, std::int64_t>{0, 0}, {0, n - 1}, {m - 1, 0}, {m - 1, n - 1}})
    if (std::find(entries.begin(), entries.end(), corner) == entries.end())
      entries.push_back(corner);
  for (std::size_t s = 0; s < count; ++s) {
    const std::uint64_t r = kernels::seeded_bits(seed, 2 * s) % static_cast<std::uint64_t>(m);
    const std::uint64_t c = kernels::seeded_bits(seed, 2 * s + 1) % static_cast<std::uint64_t>(n);
    entries.emplace_back(static_cast<std::int64_t>(r), static_cast<std::int64_t>(c));
  }
  return entries;
}

bool gemm_full_check(std::int64_t m, std::int64_t n, std::int64_t k,
                     const gemm_check_options& options) {
  if (m <= 0 || n <= 0)
    return true;
  const double entries = static_cast<double>(m) * static_cast<double>(n);
  const double terms = entries * static_cast<double>(std::max<std::int64_t>(k, 1));
  return entries <= static_cast<double>(options.full_check_max_entries) &&
         terms <= static_cast<double>(options.full_check_max_terms);
}

// --- the reference ------------------------------------------------------------------------

namespace {

/// Ogita, Rump, Oishi (2005) Dot2: the dot product as if computed in twice the working
/// precision, plus the sum of |x_i y_i|.
struct dot2_result {
  double value = 0;
  double sum_abs = 0;
};

dot2_result dot2(const double* x, const double* y, std::size_t n) {
  double p = 0.0, s = 0.0, abs_sum = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const double h = x[i] * y[i];
    const double r = std::fma(x[i], y[i], -h); // TwoProduct: h + r == x·y exactly
    const double t = p + h;                    // TwoSum(p, h)
    const double z = t - p;
    const double q = (p - (t - z)) + (h - z);
    p = t;
    s += q + r;
    abs_sum += std::fabs(h);
  }
  return {p + s, abs_sum};
}

void load_row(const matrix_view& v, std::int64_t r, double* out) {
  with_decoder(v.type, [&](auto decode) {
    for (std::int64_t c = 0; c < v.cols; ++c)
      out[c] = decode(v.data, v.offset(r, c));
  });
}

void load_col(const matrix_view& v, std::int64_t c, double* out) {
  with_decoder(v.type, [&](auto decode) {
    for (std::int64_t r = 0; r < v.rows; ++r)
      out[r] = decode(v.data, v.offset(r, c));
  });
}

gemm_reference reference_from(const dot2_result& dot, double c_value,
                              const gemm_check_options& options) {
  const double beta_c = options.beta != 0.0 ? options.beta * c_value : 0.0;
  return {options.alpha * dot.value + beta_c,
          std::fabs(options.alpha) * dot.sum_abs + std::fabs(beta_c)};
}

void validate(const matrix_view& a, const matrix_view& b, const matrix_view& d,
              const gemm_check_options& options) {
  for (const auto& [view, name] :
       {std::pair<const matrix_view*, const char*>{&a, "A"}, {&b, "B"}, {&d, "D"}})
    if (const std::string why = check_view(*view, name); !why.empty())
      throw std::invalid_argument("gemm check: " + why);
  if (a.cols != b.rows || a.rows != d.rows || b.cols != d.cols)
    throw std::invalid_argument(fmt::format(
        "gemm check: shapes disagree: op(A) {} x {}, op(B) {} x {}, D {} x {} (want M x K, "
        "K x N, M x N)",
        a.rows, a.cols, b.rows, b.cols, d.rows, d.cols));
  if (options.beta != 0.0) {
    if (!options.c)
      throw std::invalid_argument("gemm check: beta is not 0 but no C was given");
    if (const std::string why = check_view(*options.c, "C"); !why.empty())
      throw std::invalid_argument("gemm check: " + why);
    if (options.c->rows != d.rows || options.c->cols != d.cols)
      throw std::invalid_argument(fmt::format("gemm check: C is {} x {}, D is {} x {}",
                                              options.c->rows, options.c->cols, d.rows, d.cols));
  }
  if (!(options.tolerance >= 0.0))
    throw std::invalid_argument("gemm check: the tolerance must be >= 0");
}

/// Per-thread accumulation of results; merged in a fixed order.
struct partial_result {
  std::size_t checked = 0, failures = 0, non_finite = 0;
  double max_error = 0;
  std::int64_t worst_row = 0, worst_col = 0;
  bool have_worst = false;
  std::optional<gemm_check_result::failure> first;

  void add(std::int64_t row, std::int64_t col, double got, const gemm_reference& ref,
           double tolerance, bool lexicographic_first) {
    ++checked;
    const double diff = std::fabs(got - ref.value);
    const double err = ref.normaliser > 0.0 ? diff / ref.normaliser : diff;
    const bool finite = std::isfinite(got);
    if (!finite)
      ++non_finite;
    else if (!have_worst || err > max_error) {
      max_error = err;
      worst_row = row;
      worst_col = col;
      have_worst = true;
    }
    if (!(finite && err <= tolerance)) {
      ++failures;
      const bool earlier = !first || (lexicographic_first &&
                                      std::pair{row, col} < std::pair{first->row, first->col});
      if (earlier)
        first = gemm_check_result::failure{row, col, got, ref.value, ref.normaliser};
    }
  }
};

unsigned threads_for(double work, std::size_t parallel_items) {
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const double by_work = work / static_cast<double>(std::uint64_t{1} << 22);
  const auto n = static_cast<unsigned>(std::clamp(by_work, 1.0, 32.0));
  return static_cast<unsigned>(
      std::max<std::size_t>(1, std::min<std::size_t>({n, cores, parallel_items})));
}

} // namespace

gemm_reference gemm_reference_entry(const matrix_view& a, const matrix_view& b, std::int64_t row,
                                    std::int64_t col, const gemm_check_options& options) {
  const auto k = static_cast<std::size_t>(a.cols);
  std::vector<double> x(k), y(k);
  load_row(a, row, x.data());
  load_col(b, col, y.data());
  const double c_value = options.beta != 0.0 && options.c ? options.c->at(row, col) : 0.0;
  return reference_from(dot2(x.data(), y.data(), k), c_value, options);
}

namespace {

/// Every entry of D against its reference: rows of op(A) in blocks, converted once; each thread
/// takes a slice of the columns.
std::vector<partial_result> check_every_entry(const matrix_view& a, const matrix_view& b,
                                              const matrix_view& d,
                                              const gemm_check_options& options) {
  const std::int64_t m = d.rows, n = d.cols, k = a.cols;
  const auto ku = static_cast<std::size_t>(k);
  std::vector<partial_result> partials;
  constexpr std::int64_t row_block = 256;
  const unsigned parts = threads_for(static_cast<double>(m) * static_cast<double>(n) *
                                         static_cast<double>(std::max<std::int64_t>(k, 1)),
                                     static_cast<std::size_t>(n));
  partials.resize(parts);
  std::vector<double> a_rows;
  for (std::int64_t r0 = 0; r0 < m; r0 += row_block) {
    const std::int64_t rows = std::min(row_block, m - r0);
    a_rows.assign(static_cast<std::size_t>(rows) * ku, 0.0);
    for (std::int64_t r = 0; r < rows; ++r)
      load_row(a, r0 + r, a_rows.data() + static_cast<std::size_t>(r) * ku);
    for_each_slice(
        static_cast<std::size_t>(n), parts, [&](std::size_t begin, std::size_t end, unsigned part) {
          std::vector<double> b_col(ku);
          for (std::size_t j = begin; j < end; ++j) {
            const auto col = static_cast<std::int64_t>(j);
            load_col(b, col, b_col.data());
            for (std::int64_t r = 0; r < rows; ++r) {
              const std::int64_t row = r0 + r;
              const double c_value = options.beta != 0.0 ? options.c->at(row, col) : 0.0;
              const gemm_reference ref = reference_from(
                  dot2(a_rows.data() + static_cast<std::size_t>(r) * ku, b_col.data(), ku), c_value,
                  options);
              partials[part].add(row, col, d.at(row, col), ref, options.tolerance, true);
            }
          }
        });
  }
  return partials;
}

/// Sampled entries of D against their references (gemm_sample_entries), in sample order.
std::vector<partial_result> check_sampled_entries(const matrix_view& a, const matrix_view& b,
                                                  const matrix_view& d,
                                                  const gemm_check_options& options) {
  const std::int64_t m = d.rows, n = d.cols, k = a.cols;
  const auto ku = static_cast<std::size_t>(k);
  std::vector<partial_result> partials;
  const auto entries = gemm_sample_entries(m, n, options.samples, options.seed);
  const unsigned parts =
      threads_for(static_cast<double>(entries.size()) * static_cast<double>(k), entries.size());
  partials.resize(parts);
  for_each_slice(entries.size(), parts, [&](std::size_t begin, std::size_t end, unsigned part) {
    std::vector<double> x(ku), y(ku);
    for (std::size_t s = begin; s < end; ++s) {
      const auto [row, col] = entries[s];
      load_row(a, row, x.data());
      load_col(b, col, y.data());
      const double c_value = options.beta != 0.0 ? options.c->at(row, col) : 0.0;
      const gemm_reference ref = reference_from(dot2(x.data(), y.data(), ku), c_value, options);
      partials[part].add(row, col, d.at(row, col), ref, options.tolerance, false);
    }
  });
  return partials;
}

/// Merges the threads' partials in part order: for a sampled check that keeps the first failure
/// in sample order.
void merge_partials(gemm_check_result& result, const std::vector<partial_result>& partials) {
  bool have_worst = false;
  for (const auto& p : partials) {
    result.checked += p.checked;
    result.failures += p.failures;
    result.non_finite += p.non_finite;
    if (p.have_worst && (!have_worst || p.max_error > result.max_error)) {
      result.max_error = p.max_error;
      result.worst_row = p.worst_row;
      result.worst_col = p.worst_col;
      have_worst = true;
    }
    if (p.first) {
      const bool earlier =
          !result.first_failure ||
          (result.full && std::pair{p.first->row, p.first->col} <
                              std::pair{result.first_failure->row, result.first_failure->col});
      if (earlier)
        result.first_failure = p.first;
    }
  }
}

/// Every entry of D: finite (the NaN poison overwritten) and within max_abs.
void scan_output(gemm_check_result& result, const matrix_view& d,
                 const gemm_check_options& options) {
  const std::int64_t m = d.rows, n = d.cols;
  const bool col_major = d.order == storage_order::col_major;
  const std::int64_t outer = col_major ? n : m;
  const std::int64_t inner = col_major ? m : n;
  const unsigned parts = threads_for(static_cast<double>(m) * static_cast<double>(n) * 8.0,
                                     static_cast<std::size_t>(outer));
  struct scan_partial {
    std::size_t failures = 0;
    std::optional<std::pair<std::int64_t, std::int64_t>> first;
  };
  std::vector<scan_partial> scans(parts);
  const double limit = options.max_abs.value_or(std::numeric_limits<double>::infinity());
  for_each_slice(static_cast<std::size_t>(outer), parts,
                 [&](std::size_t begin, std::size_t end, unsigned part) {
                   with_decoder(d.type, [&](auto decode) {
                     scan_partial& s = scans[part];
                     for (std::size_t o = begin; o < end; ++o)
                       for (std::int64_t i = 0; i < inner; ++i) {
                         const std::int64_t row = col_major ? i : static_cast<std::int64_t>(o);
                         const std::int64_t col = col_major ? static_cast<std::int64_t>(o) : i;
                         const double v = decode(d.data, d.offset(row, col));
                         if (!(std::isfinite(v) && std::fabs(v) <= limit)) {
                           ++s.failures;
                           if (!s.first)
                             s.first = std::pair{row, col};
                         }
                       }
                   });
                 });
  result.scanned = static_cast<std::size_t>(m) * static_cast<std::size_t>(n);
  for (const auto& s : scans) {
    result.scan_failures += s.failures;
    if (!result.first_scan_failure && s.first)
      result.first_scan_failure = s.first;
  }
}

} // namespace

gemm_check_result gemm_check(const matrix_view& a, const matrix_view& b, const matrix_view& d,
                             const gemm_check_options& options) {
  validate(a, b, d, options);
  gemm_check_result result;
  result.m = d.rows;
  result.n = d.cols;
  result.k = a.cols;
  result.tolerance = options.tolerance;
  const std::int64_t m = d.rows, n = d.cols, k = a.cols;
  result.full = gemm_full_check(m, n, k, options);
  if (m > 0 && n > 0)
    merge_partials(result, result.full ? check_every_entry(a, b, d, options)
                                       : check_sampled_entries(a, b, d, options));
  if (options.scan_all && m > 0 && n > 0)
    scan_output(result, d, options);
  return result;
}

reports::verification gemm_verification(const gemm_check_result& r, const std::string& what) {
  reports::verification v;
  v.tolerance = r.tolerance;
  v.max_rel_error = r.max_error;
  v.status =
      r.passed() ? reports::verification_status::passed : reports::verification_status::failed;
  if (r.checked == 0) {
    v.detail = fmt::format("nothing was checked ({} x {} x {}): {}", r.m, r.n, r.k, what);
    return v;
  }
  v.detail = fmt::format(
      "{}; {} of {} x {} entries checked ({}); error normalised by |alpha|*sum_k|a_ik*b_kj| + "
      "|beta*c_ij|: max {:.3g} at ({}, {}), tolerance {:.3g}",
      what, r.checked, r.m, r.n, r.full ? "all" : "seeded sample and the corners", r.max_error,
      r.worst_row, r.worst_col, r.tolerance);
  if (r.scanned > 0)
    v.detail += fmt::format("; all {} entries scanned for NaN/out-of-range: {} found", r.scanned,
                            r.scan_failures);
  if (r.failures > 0) {
    v.detail += fmt::format("; {} checked entr{} out of tolerance", r.failures,
                            r.failures == 1 ? "y" : "ies");
    if (r.non_finite > 0)
      v.detail += fmt::format(" ({} not finite)", r.non_finite);
    if (r.first_failure)
      v.detail +=
          fmt::format("; first at ({}, {}): got {:.9g}, expected {:.9g} (normaliser {:.4g})",
                      r.first_failure->row, r.first_failure->col, r.first_failure->got,
                      r.first_failure->expected, r.first_failure->normaliser);
  }
  if (r.first_scan_failure)
    v.detail += fmt::format("; first unwritten/out-of-range entry at ({}, {})",
                            r.first_scan_failure->first, r.first_scan_failure->second);
  return v;
}

reports::verification gemm_sample_check(const matrix_view& a, const matrix_view& b,
                                        const matrix_view& d, const gemm_check_options& options,
                                        const std::string& what) {
  return gemm_verification(gemm_check(a, b, d, options), what);
}

} // namespace gpuspec::benches
