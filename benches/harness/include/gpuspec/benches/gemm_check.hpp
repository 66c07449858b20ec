#pragma once
/// Host-side verification of a GEMM D = alpha·op(A)·op(B) + beta·C (docs/design.md rule 6), shared
/// by gemm.cublas.* and gemm.custom.*. Host only: the benchmark copies A, B and D (and C when beta
/// is not 0) back to the host and describes each as a matrix_view; nothing here needs CUDA.
///
/// What is checked (gemm_sample_check):
///  - a reference for each checked entry, computed from the very inputs the GPU read (converted
///    exactly to double) with a compensated dot product (Ogita-Rump-Oishi Dot2: TwoProduct by
///    fma, TwoSum), as accurate as twice double precision, so even fp64 results are judged
///    against a reference far more accurate than themselves;
///  - every entry when M·N <= full_check_max_entries and M·N·K <= full_check_max_terms, else
///    `samples` seeded random (row, column) pairs plus the four corners;
///  - an entry passes when |d - ref| <= tolerance · (|alpha|·Σ_k |a_ik·b_kj| + |beta·c_ij|):
///    the error is normalised by the sum of magnitudes of the terms, the quantity rounding-error
///    bounds are stated against (Higham, Accuracy and Stability of Numerical Algorithms, §3.1),
///    so cancellation in the reference does not make an accurate result look wrong;
///  - optionally every entry of D, in one pass, for finiteness and |d| <= max_abs: an output tile
///    the GEMM never wrote holds the NaN poison (or, for integer outputs, a value out of range)
///    and fails the check even where sampling would have missed it.
///
/// Tolerances (gemm_tolerance): the input rounding done inside the GEMM (TF32 conversion), plus
/// the output rounding, plus the accumulation error f·u_acc, f depending on the inputs and on
/// how the accumulator rounds:
///  - mixed signs, mean zero (gemm.cublas's inputs), round-to-nearest accumulator (FFMA, DFMA,
///    DMMA): f = min(4·sqrt(K), 16). The partial sums stay near sqrt(k) times a term, and the
///    accumulated error, normalised, stays near u whatever K (simulated: under 2u for K up to
///    16384);
///  - mixed signs, truncating accumulator (Tensor Cores align and truncate; u_acc is then one
///    ulp): f = 4·sqrt(K). Truncation's errors are biased and grow like a random walk over the
///    partial sums (simulated: under 0.65·sqrt(K)·u_acc for K up to 16384, a margin of 6);
///  - one sign (e.g. seeded_value's [1, 2)): f = K, the deterministic worst case (Higham's
///    gamma_K): truncation errors then all point the same way and grow like K.
/// Two precisions refine this: fp16 accumulation caps f at 64 for mixed signs (the partial sums
/// soon dwarf a product, and simulated truncated fp16 sums stay under 0.025, a third of the cap);
/// FP8 on Hopper keeps about 14 bits in the accumulator and promotes to fp32 every few MMAs
/// (cuBLASLt's default, CUBLASLT_MATMUL_DESC_FAST_ACCUM off), modelled as chunks of 128 terms
/// at u = 2^-13 summed in fp32.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpuspec/reports/model/report.hpp"

namespace gpuspec::benches {

// --- element types and host conversions ---------------------------------------------------

/// Element types of GEMM operands as stored in memory (the bit layouts of CUDA's __half,
/// __nv_bfloat16, __nv_fp8_e4m3, __nv_fp8_e5m2, int8_t, int32_t, float, double).
enum class gemm_element { fp64, fp32, fp16, bf16, fp8_e4m3, fp8_e5m2, int8, int32 };

[[nodiscard]] std::size_t element_bytes(gemm_element type);
/// "fp64", "fp32", "fp16", "bf16", "fp8_e4m3", "fp8_e5m2", "int8", "int32"
[[nodiscard]] std::string_view element_name(gemm_element type);
[[nodiscard]] bool is_integer(gemm_element type);

/// IEEE binary16 bits to float (exact, subnormals, infinities and NaN included).
[[nodiscard]] float half_bits_to_float(std::uint16_t bits);
/// float to binary16 bits, round to nearest even; overflow gives infinity, NaN stays NaN.
[[nodiscard]] std::uint16_t float_to_half_bits(float value);
/// bfloat16 bits (the top half of a float) to float (exact).
[[nodiscard]] float bf16_bits_to_float(std::uint16_t bits);
/// float to bfloat16 bits, round to nearest even; NaN stays NaN.
[[nodiscard]] std::uint16_t float_to_bf16_bits(float value);
/// OCP FP8 E4M3 (the "FN" variant CUDA uses: no infinities, S.1111.111 is NaN, max 448) to float.
[[nodiscard]] float fp8_e4m3_bits_to_float(std::uint8_t bits);
/// float to E4M3 bits, round to nearest even, saturating to ±448 (CUDA's __NV_SATFINITE); NaN
/// gives NaN.
[[nodiscard]] std::uint8_t float_to_fp8_e4m3_bits(float value);
/// OCP FP8 E5M2 (IEEE-like: infinities and NaN) to float.
[[nodiscard]] float fp8_e5m2_bits_to_float(std::uint8_t bits);

/// Element `index` of an array of `type` at `data`, converted exactly to double.
[[nodiscard]] double element_to_double(gemm_element type, const void* data, std::size_t index);

// --- matrix views -------------------------------------------------------------------------

enum class storage_order { col_major, row_major };

/// A read-only host view of a logical rows × cols matrix (the operand as it enters the
/// product: op(A) is M × K, op(B) is K × N, C and D are M × N). In BLAS terms a column-major
/// array used with op = T is the row-major view of the transposed shape: an M × K op(A) stored
/// as cuBLAS's "T" (lda >= K) is {rows M, cols K, ld lda, row_major}.
struct matrix_view {
  const void* data = nullptr;
  gemm_element type = gemm_element::fp32;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  /// Elements between consecutive columns (col_major) or rows (row_major).
  std::int64_t ld = 0;
  storage_order order = storage_order::col_major;

