// gemm.cublas.{mxfp8_e4m3, mxfp8_e5m2, nvfp4, mxfp4}: block-scaled GEMMs through cuBLASLt on
// Blackwell, beside gemm.cublas.fp8_tc (gemm_cublas.cu), with the formats as data
// (block_scaled.hpp).
//
// What it measures: the throughput of cublasLtMatmul with block-scaled inputs, D = alpha · A ·
// B^T (beta 0), in TFLOP/s with 2·M·N·K operations per GEMM (docs/design.md rule 8), the products
// of the block scales not counted. What bounds it: the Tensor Cores' FP8 (MXFP8) or FP4 (NVFP4,
// MXFP4) rate, judged against the arch_rates ceiling of that precision (fp8_tc, fp4_tc); the
// small-M shape against the memory roofline, as gemm.cublas does. Hardware: compute capability
// 10.0 or newer (the block-scaled Tensor Core instructions, tcgen05.mma's kind::mxf8f6f4 and
// kind::mxf4nvf4, are sm_100a's); below it the benchmark is "not supported" with the reason,
// and so is a format the cuBLASLt in use has no kernel for (its heuristic's status is quoted).
//
// The call (cuBLAS documentation, cublasLtMatmul, block scaling): the TN layout only (our NT:
// A [M, K] and B [N, K], both K-contiguous, which is cuBLAS's op(A) = T over our B and op(B) =
// N over our A); CUBLASLT_MATMUL_DESC_A_SCALE_MODE and _B_SCALE_MODE set to
// CUBLASLT_MATMUL_MATRIX_SCALE_VEC32_UE8M0 (MX formats) or _VEC16_UE4M3 (NVFP4), with
// _A_SCALE_POINTER and _B_SCALE_POINTER at the scale tensors in the tiled 128 x 4 layout
// (block_scaled.hpp). NVFP4's per-tensor FP32 scales are alpha = scale_a x scale_b. Compute
// CUBLAS_COMPUTE_32F, scale type fp32, C and D bf16.
//
// Inputs: quantized on the host from seeded values whose blocks span 2^-7 to 2^6
// (seeded_block_source), so a scale read from the wrong place changes the product; the elements
// and the tiled scales are copied to the device once. D is poisoned with NaN before the run.
//
// Verification (block_scaled_check): the host dequantizes the very elements and scales it
// uploaded (element x block scale, exact in float) and checks D against alpha · A · B^T with
// gemm_check's Dot2 reference: every entry up to 2^20 outputs, else 256 seeded entries and the
// corners, and every entry scanned for the poison; tolerance: the FP8 error model (initial
// policy, block_scaled.hpp). A, B and their scales are not copied back: they are the host's.
//
// Cache: hot (back-to-back GEMMs), as gemm.cublas.
//
// No Blackwell GPU has run this file: it is compiled for every target, statically reviewed
// against the cuBLAS documentation, and its GPU test is skipped where there is no sm_100 GPU
// (docs/measurement.md).

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include "../src/cublaslt_handles.cuh"

#include "gpuspec/benches/bench_state.cuh"
#include "gpuspec/benches/block_scaled.hpp"
#include "gpuspec/benches/families.hpp"
#include "gpuspec/benches/gemm_cublas.hpp"
#include "gpuspec/kernels/cublas_check.cuh"
#include "gpuspec/kernels/cuda_check.cuh"
#include "gpuspec/kernels/cuda_handles.cuh"
#include "gpuspec/kernels/fill.hpp"
#include "gpuspec/reports/model/arch_rates.hpp"

