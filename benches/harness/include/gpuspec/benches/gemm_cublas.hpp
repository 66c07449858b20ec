#pragma once
/// The host-side data of gemm.cublas.* (families/gemm_cublas.cpp): the precision table, the shape
/// and layout axes, the mapping of a row-major product onto cuBLAS's column-major call, and a
/// one-shot run of the benchmark's code path for device tests. CUDA-free.
///
/// Convention (the one PyTorch users benchmark, and the one the report's "m", "n", "k" use):
///   D[M×N] = A[M×K] · op(B), all row-major; M is the token count of a transformer layer.
///   layout "NN": B is stored [K, N]  (torch.matmul(a, b))
///   layout "NT": B is stored [N, K]  (torch.nn.functional.linear(a, b) = a @ b.T, the nn.Linear
///                weight layout)
/// cuBLAS is column-major, so the call made computes D^T = op(B)^T · A^T: cuBLAS's m = N,
/// n = M, k = K, its A is our B and its B our A. "NN" becomes cuBLAS (transa N, transb N);
/// "NT" becomes cuBLAS (transa T, transb N), the "TN" layout that cuBLASLt's int8 (IMMA) and
/// FP8 kernels require. The parameters record both views (cublas_transa/transb, cublas_m/n/k,
/// lda/ldb/ldc) and the PyTorch call computing the same product.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpuspec/benches/gemm_check.hpp"
#include "gpuspec/reports/model/report.hpp"

