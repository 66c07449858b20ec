#pragma once
/// Launchers and host-side helpers of the FMA-chain kernels (kernels/src/fma_chain.cu), which
/// measure the peak rate of the fused multiply-add pipes: fp32 (FFMA), fp64 (DFMA), fp16x2
/// (HFMA2: two fp16 FMAs per instruction) and int32 (IMAD). CUDA-free: plain pointers, sizes,
/// bit patterns and the stream handle; the helpers are pure, so the host tests check them.
///
/// Each thread keeps fma_chain_accumulators independent chains and runs `iterations` steps of
///   x <- x·a + b
/// on each. The values never leave a bounded range and never denormalise:
///  - fp32, fp64, fp16x2: 0 < a < 1 and b > 0, so x converges to b / (1 - a) from its start in
///    [0.5, 2); every step is one correctly rounded FMA, so the host repeats the exact sequence
///    (std::fma, or an exact double FMA rounded once to fp16) and gets the same bits;
///  - int32: arithmetic modulo 2^32 (exact), a ≡ 1 (mod 4) and b odd, a full-period linear
///    congruential generator whose n-th step the host computes in O(log n) (lcg_jump).
/// a, b and the iteration count are kernel arguments, so the compiler cannot fold the chain;
/// each thread stores the sum of its accumulators, so none of the work is dead.
///
/// The fp32, fp64 and int32 outputs depend on every step, so their check pins the iteration
/// count. The fp16 chains reach a rounding fixed point after a few hundred steps, after which
/// more steps change nothing: fma_chain_fp16x2 therefore also stores each warp's loop trips
/// (work_count.hpp), which the host requires to be fma_chain_trips(iterations).
///
/// Starting values: the floating-point accumulators start from seeded values of the thread's
/// class (global thread index mod fma_chain_start_classes), so the host simulates one chain per
/// class and accumulator, not per thread; the int32 accumulators start from seeded values of
/// the thread itself (the LCG jump makes every thread's check cheap).

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "gpuspec/kernels/host_device.hpp"
#include "gpuspec/kernels/seeded_values.hpp"
#include "gpuspec/kernels/stream_handle.hpp"