namespace gpuspec::benches {

namespace {

constexpr std::uint64_t seed_a = 0x626c6b5341000001ull;
constexpr std::uint64_t seed_b = 0x626c6b5342000002ull;
/// Device memory left free beside the operands (as gemm.cublas).
constexpr std::uint64_t reserve_bytes = std::uint64_t{512} << 20;
/// A sample lasts at least about this long; at most this many GEMMs in one (as gemm.cublas).
constexpr double target_sample_seconds = 2e-3;
constexpr int max_gemms_per_sample = 100;

template <class... Args> std::string cat(const Args&... args) {
  std::ostringstream out;
  (out << ... << args);
  return out.str();
}

cudaDataType_t element_type(block_element e) {
  switch (e) {
  case block_element::e4m3:
    return CUDA_R_8F_E4M3;
  case block_element::e5m2:
    return CUDA_R_8F_E5M2;
  case block_element::e2m1:
    return CUDA_R_4F_E2M1;
  }
  return CUDA_R_8F_E4M3;
}

cublasLtMatmulMatrixScale_t scale_mode(const block_scaled_format& f) {
  return f.scale == block_scale_type::ue8m0 ? CUBLASLT_MATMUL_MATRIX_SCALE_VEC32_UE8M0
                                            : CUBLASLT_MATMUL_MATRIX_SCALE_VEC16_UE4M3;
}

std::string_view scale_mode_name(const block_scaled_format& f) {
  return f.scale == block_scale_type::ue8m0 ? "CUBLASLT_MATMUL_MATRIX_SCALE_VEC32_UE8M0"
                                            : "CUBLASLT_MATMUL_MATRIX_SCALE_VEC16_UE4M3";
}

std::uint64_t operand_bytes(const block_scaled_format& f, std::int64_t rows, std::int64_t k) {
  return static_cast<std::uint64_t>(rows) * static_cast<std::uint64_t>(k) *
         static_cast<std::uint64_t>(element_bits(f.element)) / 8;
}

/// One planned block-scaled cuBLASLt GEMM: the descriptors and the heuristic's algorithm first,
/// with placeholder scale pointers (cuBLASLt's heuristic refuses a block-scale mode without a
/// scale pointer: "requires a custom pointer for A scale", NVIDIA/CUDALibrarySamples#274; XLA
/// passes placeholders the same way, openxla/xla#40747), so a format cuBLASLt has no kernel for
/// allocates nothing; then the buffers, whose scale tensors replace the placeholders, then the
/// operands.
class blockscaled_gemm {
public:
  blockscaled_gemm(const block_scaled_format& f, const gemm_shape& shape)
      : m_f(f), m_shape(shape), m_call(cublas_call_for(shape, gemm_layout::nt)) {}

  /// Device bytes of A, B, their scale tensors and D: what one GEMM reads and writes.
  [[nodiscard]] std::uint64_t operand_device_bytes() const {
    return operand_bytes(m_f, m_shape.m, m_shape.k) + operand_bytes(m_f, m_shape.n, m_shape.k) +
           scale_tensor_bytes(m_shape.m, m_shape.k, m_f.block) +
           scale_tensor_bytes(m_shape.n, m_shape.k, m_f.block) +
           static_cast<std::uint64_t>(m_shape.m * m_shape.n) * 2;
  }
  /// Everything allocate() asks for: the operands and the chosen algorithm's workspace (known
  /// after plan()).
  [[nodiscard]] std::uint64_t device_bytes() const {
    return operand_device_bytes() + m_workspace_used;
  }

  /// Describes the GEMM and asks the heuristic, allocating nothing but the placeholder scales;
  /// "" when it found an algorithm, else why not (block_scaled_no_algorithm_reason).
  std::string plan() {
    m_placeholder_scales = kernels::device_buffer<std::byte>(placeholder_scale_bytes);
    describe();
    return choose_algorithm();
  }

  /// After plan(): allocates A, B, their scales, D and the algorithm's workspace, and points
  /// the descriptor at the real scale tensors.
  void allocate() {
    m_a = kernels::device_buffer<std::byte>(operand_bytes(m_f, m_shape.m, m_shape.k));
    m_b = kernels::device_buffer<std::byte>(operand_bytes(m_f, m_shape.n, m_shape.k));
    m_a_scales =
        kernels::device_buffer<std::byte>(scale_tensor_bytes(m_shape.m, m_shape.k, m_f.block));
    m_b_scales =
        kernels::device_buffer<std::byte>(scale_tensor_bytes(m_shape.n, m_shape.k, m_f.block));
    m_d = kernels::device_buffer<std::byte>(static_cast<std::size_t>(m_shape.m * m_shape.n) * 2);
    m_workspace = kernels::device_buffer<std::byte>(m_workspace_used);
    set_scale_pointers(m_b_scales.data(), m_a_scales.data()); // cuBLAS's A is our B
    m_placeholder_scales = {};
  }