namespace gpuspec::benches {

// --- shapes and layouts -------------------------------------------------------------------

struct gemm_shape {
  std::int64_t m = 0, n = 0, k = 0;
  friend bool operator==(const gemm_shape&, const gemm_shape&) = default;
};

/// "MxNxK" (e.g. "16384x4096x4096") with each of M, N, K in [1, 2^31 - 1]; nullopt otherwise.
[[nodiscard]] std::optional<gemm_shape> parse_gemm_shape(std::string_view text);
[[nodiscard]] std::string gemm_shape_text(const gemm_shape& s);

enum class gemm_layout { nn, nt };
/// "NN" or "NT"; nullopt otherwise.
[[nodiscard]] std::optional<gemm_layout> parse_gemm_layout(std::string_view text);
[[nodiscard]] std::string_view gemm_layout_name(gemm_layout l);

/// The column-major cuBLAS call computing the row-major D = A · op(B) (see the file comment).
/// cuBLAS's A is stored a_rows × a_cols column-major with leading dimension lda, and likewise B.
struct cublas_gemm_call {
  char transa = 'N', transb = 'N';
  std::int64_t m = 0, n = 0, k = 0;
  std::int64_t a_rows = 0, a_cols = 0, lda = 0;
  std::int64_t b_rows = 0, b_cols = 0, ldb = 0;
  std::int64_t ldc = 0;
};
[[nodiscard]] cublas_gemm_call cublas_call_for(const gemm_shape& s, gemm_layout l);

/// The PyTorch expression computing the same product, e.g.
/// "torch.nn.functional.linear(a, b) with a: [16384, 4096], b: [4096, 4096]".
[[nodiscard]] std::string torch_equivalent(const gemm_shape& s, gemm_layout l);

/// Host views of the row-major operands as gemm_check wants them: op(A) M × K, op(B) K × N,
/// D M × N (data pointers left null: the caller sets them).
struct gemm_views {
  matrix_view a, b, d;
};
[[nodiscard]] gemm_views gemm_host_views(const gemm_shape& s, gemm_layout l, gemm_element ab,
                                         gemm_element cd);
/// The same with A's and B's element types apart (FP8 E4M3 x E5M2).
[[nodiscard]] gemm_views gemm_host_views(const gemm_shape& s, gemm_layout l, gemm_element a,
                                         gemm_element b, gemm_element cd);

// --- the precision table ------------------------------------------------------------------

enum class gemm_compute { f64, f32, f32_fast_tf32, f16, i32 };
/// "CUBLAS_COMPUTE_64F", "CUBLAS_COMPUTE_32F", "CUBLAS_COMPUTE_32F_FAST_TF32",
/// "CUBLAS_COMPUTE_16F", "CUBLAS_COMPUTE_32I"
[[nodiscard]] std::string_view gemm_compute_name(gemm_compute c);

/// One row per benchmark, as data.
struct gemm_cublas_precision {
  std::string_view id;      ///< the benchmark is gemm.cublas.<id>
  gemm_element ab;          ///< A's element type (and B's, unless `b` is set)
  gemm_element cd;          ///< C and D element type
  gemm_compute compute;     ///< cuBLAS compute type
  gemm_element scale;       ///< type of alpha and beta (cuBLASLt's scale type)
  std::string_view ceiling; ///< arch_rates key ("fp64" may become "fp64_tc": see the family)
  bool fp32_accumulate;     ///< set_compute_ceiling's flag
  int min_sm;               ///< 10·major + minor below which it is not supported
  gemm_precision numerics;  ///< gemm_check's error model
  bool integer_ops;         ///< TOPS (set_integer_ops_per_iteration) instead of TFLOP/s
  bool in_quick;            ///< in the quick suite (4096³, first layout)
  std::string_view description;
  std::string_view torch; ///< the PyTorch dtype and settings of the same arithmetic
  /// B's element type where it differs from A's (FP8 E4M3 x E5M2); absent: `ab` for both.
  std::optional<gemm_element> b = std::nullopt;
};

/// A's and B's element types of a row (B's is `b` where set, else `ab`).
[[nodiscard]] inline gemm_element a_element(const gemm_cublas_precision& p) { return p.ab; }
[[nodiscard]] inline gemm_element b_element(const gemm_cublas_precision& p) {
  return p.b.value_or(p.ab);
}

[[nodiscard]] std::span<const gemm_cublas_precision> gemm_cublas_precisions();
[[nodiscard]] const gemm_cublas_precision* find_gemm_cublas_precision(std::string_view id);

/// The shape axis, quick value first: 4096³, the square sweep 1024 … 16384, 16384×4096×4096
/// (a transformer layer's 16k tokens), and small-M inference shapes M = 1, 8, 32, 128 with
/// N = K = 8192.
[[nodiscard]] std::vector<std::string> gemm_cublas_shapes();
/// The layout axis, quick value first: {"NT", "NN"} for int8 and fp8 (whose kernels want
/// cuBLAS's TN, our NT), {"NN", "NT"} for the others.
[[nodiscard]] std::vector<std::string> gemm_cublas_layouts(const gemm_cublas_precision& p);

/// Device bytes of one case: A, B, D (C aliases D: beta is 0) and the workspace.
[[nodiscard]] std::uint64_t gemm_device_bytes(const gemm_shape& s, const gemm_cublas_precision& p,
                                              std::uint64_t workspace_bytes);

/// The workspace offered to cuBLASLt (32 MiB: enough for split-K and stream-K kernels on every
/// current architecture; the heuristic's choice says how much it uses).
inline constexpr std::uint64_t gemm_cublas_workspace_bytes = std::uint64_t{32} << 20;
/// Heuristic results requested from cublasLtMatmulAlgoGetHeuristic; the first is used.
inline constexpr int gemm_cublas_heuristic_request = 8;

// --- a one-shot run for device tests ------------------------------------------------------

/// What one untimed run of the benchmark's code path gave.
struct gemm_cublas_trial {
  reports::result_status status = reports::result_status::ok; ///< ok, not_supported, skipped
  std::string reason;                                         ///< why not ok
  reports::verification check;                                ///< when ok
};

/// Sets up the GEMM exactly as gemm.cublas.<precision_id> does on the current device, runs it
/// once, synchronises and verifies. Throws for errors (as the benchmark would fail).
[[nodiscard]] gemm_cublas_trial run_gemm_cublas_trial(std::string_view precision_id,
                                                      const gemm_shape& shape, gemm_layout layout);
/// The same for the block-scaled gemm.cublas.<format_id> (gemm_blockscaled.cu; NT layout):
/// not_supported below sm_100 or where cuBLASLt has no kernel, with the reason.
[[nodiscard]] gemm_cublas_trial run_gemm_blockscaled_trial(std::string_view format_id,
                                                           const gemm_shape& shape);

} // namespace gpuspec::benches
