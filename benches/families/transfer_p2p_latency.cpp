// transfer.p2p_latency: the latency of one load from a peer GPU's memory, for every ordered
// pair (src, dst): a single thread on src follows a pointer chase whose chain lives in dst's
// memory, so each load waits for the one before it to come back over the path between the two
// (NVLink, or PCIe through switches, a host bridge or the inter-socket link).
//
// What it measures: ns per load (lower is better), from CUDA events around launches of about
// 5 ms of dependent loads each; cycles per load (src's clock64) as an observation. The chain is
// latency.dram's (kernels/pointer_chase.hpp: Sattolo's random cycle over 128-byte slots, each
// holding the device address of the next), built in dst's memory and walked from src through
// peer access, over 256 MiB: more than any L2 of either GPU, so the loads go to dst's memory.
// nvbandwidth measures peer latency with the same kind of chase (its device_local/remote
// latency tests); the code is ours.
//
// Axes: pair only ("src->dst", planned from the node's GPUs as transfer.p2p's, p2p_plan.hpp:
// every ordered pair in standard, a ring both ways in quick; the observation pairs_planned says
// which), and a pair without peer access is not_supported (a load through host memory is not a
// peer load). No ceiling: reported, not judged (expect.json); compare it with `diff` and across
// pairs of one node.
//
// Check: after the samples the chase's state (on src) says how many launches and loads it did
// and where it stopped; the stop must be the slot the host's walk of the same permutation
// reaches after as many loads (so every load was really dependent and really walked dst's
// chain).

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <cuda_runtime.h>
#include <fmt/format.h>

#include "gpuspec/benches/device_timing.cuh"
#include "gpuspec/benches/families.hpp"
#include "gpuspec/benches/node_state.hpp"
#include "gpuspec/host/p2p_plan.hpp"
#include "gpuspec/kernels/cache_bandwidth.hpp" // calibrate_count
#include "gpuspec/kernels/cuda_check.cuh"
#include "gpuspec/kernels/cuda_handles.cuh"
#include "gpuspec/kernels/pointer_chase.hpp"

#include "../src/p2p_support.hpp"

