// FMA-chain kernels: the peak rate of the fused multiply-add pipes, one kernel per type.
//
//   fma_chain_fp32    fmaf      -> FFMA   (fp32 pipe)
//   fma_chain_fp64    fma       -> DFMA   (fp64 pipe)
//   fma_chain_fp16x2  __hfma2   -> HFMA2  (two fp16 FMAs per instruction)
//   fma_chain_int32   a*b + c   -> IMAD   (32-bit integer multiply-add)
//
// What they measure: arithmetic throughput with no memory traffic to speak of (one store per
// thread at the end). Bound by the issue rate of the FMA pipe; nothing else. Any architecture
// the build targets (sm_75 on): every instruction used exists on all of them.
//
// Design: each thread keeps fma_chain_accumulators (16) independent chains in registers and
// steps each one fma_chain_unroll (32) times per trip of a runtime-bounded loop, so one trip is
// 512 FMA instructions against 3 to 9 of loop control and operand set-up (counted per
// architecture in the SASS: 98.3% to 99.4% of the loop is FMAs; the pipes that issue one FMA per
// clock, fp32 on sm_86+ and fp16x2 on sm_80 and sm_90, lose the rest). The loop is about 8 KB of
// code, the kernel's only hot code; halving the unroll would double the control overhead. Within a
// trip the chains interleave, so sixteen independent instructions separate two dependent ones, more
// than any pipe's latency, and one full wave of resident blocks (SMs × the occupancy calculator's
// blocks per SM: at least half the SM's threads for every kernel) keeps every scheduler busy. The
// multiplier, the addend and the trip count are kernel arguments and every thread stores the sum of
// its accumulators, so the compiler can neither fold nor drop the chains; the header says why the
// values stay bounded and how the host checks every thread's output bit for bit. fp16x2's chains
// reach a rounding fixed point, after which the output no longer depends on the trip count, so
// that kernel alone also stores each warp's trip count (work_count.hpp: the loop counter itself,
// advanced by an opaque add; the loop keeps its instructions).

#include "gpuspec/kernels/fma_chain.hpp"

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "gpuspec/kernels/cuda_check.cuh"
#include "gpuspec/kernels/work_count.cuh"

