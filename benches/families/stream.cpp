// memory.stream.<name>: BabelStream's kernels, one benchmark per row of kernels::stream_ops
// (kernels/include/gpuspec/kernels/stream_math.hpp).
//
// What it measures: sustained device-memory bandwidth in GB/s (1e9 bytes/s), cold (the L2 is
// flushed before every sample), with bytes counted as BabelStream counts them, without the
// write-allocate read: the arrays each row reads and writes (docs/design.md rule 8).
// Bound by DRAM/HBM bandwidth; judged against memory clock x bus width x 2 / 8 (ceilings.hpp).
// Hardware: any CUDA GPU the build targets.
//
// Arrays: run_options::stream_array_bytes each (1 GiB by default, far above any L2), shrunk
// to fit free memory; the parameters record the size used. Inputs are seeded random values in
// [1, 2) and outputs are poisoned with NaN before the run. Unlike BabelStream's chained
// sequence, each benchmark repeats one kernel, and each kernel only reads arrays it never
// writes, so every repetition leaves the same output: after the timed samples the output is
// checked element by element on the host against the row's expression evaluated on the seeds.

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

using kernels::stream_op_row;

/// The seed of array 'a', 'b' or 'c'.
constexpr std::uint64_t seed_of(char array) {
  return 0x6770757370656301ull + static_cast<std::uint64_t>(array - 'a');
}

template <class T> T input(char array, std::size_t i) {
  return kernels::seeded_value<T>(seed_of(array), i);
}

/// BabelStream's scalar.
constexpr double scalar = 0.4;

/// Device memory left free beside the arrays (context, the dot's partials, other tenants).
constexpr std::uint64_t reserve_bytes = std::uint64_t{256} << 20;