namespace gpuspec::benches {
namespace {

constexpr std::uint64_t chain_bytes = std::uint64_t{256} << 20;
constexpr std::uint64_t chase_seed = 0x6770757370326c01ull;
constexpr double launch_target_seconds = 5e-3;

/// The chase's end state against the host: launches and loads counted, the cursor where the
/// host's walk of the same permutation ends.
reports::verification walk_verification(const kernels::chase_state& end, std::uint64_t launches,
                                        std::uint64_t loads, const std::uint64_t* chain,
                                        const std::vector<std::uint32_t>& next, int src_index,
                                        int dst_index) {
  const auto slots = static_cast<std::uint32_t>(next.size());
  const std::optional<std::uint32_t> at = kernels::chase_slot_of(end.cursor, chain, slots);
  const std::uint32_t want = kernels::walk_chain(next, 0, end.steps);
  std::vector<std::string> problems;
  if (end.launches != launches)
    problems.push_back(
        fmt::format("the kernel counted {} launches, the host ran {}", end.launches, launches));
  if (end.steps != launches * loads)
    problems.push_back(
        fmt::format("the kernel counted {} loads, expected {}", end.steps, launches * loads));
  if (!at)
    problems.push_back(
        fmt::format("the cursor (device address {}) is not a slot of the chain", end.cursor));
  else if (*at != want)
    problems.push_back(
        fmt::format("the walk ended at slot {}, the host's walk at slot {}", *at, want));
  reports::verification v;
  v.tolerance = 0.0;
  if (problems.empty()) {
    v.status = reports::verification_status::passed;
    v.max_rel_error = 0.0;
    v.detail = fmt::format("after {} launches and {} loads from GPU {} the chase in GPU {}'s "
                           "memory ended at slot {}, as the host's walk of the same permutation "
                           "does",
                           end.launches, end.steps, src_index, dst_index, want);
  } else {
    v.status = reports::verification_status::failed;
    for (const std::string& problem : problems)
      v.detail += (v.detail.empty() ? "" : "; ") + problem;
  }
  return v;
}

/// The chain in GPU `cuda_device`'s memory: the permutation `next` written as addresses there.
std::optional<kernels::device_buffer<std::uint64_t>>
chain_on(int cuda_device, const std::vector<std::uint32_t>& next) {
  const auto slots = static_cast<std::uint32_t>(next.size());
  std::optional<kernels::device_buffer<std::uint64_t>> chain;
  const kernels::device_scope on(cuda_device);
  chain.emplace(chain_bytes / sizeof(std::uint64_t));
  kernels::device_buffer<std::uint32_t> next_device(slots);
  GPUSPEC_CUDA_CHECK(
      cudaMemcpy(next_device.data(), next.data(), next_device.bytes(), cudaMemcpyHostToDevice));
  kernels::launch_build_chain(chain->data(), next_device.data(), slots, kernels::stream_handle{});
  GPUSPEC_CUDA_CHECK(cudaDeviceSynchronize());
  return chain;
}

void p2p_latency_case(node_state& state) {
  const auto pair = resolve_pair(state);
  if (!pair)
    return; // skipped, and said why
  const int src_index = pair->src_index, dst_index = pair->dst_index;
  const node_device& src = *pair->src;
  const node_device& dst = *pair->dst;

  const auto topology = node_topology(state.devices());
  const auto* path = reports::find_pair(topology, src_index, dst_index);
  state.add_parameter("path", host::p2p_path_text(topology, src_index, dst_index));
  state.add_parameter("nvlink_links", path != nullptr ? path->nvlink_links : 0);

  int src_reaches_dst = 0;
  GPUSPEC_CUDA_CHECK(cudaDeviceCanAccessPeer(&src_reaches_dst, src.cuda_device, dst.cuda_device));
  if (!src_reaches_dst) {
    state.not_supported(fmt::format(
        "GPU {} has no peer access to GPU {}'s memory (cudaDeviceCanAccessPeer); NVML P2P read: "
        "{}: a load through host memory is not a peer load",
        src_index, dst_index, path ? path->p2p_read : "not known"));
    return;
  }
  const peer_access_scope src_to_dst(src.cuda_device, dst.cuda_device);

  // --- the chain, in dst's memory ------------------------------------------------------------
  const auto slots = static_cast<std::uint32_t>(chain_bytes / kernels::chase_slot_bytes);
  const std::vector<std::uint32_t> next = kernels::sattolo_cycle(slots, chase_seed);
  const std::optional<kernels::device_buffer<std::uint64_t>> chain =
      chain_on(dst.cuda_device, next);

  // --- the walk, from src --------------------------------------------------------------------
  const kernels::device_scope on(src.cuda_device);
  kernels::stream s;
  kernels::device_buffer<kernels::chase_state> chase(1);
  const kernels::chase_state start = kernels::chase_start(chain->data());
  const auto restart = [&] {
    GPUSPEC_CUDA_CHECK(cudaMemcpy(chase.data(), &start, sizeof start, cudaMemcpyHostToDevice));
  };
  restart();
  const auto time_steps = [&](std::uint64_t steps) {
    return device_seconds(s.ref(), [&] {
      kernels::launch_pointer_chase(chase.data(), kernels::chase_load::cg, 0,
                                    static_cast<std::uint32_t>(steps), s.ref().handle());
    });
  };
  const auto timed_steps = static_cast<std::uint32_t>(kernels::calibrate_count(
      time_steps, 256, launch_target_seconds, 256, std::uint64_t{1} << 24));
  const std::uint32_t warm_steps = timed_steps / 8;
  const std::uint64_t loads = std::uint64_t{warm_steps} + timed_steps;
  restart();

  std::uint64_t launches = 0;
  const auto launch = [&] {
    ++launches;
    kernels::launch_pointer_chase(chase.data(), kernels::chase_load::cg, warm_steps, timed_steps,
                                  s.ref().handle());
  };
  reports::work_per_iteration work;
  work.items = static_cast<double>(loads);
  state.set_work_samples(state.time_samples([&] { return device_seconds(s.ref(), launch); }), work);
  state.add_parameter("chain_bytes", chain_bytes);
  state.add_parameter("slots", slots);
  state.add_parameter("slot_bytes", kernels::chase_slot_bytes);
  state.add_parameter("load", std::string(kernels::chase_load_name(kernels::chase_load::cg)));
  state.add_parameter("loads_per_launch", loads);
  state.add_parameter("item", "load");

  kernels::chase_state end;
  GPUSPEC_CUDA_CHECK(cudaMemcpy(&end, chase.data(), sizeof end, cudaMemcpyDeviceToHost));
  if (end.cycles > 0 && timed_steps > 0)
    state.add_parameter("cycles_per_load",
                        static_cast<double>(end.cycles) / static_cast<double>(timed_steps));

  state.set_verification(
      walk_verification(end, launches, loads, chain->data(), next, src_index, dst_index));
}

} // namespace

void register_transfer_p2p_latency_benchmarks(registry& r) {
  r.add_node("transfer.p2p_latency",
             "latency of a load from a peer GPU's memory, every ordered pair: a pointer chase in "
             "dst's memory walked from src",
             p2p_latency_case)
      .in_suites({"standard", "full"})
      .with_node_axis("pair", host::p2p_planned_pairs);
}

} // namespace gpuspec::benches
