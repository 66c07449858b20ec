#pragma once
/// Tensor Core peak with warpgroup-level wgmma on Hopper (compute capability 9.0). CUDA-free: the
/// launchers, and the pure helpers the kernel, the benchmark and the tests share.
///
/// The kernels live in kernels/src_sm90a/wgmma_peak.cu, compiled for sm_90a alone when the
/// build's architecture list holds 90 (or is all, all-major, or native on a machine with a
/// Hopper GPU: cmake/GpuspecCudaArchitectures.cmake); otherwise
/// kernels/src_sm90a/wgmma_peak_absent.cpp defines the same functions, wgmma_peak_built()
/// returns false and the launchers throw. Exactly one of the two files is compiled.
///
/// The computation mirrors mma_peak.hpp: each warpgroup (4 warps) runs one m64n256kK accumulator
/// tile (FP32, INT32 for int8) with A (64×K) and B (K×256, stored as 256 rows of K: "K-major")
/// in shared memory, D = A·B once and then `pairs` times D += A·(-B); D += A·B, so D ends at
/// exactly A·B. K is 16 (fp16, bf16), 8 (tf32) or 32 (int8, e4m3, e5m2): one row of A or B is
/// always 32 bytes. As there, each warpgroup also stores the trips its pairs loop ran
/// (work_count.hpp), which the host requires to equal `pairs`, the count wgmma_operations assumes.
///
/// Shared-memory layout (PTX ISA, "Shared Memory Matrix Layout", K-major, no swizzle). A and B are
/// made of core matrices of 8 rows × 16 bytes, each stored as 128 contiguous bytes (row r of the
/// core matrix at byte 16·r). One instruction reads, per 8 rows, two core matrices along K (the
/// "8x2 tile": bytes 0-15 and 16-31 of each row). The descriptor gives the start address, the
/// leading-dimension byte offset (LBO: from a core matrix to the next one along K) and the
/// stride-dimension byte offset (SBO: from 8 rows to the next 8 rows). Here core matrix (row
/// group i, K half j) sits at (2i + j)·128 bytes: LBO = 128, SBO = 256. In CuTe terms the
/// canonical K-major no-swizzle layout ((8,m),(T,2)):((1T,SBO),(1,LBO)) with T = 16 bytes of
/// elements. Were LBO and SBO read the other way round, every access would still land inside the
/// operand's own buffer: a wrong layout shows up as a failed check, never as a fault.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gpuspec/kernels/host_device.hpp"
#include "gpuspec/kernels/mma_peak.hpp"
#include "gpuspec/kernels/stream_handle.hpp"