namespace gpuspec::kernels {

namespace {

constexpr unsigned accumulators = fma_chain_accumulators;
constexpr unsigned unroll = fma_chain_unroll;

__device__ __forceinline__ std::uint32_t global_thread() {
  return blockIdx.x * fma_chain_block_threads + threadIdx.x;
}

/// The chains, shared by the four kernels: `step(x)` is one FMA of the kernel's type.
template <class T, class Step>
__device__ __forceinline__ void run_chains(T (&acc)[accumulators], std::uint32_t trips,
                                           const Step& step) {
  // One trip is already 512 instructions: unrolling the trips further (the compiler does it for
  // fp16x2) would only grow the code past the instruction cache.
#pragma unroll 1
  for (std::uint32_t trip = 0; trip < trips; ++trip) {
#pragma unroll
    for (unsigned u = 0; u < unroll; ++u) {
#pragma unroll
      for (unsigned j = 0; j < accumulators; ++j)
        acc[j] = step(acc[j]);
    }
  }
}

/// run_chains with a work counter: returns the trips that ran (count_trip), for the kernel to
/// store once per warp.
template <class T, class Step>
__device__ __forceinline__ std::uint32_t run_chains_counted(T (&acc)[accumulators],
                                                            std::uint32_t trips, const Step& step) {
  std::uint32_t trip = 0;
#pragma unroll 1
  for (; trip < trips; count_trip(trip)) {
#pragma unroll
    for (unsigned u = 0; u < unroll; ++u) {
#pragma unroll
      for (unsigned j = 0; j < accumulators; ++j)
        acc[j] = step(acc[j]);
    }
  }
  return trip;
}

__global__ void __launch_bounds__(fma_chain_block_threads)
    fma_chain_fp32(float* __restrict__ out, std::uint32_t trips, float a, float b,
                   std::uint64_t seed) {
  const std::uint32_t t = global_thread();
  const unsigned cls = fma_start_class(t);
  float acc[accumulators];
#pragma unroll
  for (unsigned j = 0; j < accumulators; ++j)
    acc[j] = fma_start_fp32(seed, cls, j);
  run_chains(acc, trips, [a, b](float x) { return fmaf(x, a, b); });
  float sum = acc[0];
#pragma unroll
  for (unsigned j = 1; j < accumulators; ++j)
    sum = __fadd_rn(sum, acc[j]);
  out[t] = sum;
}

__global__ void __launch_bounds__(fma_chain_block_threads)
    fma_chain_fp64(double* __restrict__ out, std::uint32_t trips, double a, double b,
                   std::uint64_t seed) {
  const std::uint32_t t = global_thread();
  const unsigned cls = fma_start_class(t);
  double acc[accumulators];
#pragma unroll
  for (unsigned j = 0; j < accumulators; ++j)
    acc[j] = fma_start_fp64(seed, cls, j);
  run_chains(acc, trips, [a, b](double x) { return fma(x, a, b); });
  double sum = acc[0];
#pragma unroll
  for (unsigned j = 1; j < accumulators; ++j)
    sum = __dadd_rn(sum, acc[j]);
  out[t] = sum;
}

/// The pair whose bits are `bits` (low lane in the low half), as one 32-bit move: assembling it
/// from two halves made the compiler rebuild a and b with PRMTs inside the loop.
__device__ __forceinline__ __half2 half2_from_bits(std::uint32_t bits) {
  __half2 h;
  static_assert(sizeof h == sizeof bits);
  std::memcpy(&h, &bits, sizeof h);
  return h;
}

__device__ __forceinline__ std::uint32_t bits_from_half2(__half2 h) {
  std::uint32_t bits = 0;
  std::memcpy(&bits, &h, sizeof bits);
  return bits;
}

__global__ void __launch_bounds__(fma_chain_block_threads)
    fma_chain_fp16x2(std::uint32_t* __restrict__ out, std::uint32_t* __restrict__ trip_counts,
                     std::uint32_t trips, std::uint32_t a_bits, std::uint32_t b_bits,
                     std::uint64_t seed) {
  const std::uint32_t t = global_thread();
  const unsigned cls = fma_start_class(t);
  const __half2 a = half2_from_bits(a_bits);
  const __half2 b = half2_from_bits(b_bits);
  __half2 acc[accumulators];
#pragma unroll
  for (unsigned j = 0; j < accumulators; ++j)
    acc[j] = half2_from_bits(fma_start_fp16x2_bits(seed, cls, j));
  const std::uint32_t ran =
      run_chains_counted(acc, trips, [a, b](__half2 x) { return __hfma2(x, a, b); });
  __half2 sum = acc[0];
#pragma unroll
  for (unsigned j = 1; j < accumulators; ++j)
    sum = __hadd2(sum, acc[j]);
  out[t] = bits_from_half2(sum);
  if (t % 32 == 0)
    trip_counts[t / 32] = ran;
}

__global__ void __launch_bounds__(fma_chain_block_threads)
    fma_chain_int32(std::uint32_t* __restrict__ out, std::uint32_t trips, std::uint32_t a,
                    std::uint32_t b, std::uint64_t seed) {
  const std::uint32_t t = global_thread();
  std::uint32_t acc[accumulators];
#pragma unroll
  for (unsigned j = 0; j < accumulators; ++j)
    acc[j] = fma_start_int32(seed, t, j);
  run_chains(acc, trips, [a, b](std::uint32_t x) { return x * a + b; });
  std::uint32_t sum = acc[0];
#pragma unroll
  for (unsigned j = 1; j < accumulators; ++j)
    sum += acc[j];
  out[t] = sum;
}

/// Largest grid: the kernels index threads with 32 bits.
constexpr unsigned max_blocks = 1u << 24;
static_assert(std::uint64_t{max_blocks} * fma_chain_block_threads <= (std::uint64_t{1} << 32));

/// The loop trips of a launch, after checking the launch's arguments.
std::uint32_t checked_trips(const void* out, unsigned blocks, std::uint32_t iterations,
                            const char* launcher) {
  const std::string name(launcher);
  if (out == nullptr)
    throw std::invalid_argument(name + ": the output must be device memory, got nullptr");
  if (blocks == 0 || blocks > max_blocks)
    throw std::invalid_argument(name + ": blocks must be in [1, 2^24], got " +
                                std::to_string(blocks));
  if (iterations % unroll != 0 || iterations > fma_chain_max_iterations)
    throw std::invalid_argument(
        name + ": iterations must be a multiple of " + std::to_string(unroll) + " and at most " +
        std::to_string(fma_chain_max_iterations) + ", got " + std::to_string(iterations));
  return iterations / unroll;
}

template <class Kernel> unsigned resident_blocks(Kernel kernel) {
  int per_sm = 0;
  GPUSPEC_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &per_sm, kernel, static_cast<int>(fma_chain_block_threads), 0));
  return per_sm > 0 ? static_cast<unsigned>(per_sm) : 0u;
}

} // namespace