namespace gpuspec::kernels {

/// The four kernels: fma_chain_fp32, fma_chain_fp64, fma_chain_fp16x2, fma_chain_int32.
enum class fma_dtype { fp32, fp64, fp16x2, int32 };

inline constexpr fma_dtype all_fma_dtypes[] = {fma_dtype::fp32, fma_dtype::fp64, fma_dtype::fp16x2,
                                               fma_dtype::int32};

[[nodiscard]] constexpr std::string_view fma_dtype_name(fma_dtype d) {
  switch (d) {
  case fma_dtype::fp32:
    return "fp32";
  case fma_dtype::fp64:
    return "fp64";
  case fma_dtype::fp16x2:
    return "fp16x2";
  case fma_dtype::int32:
    return "int32";
  }
  return "?";
}

/// Threads per block of every FMA-chain kernel.
inline constexpr unsigned fma_chain_block_threads = 256;
/// Independent chains per thread (a fully unrolled register array).
inline constexpr unsigned fma_chain_accumulators = 16;
/// Steps of every chain per trip of the kernel's loop (fully unrolled): one trip is
/// accumulators × unroll = 512 FMA instructions against a few of loop control (a counter, a
/// compare, a branch; ptxas adds a register reload or two on some architectures). The iteration
/// count is a multiple of it.
inline constexpr unsigned fma_chain_unroll = 32;
/// Classes of threads sharing starting values (floating-point kernels): thread t is in class
/// t mod 64, so neighbouring threads (and any thread and the one 1..63 places away) differ.
inline constexpr unsigned fma_chain_start_classes = 64;
/// Largest iteration count a launcher takes: bounds the host simulation of the check
/// (64 classes × 16 accumulators × 2^20 steps at most).
inline constexpr std::uint32_t fma_chain_max_iterations = std::uint32_t{1} << 20;

/// Warps per block, and the work counters of fma_chain_fp16x2 (one per warp: warp w of block b
/// at b·8 + w).
inline constexpr unsigned fma_chain_warps_per_block = fma_chain_block_threads / 32;
[[nodiscard]] constexpr std::size_t fma_chain_count_words(std::uint64_t blocks) {
  return static_cast<std::size_t>(blocks) * fma_chain_warps_per_block;
}
/// Trips of the kernels' loop for `iterations` (a multiple of fma_chain_unroll): what every
/// warp's work counter must hold.
[[nodiscard]] constexpr std::uint32_t fma_chain_trips(std::uint32_t iterations) {
  return iterations / fma_chain_unroll;
}

/// FMAs one instruction does: 2 for fp16x2 (HFMA2 works on a pair of fp16 values), else 1.
[[nodiscard]] constexpr unsigned fma_lanes(fma_dtype d) { return d == fma_dtype::fp16x2 ? 2 : 1; }

/// Operations one thread does per iteration: accumulators × lanes × 2 (an FMA, or an IMAD,
/// counts 2).
[[nodiscard]] constexpr double fma_chain_ops_per_thread_iteration(fma_dtype d) {
  return 2.0 * fma_chain_accumulators * fma_lanes(d);
}

/// Operations of one launch: threads × accumulators × iterations × 2 (× 2 more for fp16x2).
[[nodiscard]] constexpr double fma_chain_ops(fma_dtype d, std::uint64_t threads,
                                             std::uint64_t iterations) {
  return static_cast<double>(threads) * static_cast<double>(iterations) *
         fma_chain_ops_per_thread_iteration(d);
}

/// Iterations that make one launch last about `target_seconds` on a GPU that does
/// `ops_per_sm_per_clock` operations per SM per clock at `clock_mhz`, with
/// `threads_per_sm` threads resident on each SM (a grid of exactly one full wave: the SM count
/// cancels out). Rounded up to a multiple of fma_chain_unroll, at least one trip, at most
/// fma_chain_max_iterations. Bad inputs (non-positive, not finite) give one trip.
[[nodiscard]] inline std::uint32_t fma_chain_iterations(fma_dtype d, double ops_per_sm_per_clock,
                                                        double clock_mhz, unsigned threads_per_sm,
                                                        double target_seconds) {
  const double per_sm_ops = target_seconds * clock_mhz * 1e6 * ops_per_sm_per_clock;
  const double per_thread =
      static_cast<double>(threads_per_sm) * fma_chain_ops_per_thread_iteration(d);
  if (!(per_sm_ops > 0.0) || !(per_thread > 0.0) || !std::isfinite(per_sm_ops))
    return fma_chain_unroll;
  const double iterations =
      std::ceil(per_sm_ops / per_thread / fma_chain_unroll) * fma_chain_unroll;
  if (!(iterations < static_cast<double>(fma_chain_max_iterations)))
    return fma_chain_max_iterations;
  return iterations < fma_chain_unroll ? fma_chain_unroll : static_cast<std::uint32_t>(iterations);
}

// --- the chains' parameters ------------------------------------------------------------------
// Each is the benchmark's choice; the kernels take any value. Floating point: 0 < a < 1, b > 0,
// fixed point b / (1 - a) about 3; the fp32 and fp64 chains stay well away from it within the
// iterations one launch runs (1 - a = 3e-5), so the value the check sees depends on the count.

inline constexpr float fma_fp32_a = 0.99997f;
inline constexpr float fma_fp32_b = 9.5e-5f;
inline constexpr double fma_fp64_a = 0.99997;
inline constexpr double fma_fp64_b = 9.5e-5;
/// fp16 pairs as bits, low half first: lane 0 a = 63/64, b = 3/64 (fixed point 3); lane 1
/// a = 127/128, b = 3/256 (fixed point 1.5). fp16 has 11 significant bits, so these chains
/// reach a rounding fixed point after a few hundred steps; the check still pins every step
/// before that, and the fixed point itself (any other a or b would give other bits).
inline constexpr std::uint32_t fma_fp16x2_a_bits = 0x3BF03BE0u;
inline constexpr std::uint32_t fma_fp16x2_b_bits = 0x22002A00u;
/// int32: a ≡ 1 (mod 4), b odd: full period 2^32.
inline constexpr std::uint32_t fma_int32_a = 0x9E3779B5u;
inline constexpr std::uint32_t fma_int32_b = 0x7F4A7C15u;
/// The seed of the starting values.
inline constexpr std::uint64_t fma_chain_seed = 0x676d612d63686e31ull;

// --- starting values (the kernels and the host compute them alike) -----------------------------

/// The class of global thread `thread`: the floating-point kernels' starting values depend on
/// it alone.
GPUSPEC_HOST_DEVICE constexpr unsigned fma_start_class(std::uint32_t thread) {
  return thread % fma_chain_start_classes;
}

/// Accumulator j's start in class `cls`: a seeded value in [1, 2) (exact in the type).
GPUSPEC_HOST_DEVICE constexpr float fma_start_fp32(std::uint64_t seed, unsigned cls, unsigned j) {
  return seeded_value<float>(seed, std::uint64_t{cls} * fma_chain_accumulators + j);
}
GPUSPEC_HOST_DEVICE constexpr double fma_start_fp64(std::uint64_t seed, unsigned cls, unsigned j) {
  return seeded_value<double>(seed, std::uint64_t{cls} * fma_chain_accumulators + j);
}
/// An fp16 pair as bits: lane 0 (low) 1 + k·2^-10 in [1, 2), lane 1 (high) 0.5 + k'·2^-11 in
/// [0.5, 1), k and k' seeded 10-bit integers.
GPUSPEC_HOST_DEVICE constexpr std::uint32_t fma_start_fp16x2_bits(std::uint64_t seed, unsigned cls,
                                                                  unsigned j) {
  const std::uint64_t bits = seeded_bits(seed, std::uint64_t{cls} * fma_chain_accumulators + j);
  const auto lo = static_cast<std::uint32_t>(0x3C00u | ((bits >> 54) & 0x3FFu));
  const auto hi = static_cast<std::uint32_t>(0x3800u | ((bits >> 44) & 0x3FFu));
  return lo | (hi << 16);
}
/// int32: accumulator j of thread `thread` (its own value, not its class's).
GPUSPEC_HOST_DEVICE constexpr std::uint32_t fma_start_int32(std::uint64_t seed,
                                                            std::uint32_t thread, unsigned j) {
  return static_cast<std::uint32_t>(
      seeded_bits(seed, std::uint64_t{thread} * fma_chain_accumulators + j) >> 32);
}

// --- fp16 on the host ---------------------------------------------------------------------------

/// The fp16 value of bits `h` (IEEE binary16), exactly, as a double.
[[nodiscard]] inline double half_bits_to_double(std::uint16_t h) {
  const int sign = (h >> 15) & 1;
  const int exponent = (h >> 10) & 0x1F;
  const int mantissa = h & 0x3FF;
  double v = 0.0;
  if (exponent == 0)
    v = std::ldexp(static_cast<double>(mantissa), -24); // subnormal (or zero)
  else if (exponent == 31)
    v = mantissa == 0 ? INFINITY : NAN;
  else
    v = std::ldexp(static_cast<double>(mantissa | 0x400), exponent - 25);
  return sign != 0 ? -v : v;
}

/// `x` rounded to the nearest fp16 value, ties to even (IEEE round-to-nearest), as bits.
/// Overflow gives infinity, NaN gives a quiet NaN. One rounding: applied to an exact result,
/// it gives the correctly rounded fp16 operation (what HFMA2 and HADD2 compute).
[[nodiscard]] inline std::uint16_t half_bits_from_double(double x) {
  if (std::isnan(x))
    return 0x7E00;
  const std::uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  const double m = std::fabs(x);
  if (m == 0.0)
    return sign;
  if (std::isinf(m))
    return static_cast<std::uint16_t>(sign | 0x7C00);
  // The quantum: 2^(e-10) for a normal value in [2^e, 2^(e+1)), 2^-24 below 2^-14.
  int e = std::ilogb(m);
  if (e < -14)
    e = -14;
  const double quantum = std::ldexp(1.0, e - 10);
  const double q = m / quantum; // exact: a power-of-two scaling
  double r = std::floor(q);
  const double rest = q - r; // exact
  if (rest > 0.5 || (rest == 0.5 && std::fmod(r, 2.0) != 0.0))
    r += 1.0;
  const double rounded = r * quantum;
  if (rounded >= 65536.0) // beyond the largest finite value, 65504, after rounding
    return static_cast<std::uint16_t>(sign | 0x7C00);
  if (rounded < std::ldexp(1.0, -14)) // subnormal: the integer r is the mantissa
    return static_cast<std::uint16_t>(sign | static_cast<std::uint16_t>(r));
  const int exponent = std::ilogb(rounded);
  const auto mantissa =
      static_cast<std::uint16_t>(std::ldexp(rounded, 10 - exponent) - 1024.0); // exact
  return static_cast<std::uint16_t>(sign | ((exponent + 15) << 10) | mantissa);
}

// --- host references ------------------------------------------------------------------------

/// x after `iterations` steps of x <- fma(x, a, b), correctly rounded in T (float or double),
/// as the GPU's FFMA/DFMA compute it: bit for bit. Stops early at a fixed point of the rounded
/// step (the rest of the chain would not change it).
template <class T> [[nodiscard]] T fma_chain_simulate(T x, T a, T b, std::uint64_t iterations) {
  for (std::uint64_t i = 0; i < iterations; ++i) {
    const T next = std::fma(x, a, b);
    if (next == x)
      break;
    x = next;
  }
  return x;
}

/// The same in fp16, bits in and out: each step is a·x + b computed exactly in double (both
/// operands have 11 significant bits and the values stay within [2^-8, 2^2], so the product and
/// the sum fit in 53 bits) and rounded once to fp16, which is HFMA2's correctly rounded result.
[[nodiscard]] inline std::uint16_t fma_chain_simulate_half(std::uint16_t x, std::uint16_t a,
                                                           std::uint16_t b,
                                                           std::uint64_t iterations) {
  const double ad = half_bits_to_double(a), bd = half_bits_to_double(b);
  for (std::uint64_t i = 0; i < iterations; ++i) {
    const std::uint16_t next = half_bits_from_double(std::fma(half_bits_to_double(x), ad, bd));
    if (next == x)
      break;
    x = next;
  }
  return x;
}

/// Expected output of every class (index: class), in the kernel's order: each accumulator
/// simulated, then acc[0] + acc[1] + ... + acc[15] added left to right in T (the kernel uses
/// __fadd_rn / __dadd_rn, which nothing contracts or reorders).
template <class T>
[[nodiscard]] std::vector<T> fma_chain_expected_float(T a, T b, std::uint64_t seed,
                                                      std::uint64_t iterations) {
  std::vector<T> out(fma_chain_start_classes);
  for (unsigned c = 0; c < fma_chain_start_classes; ++c) {
    T sum = T(0);
    for (unsigned j = 0; j < fma_chain_accumulators; ++j) {
      T x0;
      if constexpr (sizeof(T) == 4)
        x0 = fma_start_fp32(seed, c, j);
      else
        x0 = fma_start_fp64(seed, c, j);
      const T x = fma_chain_simulate<T>(x0, a, b, iterations);
      sum = j == 0 ? x : sum + x;
    }
    out[c] = sum;
  }
  return out;
}

/// fp16x2: the expected pair of every class, as bits (low lane first); each lane's sum is
/// added left to right with one fp16 rounding per addition (the kernel's __hadd2).
[[nodiscard]] inline std::vector<std::uint32_t>
fma_chain_expected_fp16x2(std::uint32_t a_bits, std::uint32_t b_bits, std::uint64_t seed,
                          std::uint64_t iterations) {
  std::vector<std::uint32_t> out(fma_chain_start_classes);
  for (unsigned c = 0; c < fma_chain_start_classes; ++c) {
    std::uint32_t result = 0;
    for (int lane = 0; lane < 2; ++lane) {
      const int shift = 16 * lane;
      const auto a = static_cast<std::uint16_t>(a_bits >> shift);
      const auto b = static_cast<std::uint16_t>(b_bits >> shift);
      std::uint16_t sum = 0;
      for (unsigned j = 0; j < fma_chain_accumulators; ++j) {
        const auto x0 = static_cast<std::uint16_t>(fma_start_fp16x2_bits(seed, c, j) >> shift);
        const std::uint16_t x = fma_chain_simulate_half(x0, a, b, iterations);
        sum = j == 0 ? x : half_bits_from_double(half_bits_to_double(sum) + half_bits_to_double(x));
      }
      result |= std::uint32_t{sum} << shift;
    }
    out[c] = result;
  }
  return out;
}

/// The map x -> mul·x + add modulo 2^32.
struct lcg_map {
  std::uint32_t mul = 1, add = 0;
  [[nodiscard]] constexpr std::uint32_t operator()(std::uint32_t x) const { return mul * x + add; }
};

/// The map x -> a·x + b applied n times, in O(log n) (square-and-multiply on the maps, which
/// all commute as powers of one map).
[[nodiscard]] constexpr lcg_map lcg_jump(std::uint32_t a, std::uint32_t b, std::uint64_t n) {
  lcg_map result;      // identity
  lcg_map power{a, b}; // the map applied 2^k times
  for (; n != 0; n >>= 1) {
    if ((n & 1) != 0)
      result = {power.mul * result.mul, power.mul * result.add + power.add};
    power = {power.mul * power.mul, power.mul * power.add + power.add};
  }
  return result;
}

/// int32: the expected output of thread `thread`: the sum modulo 2^32 of its accumulators after
/// `steps` (lcg_jump of the iteration count).
[[nodiscard]] constexpr std::uint32_t
fma_chain_expected_int32(const lcg_map& steps, std::uint64_t seed, std::uint32_t thread) {
  std::uint32_t sum = 0;
  for (unsigned j = 0; j < fma_chain_accumulators; ++j)
    sum += steps(fma_start_int32(seed, thread, j));
  return sum;
}

/// int32: the expected output of every one of `threads` threads after `iterations` steps (the
/// benchmark chooses the output's poison from it, before the run, and checks against it after).
[[nodiscard]] inline std::vector<std::uint32_t>
fma_chain_expected_int32_all(std::uint64_t threads, std::uint64_t iterations, std::uint64_t seed) {
  const lcg_map steps = lcg_jump(fma_int32_a, fma_int32_b, iterations);
  std::vector<std::uint32_t> out(static_cast<std::size_t>(threads));
  for (std::size_t t = 0; t < out.size(); ++t)
    out[t] = fma_chain_expected_int32(steps, seed, static_cast<std::uint32_t>(t));
  return out;
}

// --- launchers ----------------------------------------------------------------------------------

/// One full wave of a kernel on the current device: every SM holds `blocks_per_sm` blocks of
/// fma_chain_block_threads threads (the occupancy calculator's figure for that kernel).
struct fma_chain_wave {
  unsigned sm_count = 0;
  unsigned blocks_per_sm = 0;
  unsigned blocks = 0;         ///< sm_count × blocks_per_sm
  unsigned threads_per_sm = 0; ///< blocks_per_sm × fma_chain_block_threads
};

/// Queries the current device (SM count, occupancy of the dtype's kernel). Call it outside
/// timing. Throws kernels::cuda_error, or std::runtime_error if the kernel cannot be resident.
[[nodiscard]] fma_chain_wave fma_chain_full_wave(fma_dtype d);

/// The launchers: `blocks` blocks of fma_chain_block_threads threads; `out` holds one element
/// per thread (blocks × fma_chain_block_threads), written once per launch. `iterations` must be
/// a multiple of fma_chain_unroll and at most fma_chain_max_iterations; blocks at least 1 and at
/// most 2^24 (32-bit thread index). Throws std::invalid_argument otherwise; enqueues on
/// `stream` and returns at once; a launch error throws kernels::cuda_error.
void launch_fma_chain_fp32(float* out, unsigned blocks, std::uint32_t iterations, float a, float b,
                           std::uint64_t seed, stream_handle stream);
void launch_fma_chain_fp64(double* out, unsigned blocks, std::uint32_t iterations, double a,
                           double b, std::uint64_t seed, stream_handle stream);
/// a, b and the output as fp16 pairs' bits (low lane first); `trip_counts` receives
/// fma_chain_count_words(blocks) work counters, each fma_chain_trips(iterations) when every warp
/// ran its loop to the end.
void launch_fma_chain_fp16x2(std::uint32_t* out, std::uint32_t* trip_counts, unsigned blocks,
                             std::uint32_t iterations, std::uint32_t a_bits, std::uint32_t b_bits,
                             std::uint64_t seed, stream_handle stream);
void launch_fma_chain_int32(std::uint32_t* out, unsigned blocks, std::uint32_t iterations,
                            std::uint32_t a, std::uint32_t b, std::uint64_t seed,
                            stream_handle stream);

} // namespace gpuspec::kernels
