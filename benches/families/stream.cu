// memory.stream.{copy,scale,add,triad,dot}: BabelStream's five kernels.
//
// What it measures: sustained device-memory bandwidth in GB/s (1e9 bytes/s), cold (the L2 is
// flushed before every sample), with bytes counted as BabelStream counts them, without the
// write-allocate read: copy 2, scale 2, add 3, triad 3, dot 2 arrays (DESIGN.md rule 8).
// Bound by DRAM/HBM bandwidth; judged against memory clock x bus width x 2 / 8 (ceilings.hpp).
// Hardware: any CUDA GPU the build targets.
//
// Arrays: run_options::stream_array_bytes each (1 GiB by default, far above any L2), shrunk
// to fit free memory; the parameters record the size used. Inputs are seeded random values in
// [1, 2) and outputs are poisoned with NaN before the run. Unlike BabelStream's chained
// sequence, each benchmark repeats one kernel, and each kernel only reads arrays it never
// writes, so every repetition leaves the same output: after the timed samples the output is
// checked element by element on the host against the value computed from the seeds.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "gpuspec/benches/array_sizing.hpp"
#include "gpuspec/benches/bench_state.cuh"
#include "gpuspec/benches/families.hpp"
#include "gpuspec/benches/verification.hpp"
#include "gpuspec/kernels/cuda_check.cuh"
#include "gpuspec/kernels/cuda_handles.cuh"
#include "gpuspec/kernels/fill.hpp"
#include "gpuspec/kernels/seeded_values.hpp"
#include "gpuspec/kernels/stream.hpp"
#include "gpuspec/kernels/stream_math.hpp"