  /// Element (r, c) as double; no bounds check.
  [[nodiscard]] double at(std::int64_t r, std::int64_t c) const;
  /// Linear element index of (r, c).
  [[nodiscard]] std::size_t offset(std::int64_t r, std::int64_t c) const {
    return order == storage_order::col_major
               ? static_cast<std::size_t>(c) * static_cast<std::size_t>(ld) +
                     static_cast<std::size_t>(r)
               : static_cast<std::size_t>(r) * static_cast<std::size_t>(ld) +
                     static_cast<std::size_t>(c);
  }
  /// Elements the storage spans (the last element's offset + 1; 0 for an empty matrix).
  [[nodiscard]] std::size_t span_elements() const;
};

/// "" when `v` is well formed (data set unless empty, rows/cols >= 0, ld >= the contiguous
/// dimension and >= 1), else one sentence naming `name`.
[[nodiscard]] std::string check_view(const matrix_view& v, std::string_view name);

// --- precisions and tolerances ------------------------------------------------------------

/// The arithmetic of one GEMM flavour (what the tolerance depends on).
enum class gemm_precision {
  fp64,       ///< fp64 in, fp64 accumulate (DFMA or DMMA), fp64 out
  fp32,       ///< fp32 in, fp32 accumulate (FFMA), fp32 out
  tf32,       ///< fp32 in, rounded to TF32 inside, fp32 accumulate, fp32 out
  fp16,       ///< fp16 in, fp32 accumulate on Tensor Cores, fp16 out
  fp16_acc16, ///< fp16 in, fp16 accumulate, fp16 out
  bf16,       ///< bf16 in, fp32 accumulate on Tensor Cores, bf16 out
  fp8,        ///< fp8 (e4m3) in, fp32 accumulate, bf16 out
  int8,       ///< int8 in, int32 accumulate, int32 out: exact
};

[[nodiscard]] std::string_view precision_name(gemm_precision p);

/// The error model of a precision: relative error each product carries from rounding the
/// inputs inside the GEMM, the accumulator's unit (per addition), the output's unit roundoff,
/// and the two refinements of the file comment.
struct gemm_error_model {
  double input_rounding = 0;  ///< bound on |fl(a)fl(b) - ab| / |ab| (TF32: 2·2^-10)
  double accumulate_unit = 0; ///< u_acc of the accumulator
  double output_unit = 0;     ///< u of the output type (round to nearest)
  /// Terms summed at accumulate_unit before promotion to an fp32 sum (0: all K terms).
  std::int64_t accumulate_chunk = 0;
  double promoted_unit = 0; ///< u_acc of the promoted sum of chunks
  double mixed_cap = std::numeric_limits<double>::infinity(); ///< cap on f for mixed signs
  bool truncating = true; ///< the accumulator truncates (Tensor Cores) or rounds to nearest
};

[[nodiscard]] gemm_error_model error_model(gemm_precision p);

/// How the inputs are distributed: the accumulation term depends on it (see the file comment).
enum class gemm_input_signs {
  mixed,    ///< random signs, mean zero (e.g. uniform in ±[0.5, 1))
  positive, ///< all of one sign (e.g. seeded_value's [1, 2))
};

/// Accumulation factor f(K): for mixed signs 4·sqrt(K) (truncating accumulator) or
/// min(4·sqrt(K), 16) (round to nearest); K for one sign.
[[nodiscard]] double accumulation_factor(std::int64_t k, gemm_input_signs signs,
                                         bool truncating = true);

/// The normalised tolerance: input_rounding + output_unit + f(K')·accumulate_unit (K' = K, or
/// the chunk; f capped by mixed_cap for mixed signs) + f(K)·promoted_unit when K exceeds the
/// chunk. 0 for int8 (exact while no int32 sum overflows: see int8_sum_fits).
[[nodiscard]] double gemm_tolerance(gemm_precision p, std::int64_t k,
                                    gemm_input_signs signs = gemm_input_signs::mixed);
[[nodiscard]] double gemm_tolerance(const gemm_error_model& m, std::int64_t k,
                                    gemm_input_signs signs = gemm_input_signs::mixed);

/// True when K products of int8 values of magnitude <= max_abs_a and <= max_abs_b cannot
/// overflow an int32 accumulator: K · max_abs_a · max_abs_b <= 2^31 - 1.
[[nodiscard]] bool int8_sum_fits(std::int64_t k, int max_abs_a, int max_abs_b);

// --- the check ----------------------------------------------------------------------------

struct gemm_check_options {
  double alpha = 1.0;
  double beta = 0.0;
  /// C before the GEMM (M × N), needed when beta != 0; ignored when beta == 0.
  std::optional<matrix_view> c;
  /// Normalised tolerance (gemm_tolerance).
  double tolerance = 0.0;
  /// Sampled entries (besides the four corners) when the check is not full.
  std::size_t samples = 256;
  std::uint64_t seed = 0x67656d6d5f636b31ull;
  /// Full check when M·N <= this and M·N·K <= full_check_max_terms.
  std::uint64_t full_check_max_entries = std::uint64_t{1} << 20;
  std::uint64_t full_check_max_terms = std::uint64_t{1} << 31;
  /// Scan every entry of D for finiteness (NaN poison never overwritten).
  bool scan_all = true;
  /// In the scan, entries with |d| > max_abs fail too (integer outputs, whose poison is a
  /// number): e.g. K·max|a|·max|b| for int8. Absent: finiteness only.
  std::optional<double> max_abs;
};

/// What the check found.
struct gemm_check_result {
  std::int64_t m = 0, n = 0, k = 0;
  bool full = false;             ///< every entry compared with a reference
  std::size_t checked = 0;       ///< entries compared with a reference
  std::size_t failures = 0;      ///< of those, out of tolerance (non-finite included)
  std::size_t non_finite = 0;    ///< of those, NaN or infinite
  std::size_t scanned = 0;       ///< entries of D scanned (M·N when scan_all, else 0)
  std::size_t scan_failures = 0; ///< scanned entries not finite or above max_abs
  double tolerance = 0;
  double max_error = 0; ///< max normalised error over the finite checked entries
  std::int64_t worst_row = 0, worst_col = 0;
  struct failure {
    std::int64_t row = 0, col = 0;
    double got = 0, expected = 0, normaliser = 0;
  };
  /// The first failing entry: in sample order, or the lowest (row, col) in a full check.
  std::optional<failure> first_failure;
  std::optional<std::pair<std::int64_t, std::int64_t>> first_scan_failure;

