#pragma once
/// Tensor Core peak with warp-level mma.sync (kernels/src/mma_peak.cu). CUDA-free: the launcher,
/// and the pure helpers the kernels, the benchmark and the tests share: operand values and their
/// encodings, the register-fragment layouts of each mma shape (PTX ISA, "Matrix Fragments for
/// mma.m16n8k16" and its siblings), and the work counts.
///
/// The computation. Each warp holds one A tile (M×K) and two B tiles, B and -B (K×N), in
/// registers, loaded once from global memory, and mma_accumulators independent accumulator tiles
/// (M×N, FP32 or INT32), all starting at 0. It runs, on every accumulator:
///
///     D = A·B + D                       once, then `pairs` times:
///     D = A·(-B) + D;  D = A·B + D
///
/// so every accumulator ends at exactly A·B after 1 + 2·pairs mma operations, whatever the
/// number of pairs: the accumulator swings between A·B and 0. The operands are small multiples
/// of 1/2 (integers in [-7, 7] for int8) so A·B and every intermediate value are exact in FP32
/// (and in the narrower accumulation some Tensor Cores use for FP8); the host reference is
/// exact and the check is bit-exact. Nothing is dead code: every accumulator is stored.
///
/// That check cannot see how many pairs ran, so each warp also stores the trips its pairs loop
/// ran (work_count.hpp), and the host requires every warp to have run exactly `pairs`: the
/// count the FLOP figure (mma_sync_operations) assumes.

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpuspec/kernels/fill.hpp"
#include "gpuspec/kernels/host_device.hpp"
#include "gpuspec/kernels/seeded_values.hpp"
#include "gpuspec/kernels/stream_handle.hpp"