namespace gpuspec::benches {

namespace {

using kernels::stream_op;

constexpr std::uint64_t seed_a = 0x6770757370656301ull;
constexpr std::uint64_t seed_b = 0x6770757370656302ull;
constexpr std::uint64_t seed_c = 0x6770757370656303ull;

/// BabelStream's scalar.
constexpr double scalar = 0.4;

/// Device memory left free beside the arrays (context, the dot's partials, other tenants).
constexpr std::uint64_t reserve_bytes = std::uint64_t{256} << 20;

/// Which arrays an operation reads and writes (the one it writes is poisoned, the others seeded).
struct array_roles {
  bool a, b, c;
  char output; ///< 'a', 'b', 'c', or 0 for the dot (a scalar result)
};

constexpr array_roles roles_of(stream_op op) {
  switch (op) {
  case stream_op::copy:
    return {true, false, true, 'c'}; // c = a
  case stream_op::scale:
    return {false, true, true, 'b'}; // b = s*c
  case stream_op::add:
    return {true, true, true, 'c'}; // c = a + b
  case stream_op::triad:
    return {true, true, true, 'a'}; // a = b + s*c
  case stream_op::dot:
    return {true, true, false, 0}; // sum(a*b)
  }
  return {false, false, false, 0};
}

template <class T> T input_a(std::size_t i) { return kernels::seeded_value<T>(seed_a, i); }
template <class T> T input_b(std::size_t i) { return kernels::seeded_value<T>(seed_b, i); }
template <class T> T input_c(std::size_t i) { return kernels::seeded_value<T>(seed_c, i); }

std::string mib_text(std::uint64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

template <class T, stream_op Op> void run_stream(bench_state& state) {
  constexpr array_roles roles = roles_of(Op);
  constexpr int arrays = kernels::stream_arrays_moved(Op);
  const T s_value = static_cast<T>(scalar);
  const kernels::stream_ref stream = state.stream();

  // --- sizes: the requested bytes per array, shrunk to what is free --------------------------
  const std::int64_t requested = state.options().stream_array_bytes;
  if (requested < static_cast<std::int64_t>(sizeof(T)))
    throw std::invalid_argument("stream_array_bytes is " + std::to_string(requested) +
                                ": it must hold at least one element");
  std::size_t free_bytes = 0, total_bytes = 0;
  GPUSPEC_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const std::uint64_t l2 = state.l2_bytes() > 0 ? static_cast<std::uint64_t>(state.l2_bytes()) : 0;
  const array_fit fit =
      fit_arrays(static_cast<std::uint64_t>(requested), arrays, free_bytes, reserve_bytes, l2);
  const std::size_t n = static_cast<std::size_t>(fit.bytes_per_array / sizeof(T));
  if (n == 0)
    throw std::runtime_error("not enough free device memory for " + std::to_string(arrays) +
                             " arrays: " + mib_text(free_bytes) + " free, " +
                             mib_text(reserve_bytes) + " kept in reserve");
  state.add_parameter("array_bytes", static_cast<std::uint64_t>(n * sizeof(T)));
  state.add_parameter("elements", static_cast<std::uint64_t>(n));
  state.add_parameter("arrays", arrays);
  state.add_parameter("array_bytes_requested", requested);
  state.add_parameter("shrunk_to_fit", fit.shrunk);
  state.add_parameter("l2_bytes", l2);
  state.add_parameter("below_4x_l2", fit.below_4x_l2);

  // --- buffers: inputs seeded, the output poisoned -------------------------------------------
  kernels::device_buffer<T> a(roles.a ? n : 0), b(roles.b ? n : 0), c(roles.c ? n : 0);
  auto prepare = [&](kernels::device_buffer<T>& buffer, char name, std::uint64_t seed) {
    if (buffer.empty())
      return;
    if (name == roles.output)
      kernels::poison_with_nan(buffer.data(), buffer.bytes(), stream.handle());
    else
      kernels::launch_fill_seeded(buffer.data(), n, seed, stream.handle());
  };
  prepare(a, 'a', seed_a);
  prepare(b, 'b', seed_b);
  prepare(c, 'c', seed_c);

  unsigned dot_blocks = 0;
  kernels::device_buffer<T> partials;
  kernels::device_buffer<double> result;
  if constexpr (Op == stream_op::dot) {
    dot_blocks =
        kernels::dot_grid_blocks(n, kernels::vector_width<T>, kernels::dot_resident_blocks<T>());
    partials = kernels::device_buffer<T>(dot_blocks);
    result = kernels::device_buffer<double>(1);
    kernels::poison_with_nan(partials.data(), partials.bytes(), stream.handle());
    kernels::poison_with_nan(result.data(), result.bytes(), stream.handle());
    state.add_parameter("dot_blocks", dot_blocks);
  }
  stream.synchronize();

  // --- the work ------------------------------------------------------------------------------
  state.set_bytes_per_iteration(static_cast<double>(kernels::stream_bytes(Op, n, sizeof(T))));
  state.set_flops_per_iteration(static_cast<double>(kernels::stream_flops_per_element(Op)) *
                                static_cast<double>(n));
  if constexpr (Op == stream_op::scale || Op == stream_op::triad)
    state.add_parameter("scalar", scalar);
  state.set_cache_mode(cache_mode::cold);
  state.set_ceiling(ceiling_kind::device_memory_bandwidth);

  state.exec([&](kernels::stream_ref s) {
    if constexpr (Op == stream_op::copy)
      kernels::launch_copy(a.data(), c.data(), n, s.handle());
    else if constexpr (Op == stream_op::scale)
      kernels::launch_scale(c.data(), b.data(), s_value, n, s.handle());
    else if constexpr (Op == stream_op::add)
      kernels::launch_add(a.data(), b.data(), c.data(), n, s.handle());
    else if constexpr (Op == stream_op::triad)
      kernels::launch_triad(b.data(), c.data(), a.data(), s_value, n, s.handle());
    else
      kernels::launch_dot(a.data(), b.data(), partials.data(), dot_blocks, result.data(), n,
                          s.handle());
  });

  // --- the check -----------------------------------------------------------------------------
  if constexpr (Op == stream_op::dot) {
    double got = 0.0;
    GPUSPEC_CUDA_CHECK(
        cudaMemcpyAsync(&got, result.data(), sizeof got, cudaMemcpyDeviceToHost, stream.get()));
    stream.synchronize();
    const compensated_total reference = compensated_sum(n, [](std::size_t i) {
      return static_cast<double>(input_a<T>(i)) * static_cast<double>(input_b<T>(i));
    });
    // The bound holds relative to sum|a*b|; the seeded inputs are positive, so that is the sum.
    const double condition =
        reference.sum != 0.0 ? reference.sum_abs / std::fabs(reference.sum) : 1.0;
    const double tolerance = kernels::dot_relative_error_bound<T>(n, dot_blocks) * condition;
    state.set_verification(scalar_verification(
        got, reference.sum, tolerance,
        "sum(a*b) against a compensated double-precision sum of the seeded inputs on the host "
        "(bound: "
        "recursive-summation error of one thread's share plus the reduction tree)"));
  } else {
    const kernels::device_buffer<T>& out = roles.output == 'a' ? a : roles.output == 'b' ? b : c;
    auto host = std::make_unique_for_overwrite<T[]>(n);
    GPUSPEC_CUDA_CHECK(cudaMemcpyAsync(host.get(), out.data(), n * sizeof(T),
                                       cudaMemcpyDeviceToHost, stream.get()));
    stream.synchronize();
    const double tolerance = kernels::elementwise_relative_error_bound<T>();
    std::string what;
    elementwise_report report;
    if constexpr (Op == stream_op::copy) {
      what = "c against a";
      report = check_elementwise(
          host.get(), n, [](std::size_t i) { return input_a<T>(i); }, tolerance);
    } else if constexpr (Op == stream_op::scale) {
      what = "b against scalar*c";
      report = check_elementwise(
          host.get(), n,
          [s_value](std::size_t i) { return static_cast<T>(s_value * input_c<T>(i)); }, tolerance);
    } else if constexpr (Op == stream_op::add) {
      what = "c against a+b";
      report = check_elementwise(
          host.get(), n,
          [](std::size_t i) { return static_cast<T>(input_a<T>(i) + input_b<T>(i)); }, tolerance);
    } else {
      what = "a against b+scalar*c";
      report = check_elementwise(
          host.get(), n,
          [s_value](std::size_t i) {
            return static_cast<T>(input_b<T>(i) + s_value * input_c<T>(i));
          },
          tolerance);
    }
    state.set_verification(
        to_verification(report, tolerance, what + " computed on the host from the seeded inputs"));
  }
}

template <stream_op Op> void stream_benchmark(bench_state& state) {
  const std::string& dtype = state.axis("dtype");
  if (dtype == "fp32")
    run_stream<float, Op>(state);
  else if (dtype == "fp64")
    run_stream<double, Op>(state);
  else
    throw std::invalid_argument("memory.stream: unknown dtype '" + dtype + "'");
}

} // namespace

void register_stream_benchmarks(registry& r) {
  const std::vector<std::string> suites{"quick", "standard", "full"};
  const std::vector<std::string> dtypes{"fp32", "fp64"};
  r.add("memory.stream.copy", "c = a: device-memory bandwidth, 2 arrays moved (BabelStream Copy)",
        stream_benchmark<stream_op::copy>)
      .in_suites(suites)
      .with_axis("dtype", dtypes);
  r.add("memory.stream.scale", "b = s*c: device-memory bandwidth, 2 arrays moved (BabelStream Mul)",
        stream_benchmark<stream_op::scale>)
      .in_suites(suites)
      .with_axis("dtype", dtypes);
  r.add("memory.stream.add", "c = a + b: device-memory bandwidth, 3 arrays moved (BabelStream Add)",
        stream_benchmark<stream_op::add>)
      .in_suites(suites)
      .with_axis("dtype", dtypes);
  r.add("memory.stream.triad",
        "a = b + s*c: device-memory bandwidth, 3 arrays moved (BabelStream Triad)",
        stream_benchmark<stream_op::triad>)
      .in_suites(suites)
      .with_axis("dtype", dtypes);
  r.add("memory.stream.dot",
        "sum(a*b): device-memory bandwidth of a reduction, 2 arrays read (BabelStream Dot)",
        stream_benchmark<stream_op::dot>)
      .in_suites(suites)
      .with_axis("dtype", dtypes);
}

} // namespace gpuspec::benches
