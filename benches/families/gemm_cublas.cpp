// gemm.cublas.{fp64, fp32, tf32_tc, fp16_tc, fp16_tc_acc16, bf16_tc, int8_tc, fp8_tc,
// fp8_e4m3_e5m2_tc, fp8_e5m2_e4m3_tc}: the vendor GEMM through cuBLASLt, with explicit compute
// types. (The block-scaled MXFP8 and FP4 GEMMs are gemm_blockscaled.cu.)
//
// What it measures: the throughput of cublasLtMatmul, D = A · op(B) (alpha 1, beta 0), in
// TFLOP/s (TOPS for int8) with 2·M·N·K operations per GEMM (docs/design.md rule 8), for the shapes
// users benchmark: a square sweep 1024³ … 16384³, a transformer layer's 16384×4096×4096, and
// small-M inference shapes (M = 1, 8, 32, 128 tokens, N = K = 8192). What bounds it: Tensor Core
// (or FP64/FP32 pipe) throughput for the large shapes, judged against the arch_rates ceiling of
// the precision; device-memory bandwidth for the small-M ones (they stream B, the weight, once
// per GEMM), so their ceiling is the memory roofline: the compute ceiling capped by bandwidth
// x flops / (A + B + D bytes), set_roofline_bytes in bench_state.cuh. Hardware: any GPU the build
// targets; TF32 and BF16 need sm_80, FP8 sm_89, and a precision the GPU or cuBLASLt lacks is "not
// supported", never "failed".
//
// Layout convention (gemm_cublas.hpp): row-major, D[M,N] = A[M,K] · op(B), M the token count;
// "NN" stores B as [K,N] (torch.matmul), "NT" as [N,K] (nn.Linear's weight, F.linear). cuBLAS is
// column-major, so the call is D^T = op(B)^T · A^T with cuBLAS m = N, n = M, k = K; "NT" is
// cuBLAS's TN, the one layout cuBLASLt's int8 and FP8 kernels take on most architectures. The
// parameters record both views, the cuBLAS leading dimensions, and the PyTorch call computing
// the same product, so a PyTorch run of the same case can be matched to this one.
//
// Design: one cuBLASLt path for every precision (api = cublasLtMatmul), with a 32 MiB workspace
// and the first of up to 8 heuristic results (cublasLtMatmulAlgoGetHeuristic); the algorithm's
// id, tile, stages, split-K, swizzle, cluster shape, workspace and wave count are parameters,
// so a user sees which kernel was timed. The heuristic finding nothing is "not supported" with
// cuBLASLt's status. Inputs are seeded random non-zero values (gemm_fill.hpp: ±[0.5, 1) with
// random mantissas, non-zero int8 in [-127, 127]): zeros run faster on some GPUs and hide errors.
// D is poisoned before the run (NaN; int32: 0x80808080, out of any reachable range).
//
// Cache: hot (back-to-back GEMMs, as a training or inference loop runs them). The large shapes
// are compute-bound and insensitive to the L2 state at the start of a sample. The small-M
// shapes read B (>= 64 MiB) once per GEMM; it exceeds the L2 of current GPUs, so each GEMM still
// streams it from device memory: the parameter b_exceeds_l2 says whether that held. A GEMM
// shorter than 2 ms is repeated within one sample (gemms_per_sample) so a sample stays well above
// the event resolution and the hold kernel's overhead.
//
// Verification (gemm_check.hpp): A, B and D are copied back after the timed runs (each run
// rewrites the same D); every entry is compared with a Dot2 host reference when M·N <= 2^20 and
// M·N·K <= 2^31, else 256 seeded entries and the four corners; and every entry of D is scanned
// for the poison. An entry passes when |d - ref| <= tol * sum_k |a_ik*b_kj|, with tol from the
// precision's error model (gemm_check.hpp: input rounding + output rounding + accumulation, the
// inputs having random signs; round-to-nearest FFMA/DFMA/DMMA accumulators are K-independent,
// truncating Tensor Core ones grow as 4*sqrt(K) ulps). At K = 8192: 3.6e-15 for fp64, 2e-6 for
// fp32, 2e-3 for tf32, 5.3e-4 for fp16, 4e-3 for bf16, 9.5e-3 for fp8 (bf16 output, 14-bit
// accumulation between promotions), 0 for int8 (int32 sums of these inputs are exact), and
// 6.3e-2 for fp16 with fp16 accumulation: the accumulator itself keeps 11 bits, so that bound
// catches unwritten or non-finite output but not every wrong value at large K.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include "../src/cublaslt_handles.cuh"

