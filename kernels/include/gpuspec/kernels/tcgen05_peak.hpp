#pragma once
/// Tensor Core peak on Blackwell datacenter GPUs (compute capability 10.0 and 10.3: B200, B300,
/// the GPUs of GB200 and GB300) with the fifth-generation Tensor Core instruction tcgen05.mma
/// (kernels/src_sm100f/tcgen05_peak.cu). CUDA-free: the launcher and the pure helpers the kernel,
/// the benchmark and the tests share. The kernel is built for the family-specific target sm_100f
/// alone (one cubin that runs on 10.0 and 10.3: CUDA 13's family-specific targets), when the
/// build's architecture list reaches 10.x (cmake/GpuspecCudaArchitectures.cmake); otherwise
/// kernels/src_sm100f/tcgen05_peak_absent.cpp defines the same functions, tcgen05_peak_built()
/// returns false and the launchers throw.
///
/// The computation mirrors wgmma_peak.hpp. Each block (one issuing thread, four warps to read the
/// result) allocates 256 columns of tensor memory for one 128×256 FP32 accumulator, keeps A
/// (128×K) and B, -B (K×256, stored K-major as 256 rows of K) in shared memory, and issues
/// D = A·B once and then `pairs` times D += A·(-B); D += A·B, so D ends at exactly A·B. K is 16
/// (fp16, bf16), 8 (tf32) or 32 (fp8, fp6, fp4: kind::f8f6f4): one row of A or B is always 32
/// bytes. The issuing thread commits its MMAs to an mbarrier (tcgen05.commit) that every thread
/// waits on before the accumulator is read out of tensor memory (tcgen05.ld) and stored; the
/// block then frees its columns (tcgen05.dealloc). As there, the thread also stores the trips
/// its pairs loop ran (work_count.hpp), which the host requires to equal `pairs`.
///
/// Shared-memory layout: the same canonical K-major, no-swizzle layout as the wgmma kernels
/// (wgmma_smem_offset: core matrices of 8 rows × 16 bytes, LBO 128 bytes along K, SBO 256 bytes
/// per 8 rows; PTX ISA, tcgen05 "Shared Memory Layout and Swizzling"). For kind::f8f6f4 the 6-
/// and 4-bit types sit 16 elements packed in each 16-byte chunk, padded (PTX ISA, "Packing
/// formats ... .kind::f8f6f4 in shared memory": 12 bytes of fp6 then 4 of padding, 8 of fp4 then
/// 8), so a row of 32 elements is still two 16-byte chunks.
///
/// Written without a Blackwell GPU: compiled, checked statically (scripts/inspect-kernels.py)
/// and reviewed against the PTX ISA, never run here (docs/measurement.md).

#include <cstddef>
#include <cstdint>
#include <vector>

#include "gpuspec/kernels/host_device.hpp"
#include "gpuspec/kernels/mma_peak.hpp"
#include "gpuspec/kernels/stream_handle.hpp"
#include "gpuspec/kernels/wgmma_peak.hpp"

