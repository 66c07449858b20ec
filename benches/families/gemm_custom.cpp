// gemm.custom.{sgemm,hgemm_tc}: gpuspec's own GEMMs, measured and set beside cuBLAS.
//
// What it measures: TFLOP/s (2·M·N·K per run, docs/design.md rule 8) of two hand-written GEMMs, hot
// (operands stay in L2 as far as they fit; a GEMM is judged on compute):
//  - gemm.custom.sgemm: sgemm_smem_regblock, FP32 on CUDA cores (shared-memory tiles, 8x8
//    register blocking, float4 loads); bound by the FFMA rate; ceiling "fp32". Any GPU.
//  - gemm.custom.hgemm_tc: hgemm_mma_cp_async, FP16 in, FP32 accumulate and output, on Tensor
//    Cores through mma.sync with ldmatrix and a 4-stage cp.async pipeline; bound by the Tensor
//    Core rate; ceiling "fp16_tc" with FP32 accumulation. sm_80 or newer; not_supported before.
// Both also record how they compare with cuBLAS on the same shape and types: after the
// harness's timing, the custom kernel and cuBLAS (cublasSgemm; cublasGemmEx FP16 in, FP32 out,
// CUBLAS_COMPUTE_32F) are timed alternately in one stream, with CUDA events around each run
// (3 warm-up pairs, then 15 timed pairs, no synchronisation between them), and the ratio of the
// medians is "fraction_of_cublas". Pairing the runs gives both the same clocks and thermal
// state; the harness's own median is the result's metric. The targets (sgemm >= 0.8,
// hgemm_tc >= 0.6 of cuBLAS at 4096^3) are recorded beside the fraction, never enforced: a
// performance gap is a finding, not a failure.
//
// Inputs: seeded, random sign, magnitude in [0.5, 1) (never zero), filled on the device; C is
// poisoned with NaN before the run. Check: the inputs are copied back and compared bit for bit
// with the seeds, then gemm_check (gemm_check.hpp) compares seeded samples of C, and the
// corners, with a Dot2 host reference, the error normalised by sum_k |a_ik·b_kj|, and scans every
// entry of C for the poison. cuBLAS's C is a second reference: the largest difference over all
// entries is recorded (not judged).
//
// Shapes: one axis "shape" = MxNxK; quick runs 4096^3 only, standard and full add 2048^3 and
// 8192^3. All are multiples of the kernels' 128x128 tiles: they have no edge handling.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "gpuspec/benches/bench_state.cuh"
#include "gpuspec/benches/families.hpp"
#include "gpuspec/benches/gemm_check.hpp"
#include "gpuspec/benches/verification.hpp"
#include "gpuspec/kernels/cublas_check.cuh"
#include "gpuspec/kernels/cuda_check.cuh"
#include "gpuspec/kernels/cuda_handles.cuh"
#include "gpuspec/kernels/fill.hpp"
#include "gpuspec/kernels/hgemm_mma_cp_async.hpp"
#include "gpuspec/kernels/sgemm_smem_regblock.hpp"

