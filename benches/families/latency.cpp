// latency.{l1,l2,dram}, latency.sweep: pointer-chase load latency. latency.launch: the cost of
// an empty kernel launch.
//
// Pointer chase (kernels/src/pointer_chase.cu): one thread follows p = *p around a random
// single cycle (Sattolo's algorithm, seeded, built on the host) of 128-byte slots, so every
// load depends on the one before and touches a new cache line, in an order no prefetcher can
// guess. Metric: ns per load (lower is better), from the events around each launch; the kernel
// also counts SM clock cycles (clock64) around its timed loads, and the extra launch after
// exec reports them as the parameter cycles_per_load. Bound by latency alone: one load in
// flight on the whole GPU. Hardware: any GPU the build targets.
//  - latency.l1: a 16 KiB chain (under the 28 KiB of L1 every architecture from Volta on keeps
//    whatever the shared-memory carve-out) with ld.global.ca, which caches in L1.
//  - latency.l2: a chain of a quarter of the L2 with ld.global.cg, which bypasses L1. On A100
//    and H100/H200 the L2 is two partitions, so the figure is an average over near and far
//    slices, which is what a random access sees.
//  - latency.dram: a chain of at least 256 MiB and 8x the L2 (a power of two: 512 MiB on a
//    50 MiB L2), with ld.global.cg.
//  - latency.sweep (standard and full only): ld.global.ca chains of 4 KiB to 1 GiB in powers
//    of two, one result each, with the level each size is expected to hit (expected_level,
//    from the L1 and L2 sizes), so a report shows the steps at L1, L2 and device memory.
// All chase results are hot: nothing is flushed. Each launch goes on from where the last one
// stopped (the cursor lives in device memory), so the walk goes round the whole chain; a chain
// larger than L2 therefore keeps missing L2 (a slot comes round again only after the whole
// chain has passed through), while a chain that fits stays cached. A launch that restarted
// from slot 0 would instead find its first few thousand slots in L2, left there by the launch
// before, and report L2 latency for DRAM. TLB: cudaMalloc'ed memory is mapped with large pages
// (2 MiB on current GPUs and drivers), so a 16 KiB or L2-sized chain spans few pages, but a
// chain of hundreds of MiB spans hundreds of them, and some of its loads miss the TLBs: the
// DRAM figure includes that, as any random access over that much memory does.
//
// Each chase launch is sized at run time to take about 5 ms (a trial, a probe, then scaled),
// so the fixed costs of a launch (its start, and the L1 chain's first round, which may come
// from L2 each launch) stay under about 1% of it. The chain is built by a kernel from the
// host's permutation; the check after exec compares the cursor with the host's own walk of
// that permutation over every step taken since the start (counted by the kernel, and by the
// host), and the launch count with the number of runs of the work.
//
// Launch latency (latency.launch, kernels/src/empty_launch.cu): one iteration is 256 launches
// of an empty kernel (1 thread, which only adds 1 to a device counter):
//  - mode=stream: the work enqueues them one by one on the stream;
//  - mode=graph: a CUDA graph of 256 kernel nodes, captured, instantiated and uploaded before
//    exec; the work launches the executable graph once.
// The harness's hold kernel keeps the stream from starting while the work is enqueued, so the
// events measure the GPU side alone: how quickly the GPU gets through launches already queued
// (front end, block scheduling, completion). Metric: ns per launch. The host side is a second
// figure: after exec, 20 untimed-by-events repetitions time the enqueue of one iteration with
// std::chrono, each followed by a synchronise, and the median / 256 is the parameter
// host_enqueue_ns_per_launch (for a graph, the cost of one cudaGraphLaunch shared by its 256
// nodes; host_enqueue_ns_per_graph_launch gives it whole). 256 launches stay well under the
// roughly 1000 a stream's queue holds before an enqueue blocks, which behind the hold kernel
// would only end at its timeout. Check: the device counter equals 256 x every run of the work
// (warm-up, samples and the host repetitions).

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "gpuspec/benches/bench_state.cuh"
#include "gpuspec/benches/families.hpp"
#include "gpuspec/benches/verification.hpp"
#include "gpuspec/kernels/cache_bandwidth.hpp"
#include "gpuspec/kernels/cuda_check.cuh"
#include "gpuspec/kernels/cuda_handles.cuh"
#include "gpuspec/kernels/empty_launch.hpp"
#include "gpuspec/kernels/pointer_chase.hpp"
#include "gpuspec/reports/model/statistics.hpp"