namespace gpuspec::kernels {

inline constexpr int tcgen05_m = 128;
inline constexpr int tcgen05_n = 256;
/// Bytes of one row of A or of B (K-major) for one instruction, whatever the type.
inline constexpr int tcgen05_row_bytes = 32;
inline constexpr unsigned tcgen05_block_threads = 128;
/// Tensor-memory columns the block allocates: one FP32 column per accumulator column (a power of
/// two, at least 32: tcgen05.alloc).
inline constexpr std::uint32_t tcgen05_tmem_columns = tcgen05_n;
/// Blocks per SM the launcher aims for: two 256-column accumulators fill the 512 columns of an
/// SM's tensor memory, so a third block would wait in tcgen05.alloc. The launcher asks for enough
/// dynamic shared memory that no third block fits (tcgen05_peak_dynamic_smem).
inline constexpr unsigned tcgen05_blocks_per_sm = 2;

/// K of one instruction: 32 bytes of each row, 16 fp16/bf16, 8 tf32, 32 of the 8-bit containers.
GPUSPEC_HOST_DEVICE constexpr int tcgen05_k(tc_dtype t) { return 256 / tc_element_bits(t); }

/// The MMA kind of `t`: "f16", "tf32" or "f8f6f4".
constexpr const char* tcgen05_kind(tc_dtype t) {
  return t == tc_dtype::fp16 || t == tc_dtype::bf16 ? "f16"
         : t == tc_dtype::tf32                      ? "tf32"
                                                    : "f8f6f4";
}

// --- the instruction descriptor (PTX ISA, "Instruction descriptor" of tcgen05.mma) -----------

/// The A/B type field (3 bits): kind::f16 F16 0, BF16 1; kind::tf32 TF32 2; kind::f8f6f4 E4M3 0,
/// E5M2 1, E2M3 3, E3M2 4, E2M1 5.
GPUSPEC_HOST_DEVICE constexpr std::uint32_t tcgen05_type_field(tc_dtype t) {
  switch (t) {
  case tc_dtype::fp16:
  case tc_dtype::fp8_e4m3:
  case tc_dtype::int8:
    return 0;
  case tc_dtype::bf16:
  case tc_dtype::fp8_e5m2:
    return 1;
  case tc_dtype::tf32:
    return 2;
  case tc_dtype::fp6_e2m3:
    return 3;
  case tc_dtype::fp6_e3m2:
    return 4;
  case tc_dtype::fp4_e2m1:
    return 5;
  }
  return 7;
}

/// The 32-bit instruction descriptor: dense (bits 0-2 zero), no saturation (3), D F32 (bits 4-5 =
/// 1), A type (7-9), B type (10-12), no negation (13, 14), A and B K-major (15, 16 zero), N >> 3
/// (17-22), M >> 4 (24-28), no shift (30-31).
GPUSPEC_HOST_DEVICE constexpr std::uint32_t tcgen05_instruction_descriptor(tc_dtype t, int m,
                                                                           int n) {
  const std::uint32_t type = tcgen05_type_field(t);
  return (1u << 4) | (type << 7) | (type << 10) | ((static_cast<std::uint32_t>(n) >> 3) << 17) |
         ((static_cast<std::uint32_t>(m) >> 4) << 24);
}

/// The 64-bit shared-memory descriptor: the wgmma fields (start address bits 0-13, LBO 16-29,
/// SBO 32-45, all >> 4), the fixed version 0b001 in bits 46-48 that tcgen05 requires, base
/// offset (49-51) 0, relative LBO (52), no swizzle (bits 61-63 zero).
GPUSPEC_HOST_DEVICE constexpr std::uint64_t tcgen05_smem_descriptor(std::uint32_t smem_address,
                                                                    std::uint32_t lbo_bytes,
                                                                    std::uint32_t sbo_bytes) {
  return wgmma_descriptor(smem_address, lbo_bytes, sbo_bytes) | (std::uint64_t{1} << 46);
}

/// The PTX instruction the kernel of `t` issues (its types are in the instruction descriptor).
constexpr const char* tcgen05_ptx(tc_dtype t) {
  switch (t) {
  case tc_dtype::fp16:
  case tc_dtype::bf16:
    return "tcgen05.mma.cta_group::1.kind::f16";
  case tc_dtype::tf32:
    return "tcgen05.mma.cta_group::1.kind::tf32";
  default:
    return "tcgen05.mma.cta_group::1.kind::f8f6f4";
  }
}

// --- work ------------------------------------------------------------------------------------

/// Operations (2 per multiply-add) of one launch of `blocks` blocks: one accumulator per block,
/// 1 + 2·pairs instructions of 2·M·N·K each (counted as the wgmma kernels count theirs).
constexpr double tcgen05_operations(tc_dtype t, std::uint64_t blocks, std::uint32_t pairs) {
  const double per_instruction = 2.0 * tcgen05_m * tcgen05_n * tcgen05_k(t);
  return static_cast<double>(blocks) * static_cast<double>(mma_ops_per_accumulator(pairs)) *
         per_instruction;
}

/// 32-bit words the kernel stores: one row-major 128×256 tile per block.
constexpr std::size_t tcgen05_output_words(std::uint64_t blocks) {
  return static_cast<std::size_t>(blocks) * static_cast<std::size_t>(tcgen05_m * tcgen05_n);
}

/// Work counters the kernel stores: one per block, the trips of its issuing thread's pairs loop.
constexpr std::size_t tcgen05_count_words(std::uint64_t blocks) {
  return static_cast<std::size_t>(blocks);
}

// --- the host side of one problem ------------------------------------------------------------

/// A, B and -B as values and as the bytes of their 32-byte rows (tcgen05_put_row's packing), the
/// form the kernel copies into shared memory; and the reference A·B, exact.
struct tcgen05_problem {
  tc_dtype dtype{};
  int k = 0;
  std::vector<double> a;  ///< 128×K, row-major
  std::vector<double> bt; ///< 256×K: bt[n·K + k] = B[k][n] (B K-major)
  std::vector<std::uint8_t> a_rows, b_pos_rows, b_neg_rows;
  std::vector<double> d; ///< 128×256, row-major: A·B
};

/// Writes element `kk` (0..K-1) of value `v` into a 32-byte row: 8-, 16- and 32-bit types
/// little-endian at kk·bytes; fp6 and fp4 as tc_code, 16 elements packed per 16-byte chunk from
/// its bit 0 (element e of a chunk at bits e·6 or e·4), the rest of the chunk zero.
inline void tcgen05_put_row(std::uint8_t* row, tc_dtype t, int kk, double v) {
  if (!tc_is_sub_byte(t)) {
    const int bytes = tc_element_bits(t) / 8;
    const std::uint32_t bits = tc_encode(t, v);
    for (int b = 0; b < bytes; ++b)
      row[kk * bytes + b] = static_cast<std::uint8_t>(bits >> (8 * b));
    return;
  }
  const int width = tc_code_bits(t);
  const std::uint32_t code = tc_code(t, v);
  std::uint8_t* chunk = row + 16 * (kk / 16);
  const int bit = (kk % 16) * width;
  for (int i = 0; i < width; ++i)
    if (((code >> i) & 1u) != 0)
      chunk[(bit + i) / 8] =
          static_cast<std::uint8_t>(chunk[(bit + i) / 8] | (1u << ((bit + i) % 8)));
}

inline tcgen05_problem make_tcgen05_problem(tc_dtype t, std::uint64_t seed) {
  tcgen05_problem pr;
  pr.dtype = t;
  pr.k = tcgen05_k(t);
  const int k = pr.k;
  pr.a.resize(static_cast<std::size_t>(tcgen05_m * k));
  pr.bt.resize(static_cast<std::size_t>(tcgen05_n * k));
  for (std::size_t i = 0; i < pr.a.size(); ++i)
    pr.a[i] = tc_operand_value(t, seed, i);
  for (std::size_t i = 0; i < pr.bt.size(); ++i)
    pr.bt[i] = tc_operand_value(t, seed ^ 0x5bd1e995u, i);
  pr.a_rows.assign(static_cast<std::size_t>(tcgen05_m * tcgen05_row_bytes), 0);
  pr.b_pos_rows.assign(static_cast<std::size_t>(tcgen05_n * tcgen05_row_bytes), 0);
  pr.b_neg_rows.assign(static_cast<std::size_t>(tcgen05_n * tcgen05_row_bytes), 0);
  for (int m = 0; m < tcgen05_m; ++m)
    for (int kk = 0; kk < k; ++kk)
      tcgen05_put_row(pr.a_rows.data() + m * tcgen05_row_bytes, t, kk,
                      pr.a[static_cast<std::size_t>(m * k + kk)]);
  for (int n = 0; n < tcgen05_n; ++n)
    for (int kk = 0; kk < k; ++kk) {
      const double v = pr.bt[static_cast<std::size_t>(n * k + kk)];
      tcgen05_put_row(pr.b_pos_rows.data() + n * tcgen05_row_bytes, t, kk, v);
      tcgen05_put_row(pr.b_neg_rows.data() + n * tcgen05_row_bytes, t, kk, -v);
    }
  pr.d.assign(static_cast<std::size_t>(tcgen05_m * tcgen05_n), 0.0);
  for (int m = 0; m < tcgen05_m; ++m)
    for (int n = 0; n < tcgen05_n; ++n) {
      double sum = 0.0; // exact: small multiples of 1/4
      for (int kk = 0; kk < k; ++kk)
        sum += pr.a[static_cast<std::size_t>(m * k + kk)] *
               pr.bt[static_cast<std::size_t>(n * k + kk)];
      pr.d[static_cast<std::size_t>(m * tcgen05_n + n)] = sum;
    }
  return pr;
}

// --- launchers (tcgen05_peak.cu, or tcgen05_peak_absent.cpp) ---------------------------------

/// True when this build holds the sm_100f tcgen05 kernels.
[[nodiscard]] bool tcgen05_peak_built();

/// Dynamic shared memory per block, given the device's shared memory per SM and the most one
/// block may opt in to: the operands, or enough that no more than tcgen05_blocks_per_sm blocks
/// fit on an SM (a further one would wait in tcgen05.alloc for tensor memory).
constexpr int tcgen05_dynamic_smem_bytes(int smem_per_sm, int smem_per_block_optin) {
  const int operands = tcgen05_m * tcgen05_row_bytes + 2 * tcgen05_n * tcgen05_row_bytes;
  const int crowded = smem_per_sm / static_cast<int>(tcgen05_blocks_per_sm + 1) + 1024;
  const int want = operands > crowded ? operands : crowded;
  return want < smem_per_block_optin ? want : smem_per_block_optin;
}

/// What launching the tcgen05 peak kernel of one type on one device needs, found once by
/// prepare_tcgen05_peak (device attributes read, the kernel's dynamic shared-memory limit set),
/// so that launch_tcgen05_peak makes no device query and sets no attribute: it is launched inside
/// the sizing run and the timed runs. The benchmark holds it for its case (per device, per
/// kernel); nothing is cached globally.
struct tcgen05_peak_launch {
  tc_dtype dtype = tc_dtype::fp16;
  int device = -1;            ///< the CUDA device it was prepared on; -1: not prepared
  unsigned blocks = 0;        ///< a full device: SMs × resident blocks (tcgen05_blocks_per_sm)
  int dynamic_smem_bytes = 0; ///< tcgen05_dynamic_smem_bytes of the device
};

/// Prepares the kernel of `t` on the current device: checks that it has compute capability 10.x,
/// allows the kernel its dynamic shared memory, and counts the blocks of a full device. Throws
/// std::invalid_argument for a type without a kernel (tcgen05_has) or another device,
/// std::logic_error when the kernels were not built.
[[nodiscard]] tcgen05_peak_launch prepare_tcgen05_peak(tc_dtype t);

/// Enqueues the prepared tcgen05 peak kernel: `blocks` blocks of tcgen05_block_threads. a_rows
/// holds 128 × 32 bytes, b_pos_rows and b_neg_rows 256 × 32 bytes each, all 16-byte aligned (as
/// make_tcgen05_problem lays them out); `out` receives tcgen05_output_words(blocks) words,
/// `trips` tcgen05_count_words(blocks) work counters, `status` one word (tc_status_ran). Every
/// block issues 1 + 2·pairs tcgen05.mma instructions. The current device must be the one
/// `prepared` was made on. Throws std::invalid_argument for a bad argument (more than
/// tc_max_pairs pairs, a launch not prepared or prepared on another device), std::logic_error
/// when the kernels were not built.
void launch_tcgen05_peak(const tcgen05_peak_launch& prepared, const std::uint8_t* a_rows,
                         const std::uint8_t* b_pos_rows, const std::uint8_t* b_neg_rows,
                         std::uint32_t* out, std::uint32_t* trips, std::uint32_t* status,
                         unsigned blocks, std::uint32_t pairs, stream_handle stream);

} // namespace gpuspec::kernels