namespace gpuspec::kernels {

// --- operand types ---------------------------------------------------------------------------

/// The Tensor Core input types the tensor.mma benchmarks measure. The last four are Blackwell's
/// (kind::f8f6f4 on compute capability 10.x and 12.x; e5m2 also mma.sync on sm_89 and 12.x).
enum class tc_dtype { fp16, bf16, tf32, int8, fp8_e4m3, fp8_e5m2, fp6_e3m2, fp6_e2m3, fp4_e2m1 };

/// True for the 6- and 4-bit types, which the Tensor Cores read one element per byte (an 8-bit
/// register container for mma.sync, 16 elements packed per 16-byte chunk in shared memory for
/// tcgen05.mma): they are counted as 8-bit elements for every shape and size here.
GPUSPEC_HOST_DEVICE constexpr bool tc_is_sub_byte(tc_dtype t) {
  return t == tc_dtype::fp6_e3m2 || t == tc_dtype::fp6_e2m3 || t == tc_dtype::fp4_e2m1;
}

/// Bits one A or B element takes in a register or a shared-memory row (tf32 travels in a 32-bit
/// register; fp6 and fp4 in an 8-bit container: tc_is_sub_byte).
GPUSPEC_HOST_DEVICE constexpr int tc_element_bits(tc_dtype t) {
  switch (t) {
  case tc_dtype::fp16:
  case tc_dtype::bf16:
    return 16;
  case tc_dtype::tf32:
    return 32;
  case tc_dtype::int8:
  case tc_dtype::fp8_e4m3:
  case tc_dtype::fp8_e5m2:
  case tc_dtype::fp6_e3m2:
  case tc_dtype::fp6_e2m3:
  case tc_dtype::fp4_e2m1:
    return 8;
  }
  return 0;
}

/// True for int8 (INT32 accumulators, TOPS); false for the float types (FP32 accumulators).
GPUSPEC_HOST_DEVICE constexpr bool tc_is_integer(tc_dtype t) { return t == tc_dtype::int8; }

/// "fp16", "bf16", "tf32", "int8", "fp8", "fp8_e5m2", "fp6", "fp6_e2m3", "fp4": the benchmark
/// id's last part (fp8 is e4m3, fp6 is e3m2, fp4 is e2m1).
constexpr const char* tc_dtype_name(tc_dtype t) {
  switch (t) {
  case tc_dtype::fp16:
    return "fp16";
  case tc_dtype::bf16:
    return "bf16";
  case tc_dtype::tf32:
    return "tf32";
  case tc_dtype::int8:
    return "int8";
  case tc_dtype::fp8_e4m3:
    return "fp8";
  case tc_dtype::fp8_e5m2:
    return "fp8_e5m2";
  case tc_dtype::fp6_e3m2:
    return "fp6";
  case tc_dtype::fp6_e2m3:
    return "fp6_e2m3";
  case tc_dtype::fp4_e2m1:
    return "fp4";
  }
  return "?";
}

/// The ceiling key of the arch-rate table ("fp16_tc", ...).
constexpr const char* tc_ceiling_key(tc_dtype t) {
  switch (t) {
  case tc_dtype::fp16:
    return "fp16_tc";
  case tc_dtype::bf16:
    return "bf16_tc";
  case tc_dtype::tf32:
    return "tf32_tc";
  case tc_dtype::int8:
    return "int8_tc";
  case tc_dtype::fp8_e4m3:
  case tc_dtype::fp8_e5m2:
    return "fp8_tc";
  case tc_dtype::fp6_e3m2:
  case tc_dtype::fp6_e2m3:
    return "fp6_tc";
  case tc_dtype::fp4_e2m1:
    return "fp4_tc";
  }
  return "";
}

/// Operand value `index` of the sequence `seed`: ±{0.5, 1, 1.5, 2} for the float types (exact in
/// fp16, bf16, tf32, e4m3 and e5m2: at most two significant bits), ±{1, 1.5, 2, 3} for fp6 and
/// fp4 (normal numbers of e3m2, e2m3 and e2m1, whose 0.5 would be subnormal in e2m3 and e2m1),
/// an integer in [-7, 7] for int8. With K ≤ 32 every entry of A·B is a multiple of 1/4 of
/// magnitude ≤ 288: exact in FP32.
inline double tc_operand_value(tc_dtype t, std::uint64_t seed, std::uint64_t index) {
  const std::uint64_t bits = seeded_bits(seed, index);
  if (tc_is_integer(t))
    return static_cast<double>(static_cast<int>(bits % 15) - 7);
  static constexpr double sub_byte_values[] = {1.0, 1.5, 2.0, 3.0};
  const double magnitude =
      tc_is_sub_byte(t) ? sub_byte_values[bits & 3] : 0.5 * static_cast<double>(1 + (bits & 3));
  return ((bits >> 2) & 1) != 0 ? -magnitude : magnitude;
}

/// Bits of a normal binary floating-point number with `exponent_bits` and `mantissa_bits`
/// (IEEE-style bias, no infinities needed): fp16 (5, 10), bf16 (8, 7), fp32/tf32 (8, 23),
/// e4m3 (4, 3), e5m2 (5, 2), e3m2 (3, 2), e2m3 (2, 3), e2m1 (2, 1). Throws std::invalid_argument if
/// `v` is not exactly representable as a normal number (or zero) of that format: the benchmark's
/// operands must be exact.
inline std::uint32_t encode_float_bits(double v, int exponent_bits, int mantissa_bits) {
  if (v == 0.0)
    return 0;
  if (!std::isfinite(v))
    throw std::invalid_argument("encode_float_bits: not a finite value");
  const std::uint32_t sign = v < 0 ? 1u : 0u;
  int e = 0;
  const double f = std::frexp(std::fabs(v), &e); // |v| = f·2^e, f in [0.5, 1)
  const int exponent = e - 1;                    // |v| = (2f)·2^(e-1), 2f in [1, 2)
  const double scaled = (2.0 * f - 1.0) * std::ldexp(1.0, mantissa_bits);
  const int bias = (1 << (exponent_bits - 1)) - 1;
  // e4m3, e3m2, e2m3 and e2m1 have no infinities: their largest exponent field is usable (e4m3:
  // bias 7, fields 1..15). e5m2, fp16 and wider keep theirs for infinities and NaNs.
  const int max_field = exponent_bits <= 4 ? (1 << exponent_bits) - 1 : (1 << exponent_bits) - 2;
  const int field = exponent + bias;
  if (scaled != std::floor(scaled) || field < 1 || field > max_field)
    throw std::invalid_argument(std::string("encode_float_bits: ")
                                    .append(std::to_string(v))
                                    .append(" is not exactly representable as a normal number "
                                            "with ")
                                    .append(std::to_string(exponent_bits))
                                    .append(" exponent and ")
                                    .append(std::to_string(mantissa_bits))
                                    .append(" mantissa bits"));
  return (sign << (exponent_bits + mantissa_bits)) |
         (static_cast<std::uint32_t>(field) << mantissa_bits) | static_cast<std::uint32_t>(scaled);
}

/// The bits of `v` as type `t` itself, packed (6 bits of e3m2 or e2m3, 4 of e2m1); tc_encode for
/// the others. The form tcgen05.mma reads fp6 and fp4 in from shared memory (tcgen05_peak.hpp).
inline std::uint32_t tc_code(tc_dtype t, double v);

/// The element bits of `v` as type `t` (in the low tc_element_bits(t) bits): the form mma.sync
/// reads from a register. tf32 is written as FP32 bits (the Tensor Core reads the top 19); int8
/// as two's complement; fp6 in bits 0-5 of its byte and fp4 in bits 2-5 (mma.sync with
/// kind::f8f6f4 reads e2m1 in the middle of its 8-bit container: CUTLASS's sm_120 fp4 operand
/// shift, cutlass/gemm/collective/sm120_*; e3m2 and e2m3 as ldmatrix .b6x16_p32 leaves them,
/// unshifted). Throws std::invalid_argument for a value the type cannot hold exactly.
inline std::uint32_t tc_encode(tc_dtype t, double v) {
  switch (t) {
  case tc_dtype::fp16:
    return encode_float_bits(v, 5, 10);
  case tc_dtype::bf16:
    return encode_float_bits(v, 8, 7);
  case tc_dtype::tf32: {
    const std::uint32_t bits = encode_float_bits(v, 8, 23);
    if ((bits & 0x1FFFu) != 0) // tf32 keeps 10 mantissa bits
      throw std::invalid_argument("tc_encode: value not exact in tf32");
    return bits;
  }
  case tc_dtype::int8: {
    if (v != std::floor(v) || v < -127 || v > 127)
      throw std::invalid_argument("tc_encode: int8 operand out of range or not an integer");
    return static_cast<std::uint32_t>(static_cast<std::uint8_t>(static_cast<std::int8_t>(v)));
  }
  case tc_dtype::fp8_e4m3:
    return encode_float_bits(v, 4, 3);
  case tc_dtype::fp8_e5m2:
    return encode_float_bits(v, 5, 2);
  case tc_dtype::fp6_e3m2:
  case tc_dtype::fp6_e2m3:
    return tc_code(t, v);
  case tc_dtype::fp4_e2m1:
    return tc_code(t, v) << 2;
  }
  throw std::invalid_argument("tc_encode: unknown type");
}

inline std::uint32_t tc_code(tc_dtype t, double v) {
  switch (t) {
  case tc_dtype::fp6_e3m2:
    return encode_float_bits(v, 3, 2);
  case tc_dtype::fp6_e2m3:
    return encode_float_bits(v, 2, 3);
  case tc_dtype::fp4_e2m1:
    return encode_float_bits(v, 2, 1);
  default:
    return tc_encode(t, v);
  }
}

/// Bits of the packed code tc_code writes: 6 for fp6, 4 for fp4, tc_element_bits otherwise.
GPUSPEC_HOST_DEVICE constexpr int tc_code_bits(tc_dtype t) {
  return t == tc_dtype::fp4_e2m1 ? 4 : tc_is_sub_byte(t) ? 6 : tc_element_bits(t);
}

/// A 32-bit accumulator word as a number: FP32 bits, or an INT32 for integer accumulation.
inline double tc_accumulator_value(bool integer, std::uint32_t word) {
  return integer ? static_cast<double>(std::bit_cast<std::int32_t>(word))
                 : static_cast<double>(std::bit_cast<float>(word));
}

// --- output poison ---------------------------------------------------------------------------
//
// Every accumulator only ever holds 0 or an entry of A·B (the pairs swing between the two), and
// the entries are bounded: int8 operands are integers in [-7, 7] and K is at most 32 for every
// mma.sync and wgmma shape here, so |A·B| <= 32·7·7 = 1568; the float operands give multiples of
// 1/4 of magnitude at most 128, all finite.

/// The largest magnitude an int8 accumulator can reach (K <= 32, operands in [-7, 7]).
inline constexpr std::int32_t tc_int8_max_magnitude = 32 * 7 * 7;
/// The poison byte of the INT32 accumulators' output: 0x80808080 = -2139062144, far outside
/// ±tc_int8_max_magnitude. (The all-ones word, -1, would be a legal result.)
inline constexpr std::uint8_t tc_int32_poison_byte = 0x80;
static_assert(-static_cast<std::int64_t>(std::bit_cast<std::int32_t>(
                  byte_poison_word(tc_int32_poison_byte))) > tc_int8_max_magnitude);

/// The poison byte of an output of type `t`: 0x80 for INT32 accumulators, 0xFF (a NaN: no
/// result is one) for FP32 accumulators.
constexpr std::uint8_t tc_output_poison_byte(tc_dtype t) {
  return tc_is_integer(t) ? tc_int32_poison_byte : std::uint8_t{0xFF};
}
/// The word an unwritten output element of type `t` holds.
constexpr std::uint32_t tc_output_poison_word(tc_dtype t) {
  return byte_poison_word(tc_output_poison_byte(t));
}

// --- mma.sync shapes ---------------------------------------------------------------------------

/// One mma.sync instruction form per value; each has its own kernel, named after it.
enum class mma_variant {
  fp16_m16n8k16, ///< sm_80+: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
  bf16_m16n8k16, ///< sm_80+: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
  tf32_m16n8k8,  ///< sm_80+: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
  int8_m16n8k32, ///< sm_80+: mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32
  fp8_m16n8k32,  ///< sm_89+: mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32
  fp16_m16n8k8,  ///< sm_75+: mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 (Turing's shape)
  int8_m8n8k16,  ///< sm_75+: mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32 (Turing's shape)
  e5m2_m16n8k32, ///< sm_89+: mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32
  /// sm_120f (12.x): mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.<t>.<t>.f32, one per
  /// type, kernels in kernels/src_sm120f (built for the family-specific target alone).
  e3m2_m16n8k32,
  e2m3_m16n8k32,
  e2m1_m16n8k32,
};

inline constexpr mma_variant all_mma_variants[] = {
    mma_variant::fp16_m16n8k16, mma_variant::bf16_m16n8k16, mma_variant::tf32_m16n8k8,
    mma_variant::int8_m16n8k32, mma_variant::fp8_m16n8k32,  mma_variant::fp16_m16n8k8,
    mma_variant::int8_m8n8k16,  mma_variant::e5m2_m16n8k32, mma_variant::e3m2_m16n8k32,
    mma_variant::e2m3_m16n8k32, mma_variant::e2m1_m16n8k32};

/// True for the kind::f8f6f4 variants, whose kernels need the family-specific target sm_120f.
GPUSPEC_HOST_DEVICE constexpr bool mma_is_f8f6f4(mma_variant v) {
  return v == mma_variant::e3m2_m16n8k32 || v == mma_variant::e2m3_m16n8k32 ||
         v == mma_variant::e2m1_m16n8k32;
}

struct mma_variant_info {
  tc_dtype dtype;
  int m, n, k;
  int a_regs, b_regs, c_regs; ///< 32-bit registers per lane of A, B and the accumulator
  int min_sm;                 ///< 75, 80, 89 or 120
};

GPUSPEC_HOST_DEVICE constexpr mma_variant_info mma_info(mma_variant v) {
  switch (v) {
  case mma_variant::fp16_m16n8k16:
    return {tc_dtype::fp16, 16, 8, 16, 4, 2, 4, 80};
  case mma_variant::bf16_m16n8k16:
    return {tc_dtype::bf16, 16, 8, 16, 4, 2, 4, 80};
  case mma_variant::tf32_m16n8k8:
    return {tc_dtype::tf32, 16, 8, 8, 4, 2, 4, 80};
  case mma_variant::int8_m16n8k32:
    return {tc_dtype::int8, 16, 8, 32, 4, 2, 4, 80};
  case mma_variant::fp8_m16n8k32:
    return {tc_dtype::fp8_e4m3, 16, 8, 32, 4, 2, 4, 89};
  case mma_variant::fp16_m16n8k8:
    return {tc_dtype::fp16, 16, 8, 8, 2, 1, 4, 75};
  case mma_variant::int8_m8n8k16:
    return {tc_dtype::int8, 8, 8, 16, 1, 1, 2, 75};
  case mma_variant::e5m2_m16n8k32:
    return {tc_dtype::fp8_e5m2, 16, 8, 32, 4, 2, 4, 89};
  case mma_variant::e3m2_m16n8k32:
    return {tc_dtype::fp6_e3m2, 16, 8, 32, 4, 2, 4, 120};
  case mma_variant::e2m3_m16n8k32:
    return {tc_dtype::fp6_e2m3, 16, 8, 32, 4, 2, 4, 120};
  case mma_variant::e2m1_m16n8k32:
    return {tc_dtype::fp4_e2m1, 16, 8, 32, 4, 2, 4, 120};
  }
  return {tc_dtype::fp16, 0, 0, 0, 0, 0, 0, 0};
}

/// The PTX instruction of a variant, as the kernel writes it.
constexpr const char* mma_ptx(mma_variant v) {
  switch (v) {
  case mma_variant::fp16_m16n8k16:
    return "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32";
  case mma_variant::bf16_m16n8k16:
    return "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32";
  case mma_variant::tf32_m16n8k8:
    return "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32";
  case mma_variant::int8_m16n8k32:
    return "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32";
  case mma_variant::fp8_m16n8k32:
    return "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32";
  case mma_variant::fp16_m16n8k8:
    return "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32";
  case mma_variant::int8_m8n8k16:
    return "mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32";
  case mma_variant::e5m2_m16n8k32:
    return "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32";
  case mma_variant::e3m2_m16n8k32:
    return "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e3m2.e3m2.f32";
  case mma_variant::e2m3_m16n8k32:
    return "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m3.e2m3.f32";
  case mma_variant::e2m1_m16n8k32:
    return "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e2m1.f32";
  }
  return "";
}

/// The variant the benchmark runs for `dtype` on compute capability `sm` (major·10 + minor), or
/// nothing where the GPU has no Tensor Core path for that type: bf16 and tf32 need sm_80, fp8
/// (e4m3, e5m2) sm_89, fp6 and fp4 (kind::f8f6f4) compute capability 12.x; sm_75 (Turing) runs
/// fp16 as m16n8k8 and int8 as m8n8k16.
constexpr std::optional<mma_variant> mma_variant_for(tc_dtype dtype, int sm) {
  if (sm < 75)
    return std::nullopt;
  switch (dtype) {
  case tc_dtype::fp16:
    return sm >= 80 ? mma_variant::fp16_m16n8k16 : mma_variant::fp16_m16n8k8;
  case tc_dtype::int8:
    return sm >= 80 ? mma_variant::int8_m16n8k32 : mma_variant::int8_m8n8k16;
  case tc_dtype::bf16:
    return sm >= 80 ? std::optional(mma_variant::bf16_m16n8k16) : std::nullopt;
  case tc_dtype::tf32:
    return sm >= 80 ? std::optional(mma_variant::tf32_m16n8k8) : std::nullopt;
  case tc_dtype::fp8_e4m3:
    return sm >= 89 ? std::optional(mma_variant::fp8_m16n8k32) : std::nullopt;
  case tc_dtype::fp8_e5m2:
    return sm >= 89 ? std::optional(mma_variant::e5m2_m16n8k32) : std::nullopt;
  case tc_dtype::fp6_e3m2:
  case tc_dtype::fp6_e2m3:
  case tc_dtype::fp4_e2m1:
    break;
  }
  if (sm < 120 || sm >= 130)
    return std::nullopt;
  return dtype == tc_dtype::fp6_e3m2   ? mma_variant::e3m2_m16n8k32
         : dtype == tc_dtype::fp6_e2m3 ? mma_variant::e2m3_m16n8k32
                                       : mma_variant::e2m1_m16n8k32;
}

/// True where mma.sync with e4m3 (or e5m2) operands runs on fp8 Tensor Core hardware: sm_89 (QMMA)
/// and sm_12x. ptxas for sm_90, sm_100, sm_103 and sm_110 accepts the instruction but converts the
/// operands to fp16 and runs HMMA.16816 (and, with several accumulators sharing A and B, computes
/// the product once and adds it with FADD): no fp8 Tensor Core figure (cuobjdump -sass, CUDA 13).
constexpr bool mma_sync_fp8_native(int sm) { return sm == 89 || (sm >= 120 && sm < 130); }

// --- register fragments (PTX ISA, "Matrix Fragments for mma.m16n8k16" and siblings) ----------
//
// Lane l of the warp is groupID g = l / 4 and threadID_in_group t = l % 4. A 32-bit register
// packs p = 32 / bits elements, element e in bits [e·bits, (e+1)·bits). For every shape used here
// the PTX tables reduce to one rule (M = 16 or 8, K = 4·p·(number of K halves)):
//   A (M×K, row):  register r, element e -> row g + 8·(r mod M/8),  col t·p + e + 4p·(r div M/8)
//   B (K×N, col):  register r, element e -> row (k) t·p + e + 4p·r,  col (n) g
//   C/D (M×N):     element i             -> row g + 8·(i div 2),    col 2t + (i mod 2)
// e.g. m16n8k16 f16: a0,a1 at (g, 2t..2t+1), a2,a3 at (g+8, ...), a4..a7 eight columns on;
// m16n8k8 tf32: a0 (g, t), a1 (g+8, t), a2 (g, t+4), a3 (g+8, t+4); b0 (t, g), b1 (t+4, g).

struct matrix_coord {
  int row, col;
};

GPUSPEC_HOST_DEVICE constexpr int mma_elements_per_register(mma_variant v) {
  return 32 / tc_element_bits(mma_info(v).dtype);
}

/// Position in A (row m, column k) of element `e` of A register `reg` of lane `lane`.
GPUSPEC_HOST_DEVICE constexpr matrix_coord mma_a_coord(mma_variant v, int lane, int reg, int e) {
  const mma_variant_info info = mma_info(v);
  const int p = mma_elements_per_register(v);
  const int g = lane / 4, t = lane % 4;
  const int row_halves = info.m / 8;
  return {g + 8 * (reg % row_halves), t * p + e + 4 * p * (reg / row_halves)};
}

/// Position in B (row k, column n) of element `e` of B register `reg` of lane `lane`.
GPUSPEC_HOST_DEVICE constexpr matrix_coord mma_b_coord(mma_variant v, int lane, int reg, int e) {
  const int p = mma_elements_per_register(v);
  const int g = lane / 4, t = lane % 4;
  return {t * p + e + 4 * p * reg, g};
}

/// Position in the accumulator (row m, column n) of accumulator register `i` of lane `lane`.
GPUSPEC_HOST_DEVICE constexpr matrix_coord mma_c_coord(int lane, int i) {
  const int g = lane / 4, t = lane % 4;
  return {g + 8 * (i / 2), 2 * t + i % 2};
}

// --- launch shape and work -------------------------------------------------------------------

/// Threads per block (8 warps), independent accumulator tiles per warp, and the most blocks per
/// SM the launcher uses (8 warps per SM partition, each with 8 independent mma chains: more than
/// the Tensor Core pipeline needs to issue back to back).
inline constexpr unsigned mma_block_threads = 256;
inline constexpr unsigned mma_warps_per_block = mma_block_threads / 32;
inline constexpr int mma_accumulators = 8;
inline constexpr unsigned mma_max_blocks_per_sm = 4;

/// The most pairs a launcher takes (mma.sync and wgmma): a work counter (at most this many trips)
/// stays far below its poison, work_count_poison.
inline constexpr std::uint32_t tc_max_pairs = std::uint32_t{1} << 24;

/// mma operations on each accumulator for `pairs`: 1 + 2·pairs.
GPUSPEC_HOST_DEVICE constexpr std::uint64_t mma_ops_per_accumulator(std::uint32_t pairs) {
  return 1 + 2 * static_cast<std::uint64_t>(pairs);
}

/// Operations (2 per multiply-add) of one launch of `blocks` blocks.
constexpr double mma_sync_operations(mma_variant v, std::uint64_t blocks, std::uint32_t pairs) {
  const mma_variant_info info = mma_info(v);
  const double per_mma = 2.0 * info.m * info.n * info.k;
  return static_cast<double>(blocks) * mma_warps_per_block * mma_accumulators *
         static_cast<double>(mma_ops_per_accumulator(pairs)) * per_mma;
}

/// 32-bit words the kernel stores: one M×N tile per accumulator per warp, row-major.
constexpr std::size_t mma_output_words(mma_variant v, std::uint64_t blocks) {
  const mma_variant_info info = mma_info(v);
  return static_cast<std::size_t>(blocks) * mma_warps_per_block * mma_accumulators *
         static_cast<std::size_t>(info.m * info.n);
}

/// Work counters the kernel stores: one per warp (warp w of block b at b·8 + w), each the trips
/// of its pairs loop, which must equal `pairs` (work_count.hpp).
constexpr std::size_t mma_count_words(std::uint64_t blocks) {
  return static_cast<std::size_t>(blocks) * mma_warps_per_block;
}

// --- the status word -----------------------------------------------------------------------
//
// Thread 0 of block 0 writes __CUDA_ARCH__ (e.g. 900) when the kernel ran its Tensor Core code,
// or tc_status_missing | __CUDA_ARCH__ when the code it ran was compiled for an architecture
// without the instruction (PTX JIT-compiled from an older virtual architecture, say): then the
// output is not a result, and the benchmark says so instead of failing the check.

inline constexpr std::uint32_t tc_status_missing = 0x80000000u;
inline constexpr std::uint32_t tc_status_unset = 0u;

constexpr bool tc_status_ran(std::uint32_t status) {
  return status != tc_status_unset && (status & tc_status_missing) == 0;
}
constexpr int tc_status_arch(std::uint32_t status) {
  return static_cast<int>(status & ~tc_status_missing);
}

// --- the host side of one problem ------------------------------------------------------------

/// A, B and -B for one variant, as values, and packed into per-lane registers the way the kernel
/// loads them (register r of lane l at [r·32 + l]); and the reference A·B, exact.
struct mma_problem {
  mma_variant variant{};
  std::vector<double> a; ///< M×K, row-major
  std::vector<double> b; ///< K×N, row-major
  std::vector<std::uint32_t> a_frag, b_pos_frag, b_neg_frag;
  std::vector<double> c; ///< M×N, row-major: A·B
};

inline mma_problem make_mma_problem(mma_variant v, std::uint64_t seed) {
  const mma_variant_info info = mma_info(v);
  const int p = mma_elements_per_register(v);
  const int bits = tc_element_bits(info.dtype);
  const std::uint32_t mask = bits == 32 ? 0xFFFFFFFFu : (1u << bits) - 1u;
  mma_problem pr;
  pr.variant = v;
  pr.a.resize(static_cast<std::size_t>(info.m * info.k));
  pr.b.resize(static_cast<std::size_t>(info.k * info.n));
  for (std::size_t i = 0; i < pr.a.size(); ++i)
    pr.a[i] = tc_operand_value(info.dtype, seed, i);
  for (std::size_t i = 0; i < pr.b.size(); ++i)
    pr.b[i] = tc_operand_value(info.dtype, seed ^ 0x5bd1e995u, i);
  pr.a_frag.assign(static_cast<std::size_t>(32 * info.a_regs), 0u);
  pr.b_pos_frag.assign(static_cast<std::size_t>(32 * info.b_regs), 0u);
  pr.b_neg_frag.assign(static_cast<std::size_t>(32 * info.b_regs), 0u);
  for (int lane = 0; lane < 32; ++lane) {
    for (int r = 0; r < info.a_regs; ++r)
      for (int e = 0; e < p; ++e) {
        const matrix_coord at = mma_a_coord(v, lane, r, e);
        const double value = pr.a[static_cast<std::size_t>(at.row * info.k + at.col)];
        pr.a_frag[static_cast<std::size_t>(r * 32 + lane)] |= (tc_encode(info.dtype, value) & mask)
                                                              << (e * bits);
      }
    for (int r = 0; r < info.b_regs; ++r)
      for (int e = 0; e < p; ++e) {
        const matrix_coord at = mma_b_coord(v, lane, r, e);
        const double value = pr.b[static_cast<std::size_t>(at.row * info.n + at.col)];
        const auto slot = static_cast<std::size_t>(r * 32 + lane);
        pr.b_pos_frag[slot] |= (tc_encode(info.dtype, value) & mask) << (e * bits);
        pr.b_neg_frag[slot] |= (tc_encode(info.dtype, -value) & mask) << (e * bits);
      }
  }
  pr.c.assign(static_cast<std::size_t>(info.m * info.n), 0.0);
  for (int m = 0; m < info.m; ++m)
    for (int n = 0; n < info.n; ++n) {
      double sum = 0.0; // exact: small multiples of 1/4
      for (int k = 0; k < info.k; ++k)
        sum += pr.a[static_cast<std::size_t>(m * info.k + k)] *
               pr.b[static_cast<std::size_t>(k * info.n + n)];
      pr.c[static_cast<std::size_t>(m * info.n + n)] = sum;
    }
  return pr;
}

// --- launchers -----------------------------------------------------------------------------

/// True when this build holds the sm_120f mma.sync kind::f8f6f4 kernels (fp6, fp4 on 12.x:
/// kernels/src_sm120f); launch_mma_sync_peak throws std::logic_error for those variants without
/// them.
[[nodiscard]] bool mma_f8f6f4_built();

/// Blocks for a full device: SMs × min(resident blocks of the variant's kernel, 4), on the
/// current device. Queries the device: call it outside timing.
[[nodiscard]] unsigned mma_sync_peak_blocks(mma_variant v);

/// Enqueues the mma.sync peak kernel of `v` on `stream`: `blocks` blocks of mma_block_threads.
/// a_frag holds mma_info(v).a_regs × 32 words, b_pos_frag and b_neg_frag b_regs × 32 each (as
/// make_mma_problem packs them); `out` receives mma_output_words(v, blocks) words, `trips`
/// mma_count_words(blocks) work counters, `status` one word (see tc_status_ran). Every
/// accumulator runs 1 + 2·pairs mma operations. Throws std::invalid_argument for a null pointer,
/// zero blocks or more than tc_max_pairs pairs.
void launch_mma_sync_peak(mma_variant v, const std::uint32_t* a_frag,
                          const std::uint32_t* b_pos_frag, const std::uint32_t* b_neg_frag,
                          std::uint32_t* out, std::uint32_t* trips, std::uint32_t* status,
                          unsigned blocks, std::uint32_t pairs, stream_handle stream);

} // namespace gpuspec::kernels
