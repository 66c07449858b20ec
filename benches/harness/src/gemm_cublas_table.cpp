// Host-side data of gemm.cublas.* (gemm_cublas.hpp): the precision table, the shape and layout
// axes, and the mapping of the row-major product onto cuBLAS's column-major call. Kept out of
// the family's .cu so host tests check it without a GPU.

#include <array>
#include <charconv>
#include <limits>

#include <fmt/format.h>

#include "gpuspec/benches/gemm_cublas.hpp"

namespace gpuspec::benches {

// --- shapes and layouts -------------------------------------------------------------------

std::optional<gemm_shape> parse_gemm_shape(std::string_view text) {
  std::array<std::int64_t, 3> dims{};
  std::size_t pos = 0;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (i > 0) {
      if (pos >= text.size() || text[pos] != 'x')
        return std::nullopt;
      ++pos;
    }
    const char* begin = text.data() + pos;
    const char* end = text.data() + text.size();
    if (begin == end || *begin < '0' || *begin > '9') // no sign, no space
      return std::nullopt;
    std::int64_t v = 0;
    const auto [ptr, ec] = std::from_chars(begin, end, v);
    if (ec != std::errc{} || v < 1 || v > std::numeric_limits<std::int32_t>::max())
      return std::nullopt;
    dims[i] = v;
    pos = static_cast<std::size_t>(ptr - text.data());
  }
  if (pos != text.size())
    return std::nullopt;
  return gemm_shape{dims[0], dims[1], dims[2]};
}

std::string gemm_shape_text(const gemm_shape& s) { return fmt::format("{}x{}x{}", s.m, s.n, s.k); }

std::optional<gemm_layout> parse_gemm_layout(std::string_view text) {
  if (text == "NN")
    return gemm_layout::nn;
  if (text == "NT")
    return gemm_layout::nt;
  return std::nullopt;
}

std::string_view gemm_layout_name(gemm_layout l) { return l == gemm_layout::nn ? "NN" : "NT"; }

cublas_gemm_call cublas_call_for(const gemm_shape& s, gemm_layout l) {
  cublas_gemm_call c;
  c.m = s.n; // column-major D^T: N × M
  c.n = s.m;
  c.k = s.k;
  c.ldc = s.n;
  // cuBLAS's A is our B.
  if (l == gemm_layout::nn) { // B row-major [K, N] = column-major N × K
    c.transa = 'N';
    c.a_rows = s.n;
    c.a_cols = s.k;
    c.lda = s.n;
  } else { // B row-major [N, K] = column-major K × N, transposed by cuBLAS
    c.transa = 'T';
    c.a_rows = s.k;
    c.a_cols = s.n;
    c.lda = s.k;
  }
  // cuBLAS's B is our A: row-major [M, K] = column-major K × M.
  c.transb = 'N';
  c.b_rows = s.k;
  c.b_cols = s.m;
  c.ldb = s.k;
  return c;
}

std::string torch_equivalent(const gemm_shape& s, gemm_layout l) {
  if (l == gemm_layout::nn)
    return fmt::format("torch.matmul(a, b) with a: [{}, {}], b: [{}, {}] (contiguous)", s.m, s.k,
                       s.k, s.n);
  return fmt::format(
      "torch.nn.functional.linear(a, b) = a @ b.T with a: [{}, {}], b: [{}, {}] (contiguous)", s.m,
      s.k, s.n, s.k);
}

gemm_views gemm_host_views(const gemm_shape& s, gemm_layout l, gemm_element ab, gemm_element cd) {
  return gemm_host_views(s, l, ab, ab, cd);
}

gemm_views gemm_host_views(const gemm_shape& s, gemm_layout l, gemm_element a, gemm_element b,
                           gemm_element cd) {
  gemm_views v;
  v.a = {nullptr, a, s.m, s.k, s.k, storage_order::row_major};
  if (l == gemm_layout::nn)
    v.b = {nullptr, b, s.k, s.n, s.n, storage_order::row_major};
  else // stored [N, K] row-major: op(B) = K × N is its column-major reading
    v.b = {nullptr, b, s.k, s.n, s.k, storage_order::col_major};
  v.d = {nullptr, cd, s.m, s.n, s.n, storage_order::row_major};
  return v;
}

// --- the precision table ------------------------------------------------------------------

std::string_view gemm_compute_name(gemm_compute c) {
  switch (c) {
  case gemm_compute::f64:
    return "CUBLAS_COMPUTE_64F";
  case gemm_compute::f32:
    return "CUBLAS_COMPUTE_32F";
  case gemm_compute::f32_fast_tf32:
    return "CUBLAS_COMPUTE_32F_FAST_TF32";
  case gemm_compute::f16:
    return "CUBLAS_COMPUTE_16F";
  case gemm_compute::i32:
    return "CUBLAS_COMPUTE_32I";
  }
  return "unknown";
}

