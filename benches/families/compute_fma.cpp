// compute.fma.{fp32,fp64,fp16x2,int32}: the peak rate of the fused multiply-add pipes.
//
// What it measures: TFLOP/s (fp32 FFMA, fp64 DFMA, fp16x2 HFMA2) or TOPS (int32 IMAD) of
// chains of dependent multiply-adds, 16 independent chains per thread, one full wave of
// resident blocks (kernels/src/fma_chain.cu). An FMA counts 2 operations, an HFMA2 4 (two fp16
// FMAs), an IMAD 2. Bound by the FMA pipes' issue rate alone: no memory traffic but one store
// per thread, so the cache mode is hot. Judged against the clock-adjusted peak (SMs × SM clock
// during the run × the architecture's rate per SM per clock, reports/arch_rates): fp32, fp64,
// fp16 (for fp16x2) and int32. Hardware: any GPU the build targets.
//
// Sizing: the grid is one full wave (SMs × the occupancy calculator's blocks per SM), so every
// scheduler is full and every block runs the whole launch; the iteration count makes one launch
// last about 4 ms at the GPU's maximum SM clock and the architecture's rate (launch overhead
// well under 1%; the stopping rule takes at least 10 samples and 0.5 s). The parameters record
// the grid, the iterations and how they were chosen.
//
// Check: every thread's output (the sum of its accumulators) against the host: bit for bit for
// all four types. fp32 and fp64 repeat the same correctly rounded FMAs with std::fma; fp16x2
// computes each FMA exactly in double and rounds once to fp16, which is what HFMA2 does; int32
// jumps the linear congruential map ahead by the iteration count (exact modulo 2^32). The fp16
// chains settle on a rounding fixed point, so their output cannot show a short loop: the fp16x2
// kernel also stores each warp's loop trips, which must equal iterations / unroll, the count the
// FLOP figure assumes. Outputs are poisoned with a value no result can take (NaN; for int32 a
// repeated byte that no thread's known result equals), and one left in place is "not written".

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <cuda_runtime_api.h>

#include "gpuspec/benches/bench_state.cuh"
#include "gpuspec/benches/families.hpp"
#include "gpuspec/benches/verification.hpp"
#include "gpuspec/kernels/cuda_check.cuh"
#include "gpuspec/kernels/cuda_handles.cuh"
#include "gpuspec/kernels/fill.hpp"
#include "gpuspec/kernels/fma_chain.hpp"
#include "gpuspec/kernels/work_count.hpp"
#include "gpuspec/reports/model/arch_rates.hpp"