namespace gpuspec::kernels {

inline constexpr int wgmma_m = 64;
inline constexpr int wgmma_n = 256;
/// Bytes of one row of A or of B (K-major) for one instruction, whatever the type.
inline constexpr int wgmma_row_bytes = 32;
inline constexpr unsigned wgmma_warpgroups_per_block = 2;
inline constexpr unsigned wgmma_block_threads = 128 * wgmma_warpgroups_per_block;
/// Accumulator registers per thread: 64×256 values over 128 threads.
inline constexpr int wgmma_d_regs = wgmma_m * wgmma_n / 128;

/// K of one instruction: 256 bits of each row, 16 fp16/bf16, 8 tf32, 32 int8/e4m3/e5m2.
GPUSPEC_HOST_DEVICE constexpr int wgmma_k(tc_dtype t) { return 256 / tc_element_bits(t); }
// The int8 output poison (mma_peak.hpp) assumes K <= 32.
static_assert(wgmma_k(tc_dtype::int8) * 7 * 7 <= tc_int8_max_magnitude);

/// The PTX instruction the kernel of `t` issues.
constexpr const char* wgmma_ptx(tc_dtype t) {
  switch (t) {
  case tc_dtype::fp16:
    return "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16";
  case tc_dtype::bf16:
    return "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16";
  case tc_dtype::tf32:
    return "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32";
  case tc_dtype::int8:
    return "wgmma.mma_async.sync.aligned.m64n256k32.s32.s8.s8";
  case tc_dtype::fp8_e4m3:
    return "wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3";
  case tc_dtype::fp8_e5m2:
    return "wgmma.mma_async.sync.aligned.m64n256k32.f32.e5m2.e5m2";
  default: // no kernel (wgmma_has)
    return "";
  }
}

// --- shared-memory layout and descriptor -----------------------------------------------------

/// Byte offset of 16-byte chunk `chunk` (0: K elements [0, K/2), 1: [K/2, K)) of row `row` of an
/// operand in the layout above: core matrix (row / 8, chunk) at (2·(row / 8) + chunk)·128, the
/// row inside it at 16·(row % 8).
GPUSPEC_HOST_DEVICE constexpr std::uint32_t wgmma_smem_offset(int row, int chunk) {
  return static_cast<std::uint32_t>((2 * (row / 8) + chunk) * 128 + (row % 8) * 16);
}
inline constexpr std::uint32_t wgmma_lbo_bytes = 128; ///< next core matrix along K
inline constexpr std::uint32_t wgmma_sbo_bytes = 256; ///< next 8 rows (M for A, N for B)

/// matrix-descriptor-encode(x) = (x & 0x3FFFF) >> 4 (PTX ISA, "Matrix Descriptor Format").
GPUSPEC_HOST_DEVICE constexpr std::uint64_t wgmma_descriptor_encode(std::uint32_t x) {
  return static_cast<std::uint64_t>((x & 0x3FFFFu) >> 4);
}

/// The 64-bit matrix descriptor: start address in bits 0-13, LBO in 16-29, SBO in 32-45, base
/// offset (bits 49-51) 0 and swizzle mode (bits 62-63) 0, "no swizzle".
GPUSPEC_HOST_DEVICE constexpr std::uint64_t
wgmma_descriptor(std::uint32_t smem_address, std::uint32_t lbo_bytes, std::uint32_t sbo_bytes) {
  return wgmma_descriptor_encode(smem_address) | (wgmma_descriptor_encode(lbo_bytes) << 16) |
         (wgmma_descriptor_encode(sbo_bytes) << 32);
}

/// Position in D (row m, column n) of accumulator register `i` (0..127) of thread `thread`
/// (0..127) of the warpgroup (PTX ISA, "Matrix Fragments for wgmma.mma_async.m64nNk16", the
/// same for k8 and k32): warp w owns rows 16w..16w+15; registers come in groups of four per 8
/// columns: d[4j], d[4j+1] at (16w + lane/4, 8j + 2·(lane%4) + {0,1}), d[4j+2], d[4j+3] eight
/// rows further down.
GPUSPEC_HOST_DEVICE constexpr matrix_coord wgmma_d_coord(int thread, int i) {
  const int warp = thread / 32, lane = thread % 32;
  return {16 * warp + lane / 4 + 8 * ((i / 2) % 2), 8 * (i / 4) + 2 * (lane % 4) + i % 2};
}

// --- work ------------------------------------------------------------------------------------

/// Operations (2 per multiply-add) of one launch of `blocks` blocks.
constexpr double wgmma_operations(tc_dtype t, std::uint64_t blocks, std::uint32_t pairs) {
  const double per_instruction = 2.0 * wgmma_m * wgmma_n * wgmma_k(t);
  return static_cast<double>(blocks) * wgmma_warpgroups_per_block *
         static_cast<double>(mma_ops_per_accumulator(pairs)) * per_instruction;
}

/// 32-bit words the kernel stores: one row-major 64×256 tile per warpgroup.
constexpr std::size_t wgmma_output_words(std::uint64_t blocks) {
  return static_cast<std::size_t>(blocks) * wgmma_warpgroups_per_block *
         static_cast<std::size_t>(wgmma_m * wgmma_n);
}

/// Work counters the kernel stores: one per warpgroup (warpgroup g of block b at b·2 + g), each
/// the trips of its pairs loop, which must equal `pairs` (work_count.hpp).
constexpr std::size_t wgmma_count_words(std::uint64_t blocks) {
  return static_cast<std::size_t>(blocks) * wgmma_warpgroups_per_block;
}

// --- the host side of one problem ------------------------------------------------------------

/// A, B and -B as values and as row-major bytes (32 bytes per row, elements little-endian), the
/// form the kernel copies into shared memory; and the reference A·B, exact.
struct wgmma_problem {
  tc_dtype dtype{};
  int k = 0;
  std::vector<double> a;  ///< 64×K, row-major
  std::vector<double> bt; ///< 256×K: bt[n·K + k] = B[k][n] (B K-major)
  std::vector<std::uint8_t> a_rows, b_pos_rows, b_neg_rows;
  std::vector<double> d; ///< 64×256, row-major: A·B
};

inline wgmma_problem make_wgmma_problem(tc_dtype t, std::uint64_t seed) {
  wgmma_problem pr;
  pr.dtype = t;
  pr.k = wgmma_k(t);
  const int k = pr.k;
  const int bytes = tc_element_bits(t) / 8;
  pr.a.resize(static_cast<std::size_t>(wgmma_m * k));
  pr.bt.resize(static_cast<std::size_t>(wgmma_n * k));
  for (std::size_t i = 0; i < pr.a.size(); ++i)
    pr.a[i] = tc_operand_value(t, seed, i);
  for (std::size_t i = 0; i < pr.bt.size(); ++i)
    pr.bt[i] = tc_operand_value(t, seed ^ 0x5bd1e995u, i);
  auto put = [bytes](std::vector<std::uint8_t>& out, std::size_t element, std::uint32_t bits) {
    for (int b = 0; b < bytes; ++b)
      out[element * static_cast<std::size_t>(bytes) + static_cast<std::size_t>(b)] =
          static_cast<std::uint8_t>(bits >> (8 * b));
  };
  pr.a_rows.assign(static_cast<std::size_t>(wgmma_m * wgmma_row_bytes), 0);
  pr.b_pos_rows.assign(static_cast<std::size_t>(wgmma_n * wgmma_row_bytes), 0);
  pr.b_neg_rows.assign(static_cast<std::size_t>(wgmma_n * wgmma_row_bytes), 0);
  for (std::size_t i = 0; i < pr.a.size(); ++i)
    put(pr.a_rows, i, tc_encode(t, pr.a[i]));
  for (std::size_t i = 0; i < pr.bt.size(); ++i) {
    put(pr.b_pos_rows, i, tc_encode(t, pr.bt[i]));
    put(pr.b_neg_rows, i, tc_encode(t, -pr.bt[i]));
  }
  pr.d.assign(static_cast<std::size_t>(wgmma_m * wgmma_n), 0.0);
  for (int m = 0; m < wgmma_m; ++m)
    for (int n = 0; n < wgmma_n; ++n) {
      double sum = 0.0; // exact: small multiples of 1/4
      for (int kk = 0; kk < k; ++kk)
        sum += pr.a[static_cast<std::size_t>(m * k + kk)] *
               pr.bt[static_cast<std::size_t>(n * k + kk)];
      pr.d[static_cast<std::size_t>(m * wgmma_n + n)] = sum;
    }
  return pr;
}

// --- which path measures a type on a GPU --------------------------------------------------

/// What a build without the sm_90a kernels means on Hopper, in one place for the result's note
/// and the plan's reasons (kernels/CMakeLists.txt prints the same figure as a CMake warning).
/// The figure is a published measurement, not one of ours: without wgmma an H100 "seems to top
/// out around 63% of its peak utilization" (B. Spector, A. Singhal, S. Arora, C. Ré, "GPUs Go
/// Brrr", Hazy Research, 12 May 2024, https://hazyresearch.stanford.edu/blog/2024-05-12-tk).
inline constexpr const char* hopper_mma_sync_note =
    "mma.sync on Hopper: not expected to reach the dense Tensor Core peak (about 63% of it "
    "without wgmma, as published by Hazy Research, \"GPUs Go Brrr\", 2024); this build has no "
    "sm_90a wgmma kernels: its CMAKE_CUDA_ARCHITECTURES held no 90 (nor all or all-major), or "
    "was native on a machine without a Hopper GPU";

/// Why fp6 and fp4 through kind::f8f6f4 are judged against fp8_tc (tc_plan::ceiling_note):
/// kind::f8f6f4 reads every type in an 8-bit container and runs it at the FP8 rate; the FP4 rate
/// of the datasheets is that of the block-scaled kinds, which read packed fp4 with K = 64
/// (PTX ISA: tcgen05.mma kind::mxf4 and kind::mxf4nvf4 on 10.x; mma.sync m16n8k64
/// kind::mxf4nvf4 on 12.x). Judged against fp4_tc, a healthy GPU would read about half of it.
inline std::string tc_f8f6f4_ceiling_note(bool tcgen05) {
  return std::string(tcgen05 ? "tcgen05.mma kind::f8f6f4" : "mma.sync m16n8k32 kind::f8f6f4")
      .append(" runs fp6 and fp4 at the FP8 Tensor Core rate (one element per 8-bit container); "
              "only the block-scaled kinds (")
      .append(tcgen05 ? "tcgen05.mma kind::mxf4 and kind::mxf4nvf4"
                      : "mma.sync m16n8k64 kind::mxf4nvf4")
      .append(", packed fp4, K = 64) reach the FP4 rate: judged against fp8_tc");
}

enum class tc_path {
  wgmma,         ///< the sm_90a kernel (compute capability 9.0, built with 90)
  mma_sync,      ///< warp-level mma.sync, tc_plan::variant
  not_supported, ///< the GPU has no Tensor Core path for the type
  not_measured,  ///< the GPU has one, but this build cannot measure it honestly (reason says why)
  tcgen05,       ///< the sm_100f kernel (compute capability 10.x, built with 100 or 103)
};

struct tc_plan {
  tc_path path = tc_path::not_supported;
  std::optional<mma_variant> variant; ///< for mma_sync
  std::string reason;                 ///< for not_supported and not_measured
  /// For a path that runs: the arch-rate key the result is judged against (tc_ceiling_key,
  /// except where the instruction runs the type at another type's rate: tc_f8f6f4_ceiling_note).
  std::string ceiling;
  /// Why `ceiling` is not the type's own key; empty when it is.
  std::string ceiling_note;
};

/// Which architecture-specific kernels this build holds (kernels/CMakeLists.txt).
struct tc_builds {
  bool wgmma = false;      ///< sm_90a: wgmma_peak_built()
  bool tcgen05 = false;    ///< sm_100f: tcgen05_peak_built()
  bool mma_f8f6f4 = false; ///< sm_120f: mma_f8f6f4_built() (mma.sync kind::f8f6f4: fp6, fp4)
};

/// The types the wgmma kernels have: fp16, bf16, tf32, int8 and both fp8 types (e4m3, e5m2: the
/// PTX ISA's wgmma .atype/.btype for sm_90a); fp6 and fp4 are Blackwell's.
GPUSPEC_HOST_DEVICE constexpr bool wgmma_has(tc_dtype t) { return !tc_is_sub_byte(t); }
/// The types the tcgen05 kernels have (kind::f16, kind::tf32, kind::f8f6f4); int8 (kind::i8) is
/// not built: sm_103 lacks it and the family target sm_100f does not offer it.
GPUSPEC_HOST_DEVICE constexpr bool tcgen05_has(tc_dtype t) { return t != tc_dtype::int8; }

namespace tc_plan_detail {

inline std::string sm_name(int sm) { return "sm_" + std::to_string(sm); }

/// A plan that does not run, and why.
inline tc_plan refused(tc_path path, std::string reason) {
  tc_plan p;
  p.path = path;
  p.reason = std::move(reason);
  return p;
}

/// The plan where mma_variant_for has no mma.sync form of `t` for `sm`.
inline tc_plan without_mma_sync(tc_dtype t, int sm, const tc_builds& built) {
  const std::string gpu = sm_name(sm);
  switch (t) {
  case tc_dtype::bf16:
  case tc_dtype::tf32:
    return refused(
        tc_path::not_supported,
        std::string(tc_dtype_name(t))
            .append(" Tensor Cores need compute capability 8.0 (Ampere) or newer; this GPU is ")
            .append(gpu));
  case tc_dtype::fp8_e4m3:
  case tc_dtype::fp8_e5m2:
    return refused(
        tc_path::not_supported,
        std::string("fp8 (")
            .append(t == tc_dtype::fp8_e4m3 ? "e4m3" : "e5m2")
            .append(") Tensor Cores need compute capability 8.9 (Ada) or 9.0 (Hopper) or "
                    "newer; this GPU is ")
            .append(gpu));
  case tc_dtype::fp6_e3m2:
  case tc_dtype::fp6_e2m3:
  case tc_dtype::fp4_e2m1:
    if (sm / 10 == 10)
      return refused(
          tc_path::not_measured,
          std::string(tc_dtype_name(t))
              .append(" on ")
              .append(gpu)
              .append(" needs the tcgen05 kernels, and this build has none (its "
                      "CMAKE_CUDA_ARCHITECTURES held no 100 or 103, nor all or all-major)"));
    if (sm / 10 == 12 && !built.mma_f8f6f4)
      return refused(
          tc_path::not_measured,
          std::string(tc_dtype_name(t))
              .append(" on ")
              .append(gpu)
              .append(" needs the sm_120f mma.sync kind::f8f6f4 kernels, and this build has "
                      "none (its CMAKE_CUDA_ARCHITECTURES held no 120, nor all or all-major)"));
    return refused(
        tc_path::not_supported,
        std::string(tc_dtype_name(t))
            .append(" Tensor Cores need Blackwell (compute capability 10.x or 12.x); this "
                    "GPU is ")
            .append(gpu));
  case tc_dtype::fp16:
  case tc_dtype::int8:
    break;
  }
  return refused(tc_path::not_supported,
                 "warp-level mma needs compute capability 7.5 or newer; this GPU is " + gpu);
}

/// Why fp8 through mma.sync on `sm` is not measured (ptxas converts it to fp16 HMMA there).
inline tc_plan fp8_not_native(tc_dtype t, int sm) {
  std::string reason = "fp8 mma.sync on " + sm_name(sm);
  reason += t == tc_dtype::fp8_e4m3 ? " is not an fp8 Tensor Core path (ptxas converts e4m3 "
                                      "to fp16 and runs HMMA)"
                                    : " is not an fp8 Tensor Core path (ptxas converts e5m2 "
                                      "to fp16 and runs HMMA)";
  if (sm == 90)
    reason += ", and this build has no sm_90a wgmma kernel (its CMAKE_CUDA_ARCHITECTURES held "
              "no 90, nor all or all-major, or was native on a machine without a Hopper GPU)";
  else if (sm / 10 == 10)
    reason += ", and this build has no tcgen05 kernel (its CMAKE_CUDA_ARCHITECTURES held no 100 "
              "or 103, nor all or all-major)";
  else
    reason += ", and this build has no other fp8 kernel for it";
  return refused(tc_path::not_measured, reason);
}

/// Why int8 on 10.x is not measured: no tcgen05 kind::i8 kernel, and mma.sync there is not the
/// path the int8 Tensor Core peak is stated for.
inline tc_plan int8_on_10x(int sm) {
  return refused(
      tc_path::not_measured,
      "int8 on " + sm_name(sm) +
          " needs tcgen05.mma kind::i8, which this build has no kernel for (sm_103 lacks it "
          "and the family target sm_100f does not offer it); mma.sync on 10.x runs the "
          "previous generation's path, not the dense int8 Tensor Core peak the result would "
          "be judged against");
}

/// A plan that runs on `path`, judged against the type's own ceiling, or against fp8_tc where
/// the instruction is kind::f8f6f4 and the type is fp6 or fp4 (tc_f8f6f4_ceiling_note).
inline tc_plan runs(tc_path path, std::optional<mma_variant> v, tc_dtype t) {
  tc_plan p;
  p.path = path;
  p.variant = v;
  p.ceiling = tc_ceiling_key(t);
  const bool f8f6f4 = path == tc_path::tcgen05 || (v && mma_is_f8f6f4(*v));
  if (f8f6f4 && tc_is_sub_byte(t)) {
    p.ceiling = tc_ceiling_key(tc_dtype::fp8_e4m3);
    p.ceiling_note = tc_f8f6f4_ceiling_note(path == tc_path::tcgen05);
  }
  return p;
}

} // namespace tc_plan_detail

/// The tensor.mma benchmarks' choice for `t` on compute capability `sm` (major·10 + minor):
/// wgmma on 9.0 and tcgen05 on 10.x when built and the kernel has the type; otherwise mma.sync
/// where the type exists (mma_variant_for; fp6 and fp4 on 12.x only with the sm_120f kernels),
/// except fp8 where ptxas would turn mma.sync into fp16 HMMA (mma_sync_fp8_native) and int8 on
/// 10.x (tc_plan_detail::int8_on_10x). The plan names the ceiling that judges the result.
inline tc_plan plan_tc_peak(tc_dtype t, int sm, const tc_builds& built) {
  if (sm == 90 && built.wgmma && wgmma_has(t))
    return tc_plan_detail::runs(tc_path::wgmma, std::nullopt, t);
  if (sm / 10 == 10 && built.tcgen05 && tcgen05_has(t))
    return tc_plan_detail::runs(tc_path::tcgen05, std::nullopt, t);
  if (sm / 10 == 10 && t == tc_dtype::int8)
    return tc_plan_detail::int8_on_10x(sm);
  const std::optional<mma_variant> v = mma_variant_for(t, sm);
  if (!v || (mma_is_f8f6f4(*v) && !built.mma_f8f6f4))
    return tc_plan_detail::without_mma_sync(t, sm, built);
  if ((t == tc_dtype::fp8_e4m3 || t == tc_dtype::fp8_e5m2) && !mma_sync_fp8_native(sm))
    return tc_plan_detail::fp8_not_native(t, sm);
  return tc_plan_detail::runs(tc_path::mma_sync, v, t);
}

/// The plan of a build with (or without) the sm_90a kernels and no Blackwell-specific ones.
inline tc_plan plan_tc_peak(tc_dtype t, int sm, bool wgmma_built) {
  return plan_tc_peak(t, sm, tc_builds{wgmma_built, false, false});
}

// --- launchers (wgmma_peak.cu, or wgmma_peak_absent.cpp) ---------------------------------------

/// True when this build holds the sm_90a wgmma kernels.
[[nodiscard]] bool wgmma_peak_built();

/// What launching the wgmma peak kernel of one type on one device needs, found once by
/// prepare_wgmma_peak, so that launch_wgmma_peak makes no device query: it is launched inside
/// the sizing run and the timed runs. The benchmark holds it for its case (per device, per
/// kernel); nothing is cached globally.
struct wgmma_peak_launch {
  tc_dtype dtype = tc_dtype::fp16;
  int device = -1;     ///< the CUDA device it was prepared on; -1: not prepared
  unsigned blocks = 0; ///< a full device: SMs × resident blocks (1 per SM: 128 accumulator
                       ///< registers per thread)
};

/// Prepares the kernel of `t` on the current device: checks that it has compute capability 9.0
/// and counts the blocks of a full device. Throws std::invalid_argument for a type without a
/// kernel (wgmma_has) or another device, std::logic_error when the kernels were not built.
[[nodiscard]] wgmma_peak_launch prepare_wgmma_peak(tc_dtype t);

/// Enqueues the prepared wgmma peak kernel: `blocks` blocks of wgmma_block_threads. a_rows holds
/// 64 × 32 bytes, b_pos_rows and b_neg_rows 256 × 32 bytes each, all 16-byte aligned (as
/// make_wgmma_problem lays them out); `out` receives wgmma_output_words(blocks) words, `trips`
/// wgmma_count_words(blocks) work counters, `status` one word (tc_status_ran). Every warpgroup
/// issues 1 + 2·pairs wgmma instructions. The current device must be the one `prepared` was made
/// on. Throws std::invalid_argument for a bad argument (more than tc_max_pairs pairs, a launch
/// not prepared or prepared on another device), std::logic_error when the kernels were not
/// built.
void launch_wgmma_peak(const wgmma_peak_launch& prepared, const std::uint8_t* a_rows,
                       const std::uint8_t* b_pos_rows, const std::uint8_t* b_neg_rows,
                       std::uint32_t* out, std::uint32_t* trips, std::uint32_t* status,
                       unsigned blocks, std::uint32_t pairs, stream_handle stream);

} // namespace gpuspec::kernels