#include "gpuspec/benches/bench_state.cuh"
#include "gpuspec/benches/families.hpp"
#include "gpuspec/benches/gemm_check.hpp"
#include "gpuspec/benches/gemm_cublas.hpp"
#include "gpuspec/kernels/cublas_check.cuh"
#include "gpuspec/kernels/cuda_check.cuh"
#include "gpuspec/kernels/cuda_handles.cuh"
#include "gpuspec/kernels/fill.hpp"
#include "gpuspec/kernels/gemm_fill.hpp"
#include "gpuspec/reports/model/arch_rates.hpp"

namespace gpuspec::benches {

namespace {

constexpr std::uint64_t seed_a = 0x67656d6d41000001ull;
constexpr std::uint64_t seed_b = 0x67656d6d42000002ull;

/// Device memory left free beside the operands (context, cuBLASLt's own allocations).
constexpr std::uint64_t reserve_bytes = std::uint64_t{512} << 20;
/// A shape whose one GEMM would take longer than this at the GPU's clock-adjusted peak is
/// skipped (a sample is one GEMM, and the stopping rule wants at least 10 of them plus warm-up).
constexpr double max_gemm_seconds = 1.0;
constexpr double max_gemm_seconds_quick = 0.1;
/// A sample lasts at least about this long (shorter GEMMs are repeated within it).
constexpr double target_sample_seconds = 2e-3;
/// At most this many GEMMs per sample: all are enqueued while the hold kernel blocks the stream,
/// and with a split-K reduction kernel each they stay well inside the launch queue's depth.
// At most this many GEMMs queue behind the hold kernel in one sample: with split-K reductions
// a GEMM can be 2-3 launches, and a stream's launch queue holds about a thousand before the host
// blocks (public forum reports, not measured here).
constexpr int max_gemms_per_sample = 100;
/// Poison byte of int32 outputs: 0x80808080 = -2139062144, beyond any int8 GEMM's reach here.
constexpr int int32_poison_byte = 0x80;

/// Concatenates its arguments as an ostream prints them (fmt does not compile under nvcc's host
/// pass with this fmt version; this file needs no more than this).
template <class... Args> std::string cat(const Args&... args) {
  std::ostringstream out;
  (out << ... << args);
  return out.str();
}

/// "%.3g" of `v`.
std::string g3(double v) {
  std::array<char, 32> text{};
  std::snprintf(text.data(), text.size(), "%.3g", v);
  return text.data();
}

std::string mib_text(std::uint64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

cudaDataType_t cuda_type(gemm_element e) {
  switch (e) {
  case gemm_element::fp64:
    return CUDA_R_64F;
  case gemm_element::fp32:
    return CUDA_R_32F;
  case gemm_element::fp16:
    return CUDA_R_16F;
  case gemm_element::bf16:
    return CUDA_R_16BF;
  case gemm_element::fp8_e4m3:
    return CUDA_R_8F_E4M3;
  case gemm_element::fp8_e5m2:
    return CUDA_R_8F_E5M2;
  case gemm_element::int8:
    return CUDA_R_8I;
  case gemm_element::int32:
    return CUDA_R_32I;
  }
  throw std::invalid_argument("gemm.cublas: unknown element type");
}

std::string_view cuda_type_name(gemm_element e) {
  switch (e) {
  case gemm_element::fp64:
    return "CUDA_R_64F";
  case gemm_element::fp32:
    return "CUDA_R_32F";
  case gemm_element::fp16:
    return "CUDA_R_16F";
  case gemm_element::bf16:
    return "CUDA_R_16BF";
  case gemm_element::fp8_e4m3:
    return "CUDA_R_8F_E4M3";
  case gemm_element::fp8_e5m2:
    return "CUDA_R_8F_E5M2";
  case gemm_element::int8:
    return "CUDA_R_8I";
  case gemm_element::int32:
    return "CUDA_R_32I";
  }
  return "unknown";
}

cublasComputeType_t cublas_compute(gemm_compute c) {
  switch (c) {
  case gemm_compute::f64:
    return CUBLAS_COMPUTE_64F;
  case gemm_compute::f32:
    return CUBLAS_COMPUTE_32F;
  case gemm_compute::f32_fast_tf32:
    return CUBLAS_COMPUTE_32F_FAST_TF32;
  case gemm_compute::f16:
    return CUBLAS_COMPUTE_16F;
  case gemm_compute::i32:
    return CUBLAS_COMPUTE_32I;
  }
  throw std::invalid_argument("gemm.cublas: unknown compute type");
}

kernels::gemm_fill_type fill_type(gemm_element e) {
  switch (e) {
  case gemm_element::fp64:
    return kernels::gemm_fill_type::fp64;
  case gemm_element::fp32:
    return kernels::gemm_fill_type::fp32;
  case gemm_element::fp16:
    return kernels::gemm_fill_type::fp16;
  case gemm_element::bf16:
    return kernels::gemm_fill_type::bf16;
  case gemm_element::fp8_e4m3:
    return kernels::gemm_fill_type::fp8_e4m3;
  case gemm_element::fp8_e5m2:
    return kernels::gemm_fill_type::fp8_e5m2;
  case gemm_element::int8:
    return kernels::gemm_fill_type::int8;
  case gemm_element::int32:
    break;
  }
  throw std::invalid_argument(cat("gemm.cublas: no seeded fill for ", element_name(e), " inputs"));
}

/// alpha = 1 and beta = 0 in the scale type's representation.
struct unit_scalars {
  alignas(8) std::array<unsigned char, 8> alpha{};
  alignas(8) std::array<unsigned char, 8> beta{};
};

unit_scalars make_unit_scalars(gemm_element scale) {
  unit_scalars s; // beta: all-zero bits are 0 in every scale type
  auto put = [&s](const auto& v) { std::memcpy(s.alpha.data(), &v, sizeof v); };
  switch (scale) {
  case gemm_element::fp64:
    put(1.0);
    break;
  case gemm_element::fp32:
    put(1.0f);
    break;
  case gemm_element::fp16:
    put(float_to_half_bits(1.0f));
    break;
  case gemm_element::int32:
    put(std::int32_t{1});
    break;
  default:
    throw std::invalid_argument(cat("gemm.cublas: unsupported scale type ", element_name(scale)));
  }
  return s;
}

int device_sm_version(int device) {
  int major = 0, minor = 0;
  GPUSPEC_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  GPUSPEC_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  return major * 10 + minor;
}

template <class T>
std::optional<T> algo_attribute(const cublasLtMatmulAlgo_t& algo,
                                cublasLtMatmulAlgoConfigAttributes_t attribute) {
  T value{};
  std::size_t written = 0;
  if (cublasLtMatmulAlgoConfigGetAttribute(&algo, attribute, &value, sizeof value, &written) !=
          CUBLAS_STATUS_SUCCESS ||
      written != sizeof value)
    return std::nullopt;
  return value;
}

using parameter_list = std::vector<std::pair<std::string, nlohmann::ordered_json>>;

/// One planned cuBLASLt GEMM: descriptors and the heuristic's algorithm first (no device
/// memory), then buffers on demand. Shared by the benchmark and run_gemm_cublas_trial.
class lt_gemm {
public:
  lt_gemm(const gemm_cublas_precision& p, const gemm_shape& shape, gemm_layout layout, int sm)
      : m_p(p), m_shape(shape), m_layout(layout), m_call(cublas_call_for(shape, layout)),
        m_scalars(make_unit_scalars(p.scale)) {
    if (p.min_sm > 0 && sm < p.min_sm) {
      m_unsupported =
          cat("gemm.cublas.", p.id, " needs compute capability ", p.min_sm / 10, ".", p.min_sm % 10,
              " or newer (", p.description, "); this GPU is ", sm / 10, ".", sm % 10);
      return;
    }
    if (p.numerics == gemm_precision::int8 &&
        !int8_sum_fits(shape.k, kernels::gemm_fill_int8_max, kernels::gemm_fill_int8_max))
      throw std::invalid_argument(
          cat("gemm.cublas.", p.id, ": K = ", shape.k, " could overflow the int32 accumulator"));
    plan();
  }

  [[nodiscard]] const std::string& unsupported() const { return m_unsupported; }
  [[nodiscard]] const parameter_list& parameters() const { return m_parameters; }

  /// Allocates A, B, D and the workspace; fills A and B, poisons D; synchronises.
  void allocate(kernels::stream_ref stream) {
    const auto m = static_cast<std::size_t>(m_shape.m);
    const auto n = static_cast<std::size_t>(m_shape.n);
    const auto k = static_cast<std::size_t>(m_shape.k);
    m_a = kernels::device_buffer<std::byte>(m * k * element_bytes(a_element(m_p)));
    m_b = kernels::device_buffer<std::byte>(k * n * element_bytes(b_element(m_p)));
    m_d = kernels::device_buffer<std::byte>(m * n * element_bytes(m_p.cd));
    m_workspace = kernels::device_buffer<std::byte>(gemm_cublas_workspace_bytes);
    kernels::launch_gemm_fill(m_a.data(), fill_type(a_element(m_p)), m * k, seed_a,
                              stream.handle());
    kernels::launch_gemm_fill(m_b.data(), fill_type(b_element(m_p)), k * n, seed_b,
                              stream.handle());
    if (is_integer(m_p.cd))
      GPUSPEC_CUDA_CHECK(cudaMemsetAsync(m_d.data(), int32_poison_byte, m_d.bytes(), stream.get()));
    else
      kernels::poison_with_nan(m_d.data(), m_d.bytes(), stream.handle());
    stream.synchronize();
  }

  /// Enqueues one GEMM on `stream`.
  void enqueue(kernels::stream_ref stream) const {
    // cuBLAS's A is our B and its B our A (gemm_cublas.hpp).
    GPUSPEC_CUBLAS_CHECK(cublasLtMatmul(m_handle.get(), m_desc->get(), m_scalars.alpha.data(),
                                        m_b.data(), m_layout_a->get(), m_a.data(),
                                        m_layout_b->get(), m_scalars.beta.data(), m_d.data(),
                                        m_layout_c->get(), m_d.data(), m_layout_c->get(), &m_algo,
                                        m_workspace.data(), m_workspace.bytes(), stream.get()));
  }

  /// Copies A, B and D back and checks D (gemm_check.hpp).
  [[nodiscard]] reports::verification verify(kernels::stream_ref stream) const {
    auto copy_back = [&](const kernels::device_buffer<std::byte>& buffer) {
      auto host = std::make_unique_for_overwrite<std::byte[]>(buffer.bytes());
      GPUSPEC_CUDA_CHECK(cudaMemcpyAsync(host.get(), buffer.data(), buffer.bytes(),
                                         cudaMemcpyDeviceToHost, stream.get()));
      return host;
    };
    const auto a = copy_back(m_a);
    const auto b = copy_back(m_b);
    const auto d = copy_back(m_d);
    stream.synchronize();
    gemm_views views = gemm_host_views(m_shape, m_layout, a_element(m_p), b_element(m_p), m_p.cd);
    views.a.data = a.get();
    views.b.data = b.get();
    views.d.data = d.get();
    gemm_check_options options;
    options.tolerance = gemm_tolerance(m_p.numerics, m_shape.k, gemm_input_signs::mixed);
    if (is_integer(m_p.cd))
      options.max_abs = static_cast<double>(m_shape.k) * kernels::gemm_fill_int8_max *
                        kernels::gemm_fill_int8_max;
    const std::string what = cat("cublasLtMatmul ", m_p.id, " D (", element_name(m_p.cd),
                                 ") against a Dot2 host reference from A and B copied back "
                                 "(seeded, non-zero)");
    return gemm_sample_check(views.a, views.b, views.d, options, what);
  }

private:
  void plan() {
    m_desc.emplace(cublas_compute(m_p.compute), cuda_type(m_p.scale));
    const cublasOperation_t transa = m_call.transa == 'T' ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasOperation_t transb = m_call.transb == 'T' ? CUBLAS_OP_T : CUBLAS_OP_N;
    m_desc->set(CUBLASLT_MATMUL_DESC_TRANSA, transa);
    m_desc->set(CUBLASLT_MATMUL_DESC_TRANSB, transb);
    if (m_p.numerics == gemm_precision::fp8)
      m_desc->set(CUBLASLT_MATMUL_DESC_FAST_ACCUM, std::int8_t{0}); // periodic fp32 promotion
    const auto u = [](std::int64_t v) { return static_cast<std::uint64_t>(v); };
    // cuBLAS's A is our B, its B our A.
    m_layout_a.emplace(cuda_type(b_element(m_p)), u(m_call.a_rows), u(m_call.a_cols), m_call.lda);
    m_layout_b.emplace(cuda_type(a_element(m_p)), u(m_call.b_rows), u(m_call.b_cols), m_call.ldb);
    m_layout_c.emplace(cuda_type(m_p.cd), u(m_call.m), u(m_call.n), m_call.ldc);
    lt_preference preference;
    preference.set(CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, gemm_cublas_workspace_bytes);

    std::array<cublasLtMatmulHeuristicResult_t, gemm_cublas_heuristic_request> results{};
    int returned = 0;
    const cublasStatus_t status = cublasLtMatmulAlgoGetHeuristic(
        m_handle.get(), m_desc->get(), m_layout_a->get(), m_layout_b->get(), m_layout_c->get(),
        m_layout_c->get(), preference.get(), gemm_cublas_heuristic_request, results.data(),
        &returned);
    const int usable = std::clamp(returned, 0, static_cast<int>(results.size()));
    const cublasLtMatmulHeuristicResult_t* chosen = nullptr;
    if (status == CUBLAS_STATUS_SUCCESS)
      for (int i = 0; i < usable && chosen == nullptr; ++i)
        if (results[static_cast<std::size_t>(i)].state == CUBLAS_STATUS_SUCCESS)
          chosen = &results[static_cast<std::size_t>(i)];
    const bool found = chosen != nullptr;
    if (!found) {
      // No kernel for this combination: a precision or layout cuBLASLt does not offer on this
      // GPU (e.g. FP8 or int8 outside the TN layout). INVALID_VALUE is a bug of ours, except
      // for those restricted layouts, where some cuBLASLt versions report it instead.
      const bool restricted =
          m_p.numerics == gemm_precision::fp8 || m_p.numerics == gemm_precision::int8;
      if (status != CUBLAS_STATUS_SUCCESS && status != CUBLAS_STATUS_NOT_SUPPORTED &&
          !(restricted && status == CUBLAS_STATUS_INVALID_VALUE))
        kernels::throw_cublas_error(status, "cublasLtMatmulAlgoGetHeuristic", __FILE__, __LINE__);
      m_unsupported =
          cat("cuBLASLt has no algorithm for ", m_p.id, " with ", cuda_type_name(a_element(m_p)),
              " A, ", cuda_type_name(b_element(m_p)), " B, ", cuda_type_name(m_p.cd), " C/D, ",
              gemm_compute_name(m_p.compute), " (cuBLAS transa=", m_call.transa,
              ", transb=", m_call.transb, ", m=", m_call.m, ", n=", m_call.n, ", k=", m_call.k,
              "): cublasLtMatmulAlgoGetHeuristic returned ", returned, " result(s), status ",
              kernels::describe_cublas_status(status));
      return;
    }
    m_algo = chosen->algo;
    record_parameters(*chosen, returned);
  }

  void record_parameters(const cublasLtMatmulHeuristicResult_t& chosen, int returned) {
    auto add = [this](std::string key, nlohmann::ordered_json value) {
      m_parameters.emplace_back(std::move(key), std::move(value));
    };
    add("m", m_shape.m);
    add("n", m_shape.n);
    add("k", m_shape.k);
    add("layout_convention",
        "row-major D[M,N] = A[M,K] * op(B); NN: B stored [K,N]; NT: B stored [N,K] (nn.Linear "
        "weight); M = tokens");
    add("a_type", cuda_type_name(a_element(m_p)));
    add("b_type", cuda_type_name(b_element(m_p)));
    add("c_type", cuda_type_name(m_p.cd));
    add("d_type", cuda_type_name(m_p.cd));
    add("compute_type", gemm_compute_name(m_p.compute));
    add("scale_type", cuda_type_name(m_p.scale));
    add("alpha", 1);
    add("beta", 0);
    if (m_p.numerics == gemm_precision::fp8) {
      add("fast_accum", false);
      add("scales", "none set (A, B, D scale factors 1)");
    }
    add("api", "cublasLtMatmul");
    add("cublaslt_version", static_cast<std::uint64_t>(cublasLtGetVersion()));
    add("cublas_transa", std::string(1, m_call.transa));
    add("cublas_transb", std::string(1, m_call.transb));
    add("cublas_layout", std::string{m_call.transa, m_call.transb});
    add("cublas_m", m_call.m);
    add("cublas_n", m_call.n);
    add("cublas_k", m_call.k);
    add("lda", m_call.lda);
    add("ldb", m_call.ldb);
    add("ldc", m_call.ldc);
    add("torch_equivalent", torch_equivalent(m_shape, m_layout));
    add("torch_dtype", m_p.torch);
    add("workspace_bytes", gemm_cublas_workspace_bytes);
    add("heuristic_requested", gemm_cublas_heuristic_request);
    add("heuristic_results", returned);
    add("heuristic_choice", "the first result whose state is CUBLAS_STATUS_SUCCESS");
    add("algo_workspace_bytes", static_cast<std::uint64_t>(chosen.workspaceSize));
    add("algo_waves_count", static_cast<double>(chosen.wavesCount));
    const cublasLtMatmulAlgo_t& algo = chosen.algo;
    auto add_attr = [&](const char* key, auto value) {
      if (value)
        add(key, *value);
    };
    add_attr("algo_id", algo_attribute<std::int32_t>(algo, CUBLASLT_ALGO_CONFIG_ID));
    add_attr("algo_tile_id", algo_attribute<std::uint32_t>(algo, CUBLASLT_ALGO_CONFIG_TILE_ID));
    add_attr("algo_stages_id", algo_attribute<std::uint32_t>(algo, CUBLASLT_ALGO_CONFIG_STAGES_ID));
    add_attr("algo_splitk_num",
             algo_attribute<std::int32_t>(algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM));
    add_attr("algo_reduction_scheme",
             algo_attribute<std::uint32_t>(algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME));
    add_attr("algo_cta_swizzling",
             algo_attribute<std::uint32_t>(algo, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING));
    add_attr("algo_custom_option",
             algo_attribute<std::uint32_t>(algo, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION));
    add_attr("algo_inner_shape_id",
             algo_attribute<std::uint16_t>(algo, CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID));
    add_attr("algo_cluster_shape_id",
             algo_attribute<std::uint16_t>(algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID));
    add("algo_ids_meaning", "tile/stages/inner/cluster ids are cublasLtMatmulTile_t, "
                            "cublasLtMatmulStages_t, cublasLtMatmulInnerShape_t and "
                            "cublasLtClusterShape_t values of the cuBLASLt headers");
    add("inputs", "seeded: +-[0.5, 1) with random mantissa bits (floating point), non-zero "
                  "integers in [-127, 127] (int8)");
  }

  const gemm_cublas_precision& m_p;
  gemm_shape m_shape;
  gemm_layout m_layout;
  cublas_gemm_call m_call;
  unit_scalars m_scalars;
  std::string m_unsupported;
  parameter_list m_parameters;

  lt_handle m_handle;
  std::optional<lt_matmul_desc> m_desc;
  std::optional<lt_matrix_layout> m_layout_a, m_layout_b, m_layout_c;
  cublasLtMatmulAlgo_t m_algo{};

  kernels::device_buffer<std::byte> m_a, m_b, m_d, m_workspace;
};

/// The ceiling key and a note: DGEMM runs on FP64 Tensor Cores where the architecture has them.
std::pair<std::string, std::string> ceiling_of(const gemm_cublas_precision& p, int sm) {
  if (p.numerics == gemm_precision::fp64 &&
      reports::rate_per_sm_per_clock(sm / 10, sm % 10, "fp64_tc"))
    return {"fp64_tc", "this architecture has FP64 Tensor Cores (DMMA), which cuBLAS DGEMM uses: "
                       "judged against the fp64_tc peak"};
  return {std::string(p.ceiling), {}};
}

gemm_shape shape_of(const bench_state& state) {
  const std::string& text = state.axis("shape");
  const auto shape = parse_gemm_shape(text);
  if (!shape)
    throw std::invalid_argument("gemm.cublas: bad shape '" + text + "' (want MxNxK)");
  return *shape;
}

gemm_layout layout_of(const bench_state& state) {
  const std::string& text = state.axis("layout");
  const auto layout = parse_gemm_layout(text);
  if (!layout)
    throw std::invalid_argument("gemm.cublas: bad layout '" + text + "' (want NN or NT)");
  return *layout;
}

/// Whether the GEMM fits in device memory and one of it in the suite's per-GEMM budget at the
/// GPU's `ceiling_key` peak; skips the case, saying why, when not.
bool fits_and_in_budget(bench_state& state, const gemm_cublas_precision& p, const gemm_shape& shape,
                        int sm, double ops, const std::string& ceiling_key) {
  const std::uint64_t needed = gemm_device_bytes(shape, p, gemm_cublas_workspace_bytes);
  std::size_t free_bytes = 0, total_bytes = 0;
  GPUSPEC_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  state.add_parameter("device_bytes", needed);
  if (needed + reserve_bytes > free_bytes) {
    state.skip(cat(gemm_shape_text(shape), " needs ", mib_text(needed),
                   " of device memory (A, B, D, workspace); ", mib_text(free_bytes), " free, ",
                   mib_text(reserve_bytes), " kept in reserve"));
    return false;
  }
  const int sm_count = state.device().sm_count.value_or(0);
  const int clock_mhz = state.device().sm_clock_max_mhz.value_or(0);
  const auto peak_tops = reports::clock_adjusted_peak(sm / 10, sm % 10, sm_count,
                                                      static_cast<double>(clock_mhz), ceiling_key);
  const bool quick = state.options().suite == "quick";
  const double budget = quick ? max_gemm_seconds_quick : max_gemm_seconds;
  if (peak_tops && *peak_tops > 0.0) {
    const double estimate = ops / (*peak_tops * 1e12);
    state.add_parameter("estimated_seconds_at_peak", estimate);
    if (estimate > budget) {
      state.skip(cat("one ", gemm_shape_text(shape), " GEMM would take at least ", g3(estimate),
                     " s at this GPU's ", ceiling_key, " peak (", g3(*peak_tops),
                     " T/s): above the ", g3(budget), " s per-GEMM budget of the ",
                     state.options().suite, " suite"));
      return false;
    }
  }
  return true;
}

/// Allocates and initialises the buffers, times one GEMM (after a first, untimed call: module
/// loading and cuBLASLt's setup) and returns how many GEMMs make one sample.
int gemms_per_sample(bench_state& state, lt_gemm& gemm, const gemm_cublas_precision& p,
                     const gemm_shape& shape, double ops) {
  const kernels::stream_ref stream = state.stream();
  gemm.allocate(stream);
  gemm.enqueue(stream);
  stream.synchronize();
  const double one_gemm_seconds =
      state.setup_seconds([&](kernels::stream_ref q) { gemm.enqueue(q); });
  const int reps =
      one_gemm_seconds > 0.0
          ? static_cast<int>(std::clamp(std::ceil(target_sample_seconds / one_gemm_seconds), 1.0,
                                        static_cast<double>(max_gemms_per_sample)))
          : max_gemms_per_sample;
  state.add_parameter("gemms_per_sample", reps);
  state.add_parameter("ops_per_gemm", ops); // 2*M*N*K; the work of one sample is reps times it

  const std::uint64_t b_bytes = static_cast<std::uint64_t>(shape.k) *
                                static_cast<std::uint64_t>(shape.n) * element_bytes(b_element(p));
  const std::int64_t l2 = state.l2_bytes();
  state.add_parameter("b_bytes", b_bytes);
  state.add_parameter("l2_bytes", l2);
  state.add_parameter("b_exceeds_l2", l2 > 0 && b_bytes > static_cast<std::uint64_t>(l2));
  return reps;
}

/// The work of one sample (`reps` GEMMs) and the ceiling it is judged against.
void declare_work(bench_state& state, const gemm_cublas_precision& p, const gemm_shape& shape,
                  double ops, int reps, const std::string& ceiling_key,
                  const std::string& ceiling_note) {
  if (p.integer_ops)
    state.set_integer_ops_per_iteration(ops * reps);
  else
    state.set_flops_per_iteration(ops * reps);
  state.set_cache_mode(cache_mode::hot);
  state.add_parameter("cache_note", "hot: back-to-back GEMMs on the same operands (see the "
                                    "family's header: compute-bound shapes do not depend on the "
                                    "L2 state; small-M shapes stream B when b_exceeds_l2)");
  state.set_compute_ceiling(ceiling_key, p.fp32_accumulate);
  // The least traffic of one GEMM (beta is 0: A and B read once, D written once), so a
  // small-M shape is judged against the memory roofline rather than the Tensor Core peak.
  const double min_bytes_per_gemm =
      static_cast<double>(shape.m) * static_cast<double>(shape.k) * element_bytes(a_element(p)) +
      static_cast<double>(shape.k) * static_cast<double>(shape.n) * element_bytes(b_element(p)) +
      static_cast<double>(shape.m) * static_cast<double>(shape.n) * element_bytes(p.cd);
  state.set_roofline_bytes(min_bytes_per_gemm * reps);
  state.add_parameter("ceiling_key", ceiling_key);
  if (!ceiling_note.empty())
    state.add_parameter("ceiling_note", ceiling_note);
}

void run_gemm(bench_state& state, const gemm_cublas_precision& p) {
  const gemm_shape shape = shape_of(state);
  const gemm_layout layout = layout_of(state);
  const int sm = device_sm_version(state.cuda_device());
  const double ops = 2.0 * static_cast<double>(shape.m) * static_cast<double>(shape.n) *
                     static_cast<double>(shape.k);

  lt_gemm gemm(p, shape, layout, sm);
  if (!gemm.unsupported().empty()) {
    state.not_supported(gemm.unsupported());
    return;
  }
  for (const auto& [key, value] : gemm.parameters())
    state.add_parameter(key, value);

  const auto [ceiling_key, ceiling_note] = ceiling_of(p, sm);
  if (!fits_and_in_budget(state, p, shape, sm, ops, ceiling_key))
    return;
  const int reps = gemms_per_sample(state, gemm, p, shape, ops);
  declare_work(state, p, shape, ops, reps, ceiling_key, ceiling_note);
  state.exec([&](kernels::stream_ref s) {
    for (int r = 0; r < reps; ++r)
      gemm.enqueue(s);
  });
  state.set_verification(gemm.verify(state.stream()));
}

} // namespace

gemm_cublas_trial run_gemm_cublas_trial(std::string_view precision_id, const gemm_shape& shape,
                                        gemm_layout layout) {
  const gemm_cublas_precision* p = find_gemm_cublas_precision(precision_id);
  if (p == nullptr)
    throw std::invalid_argument("run_gemm_cublas_trial: unknown precision '" +
                                std::string(precision_id) + "'");
  int device = 0;
  GPUSPEC_CUDA_CHECK(cudaGetDevice(&device));
  gemm_cublas_trial trial;
  lt_gemm gemm(*p, shape, layout, device_sm_version(device));
  if (!gemm.unsupported().empty()) {
    trial.status = reports::result_status::not_supported;
    trial.reason = gemm.unsupported();
    return trial;
  }
  std::size_t free_bytes = 0, total_bytes = 0;
  GPUSPEC_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (gemm_device_bytes(shape, *p, gemm_cublas_workspace_bytes) + reserve_bytes > free_bytes) {
    trial.status = reports::result_status::skipped;
    trial.reason = "not enough free device memory";
    return trial;
  }
  kernels::stream stream;
  gemm.allocate(stream.ref());
  gemm.enqueue(stream.ref());
  stream.synchronize();
  trial.check = gemm.verify(stream.ref());
  return trial;
}

void register_gemm_cublas_benchmarks(registry& r) {
  // The precision table is data (gemm_cublas_table.cpp): one benchmark per row, in its order.
  for (const gemm_cublas_precision& p : gemm_cublas_precisions()) {
    std::vector<std::string> suites{"standard", "full"};
    if (p.in_quick)
      suites.insert(suites.begin(), "quick");
    r.add("gemm.cublas." + std::string(p.id), std::string(p.description),
          [&p](bench_state& state) { run_gemm(state, p); }) // p: a row of a static table
        .in_suites(suites)
        .with_axis("shape", gemm_cublas_shapes())
        .with_axis("layout", gemm_cublas_layouts(p))
        // Up to 2^20 outputs are checked against a compensated double reference on the host
        // (gemm_check.cpp): seconds of CPU time per case on top of the device's.
        .with_setup_allowance(120.0);
  }
}

} // namespace gpuspec::benches