  /// Quantizes A and B on the host, uploads elements and scales, poisons D; synchronises.
  void upload(kernels::stream_ref stream) {
    m_qa = quantize_operand(m_f, m_shape.m, m_shape.k, seeded_block_source(seed_a, m_f.block));
    m_qb = quantize_operand(m_f, m_shape.n, m_shape.k, seeded_block_source(seed_b, m_f.block));
    m_alpha = m_qa.tensor_scale * m_qb.tensor_scale;
    auto put = [&](kernels::device_buffer<std::byte>& to, const std::vector<std::uint8_t>& from) {
      GPUSPEC_CUDA_CHECK(cudaMemcpyAsync(to.data(), from.data(), from.size(),
                                         cudaMemcpyHostToDevice, stream.get()));
    };
    put(m_a, m_qa.data);
    put(m_b, m_qb.data);
    put(m_a_scales, m_qa.scales);
    put(m_b_scales, m_qb.scales);
    kernels::poison_with_nan(m_d.data(), m_d.bytes(), stream.handle());
    stream.synchronize();
  }

  /// Enqueues one GEMM on `stream` (cuBLAS's A is our B, its B our A).
  void enqueue(kernels::stream_ref stream) const {
    GPUSPEC_CUBLAS_CHECK(cublasLtMatmul(
        m_handle.get(), m_desc->get(), &m_alpha, m_b.data(), m_layout_a->get(), m_a.data(),
        m_layout_b->get(), &m_beta, m_d.data(), m_layout_c->get(), m_d.data(), m_layout_c->get(),
        &m_algo, m_workspace.data(), m_workspace.bytes(), stream.get()));
  }

  /// Copies D back and checks it against the host's dequantized product.
  [[nodiscard]] reports::verification verify(kernels::stream_ref stream) const {
    std::vector<std::uint16_t> d(static_cast<std::size_t>(m_shape.m * m_shape.n));
    GPUSPEC_CUDA_CHECK(
        cudaMemcpyAsync(d.data(), m_d.data(), m_d.bytes(), cudaMemcpyDeviceToHost, stream.get()));
    stream.synchronize();
    return block_scaled_check(m_qa, m_qb, d.data(),
                              cat("cublasLtMatmul ", m_f.id,
                                  " D (bf16) against a Dot2 host "
                                  "reference from the dequantized A and B (element x block "
                                  "scale, alpha = the tensor scales)"));
  }

  /// What the report records of the call.
  void record(bench_state& state) const {
    state.add_parameter("m", m_shape.m);
    state.add_parameter("n", m_shape.n);
    state.add_parameter("k", m_shape.k);
    state.add_parameter("element_type", std::string(block_element_name(m_f.element)));
    state.add_parameter("block_size", m_f.block);
    state.add_parameter("scale_mode", std::string(scale_mode_name(m_f)));
    state.add_parameter("scale_layout", "cuBLAS 1D block scaling factors layout: 128 x 4 tiles, "
                                        "(r % 32) x 16 + (r / 32) x 4 + c inside a tile");
    state.add_parameter("alpha", static_cast<double>(m_alpha));
    state.add_parameter("compute_type", "CUBLAS_COMPUTE_32F");
    state.add_parameter("d_type", "CUDA_R_16BF");
    state.add_parameter("cublas_layout", "TN");
    state.add_parameter("api", "cublasLtMatmul");
    state.add_parameter("cublaslt_version", static_cast<std::uint64_t>(cublasLtGetVersion()));
    state.add_parameter("algo_workspace_bytes", static_cast<std::uint64_t>(m_workspace_used));
    state.add_parameter("algo_waves_count", static_cast<double>(m_waves));
    state.add_parameter("torch_equivalent", std::string(m_f.torch));
  }

private:
  void describe() {
    m_desc.emplace(CUBLAS_COMPUTE_32F, CUDA_R_32F);
    m_desc->set(CUBLASLT_MATMUL_DESC_TRANSA, CUBLAS_OP_T);
    m_desc->set(CUBLASLT_MATMUL_DESC_TRANSB, CUBLAS_OP_N);
    m_desc->set(CUBLASLT_MATMUL_DESC_A_SCALE_MODE, scale_mode(m_f));
    m_desc->set(CUBLASLT_MATMUL_DESC_B_SCALE_MODE, scale_mode(m_f));
    set_scale_pointers(m_placeholder_scales.data(), m_placeholder_scales.data());
    const auto u = [](std::int64_t v) { return static_cast<std::uint64_t>(v); };
    m_layout_a.emplace(element_type(m_f.element), u(m_call.a_rows), u(m_call.a_cols), m_call.lda);
    m_layout_b.emplace(element_type(m_f.element), u(m_call.b_rows), u(m_call.b_cols), m_call.ldb);
    m_layout_c.emplace(CUDA_R_16BF, u(m_call.m), u(m_call.n), m_call.ldc);
  }