std::string mib_text(std::uint64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

/// Elements per array: the requested bytes per array, shrunk to what is free. Records the
/// sizes in the parameters.
template <class T> std::size_t size_arrays(bench_state& state, const stream_op_row& row) {
  const int arrays = row.arrays_moved();
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
  return n;
}

/// The arrays a row touches (the others stay empty), and the dot's partials and result.
template <class T> struct stream_buffers {
  kernels::device_buffer<T> a, b, c;
  kernels::device_buffer<T> partials;
  kernels::device_buffer<double> result;
  unsigned dot_blocks = 0;

  [[nodiscard]] kernels::stream_arrays<T> arrays() { return {a.data(), b.data(), c.data()}; }
  [[nodiscard]] kernels::device_buffer<T>& array(char name) {
    return name == 'a' ? a : name == 'b' ? b : c;
  }
  [[nodiscard]] const kernels::device_buffer<T>& array(char name) const {
    return name == 'a' ? a : name == 'b' ? b : c;
  }
};

/// Allocates the row's arrays, seeds those it reads and poisons the one it writes (and the
/// dot's partials and result), and waits for that to finish.
template <class T>
void prepare_buffers(bench_state& state, const stream_op_row& row, std::size_t n,
                     stream_buffers<T>& buffers) {
  const kernels::stream_ref stream = state.stream();
  for (char name : {'a', 'b', 'c'}) {
    if (!row.touches(name))
      continue;
    kernels::device_buffer<T>& buffer = buffers.array(name);
    buffer = kernels::device_buffer<T>(n);
    if (name == row.writes)
      kernels::poison_with_nan(buffer.data(), buffer.bytes(), stream.handle());
    else
      kernels::launch_fill_seeded(buffer.data(), n, seed_of(name), stream.handle());
  }
  if (!row.elementwise()) {
    buffers.dot_blocks =
        kernels::dot_grid_blocks(n, kernels::vector_width<T>, kernels::dot_resident_blocks<T>());
    buffers.partials = kernels::device_buffer<T>(buffers.dot_blocks);
    buffers.result = kernels::device_buffer<double>(1);
    kernels::poison_with_nan(buffers.partials.data(), buffers.partials.bytes(), stream.handle());
    kernels::poison_with_nan(buffers.result.data(), buffers.result.bytes(), stream.handle());
    state.add_parameter("dot_blocks", buffers.dot_blocks);
  }
  stream.synchronize();
}

/// The work one iteration does, and what it is judged against.
void declare_work(bench_state& state, const stream_op_row& row, std::size_t n,
                  std::size_t element_bytes) {
  state.set_bytes_per_iteration(
      static_cast<double>(kernels::stream_bytes(row.op, n, element_bytes)));
  state.set_flops_per_iteration(static_cast<double>(row.flops_per_element) *
                                static_cast<double>(n));
  if (row.uses_scalar)
    state.add_parameter("scalar", scalar);
  state.set_cache_mode(cache_mode::cold);
  state.set_ceiling(ceiling_kind::device_memory_bandwidth);
}

/// The timed samples: the harness's exec runs the row's kernel.
template <class T>
void measure(bench_state& state, const stream_op_row& row, std::size_t n,
             stream_buffers<T>& buffers) {
  const kernels::stream_arrays<T> arrays = buffers.arrays();
  state.exec([&](kernels::stream_ref s) {
    if (row.elementwise())
      kernels::launch_stream(row.op, arrays, static_cast<T>(scalar), n, s.handle());
    else
      kernels::launch_dot(buffers.a.data(), buffers.b.data(), buffers.partials.data(),
                          buffers.dot_blocks, buffers.result.data(), n, s.handle());
  });
}

/// Every output element against the row's expression evaluated on the host from the seeds.
template <class T>
void verify_elementwise(bench_state& state, const stream_op_row& row, std::size_t n,
                        const stream_buffers<T>& buffers) {
  const kernels::stream_ref stream = state.stream();
  auto host = std::make_unique_for_overwrite<T[]>(n);
  GPUSPEC_CUDA_CHECK(cudaMemcpyAsync(host.get(), buffers.array(row.writes).data(), n * sizeof(T),
                                     cudaMemcpyDeviceToHost, stream.get()));
  stream.synchronize();
  const double tolerance = kernels::elementwise_relative_error_bound<T>();
  const char x = row.reads[0];
  const char y = row.reads.size() > 1 ? row.reads[1] : 0;
  elementwise_report report;
  kernels::visit_stream_elementwise(row.op, [&]<class Row>() {
    report = check_elementwise(
        host.get(), n,
        [x, y](std::size_t i) {
          return Row::apply(input<T>(x, i), y != 0 ? input<T>(y, i) : T(0), static_cast<T>(scalar));
        },
        tolerance);
  });
  const std::string what = std::string(1, row.writes) + " against " + std::string(row.reference);
  state.set_verification(
      to_verification(report, tolerance, what + " computed on the host from the seeded inputs"));
}

/// The dot's result against a compensated double-precision sum of the seeded inputs.
template <class T>
void verify_dot(bench_state& state, std::size_t n, const stream_buffers<T>& buffers) {
  const kernels::stream_ref stream = state.stream();
  double got = 0.0;
  GPUSPEC_CUDA_CHECK(cudaMemcpyAsync(&got, buffers.result.data(), sizeof got,
                                     cudaMemcpyDeviceToHost, stream.get()));
  stream.synchronize();
  const compensated_total reference = compensated_sum(n, [](std::size_t i) {
    return static_cast<double>(input<T>('a', i)) * static_cast<double>(input<T>('b', i));
  });
  // The bound holds relative to sum|a*b|; the seeded inputs are positive, so that is the sum.
  const double condition =
      reference.sum != 0.0 ? reference.sum_abs / std::fabs(reference.sum) : 1.0;
  const double tolerance = kernels::dot_relative_error_bound<T>(n, buffers.dot_blocks) * condition;
  state.set_verification(scalar_verification(
      got, reference.sum, tolerance,
      "sum(a*b) against a compensated double-precision sum of the seeded inputs on the host "
      "(bound: "
      "recursive-summation error of one thread's share plus the reduction tree)"));
}

/// One STREAM case: size, allocate and initialise; declare the work; exec; verify.
template <class T> void run_stream(bench_state& state, const stream_op_row& row) {
  const std::size_t n = size_arrays<T>(state, row);
  stream_buffers<T> buffers;
  prepare_buffers(state, row, n, buffers);
  declare_work(state, row, n, sizeof(T));
  measure(state, row, n, buffers);
  if (row.elementwise())
    verify_elementwise(state, row, n, buffers);
  else
    verify_dot(state, n, buffers);
}

void stream_benchmark(bench_state& state, const stream_op_row& row) {
  const std::string& dtype = state.axis("dtype");
  if (dtype == "fp32")
    run_stream<float>(state, row);
  else if (dtype == "fp64")
    run_stream<double>(state, row);
  else
    throw std::invalid_argument("memory.stream: unknown dtype '" + dtype + "'");
}

/// "c = a: device-memory bandwidth, 2 arrays moved (BabelStream Copy)".
std::string stream_description(const stream_op_row& row) {
  return std::string(row.formula) + ": device-memory bandwidth" +
         (row.elementwise() ? "" : " of a reduction") + ", " + std::to_string(row.arrays_moved()) +
         " arrays " + (row.elementwise() ? "moved" : "read") + " (BabelStream " +
         std::string(row.babelstream) + ")";
}

} // namespace

void register_stream_benchmarks(registry& r) {
  const std::vector<std::string> suites{"quick", "standard", "full"};
  const std::vector<std::string> dtypes{"fp32", "fp64"};
  for (const stream_op_row& row : kernels::stream_ops)
    r.add("memory.stream." + std::string(row.name), stream_description(row),
          [&row](bench_state& state) { stream_benchmark(state, row); })
        .in_suites(suites)
        .with_axis("dtype", dtypes);
}

} // namespace gpuspec::benches