namespace gpuspec::benches {

namespace {

using kernels::fma_dtype;

/// Device time one launch aims at.
constexpr double target_launch_seconds = 4e-3;
/// The SM clock assumed for sizing when neither the inventory nor CUDA gives one.
constexpr double assumed_clock_mhz = 2000.0;

/// The ceiling key of each type (fp16x2 is judged by the fp16 rate).
constexpr const char* ceiling_key(fma_dtype d) {
  switch (d) {
  case fma_dtype::fp32:
    return "fp32";
  case fma_dtype::fp64:
    return "fp64";
  case fma_dtype::fp16x2:
    return "fp16";
  case fma_dtype::int32:
    return "int32";
  }
  return "";
}

/// The SASS instruction each kernel's loop is made of (scripts/inspect-kernels.py checks it).
constexpr const char* instruction(fma_dtype d) {
  switch (d) {
  case fma_dtype::fp32:
    return "FFMA";
  case fma_dtype::fp64:
    return "DFMA";
  case fma_dtype::fp16x2:
    return "HFMA2";
  case fma_dtype::int32:
    return "IMAD";
  }
  return "";
}

int device_attribute(cudaDeviceAttr attribute, int device) {
  int value = 0;
  GPUSPEC_CUDA_CHECK(cudaDeviceGetAttribute(&value, attribute, device));
  return value;
}

/// How one launch is sized.
struct launch_size {
  kernels::fma_chain_wave wave;
  std::uint32_t iterations = 0;
  double rate = 0;       ///< operations per SM per clock used for sizing
  std::string rate_from; ///< "arch_rates sm_90" or the fallback taken
  double clock_mhz = 0;
  std::string clock_from;
};

launch_size size_launch(bench_state& state, fma_dtype d) {
  launch_size s;
  s.wave = kernels::fma_chain_full_wave(d);

  const int device = state.cuda_device();
  const int major =
      state.device().cc_major.value_or(device_attribute(cudaDevAttrComputeCapabilityMajor, device));
  const int minor =
      state.device().cc_minor.value_or(device_attribute(cudaDevAttrComputeCapabilityMinor, device));
  const char* key = ceiling_key(d);
  if (const auto rate = reports::rate_per_sm_per_clock(major, minor, key)) {
    s.rate = *rate;
    s.rate_from = "arch_rates sm_" + std::to_string(major * 10 + minor);
  } else {
    // An architecture the table lacks: assume the fastest known one, so a launch lasts at least
    // the target (longer on a slower GPU) rather than too short to time well.
    for (const auto& row : reports::arch_rate_table())
      if (const auto r = reports::rate_of(row, key))
        s.rate = std::max(s.rate, *r);
    s.rate_from = "sm_" + std::to_string(major * 10 + minor) +
                  " not in arch_rates: the fastest architecture's rate assumed";
  }

  if (state.device().sm_clock_max_mhz && *state.device().sm_clock_max_mhz > 0) {
    s.clock_mhz = *state.device().sm_clock_max_mhz;
    s.clock_from = "maximum SM clock (NVML)";
  } else if (const int khz = device_attribute(cudaDevAttrClockRate, device); khz > 0) {
    s.clock_mhz = khz / 1000.0;
    s.clock_from = "peak clock (cudaDevAttrClockRate)";
  } else {
    s.clock_mhz = assumed_clock_mhz;
    s.clock_from = "assumed";
  }
  s.iterations = kernels::fma_chain_iterations(d, s.rate, s.clock_mhz, s.wave.threads_per_sm,
                                               target_launch_seconds);
  return s;
}

template <class T>
std::vector<T> copy_back(const kernels::device_buffer<T>& d, kernels::stream_ref stream) {
  std::vector<T> h(d.size());
  GPUSPEC_CUDA_CHECK(
      cudaMemcpyAsync(h.data(), d.data(), d.bytes(), cudaMemcpyDeviceToHost, stream.get()));
  stream.synchronize();
  return h;
}

/// The element one thread writes.
template <fma_dtype D> struct output_of {
  using type = std::uint32_t; // fp16x2 (a pair's bits) and int32
};
template <> struct output_of<fma_dtype::fp32> { using type = float; };
template <> struct output_of<fma_dtype::fp64> { using type = double; };

/// The output's poison: a value no thread's result can take, so one left in place reads as "not
/// written". fp32, fp64 and fp16x2: all-ones, a NaN (two for fp16x2), where every chain and sum
/// stays finite (values in [0.5, 3], sums of 16 of them). int32: every word is a possible sum
/// modulo 2^32, but each thread's exact result is known before the run (the LCG jump), so the
/// poison is a repeated byte whose word no thread's result equals (`expected`, one per thread).
template <fma_dtype D> std::uint8_t poison_byte(const std::vector<std::uint32_t>& expected) {
  if constexpr (D != fma_dtype::int32)
    return 0xFF;
  const std::optional<std::uint8_t> byte = kernels::poison_byte_avoiding(expected);
  if (!byte) // would need all 256 repeated-byte words among the results: practically impossible
    throw std::runtime_error("no repeated-byte word is free of the int32 results: no poison");
  return *byte;
}

/// Whether the element `x` still holds the poison whose byte is `byte`.
template <class T> bool holds_poison(const T& x, std::uint8_t byte) {
  if constexpr (sizeof(T) == 8)
    return std::bit_cast<std::uint64_t>(x) ==
           std::uint64_t{kernels::byte_poison_word(byte)} * ((std::uint64_t{1} << 32) + 1);
  else
    return std::bit_cast<std::uint32_t>(x) == kernels::byte_poison_word(byte);
}

/// The check: every thread, bit for bit (tolerance 0); an element still holding the poison is
/// "not written". `what` receives what was compared.
template <fma_dtype D>
elementwise_report check_outputs(const std::vector<typename output_of<D>::type>& got,
                                 std::uint8_t poison, std::uint32_t iterations, std::uint64_t seed,
                                 const std::vector<std::uint32_t>& expected_int32,
                                 std::string& what) {
  constexpr double tolerance = 0.0;
  const auto unwritten = [&got, poison](std::size_t i) { return holds_poison(got[i], poison); };
  if constexpr (D == fma_dtype::fp32 || D == fma_dtype::fp64) {
    using out_t = typename output_of<D>::type;
    const std::vector<out_t> expected = kernels::fma_chain_expected_float<out_t>(
        D == fma_dtype::fp32 ? kernels::fma_fp32_a : kernels::fma_fp64_a,
        D == fma_dtype::fp32 ? kernels::fma_fp32_b : kernels::fma_fp64_b, seed, iterations);
    what = "each thread's sum of accumulators against the host's simulation of its class";
    return check_elementwise(
        got.data(), got.size(),
        [&](std::size_t i) {
          return expected[kernels::fma_start_class(static_cast<std::uint32_t>(i))];
        },
        tolerance, unwritten);
  } else if constexpr (D == fma_dtype::fp16x2) {
    const std::vector<std::uint32_t> expected = kernels::fma_chain_expected_fp16x2(
        kernels::fma_fp16x2_a_bits, kernels::fma_fp16x2_b_bits, seed, iterations);
    // Two lanes per thread: value 2i is thread i's low lane, 2i + 1 its high lane.
    std::vector<double> lanes(2 * got.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      lanes[2 * i] = kernels::half_bits_to_double(static_cast<std::uint16_t>(got[i] & 0xFFFFu));
      lanes[2 * i + 1] = kernels::half_bits_to_double(static_cast<std::uint16_t>(got[i] >> 16));
    }
    what = "each thread's two fp16 sums (element 2i low lane, 2i+1 high lane of thread i) "
           "against the host's simulation of its class";
    return check_elementwise(
        lanes.data(), lanes.size(),
        [&](std::size_t k) {
          const std::uint32_t pair =
              expected[kernels::fma_start_class(static_cast<std::uint32_t>(k / 2))];
          return kernels::half_bits_to_double(
              static_cast<std::uint16_t>((k % 2 == 0 ? pair : pair >> 16) & 0xFFFFu));
        },
        tolerance, [&unwritten](std::size_t k) { return unwritten(k / 2); });
  } else {
    what = "each thread's sum of accumulators modulo 2^32 against the host's jump-ahead";
    return check_elementwise(
        got.data(), got.size(), [&](std::size_t i) { return expected_int32[i]; }, tolerance,
        unwritten);
  }
}

/// The launch as sized, in the parameters.
void describe_launch(bench_state& state, fma_dtype dtype, const launch_size& size,
                     std::uint64_t threads) {
  state.add_parameter("instruction", instruction(dtype));
  state.add_parameter("grid_blocks", size.wave.blocks);
  state.add_parameter("block_threads", kernels::fma_chain_block_threads);
  state.add_parameter("blocks_per_sm", size.wave.blocks_per_sm);
  state.add_parameter("sm_count", size.wave.sm_count);
  state.add_parameter("threads", threads);
  state.add_parameter("accumulators_per_thread", kernels::fma_chain_accumulators);
  state.add_parameter("iterations", size.iterations);
  state.add_parameter("unroll", kernels::fma_chain_unroll);
  state.add_parameter("fma_lanes_per_instruction", kernels::fma_lanes(dtype));
  state.add_parameter("sizing_rate_per_sm_per_clock", size.rate);
  state.add_parameter("sizing_rate_from", size.rate_from);
  state.add_parameter("sizing_clock_mhz", size.clock_mhz);
  state.add_parameter("sizing_clock_from", size.clock_from);
  state.add_parameter("target_launch_seconds", target_launch_seconds);
}

/// The measurement: the chain of D's instruction under exec(); the check's description.
template <fma_dtype D>
std::string measure_chains(bench_state& state, typename output_of<D>::type* out,
                           std::uint32_t* trips, unsigned blocks, std::uint32_t iterations,
                           std::uint64_t seed) {
  std::string check;
  if constexpr (D == fma_dtype::fp32) {
    state.add_parameter("multiplier", kernels::fma_fp32_a);
    state.add_parameter("addend", kernels::fma_fp32_b);
    check = "x <- fmaf(x, a, b) simulated on the host with std::fma (correctly rounded, as FFMA), "
            "64 start classes x 16 accumulators, sums added in the kernel's order; bit for bit";
    state.exec([&](kernels::stream_ref s) {
      kernels::launch_fma_chain_fp32(out, blocks, iterations, kernels::fma_fp32_a,
                                     kernels::fma_fp32_b, seed, s.handle());
    });
  } else if constexpr (D == fma_dtype::fp64) {
    state.add_parameter("multiplier", kernels::fma_fp64_a);
    state.add_parameter("addend", kernels::fma_fp64_b);
    check = "x <- fma(x, a, b) simulated on the host with std::fma (correctly rounded, as DFMA), "
            "64 start classes x 16 accumulators, sums added in the kernel's order; bit for bit";
    state.exec([&](kernels::stream_ref s) {
      kernels::launch_fma_chain_fp64(out, blocks, iterations, kernels::fma_fp64_a,
                                     kernels::fma_fp64_b, seed, s.handle());
    });
  } else if constexpr (D == fma_dtype::fp16x2) {
    state.add_parameter("multiplier",
                        {kernels::half_bits_to_double(kernels::fma_fp16x2_a_bits & 0xFFFFu),
                         kernels::half_bits_to_double(kernels::fma_fp16x2_a_bits >> 16)});
    state.add_parameter("addend",
                        {kernels::half_bits_to_double(kernels::fma_fp16x2_b_bits & 0xFFFFu),
                         kernels::half_bits_to_double(kernels::fma_fp16x2_b_bits >> 16)});
    check = "x <- __hfma2(x, a, b) simulated on the host per lane: a*x + b exact in double, "
            "rounded once to fp16 (as HFMA2), 64 start classes x 16 accumulators, sums added with "
            "one fp16 rounding each in the kernel's order; bit for bit. fp16 chains settle on a "
            "rounding fixed point after a few hundred steps, so each warp also counts its loop "
            "trips, which must equal iterations / unroll";
    state.exec([&](kernels::stream_ref s) {
      kernels::launch_fma_chain_fp16x2(out, trips, blocks, iterations, kernels::fma_fp16x2_a_bits,
                                       kernels::fma_fp16x2_b_bits, seed, s.handle());
    });
  } else {
    state.add_parameter("multiplier", kernels::fma_int32_a);
    state.add_parameter("addend", kernels::fma_int32_b);
    check = "x <- a*x + b modulo 2^32 (a full-period LCG) jumped ahead by the iteration count on "
            "the host from each thread's own seeded starts; exact";
    state.exec([&](kernels::stream_ref s) {
      kernels::launch_fma_chain_int32(out, blocks, iterations, kernels::fma_int32_a,
                                      kernels::fma_int32_b, seed, s.handle());
    });
  }
  return check;
}

template <fma_dtype D> void run_fma(bench_state& state) {
  using out_t = typename output_of<D>::type;
  const kernels::stream_ref stream = state.stream();
  const launch_size size = size_launch(state, D);
  const std::uint64_t threads = std::uint64_t{size.wave.blocks} * kernels::fma_chain_block_threads;
  const std::uint32_t iterations = size.iterations;
  const std::uint64_t seed = kernels::fma_chain_seed;
  describe_launch(state, D, size, threads);

  std::vector<std::uint32_t> expected_int32;
  if constexpr (D == fma_dtype::int32)
    expected_int32 = kernels::fma_chain_expected_int32_all(threads, iterations, seed);
  const std::uint8_t poison = poison_byte<D>(expected_int32);
  state.add_parameter("output_poison_byte", static_cast<unsigned>(poison));
  kernels::device_buffer<out_t> out(static_cast<std::size_t>(threads));
  kernels::poison_with_byte(out.data(), out.bytes(), poison, stream.handle());
  const unsigned blocks = size.wave.blocks;
  kernels::device_buffer<std::uint32_t> trips(
      D == fma_dtype::fp16x2 ? kernels::fma_chain_count_words(blocks) : 0);
  kernels::poison_with_nan(trips.data(), trips.bytes(), stream.handle()); // work_count_poison
  stream.synchronize();

  const double ops = kernels::fma_chain_ops(D, threads, iterations);
  if constexpr (D == fma_dtype::int32)
    state.set_integer_ops_per_iteration(ops);
  else
    state.set_flops_per_iteration(ops);
  state.set_cache_mode(cache_mode::hot);
  state.set_compute_ceiling(ceiling_key(D));

  state.add_parameter("check",
                      measure_chains<D>(state, out.data(), trips.data(), blocks, iterations, seed));
  if (state.interrupted())
    return;

  // --- the check ---------------------------------------------------------------------------------
  std::string what;
  const elementwise_report report =
      check_outputs<D>(copy_back(out, stream), poison, iterations, seed, expected_int32, what);
  reports::verification v = to_verification(report, 0.0, what);
  if constexpr (D == fma_dtype::fp16x2) {
    const kernels::work_count_verdict work =
        kernels::judge_work_counts(copy_back(trips, stream), kernels::fma_chain_trips(iterations));
    v.detail += "; " + kernels::describe_work_counts(work, "warp");
    if (!work.passed())
      v.status = reports::verification_status::failed;
  }
  state.set_verification(std::move(v));
}

} // namespace

void register_compute_fma_benchmarks(registry& r) {
  const std::vector<std::string> suites{"quick", "standard", "full"};
  r.add("compute.fma.fp32",
        "fp32 FMA (FFMA) chains, 16 per thread, one full wave: peak fp32 TFLOP/s",
        run_fma<fma_dtype::fp32>)
      .in_suites(suites);
  r.add("compute.fma.fp64",
        "fp64 FMA (DFMA) chains, 16 per thread, one full wave: peak fp64 TFLOP/s",
        run_fma<fma_dtype::fp64>)
      .in_suites(suites);
  r.add("compute.fma.fp16x2",
        "paired fp16 FMA (HFMA2) chains, 16 per thread, one full wave: peak fp16 (non-Tensor "
        "Core) TFLOP/s",
        run_fma<fma_dtype::fp16x2>)
      .in_suites(suites);
  r.add("compute.fma.int32",
        "32-bit integer multiply-add (IMAD) chains, 16 per thread, one full wave: peak int32 TOPS",
        run_fma<fma_dtype::int32>)
      .in_suites(suites);
}

} // namespace gpuspec::benches