  void set_scale_pointers(const void* a_scales, const void* b_scales) {
    m_desc->set(CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, a_scales);
    m_desc->set(CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, b_scales);
  }

  std::string choose_algorithm() {
    lt_preference preference;
    preference.set(CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, gemm_cublas_workspace_bytes);
    std::array<cublasLtMatmulHeuristicResult_t, gemm_cublas_heuristic_request> results{};
    int returned = 0;
    const cublasStatus_t status = cublasLtMatmulAlgoGetHeuristic(
        m_handle.get(), m_desc->get(), m_layout_a->get(), m_layout_b->get(), m_layout_c->get(),
        m_layout_c->get(), preference.get(), gemm_cublas_heuristic_request, results.data(),
        &returned);
    const int usable = std::clamp(returned, 0, static_cast<int>(results.size()));
    for (int i = 0; status == CUBLAS_STATUS_SUCCESS && i < usable; ++i) {
      const auto& r = results[static_cast<std::size_t>(i)];
      if (r.state == CUBLAS_STATUS_SUCCESS) {
        m_algo = r.algo;
        m_workspace_used = r.workspaceSize;
        m_waves = r.wavesCount;
        return {};
      }
    }
    // No kernel: a format this cuBLASLt does not offer on this GPU (some versions answer
    // INVALID_VALUE or NOT_SUPPORTED for an unknown scale mode and type pair).
    return block_scaled_no_algorithm_reason(
        m_f, scale_mode_name(m_f),
        cat("bf16 D, TN, m=", m_call.m, ", n=", m_call.n, ", k=", m_call.k), returned,
        kernels::describe_cublas_status(status));
  }

  const block_scaled_format& m_f;
  gemm_shape m_shape;
  cublas_gemm_call m_call;
  float m_alpha = 1.0f;
  float m_beta = 0.0f;
  quantized_operand m_qa, m_qb;

  lt_handle m_handle;
  std::optional<lt_matmul_desc> m_desc;
  std::optional<lt_matrix_layout> m_layout_a, m_layout_b, m_layout_c;
  cublasLtMatmulAlgo_t m_algo{};
  std::size_t m_workspace_used = 0;
  float m_waves = 0.0f;