namespace {

using E = gemm_element;
using C = gemm_compute;
using P = gemm_precision;

// id, A/B, C/D, compute, scale, ceiling, fp32_accumulate, min_sm, numerics, integer, quick,
// description, torch
const std::array<gemm_cublas_precision, 10> precision_table{{
    {"fp64", E::fp64, E::fp64, C::f64, E::fp64, "fp64", true, 0, P::fp64, false, true,
     "DGEMM: fp64 in and out, fp64 compute (FP64 Tensor Cores where the GPU has them)",
     "torch.float64"},
    {"fp32", E::fp32, E::fp32, C::f32, E::fp32, "fp32", true, 0, P::fp32, false, true,
     "SGEMM: fp32 in and out, CUBLAS_COMPUTE_32F (no TF32)",
     "torch.float32 with torch.backends.cuda.matmul.allow_tf32 = False"},
    {"tf32_tc", E::fp32, E::fp32, C::f32_fast_tf32, E::fp32, "tf32_tc", true, 80, P::tf32, false,
     true, "fp32 in and out, CUBLAS_COMPUTE_32F_FAST_TF32: TF32 Tensor Cores, fp32 accumulate",
     "torch.float32 with torch.backends.cuda.matmul.allow_tf32 = True"},
    {"fp16_tc", E::fp16, E::fp16, C::f32, E::fp32, "fp16_tc", true, 70, P::fp16, false, true,
     "HGEMM: fp16 in and out, fp32 accumulate on Tensor Cores",
     "torch.float16 (fp32 accumulation, the default)"},
    {"fp16_tc_acc16", E::fp16, E::fp16, C::f16, E::fp16, "fp16_tc", false, 70, P::fp16_acc16, false,
     false, "HGEMM: fp16 in and out, CUBLAS_COMPUTE_16F (fp16 accumulate) on Tensor Cores",
     "torch.float16 with fp16 accumulation (torch.backends.cuda.matmul.allow_fp16_accumulation = "
     "True where the PyTorch version has it)"},
    {"bf16_tc", E::bf16, E::bf16, C::f32, E::fp32, "bf16_tc", true, 80, P::bf16, false, true,
     "bf16 in and out, fp32 accumulate on Tensor Cores", "torch.bfloat16"},
    {"int8_tc", E::int8, E::int32, C::i32, E::int32, "int8_tc", true, 75, P::int8, true, true,
     "IGEMM: int8 in, int32 accumulate and out on Tensor Cores (TOPS)",
     "torch._int_mm(a, b) (int8 in, int32 out)"},
    {"fp8_tc", E::fp8_e4m3, E::bf16, C::f32, E::fp32, "fp8_tc", true, 89, P::fp8, false, false,
     "FP8 GEMM: e4m3 in, fp32 accumulate, bf16 out, unit scales",
     "torch._scaled_mm(a, b.t(), scale_a=1, scale_b=1, out_dtype=torch.bfloat16) with "
     "torch.float8_e4m3fn"},
    // The mixed FP8 pairs cuBLASLt offers (the cuBLAS documentation's cublasLtMatmul type
    // table: E4M3 x E4M3, E4M3 x E5M2 and E5M2 x E4M3; E5M2 x E5M2 is not one). Our A is
    // cuBLAS's B and our B its A (gemm_cublas.hpp), so "e5m2_e4m3" is cuBLAS's A E4M3, B E5M2.
    {"fp8_e4m3_e5m2_tc", E::fp8_e4m3, E::bf16, C::f32, E::fp32, "fp8_tc", true, 89, P::fp8, false,
     false, "FP8 GEMM: A e4m3, B e5m2, fp32 accumulate, bf16 out, unit scales",
     "torch._scaled_mm(a, b.t(), scale_a=1, scale_b=1, out_dtype=torch.bfloat16) with a "
     "torch.float8_e4m3fn, b torch.float8_e5m2",
     E::fp8_e5m2},
    {"fp8_e5m2_e4m3_tc", E::fp8_e5m2, E::bf16, C::f32, E::fp32, "fp8_tc", true, 89, P::fp8, false,
     false, "FP8 GEMM: A e5m2, B e4m3, fp32 accumulate, bf16 out, unit scales",
     "torch._scaled_mm(a, b.t(), scale_a=1, scale_b=1, out_dtype=torch.bfloat16) with a "
     "torch.float8_e5m2, b torch.float8_e4m3fn",
     E::fp8_e4m3},
}};

} // namespace

std::span<const gemm_cublas_precision> gemm_cublas_precisions() { return precision_table; }

const gemm_cublas_precision* find_gemm_cublas_precision(std::string_view id) {
  for (const auto& p : precision_table)
    if (p.id == id)
      return &p;
  return nullptr;
}

std::vector<std::string> gemm_cublas_shapes() {
  return {"4096x4096x4096",    "1024x1024x1024",  "2048x2048x2048", "8192x8192x8192",
          "16384x16384x16384", "16384x4096x4096", "1x8192x8192",    "8x8192x8192",
          "32x8192x8192",      "128x8192x8192"};
}

std::vector<std::string> gemm_cublas_layouts(const gemm_cublas_precision& p) {
  if (p.numerics == gemm_precision::int8 || p.numerics == gemm_precision::fp8)
    return {"NT", "NN"};
  return {"NN", "NT"};
}

std::uint64_t gemm_device_bytes(const gemm_shape& s, const gemm_cublas_precision& p,
                                std::uint64_t workspace_bytes) {
  const auto m = static_cast<std::uint64_t>(s.m);
  const auto n = static_cast<std::uint64_t>(s.n);
  const auto k = static_cast<std::uint64_t>(s.k);
  return m * k * element_bytes(a_element(p)) + k * n * element_bytes(b_element(p)) +
         m * n * element_bytes(p.cd) + workspace_bytes;
}

} // namespace gpuspec::benches