fma_chain_wave fma_chain_full_wave(fma_dtype d) {
  int device = 0;
  GPUSPEC_CUDA_CHECK(cudaGetDevice(&device));
  int sms = 0;
  GPUSPEC_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  unsigned per_sm = 0;
  switch (d) {
  case fma_dtype::fp32:
    per_sm = resident_blocks(fma_chain_fp32);
    break;
  case fma_dtype::fp64:
    per_sm = resident_blocks(fma_chain_fp64);
    break;
  case fma_dtype::fp16x2:
    per_sm = resident_blocks(fma_chain_fp16x2);
    break;
  case fma_dtype::int32:
    per_sm = resident_blocks(fma_chain_int32);
    break;
  }
  if (sms <= 0 || per_sm == 0)
    throw std::runtime_error("fma_chain_full_wave: the " + std::string(fma_dtype_name(d)) +
                             " kernel fits no block on an SM (" + std::to_string(sms) + " SMs, " +
                             std::to_string(per_sm) + " blocks per SM)");
  fma_chain_wave w;
  w.sm_count = static_cast<unsigned>(sms);
  w.blocks_per_sm = per_sm;
  const std::uint64_t blocks = std::uint64_t{w.sm_count} * per_sm;
  w.blocks = static_cast<unsigned>(blocks < max_blocks ? blocks : max_blocks);
  w.threads_per_sm = per_sm * fma_chain_block_threads;
  return w;
}

void launch_fma_chain_fp32(float* out, unsigned blocks, std::uint32_t iterations, float a, float b,
                           std::uint64_t seed, stream_handle stream) {
  const std::uint32_t trips = checked_trips(out, blocks, iterations, "launch_fma_chain_fp32");
  fma_chain_fp32<<<blocks, fma_chain_block_threads, 0, stream>>>(out, trips, a, b, seed);
  GPUSPEC_CUDA_CHECK_LAUNCH();
}

void launch_fma_chain_fp64(double* out, unsigned blocks, std::uint32_t iterations, double a,
                           double b, std::uint64_t seed, stream_handle stream) {
  const std::uint32_t trips = checked_trips(out, blocks, iterations, "launch_fma_chain_fp64");
  fma_chain_fp64<<<blocks, fma_chain_block_threads, 0, stream>>>(out, trips, a, b, seed);
  GPUSPEC_CUDA_CHECK_LAUNCH();
}

void launch_fma_chain_fp16x2(std::uint32_t* out, std::uint32_t* trip_counts, unsigned blocks,
                             std::uint32_t iterations, std::uint32_t a_bits, std::uint32_t b_bits,
                             std::uint64_t seed, stream_handle stream) {
  const std::uint32_t trips = checked_trips(out, blocks, iterations, "launch_fma_chain_fp16x2");
  if (trip_counts == nullptr)
    throw std::invalid_argument(
        "launch_fma_chain_fp16x2: the trip counts must be device memory, got nullptr");
  fma_chain_fp16x2<<<blocks, fma_chain_block_threads, 0, stream>>>(out, trip_counts, trips, a_bits,
                                                                   b_bits, seed);
  GPUSPEC_CUDA_CHECK_LAUNCH();
}

void launch_fma_chain_int32(std::uint32_t* out, unsigned blocks, std::uint32_t iterations,
                            std::uint32_t a, std::uint32_t b, std::uint64_t seed,
                            stream_handle stream) {
  const std::uint32_t trips = checked_trips(out, blocks, iterations, "launch_fma_chain_int32");
  fma_chain_int32<<<blocks, fma_chain_block_threads, 0, stream>>>(out, trips, a, b, seed);
  GPUSPEC_CUDA_CHECK_LAUNCH();
}

} // namespace gpuspec::kernels