  /// One 128 x 4 scale tile: what the descriptor points at while the heuristic is asked.
  static constexpr std::size_t placeholder_scale_bytes = 512;
  kernels::device_buffer<std::byte> m_placeholder_scales;
  kernels::device_buffer<std::byte> m_a, m_b, m_a_scales, m_b_scales, m_d, m_workspace;
};

int device_sm_version(int device) {
  int major = 0, minor = 0;
  GPUSPEC_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  GPUSPEC_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  return major * 10 + minor;
}

/// "" when `f` can run on a GPU of compute capability `sm`, else why not.
std::string unsupported_reason(const block_scaled_format& f, int sm) {
  if (sm >= f.min_sm)
    return {};
  return cat("gemm.cublas.", f.id, " needs compute capability ", f.min_sm / 10, ".", f.min_sm % 10,
             " or newer (block-scaled Tensor Core instructions: Blackwell); this GPU is ", sm / 10,
             ".", sm % 10);
}

/// Times one GEMM and returns how many make one sample.
int gemms_per_sample(bench_state& state, blockscaled_gemm& gemm) {
  gemm.enqueue(state.stream());
  state.stream().synchronize();
  const double one = state.setup_seconds([&](kernels::stream_ref q) { gemm.enqueue(q); });
  const int reps = one > 0.0 ? static_cast<int>(std::clamp(std::ceil(target_sample_seconds / one),
                                                           1.0, double{max_gemms_per_sample}))
                             : max_gemms_per_sample;
  state.add_parameter("gemms_per_sample", reps);
  return reps;
}

void run_blockscaled(bench_state& state, const block_scaled_format& f) {
  const auto shape = parse_gemm_shape(state.axis("shape"));
  if (!shape)
    throw std::invalid_argument("gemm.cublas." + std::string(f.id) + ": bad shape '" +
                                state.axis("shape") + "' (want MxNxK)");
  if (const std::string why = unsupported_reason(f, device_sm_version(state.cuda_device()));
      !why.empty()) {
    state.not_supported(why);
    return;
  }
  blockscaled_gemm gemm(f, *shape);
  // The heuristic first: a format without a kernel allocates nothing (hundreds of MiB at 8192³).
  if (const std::string why = gemm.plan(); !why.empty()) {
    state.not_supported(why);
    return;
  }
  std::size_t free_bytes = 0, total_bytes = 0;
  GPUSPEC_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  state.add_parameter("device_bytes", gemm.device_bytes());
  if (gemm.device_bytes() + reserve_bytes > free_bytes) {
    state.skip(cat(gemm_shape_text(*shape), " needs ", gemm.device_bytes() >> 20,
                   " MiB of device memory; ", free_bytes >> 20, " MiB free"));
    return;
  }
  gemm.allocate();
  gemm.upload(state.stream());
  gemm.record(state);
  const int reps = gemms_per_sample(state, gemm);
  const double ops = 2.0 * static_cast<double>(shape->m) * static_cast<double>(shape->n) *
                     static_cast<double>(shape->k);
  state.add_parameter("ops_per_gemm", ops);
  state.set_flops_per_iteration(ops * reps);
  state.set_cache_mode(cache_mode::hot);
  state.set_compute_ceiling(std::string(f.ceiling), true);
  state.set_roofline_bytes(static_cast<double>(gemm.operand_device_bytes()) * reps);
  state.add_parameter("ceiling_key", std::string(f.ceiling));
  state.exec([&](kernels::stream_ref s) {
    for (int r = 0; r < reps; ++r)
      gemm.enqueue(s);
  });
  state.set_verification(gemm.verify(state.stream()));
}

} // namespace

gemm_cublas_trial run_gemm_blockscaled_trial(std::string_view format_id, const gemm_shape& shape) {
  const block_scaled_format* f = find_block_scaled_format(format_id);
  if (f == nullptr)
    throw std::invalid_argument("run_gemm_blockscaled_trial: unknown format '" +
                                std::string(format_id) + "'");
  int device = 0;
  GPUSPEC_CUDA_CHECK(cudaGetDevice(&device));
  gemm_cublas_trial trial;
  trial.reason = unsupported_reason(*f, device_sm_version(device));
  if (!trial.reason.empty()) {
    trial.status = reports::result_status::not_supported;
    return trial;
  }
  blockscaled_gemm gemm(*f, shape);
  trial.reason = gemm.plan();
  if (!trial.reason.empty()) {
    trial.status = reports::result_status::not_supported;
    return trial;
  }
  gemm.allocate();
  kernels::stream stream;
  gemm.upload(stream.ref());
  gemm.enqueue(stream.ref());
  stream.synchronize();
  trial.check = gemm.verify(stream.ref());
  return trial;
}

void register_gemm_blockscaled_benchmarks(registry& r) {
  // The format table is data (block_scaled.cpp): one benchmark per row, in its order.
  for (const block_scaled_format& f : block_scaled_formats())
    r.add("gemm.cublas." + std::string(f.id), std::string(f.description),
          [&f](bench_state& state) { run_blockscaled(state, f); }) // f: a row of a static table
        .in_suites({"standard", "full"})
        .with_axis("shape", gemm_blockscaled_shapes())
        .with_axis("layout", {"NT"}) // cuBLASLt's block-scaled kernels take TN (our NT) only
        // Quantizing A and B and the Dot2 check of D run on the host: seconds per case.
        .with_setup_allowance(120.0);
}

} // namespace gpuspec::benches