namespace gpuspec::benches {

namespace {

using kernels::chase_load;

constexpr std::uint64_t chase_seed = 0x6770757370656321ull;

/// Device time one chase launch should take.
constexpr double chase_target_seconds = 5e-3;

constexpr std::uint64_t kib = 1024, mib = kib * 1024;

/// The L1 chain: under the smallest L1 of any architecture (28 KiB).
constexpr std::uint64_t l1_chain_bytes = 16 * kib;

/// The DRAM chain: at least this, and at least dram_l2_multiple x the L2, as a power of two;
/// never below min_dram_l2_multiple x the L2 when shrunk to fit.
constexpr std::uint64_t min_dram_chain_bytes = 256 * mib;
constexpr std::uint64_t dram_l2_multiple = 8;
constexpr std::uint64_t min_dram_l2_multiple = 4;

/// Device memory left free beside a chain (context, other tenants).
constexpr std::uint64_t reserve_bytes = 256 * mib;

/// Host repetitions of the enqueue timing in latency.launch.
constexpr int host_enqueue_repetitions = 20;

std::uint64_t free_device_bytes() {
  std::size_t free_bytes = 0, total_bytes = 0;
  GPUSPEC_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  return free_bytes;
}

/// Device memory a chain of `bytes` needs while it is built: the chain and the permutation.
std::uint64_t chain_footprint(std::uint64_t bytes) {
  return bytes + bytes / kernels::chase_slot_bytes * sizeof(std::uint32_t);
}

std::string not_enough_memory(std::uint64_t chain_bytes, std::uint64_t free_bytes) {
  return "not enough free device memory for a " + kernels::size_text(chain_bytes) + " chain (" +
         std::to_string(free_bytes >> 20) + " MiB free, " + std::to_string(reserve_bytes >> 20) +
         " MiB kept in reserve)";
}

kernels::cache_sizes device_cache_sizes(const bench_state& state) {
  int max_shared = 0;
  GPUSPEC_CUDA_CHECK(cudaDeviceGetAttribute(
      &max_shared, cudaDevAttrMaxSharedMemoryPerMultiprocessor, state.cuda_device()));
  const std::int64_t l2 = state.l2_bytes();
  return kernels::cache_sizes_of(state.device().cc_major.value_or(0),
                                 static_cast<std::uint64_t>(max_shared > 0 ? max_shared : 0),
                                 static_cast<std::uint64_t>(l2 > 0 ? l2 : 0));
}

/// The chase's end state against the host: launches and loads counted, the cursor where the
/// host's walk of the same permutation ends, the clock running.
reports::verification chase_verification(const kernels::chase_state& end, std::uint64_t runs,
                                         std::uint64_t loads, const std::uint64_t* chain,
                                         const std::vector<std::uint32_t>& next) {
  const auto slots = static_cast<std::uint32_t>(next.size());
  const std::optional<std::uint32_t> at = kernels::chase_slot_of(end.cursor, chain, slots);
  const std::uint32_t want = kernels::walk_chain(next, 0, end.steps);
  std::vector<std::string> problems;
  if (end.launches != runs)
    problems.push_back("the kernel counted " + std::to_string(end.launches) +
                       " launches, the host ran " + std::to_string(runs));
  if (end.steps != runs * loads)
    problems.push_back("the kernel counted " + std::to_string(end.steps) + " loads, expected " +
                       std::to_string(runs * loads));
  if (!at)
    problems.push_back("the cursor (device address " + std::to_string(end.cursor) +
                       ") is not a slot of the chain");
  else if (*at != want)
    problems.push_back("the walk ended at slot " + std::to_string(*at) +
                       ", the host's walk of the permutation at slot " + std::to_string(want));
  if (!(end.cycles > 0))
    problems.push_back("clock64 counted " + std::to_string(end.cycles) + " cycles");

  reports::verification v;
  v.tolerance = 0.0;
  if (problems.empty()) {
    v.status = reports::verification_status::passed;
    v.max_rel_error = 0.0;
    v.detail = "after " + std::to_string(end.launches) + " launches and " +
               std::to_string(end.steps) + " loads the chase ended at slot " +
               std::to_string(want) + ", as the host's walk of the same permutation does";
  } else {
    v.status = reports::verification_status::failed;
    for (const std::string& problem : problems)
      v.detail += (v.detail.empty() ? "" : "; ") + problem;
  }
  return v;
}

/// The chain of `bytes` on the device: the permutation `next` written as addresses by a kernel.
kernels::device_buffer<std::uint64_t> build_chain(const std::vector<std::uint32_t>& next,
                                                  std::uint64_t bytes, kernels::stream_ref s) {
  const auto slots = static_cast<std::uint32_t>(next.size());
  kernels::device_buffer<std::uint64_t> chain(bytes / sizeof(std::uint64_t));
  kernels::device_buffer<std::uint32_t> next_device(slots);
  GPUSPEC_CUDA_CHECK(cudaMemcpyAsync(next_device.data(), next.data(), next_device.bytes(),
                                     cudaMemcpyHostToDevice, s.get()));
  kernels::launch_build_chain(chain.data(), next_device.data(), slots, s.handle());
  s.synchronize();
  return chain;
}

/// Measures a chase over a chain of `bytes` with `load`; the caller has checked it fits.
void run_chase(bench_state& state, std::uint64_t bytes, chase_load load) {
  const kernels::stream_ref s = state.stream();
  const std::uint64_t slots64 = bytes / kernels::chase_slot_bytes;
  if (slots64 < 2 || slots64 > std::numeric_limits<std::uint32_t>::max())
    throw std::invalid_argument(state.id() + ": a chain of " + std::to_string(bytes) +
                                " bytes has " + std::to_string(slots64) + " slots of " +
                                std::to_string(kernels::chase_slot_bytes) +
                                " bytes; it needs 2 to 2^32 - 1");
  const auto slots = static_cast<std::uint32_t>(slots64);
  const kernels::cache_sizes sizes = device_cache_sizes(state);

  // --- the chain: Sattolo's permutation on the host, written as addresses by a kernel --------
  const std::vector<std::uint32_t> next = kernels::sattolo_cycle(slots, chase_seed);
  const kernels::device_buffer<std::uint64_t> chain = build_chain(next, bytes, s);
  kernels::device_buffer<kernels::chase_state> chase(1);
  const kernels::chase_state start = kernels::chase_start(chain.data());
  auto restart = [&] {
    GPUSPEC_CUDA_CHECK(
        cudaMemcpyAsync(chase.data(), &start, sizeof start, cudaMemcpyHostToDevice, s.get()));
    s.synchronize();
  };
  restart();
  kernels::prefer_l1_for_pointer_chase();

  // --- loads per launch: about chase_target_seconds of them ----------------------------------
  auto time_steps = [&](std::uint64_t steps) {
    return state.setup_seconds([&](kernels::stream_ref) {
      kernels::launch_pointer_chase(chase.data(), load, 0, static_cast<std::uint32_t>(steps),
                                    s.handle());
    });
  };
  const auto timed_steps = static_cast<std::uint32_t>(kernels::calibrate_count(
      time_steps, 1024, chase_target_seconds, 1024, std::uint64_t{1} << 28));
  // Untimed by the clock: enough to bring an L1-sized chain back in before the clock starts.
  const std::uint32_t warm_steps = std::min(slots, timed_steps / 8);
  const std::uint64_t loads = std::uint64_t{warm_steps} + timed_steps;
  restart();

  const kernels::memory_level level = kernels::expected_level(bytes, sizes);
  state.add_parameter("chain_bytes", bytes);
  state.add_parameter("chain_text", kernels::size_text(bytes));
  state.add_parameter("slots", slots);
  state.add_parameter("slot_bytes", kernels::chase_slot_bytes);
  state.add_parameter("load", std::string(kernels::chase_load_name(load)));
  state.add_parameter("expected_level", std::string(kernels::memory_level_name(level)));
  state.add_parameter("l1_bytes_min", sizes.l1_min);
  state.add_parameter("l1_bytes_max", sizes.l1_max);
  state.add_parameter("l2_bytes", sizes.l2);
  state.add_parameter("timed_loads_per_launch", timed_steps);
  state.add_parameter("warm_loads_per_launch", warm_steps);
  state.set_items_per_iteration(static_cast<double>(loads), "load");
  state.set_cache_mode(cache_mode::hot);

  std::uint64_t runs = 0;
  state.exec([&](kernels::stream_ref q) {
    ++runs;
    kernels::launch_pointer_chase(chase.data(), load, warm_steps, timed_steps, q.handle());
  });

  // --- one more launch, outside the timing, for the clock; then the check --------------------
  ++runs;
  kernels::launch_pointer_chase(chase.data(), load, warm_steps, timed_steps, s.handle());
  kernels::chase_state end;
  GPUSPEC_CUDA_CHECK(
      cudaMemcpyAsync(&end, chase.data(), sizeof end, cudaMemcpyDeviceToHost, s.get()));
  s.synchronize();

  const double cycles_per_load = static_cast<double>(end.cycles) / timed_steps;
  state.add_parameter("cycles_per_load", cycles_per_load);
  state.add_parameter("cycles_source",
                      "clock64 around the timed loads of one launch after the measurement");

  state.set_verification(chase_verification(end, runs, loads, chain.data(), next));
}

void l1_latency(bench_state& state) { run_chase(state, l1_chain_bytes, chase_load::ca); }

void l2_latency(bench_state& state) {
  const std::int64_t l2 = state.l2_bytes();
  if (l2 <= 0) {
    state.skip("the device reports no L2 cache size, so no chain can be sized to it");
    return;
  }
  const std::uint64_t bytes = std::max<std::uint64_t>(
      static_cast<std::uint64_t>(l2) / 4 / kernels::chase_slot_bytes * kernels::chase_slot_bytes,
      2 * kernels::chase_slot_bytes);
  state.add_parameter("chain_fraction_of_l2", 0.25);
  run_chase(state, bytes, chase_load::cg);
}

void dram_latency(bench_state& state) {
  const auto l2 = static_cast<std::uint64_t>(std::max<std::int64_t>(state.l2_bytes(), 0));
  std::uint64_t bytes = std::bit_ceil(std::max(min_dram_chain_bytes, dram_l2_multiple * l2));
  const std::uint64_t floor_bytes = std::max(min_dram_chain_bytes, min_dram_l2_multiple * l2);
  const std::uint64_t free_bytes = free_device_bytes();
  while (chain_footprint(bytes) + reserve_bytes > free_bytes && bytes / 2 >= floor_bytes)
    bytes /= 2;
  if (chain_footprint(bytes) + reserve_bytes > free_bytes) {
    state.skip(not_enough_memory(bytes, free_bytes));
    return;
  }
  state.add_parameter("chain_multiple_of_l2",
                      l2 > 0 ? static_cast<double>(bytes) / static_cast<double>(l2) : 0.0);
  run_chase(state, bytes, chase_load::cg);
}

void sweep_latency(bench_state& state) {
  const std::uint64_t bytes = kernels::parse_size_text(state.axis("bytes"));
  const std::uint64_t free_bytes = free_device_bytes();
  if (chain_footprint(bytes) + reserve_bytes > free_bytes) {
    state.skip(not_enough_memory(bytes, free_bytes));
    return;
  }
  run_chase(state, bytes, chase_load::ca);
}

void launch_latency(bench_state& state) {
  const std::string& mode = state.axis("mode");
  if (mode != "stream" && mode != "graph")
    throw std::invalid_argument("latency.launch: unknown mode '" + mode + "'");
  const bool graph_mode = mode == "graph";
  constexpr std::uint32_t launches = kernels::empty_launches_per_iteration;
  const kernels::stream_ref s = state.stream();

  kernels::device_buffer<unsigned long long> counter(1);
  std::optional<kernels::empty_launch_graph> graph;
  if (graph_mode)
    graph.emplace(launches, counter.data());
  auto enqueue = [&](kernels::stream_ref q) {
    if (graph)
      graph->launch(q.handle());
    else
      for (std::uint32_t i = 0; i < launches; ++i)
        kernels::launch_empty_counted(counter.data(), q.handle());
  };
  GPUSPEC_CUDA_CHECK(cudaMemsetAsync(counter.data(), 0, counter.bytes(), s.get()));
  s.synchronize();

  state.add_parameter("launches_per_iteration", launches);
  state.add_parameter("kernel", "1 block of 1 thread; one atomic add to a device counter");
  state.set_items_per_iteration(launches, "launch");
  state.set_cache_mode(cache_mode::hot);

  std::uint64_t runs = 0;
  state.exec([&](kernels::stream_ref q) {
    ++runs;
    enqueue(q);
  });
  s.synchronize();

  // --- host side: the time to enqueue one iteration, outside the events ---------------------
  std::vector<double> enqueue_seconds;
  enqueue_seconds.reserve(host_enqueue_repetitions);
  for (int i = 0; i < host_enqueue_repetitions; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    ++runs;
    enqueue(s);
    const auto t1 = std::chrono::steady_clock::now();
    s.synchronize();
    enqueue_seconds.push_back(std::chrono::duration<double>(t1 - t0).count());
  }
  const double median_seconds = reports::summarize(enqueue_seconds).median;
  state.add_parameter("host_enqueue_ns_per_launch", median_seconds / launches * 1e9);
  state.add_parameter("host_enqueue_repetitions", host_enqueue_repetitions);
  if (graph_mode)
    state.add_parameter("host_enqueue_ns_per_graph_launch", median_seconds * 1e9);

  unsigned long long got = 0;
  GPUSPEC_CUDA_CHECK(
      cudaMemcpyAsync(&got, counter.data(), sizeof got, cudaMemcpyDeviceToHost, s.get()));
  s.synchronize();
  const double expected = static_cast<double>(runs) * launches;
  state.set_verification(scalar_verification(
      static_cast<double>(got), expected, 0.0,
      "launches counted on the device against " + std::to_string(launches) + " per run x " +
          std::to_string(runs) + " runs of the work (warm-up, samples, host enqueue timing)"));
}

} // namespace

void register_latency_benchmarks(registry& r) {
  const std::vector<std::string> every{"quick", "standard", "full"};
  r.add("latency.l1", "pointer-chase load latency in L1 (16 KiB chain, ld.global.ca)", l1_latency)
      .in_suites(every);
  r.add("latency.l2", "pointer-chase load latency in L2 (chain of L2/4, ld.global.cg)", l2_latency)
      .in_suites(every);
  r.add("latency.dram",
        "pointer-chase load latency in device memory (chain of >= 8x L2, ld.global.cg)",
        dram_latency)
      .in_suites(every);
  r.add("latency.sweep",
        "pointer-chase load latency over chains of 4 KiB to 1 GiB: the L1, L2 and DRAM steps",
        sweep_latency)
      .in_suites({"standard", "full"})
      .with_axis("bytes", kernels::sweep_size_texts());
  r.add("latency.launch",
        "empty-kernel launch cost per launch, from a stream and from a CUDA graph", launch_latency)
      .in_suites(every)
      .with_axis("mode", {"stream", "graph"}, 2);
}

} // namespace gpuspec::benches