  [[nodiscard]] bool passed() const { return checked > 0 && failures == 0 && scan_failures == 0; }
};

/// The (row, col) entries a sampled check compares, in order: the four corners (deduplicated),
/// then `count` pairs drawn from splitmix64 streams of `seed` (repeats possible). Deterministic.
[[nodiscard]] std::vector<std::pair<std::int64_t, std::int64_t>>
gemm_sample_entries(std::int64_t m, std::int64_t n, std::size_t count, std::uint64_t seed);

/// True when the check of an M × N × K GEMM compares every entry under `options`.
[[nodiscard]] bool gemm_full_check(std::int64_t m, std::int64_t n, std::int64_t k,
                                   const gemm_check_options& options);

/// Reference for one entry: {alpha·Σ a_ik b_kj + beta·c_ij (compensated), normaliser}.
struct gemm_reference {
  double value = 0;
  double normaliser = 0; ///< |alpha|·Σ|a_ik b_kj| + |beta·c_ij|
};
[[nodiscard]] gemm_reference gemm_reference_entry(const matrix_view& a, const matrix_view& b,
                                                  std::int64_t row, std::int64_t col,
                                                  const gemm_check_options& options);

/// Checks D (M × N) against op(A) (M × K) · op(B) (K × N). Throws std::invalid_argument for
/// views whose shapes disagree or are malformed. Multithreaded for large checks.
[[nodiscard]] gemm_check_result gemm_check(const matrix_view& a, const matrix_view& b,
                                           const matrix_view& d, const gemm_check_options& options);

/// The report's verification: passed when gemm_check_result::passed(). `what` says what was
/// compared, e.g. "cublasLtMatmul fp16 D against a Dot2 host reference"; the detail adds the
/// entries checked, the error normalisation, the worst error and the first failure.
[[nodiscard]] reports::verification gemm_verification(const gemm_check_result& r,
                                                      const std::string& what);

/// gemm_check then gemm_verification.
[[nodiscard]] reports::verification gemm_sample_check(const matrix_view& a, const matrix_view& b,
                                                      const matrix_view& d,
                                                      const gemm_check_options& options,
                                                      const std::string& what);

} // namespace gpuspec::benches