namespace gpuspec::benches {

namespace {

using kernels::gemm_shape;

constexpr std::uint64_t seed_a = 0x67656d6d63757301ull;
constexpr std::uint64_t seed_b = 0x67656d6d63757302ull;

/// Device memory left free beside the matrices (context, cuBLAS's workspace, other tenants).
constexpr std::uint64_t reserve_bytes = std::uint64_t{512} << 20;

/// The paired comparison with cuBLAS: warm-up pairs, then timed pairs.
constexpr int cublas_warmup_pairs = 3;
constexpr int cublas_timed_pairs = 15;

/// Entries of C compared with the host reference (plus the four corners).
constexpr std::size_t check_samples = 512;

std::string mib_text(std::uint64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

/// A cuBLAS handle (RAII), bound to one stream.
class cublas_handle {
public:
  explicit cublas_handle(kernels::stream_ref stream) {
    GPUSPEC_CUBLAS_CHECK(cublasCreate(&m_handle));
    try {
      GPUSPEC_CUBLAS_CHECK(cublasSetStream(m_handle, stream.get()));
      // Plain FP32 for SGEMM (no TF32), and the default (Tensor Core) kernels for FP16.
      GPUSPEC_CUBLAS_CHECK(cublasSetMathMode(m_handle, CUBLAS_DEFAULT_MATH));
    } catch (...) {
      GPUSPEC_CUBLAS_CHECK_NOEXCEPT(cublasDestroy(m_handle));
      throw;
    }
  }
  ~cublas_handle() { GPUSPEC_CUBLAS_CHECK_NOEXCEPT(cublasDestroy(m_handle)); }
  cublas_handle(const cublas_handle&) = delete;
  cublas_handle& operator=(const cublas_handle&) = delete;
  cublas_handle(cublas_handle&&) = delete;
  cublas_handle& operator=(cublas_handle&&) = delete;
  [[nodiscard]] cublasHandle_t get() const noexcept { return m_handle; }

private:
  cublasHandle_t m_handle = nullptr;
};

template <class T>
std::vector<T> copy_to_host(const kernels::device_buffer<T>& d, kernels::stream_ref s) {
  std::vector<T> h(d.size());
  GPUSPEC_CUDA_CHECK(
      cudaMemcpyAsync(h.data(), d.data(), d.bytes(), cudaMemcpyDeviceToHost, s.get()));
  s.synchronize();
  return h;
}

double median(std::vector<double> v) {
  if (v.empty())
    return 0.0;
  std::sort(v.begin(), v.end());
  const std::size_t mid = v.size() / 2;
  return v.size() % 2 != 0 ? v[mid] : 0.5 * (v[mid - 1] + v[mid]);
}

/// Number of elements of `host` that differ from expected(i) bit for bit (all threads).
template <class T, class Expected>
std::size_t count_mismatches(const std::vector<T>& host, const Expected& expected) {
  const std::size_t n = host.size();
  const unsigned parts = verification_threads(n);
  std::vector<std::size_t> bad(std::max(1u, parts), 0);
  for_each_slice(n, parts, [&](std::size_t begin, std::size_t end, unsigned part) {
    std::size_t count = 0;
    for (std::size_t i = begin; i < end; ++i)
      if (!(host[i] == expected(i)))
        ++count;
    bad[part] = count;
  });
  std::size_t total = 0;
  for (const std::size_t b : bad)
    total += b;
  return total;
}

/// The two GEMMs as data: everything the common benchmark body needs to know.
enum class custom_gemm { sgemm, hgemm_tc };

/// Median seconds of the custom GEMM and of cuBLAS, timed alternately (see the file comment).
struct paired_times {
  double custom_s = 0, cublas_s = 0;
};

paired_times time_pairs(kernels::stream_ref s, const std::function<void()>& custom,
                        const std::function<void()>& cublas) {
  for (int i = 0; i < cublas_warmup_pairs; ++i) {
    custom();
    cublas();
  }
  constexpr auto pairs = static_cast<std::size_t>(cublas_timed_pairs);
  event_marks marks;
  marks.reserve(2 * pairs + 1);
  marks.mark(0, s);
  for (std::size_t i = 0; i < pairs; ++i) {
    custom();
    marks.mark(2 * i + 1, s);
    cublas();
    marks.mark(2 * i + 2, s);
  }
  marks.wait(2 * pairs);
  std::vector<double> custom_s, cublas_s;
  for (std::size_t k = 0; k < 2 * pairs; k += 2) {
    custom_s.push_back(marks.seconds_between(k, k + 1));
    cublas_s.push_back(marks.seconds_between(k + 1, k + 2));
  }
  return {median(std::move(custom_s)), median(std::move(cublas_s))};
}

/// Largest |ours - theirs| over all entries, and the largest of it relative to
/// max(|theirs|, rms(theirs)): elementwise, with near-zero entries (the inputs have random
/// signs, so some sums cancel) judged against the matrix's typical magnitude instead.
struct difference {
  double max_abs = 0;
  double max_rel = 0;
  double rms = 0;
  std::size_t non_finite = 0;
};

difference compare(const std::vector<float>& ours, const std::vector<float>& theirs) {
  difference d;
  double sum_sq = 0;
  for (const float t : theirs)
    sum_sq += static_cast<double>(t) * static_cast<double>(t);
  d.rms = theirs.empty() ? 0.0 : std::sqrt(sum_sq / static_cast<double>(theirs.size()));
  const double floor = d.rms > 0 ? d.rms : 1.0;
  for (std::size_t i = 0; i < ours.size() && i < theirs.size(); ++i) {
    const double o = ours[i], t = theirs[i];
    if (!std::isfinite(o) || !std::isfinite(t)) {
      ++d.non_finite;
      continue;
    }
    const double diff = std::fabs(o - t);
    d.max_abs = std::max(d.max_abs, diff);
    d.max_rel = std::max(d.max_rel, diff / std::max(std::fabs(t), floor));
  }
  return d;
}

/// The shape asked, checked against what the kernel tiles.
gemm_shape shape_of(const bench_state& state, bool tc) {
  const std::string& shape_text = state.axis("shape");
  const std::optional<gemm_shape> parsed = kernels::parse_gemm_shape(shape_text);
  if (!parsed)
    throw std::invalid_argument(state.id() + ": shape '" + shape_text + "' is not MxNxK");
  if (const std::string why = tc ? kernels::hgemm_mma_cp_async_shape_error(*parsed)
                                 : kernels::sgemm_smem_regblock_shape_error(*parsed);
      !why.empty())
    throw std::invalid_argument(why);
  return *parsed;
}

/// Whether the GPU runs the kernel and the matrices fit; says why not (not_supported, skip).
bool can_run(bench_state& state, const gemm_shape& shape, bool tc) {
  const int device = state.cuda_device();
  int cc_major = 0, cc_minor = 0;
  GPUSPEC_CUDA_CHECK(cudaDeviceGetAttribute(&cc_major, cudaDevAttrComputeCapabilityMajor, device));
  GPUSPEC_CUDA_CHECK(cudaDeviceGetAttribute(&cc_minor, cudaDevAttrComputeCapabilityMinor, device));
  if (tc && !kernels::hgemm_mma_cp_async_supported(cc_major, cc_minor)) {
    state.not_supported("hgemm_mma_cp_async needs sm_80 or newer (cp.async and mma.sync "
                        "m16n8k16 with FP32 accumulation); this GPU is sm_" +
                        std::to_string(cc_major) + std::to_string(cc_minor));
    return false;
  }
  const auto m = static_cast<std::size_t>(shape.m);
  const auto n = static_cast<std::size_t>(shape.n);
  const auto k = static_cast<std::size_t>(shape.k);
  const std::size_t in_bytes = tc ? 2 : 4;
  const std::uint64_t needed = (m * k + k * n) * in_bytes + 2 * m * n * sizeof(float);
  std::size_t free_bytes = 0, total_bytes = 0;
  GPUSPEC_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (needed + reserve_bytes > free_bytes) {
    state.skip(state.axis("shape") + " needs " + mib_text(needed) + " of device memory (A, B, C " +
               "and cuBLAS's C) plus " + mib_text(reserve_bytes) + " in reserve; " +
               mib_text(free_bytes) + " is free");
    return false;
  }
  return true;
}

/// A, B (fp16 for the Tensor Core kernel, else fp32; seeded) and C (poisoned) on the device.
struct gemm_buffers {
  gemm_buffers(const gemm_shape& asked, bool tensor_cores, kernels::stream_ref stream)
      : tc(tensor_cores), shape(asked),
        c(static_cast<std::size_t>(shape.m) * static_cast<std::size_t>(shape.n)) {
    const auto m = static_cast<std::size_t>(shape.m);
    const auto n = static_cast<std::size_t>(shape.n);
    const auto k = static_cast<std::size_t>(shape.k);
    if (tc) {
      a16 = kernels::device_buffer<std::uint16_t>(m * k);
      b16 = kernels::device_buffer<std::uint16_t>(n * k); // N x K: B column-major
      kernels::launch_fill_gemm_input_f16(a16.data(), a16.size(), seed_a, stream.handle());
      kernels::launch_fill_gemm_input_f16(b16.data(), b16.size(), seed_b, stream.handle());
    } else {
      a32 = kernels::device_buffer<float>(m * k);
      b32 = kernels::device_buffer<float>(k * n);
      kernels::launch_fill_gemm_input_f32(a32.data(), a32.size(), seed_a, stream.handle());
      kernels::launch_fill_gemm_input_f32(b32.data(), b32.size(), seed_b, stream.handle());
    }
    kernels::poison_with_nan(c.data(), c.bytes(), stream.handle());
    stream.synchronize();
  }
  /// One launch of our kernel on `s`.
  void launch(kernels::stream_ref s) const {
    if (tc)
      kernels::launch_hgemm_mma_cp_async(a16.data(), b16.data(), c.data(), shape, s.handle());
    else
      kernels::launch_sgemm_smem_regblock(a32.data(), b32.data(), c.data(), shape, s.handle());
  }

  bool tc;
  gemm_shape shape;
  kernels::device_buffer<float> a32, b32;
  kernels::device_buffer<std::uint16_t> a16, b16;
  kernels::device_buffer<float> c;
};

/// The work, its ceiling and the kernel's configuration, in the parameters.
void declare_work(bench_state& state, const gemm_shape& shape, bool tc, const std::string& name) {
  state.set_flops_per_iteration(kernels::gemm_flops(shape));
  state.set_cache_mode(cache_mode::hot);
  if (tc)
    state.set_compute_ceiling("fp16_tc", true);
  else
    state.set_compute_ceiling("fp32");
  state.add_parameter("m", shape.m);
  state.add_parameter("n", shape.n);
  state.add_parameter("k", shape.k);
  state.add_parameter("kernel", name);
  const auto m = static_cast<std::uint64_t>(shape.m);
  const auto n = static_cast<std::uint64_t>(shape.n);
  const std::uint64_t tiles = tc ? (m / kernels::hgemm_block_m) * (n / kernels::hgemm_block_n)
                                 : (m / kernels::sgemm_block_m) * (n / kernels::sgemm_block_n);
  state.add_parameter("grid_blocks", tiles);
  if (tc) {
    state.add_parameter("layout", "A M x K row-major fp16; B stored N x K row-major (B "
                                  "column-major) fp16; C M x N row-major fp32");
    state.add_parameter("path", "mma.sync m16n8k16 (fp16 in, fp32 accumulate), ldmatrix.x4 from "
                                "XOR-swizzled shared memory, cp.async.cg pipeline");
    state.add_parameter("block_tile", "128x128x32");
    state.add_parameter("warp_tile", "64x64");
    state.add_parameter("threads_per_block", kernels::hgemm_block_threads);
    state.add_parameter("pipeline_stages", kernels::hgemm_stages);
    state.add_parameter("shared_bytes_per_block", kernels::hgemm_smem_bytes);
  } else {
    state.add_parameter("layout", "A M x K, B K x N, C M x N, all row-major fp32");
    state.add_parameter("path", "FFMA; shared-memory tiles (A transposed), 8x8 register tile "
                                "per thread, float4 loads, double-buffered");
    state.add_parameter("block_tile", "128x128x8");
    state.add_parameter("thread_tile", "8x8");
    state.add_parameter("threads_per_block", kernels::sgemm_block_threads);
  }
  state.add_parameter("tile_order", "grouped, 8 tile rows per group");
}

/// C against a Dot2 host reference of the inputs copied back (sampled entries, every entry
/// scanned), and the inputs against the seeded values the fill should have written.
reports::verification check_output(const gemm_buffers& g, kernels::stream_ref stream) {
  const std::vector<float> c_host = copy_to_host(g.c, stream);
  const std::int64_t mi = g.shape.m, ni = g.shape.n, ki = g.shape.k;
  const matrix_view d_view{c_host.data(), gemm_element::fp32, mi, ni, ni, storage_order::row_major};
  gemm_check_options options;
  options.samples = check_samples;
  options.scan_all = true;
  std::vector<float> a32_host, b32_host;
  std::vector<std::uint16_t> a16_host, b16_host;
  std::size_t input_mismatches = 0;
  matrix_view a_view, b_view;
  std::string what;
  if (g.tc) {
    a16_host = copy_to_host(g.a16, stream);
    b16_host = copy_to_host(g.b16, stream);
    input_mismatches += count_mismatches(
        a16_host, [](std::size_t i) { return kernels::gemm_input_f16_bits(seed_a, i); });
    input_mismatches += count_mismatches(
        b16_host, [](std::size_t i) { return kernels::gemm_input_f16_bits(seed_b, i); });
    a_view = {a16_host.data(), gemm_element::fp16, mi, ki, ki, storage_order::row_major};
    b_view = {b16_host.data(), gemm_element::fp16, ki, ni, ki, storage_order::col_major};
    // fp16 products are exact in fp32; Tensor Core fp32 accumulation; fp32 output.
    gemm_error_model model = error_model(gemm_precision::fp16);
    model.output_unit = std::ldexp(1.0, -24);
    options.tolerance = gemm_tolerance(model, ki, gemm_input_signs::mixed);
    what = "hgemm_mma_cp_async C (fp16 in, fp32 accumulate and out) against a Dot2 host "
           "reference of the fp16 inputs copied back";
  } else {
    a32_host = copy_to_host(g.a32, stream);
    b32_host = copy_to_host(g.b32, stream);
    input_mismatches += count_mismatches(
        a32_host, [](std::size_t i) { return kernels::gemm_input_f32(seed_a, i); });
    input_mismatches += count_mismatches(
        b32_host, [](std::size_t i) { return kernels::gemm_input_f32(seed_b, i); });
    a_view = {a32_host.data(), gemm_element::fp32, mi, ki, ki, storage_order::row_major};
    b_view = {b32_host.data(), gemm_element::fp32, ki, ni, ni, storage_order::row_major};
    options.tolerance = gemm_tolerance(gemm_precision::fp32, ki, gemm_input_signs::mixed);
    what = "sgemm_smem_regblock C against a Dot2 host reference of the fp32 inputs copied back";
  }
  reports::verification v = gemm_sample_check(a_view, b_view, d_view, options, what);
  if (input_mismatches > 0) {
    v.status = reports::verification_status::failed;
    v.detail += "; " + std::to_string(input_mismatches) +
                " input element(s) differ from the seeded values the fill should have written";
  }
  return v;
}

/// cuBLAS's GEMM of the same inputs into `c_cublas` (one call), described in the parameters.
std::function<void()> cublas_gemm(bench_state& state, const gemm_buffers& g,
                                  const cublas_handle& handle,
                                  kernels::device_buffer<float>& c_cublas) {
  static const float one = 1.0f, zero = 0.0f;
  const gemm_shape shape = g.shape;
  if (g.tc) {
    state.add_parameter("cublas_config", "cublasGemmEx(OP_T, OP_N, N, M, K) fp16 A/B, fp32 C, "
                                         "CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT, default math "
                                         "mode");
    // Row-major C = A·B is column-major C^T = op_T(B_nk as K x N) · (A as K x M).
    return [&g, &handle, &c_cublas, shape] {
      GPUSPEC_CUBLAS_CHECK(cublasGemmEx(
          handle.get(), CUBLAS_OP_T, CUBLAS_OP_N, shape.n, shape.m, shape.k, &one, g.b16.data(),
          CUDA_R_16F, shape.k, g.a16.data(), CUDA_R_16F, shape.k, &zero, c_cublas.data(),
          CUDA_R_32F, shape.n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    };
  }
  state.add_parameter("cublas_config",
                      "cublasSgemm(OP_N, OP_N, N, M, K), CUBLAS_DEFAULT_MATH (fp32, no TF32)");
  // Row-major C = A·B is column-major C^T = B^T·A^T: the row-major arrays as they are.
  return [&g, &handle, &c_cublas, shape] {
    GPUSPEC_CUBLAS_CHECK(cublasSgemm(handle.get(), CUBLAS_OP_N, CUBLAS_OP_N, shape.n, shape.m,
                                     shape.k, &one, g.b32.data(), shape.n, g.a32.data(), shape.k,
                                     &zero, c_cublas.data(), shape.n));
  };
}

/// Beside cuBLAS: the two timed alternately, and the two outputs compared; informative, not
/// judged. A failure here is recorded, never the benchmark's.
void compare_with_cublas(bench_state& state, const gemm_buffers& g) {
  const bool tc = g.tc;
  const kernels::stream_ref stream = state.stream();
  const double flops = kernels::gemm_flops(g.shape);
  state.add_parameter("fraction_of_cublas_target", tc ? 0.6 : 0.8);
  try {
    kernels::device_buffer<float> c_cublas(static_cast<std::size_t>(g.shape.m) *
                                           static_cast<std::size_t>(g.shape.n));
    kernels::poison_with_nan(c_cublas.data(), c_cublas.bytes(), stream.handle());
    const cublas_handle handle(stream);
    const std::function<void()> run_cublas = cublas_gemm(state, g, handle, c_cublas);
    const paired_times t = time_pairs(
        stream, [&] { g.launch(stream); }, run_cublas);
    const double custom_tflops = flops / t.custom_s * 1e-12;
    const double cublas_tflops = flops / t.cublas_s * 1e-12;
    const double fraction = t.cublas_s / t.custom_s;
    state.add_parameter("cublas_tflops", cublas_tflops);
    state.add_parameter("custom_tflops_paired", custom_tflops);
    state.add_parameter("fraction_of_cublas", fraction);
    state.add_parameter("fraction_of_cublas_method",
                        "median of " + std::to_string(cublas_timed_pairs) +
                            " alternating custom/cuBLAS runs (CUDA events, hot, one stream) "
                            "after " +
                            std::to_string(cublas_warmup_pairs) + " warm-up pairs");
    state.add_parameter("meets_cublas_target", fraction >= (tc ? 0.6 : 0.8));

    const std::vector<float> theirs = copy_to_host(c_cublas, stream);
    const std::vector<float> ours = copy_to_host(g.c, stream);
    const difference diff = compare(ours, theirs);
    state.add_parameter("cublas_max_abs_diff", diff.max_abs);
    state.add_parameter("cublas_max_rel_diff", diff.max_rel);
    state.add_parameter("cublas_rms", diff.rms);
    state.add_parameter("cublas_non_finite", static_cast<std::uint64_t>(diff.non_finite));
    state.add_parameter("cublas_diff_definition",
                        "over all M x N entries: max |ours - cuBLAS| / max(|cuBLAS|, rms of "
                        "cuBLAS's C); informative, not judged");
  } catch (const std::exception& e) {
    state.add_parameter("cublas_error",
                        std::string("the comparison with cuBLAS failed: ") + e.what());
  }
}

void run_custom_gemm(bench_state& state, custom_gemm which) {
  const bool tc = which == custom_gemm::hgemm_tc;
  const std::string name = tc ? "hgemm_mma_cp_async" : "sgemm_smem_regblock";
  const gemm_shape shape = shape_of(state, tc);
  if (!can_run(state, shape, tc))
    return;
  const gemm_buffers g(shape, tc, state.stream());
  declare_work(state, shape, tc, name);
  state.exec([&](kernels::stream_ref s) { g.launch(s); });
  if (state.interrupted())
    return;
  state.set_verification(check_output(g, state.stream()));
  compare_with_cublas(state, g);
}

void sgemm_benchmark(bench_state& state) { run_custom_gemm(state, custom_gemm::sgemm); }
void hgemm_tc_benchmark(bench_state& state) { run_custom_gemm(state, custom_gemm::hgemm_tc); }

} // namespace

void register_gemm_custom_benchmarks(registry& r) {
  const std::vector<std::string> suites{"quick", "standard", "full"};
  const std::vector<std::string> shapes{"4096x4096x4096", "2048x2048x2048", "8192x8192x8192"};
  r.add("gemm.custom.sgemm",
        "gpuspec's FP32 GEMM (shared-memory tiles, 8x8 register blocking, float4 loads), "
        "row-major, hot; also as a fraction of cuBLAS SGEMM",
        sgemm_benchmark)
      .in_suites(suites)
      .with_axis("shape", shapes)
      // Timed beside cuBLAS on the same shape, and every output checked on the host.
      .with_setup_allowance(180.0);
  r.add("gemm.custom.hgemm_tc",
        "gpuspec's FP16 Tensor Core GEMM (mma.sync, ldmatrix, cp.async pipeline; fp32 "
        "accumulate), sm_80+, hot; also as a fraction of cuBLAS fp16",
        hgemm_tc_benchmark)
      .in_suites(suites)
      .with_axis("shape", shapes)
      // Timed beside cuBLAS on the same shape, and every output checked on the host.
      .with_setup_allowance(180.0);
}

} // namespace gpuspec::benches
