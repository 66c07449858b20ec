// transfer.p2p: peer copies between two GPUs of the node, for every ordered pair (src, dst).
//
// What it measures: bandwidth in GB/s (1e9 bytes/s) of a copy from src's memory into dst's,
// one way, or both ways at once (src->dst and dst->src together, bytes of both counted), each
// a memcpy counted once per direction it moves data (docs/design.md rule 8). Bound by the path
// between the two (NVLink, or PCIe through a switch, a host bridge or the inter-socket link);
// judged against that path (p2p_plan.hpp: NVLink count x per-link rate, or the slower PCIe
// link). Hardware: two CUDA GPUs with peer access (cudaDeviceCanAccessPeer); a pair without it
// is not_supported: a copy through host memory is not a peer transfer.
//
// Axes (node-wide: registry::add_node):
//  - pair: "src->dst" NVML indices, planned from the GPUs the run measures (p2p_plan.hpp):
//    every ordered pair in standard and full, in quick a ring over the GPUs and its reverse
//    (every GPU sends and receives, both directions: 2·N cases); the observation pairs_planned
//    says which;
//  - engine: ce (cudaMemcpyPeerAsync: the copy engines) or sm (a copy kernel on dst whose
//    loads read src's memory through peer access: kernels/src/host_copy.cu's vec4 copy, whose
//    loads fetch again (.cv) and stores stay in L2 (.cg)); nvbandwidth's _ce and _read_sm;
//  - direction: one_way or both_ways (ce: one copy on a stream of each GPU at once, dst's
//    stream forked from src's and joined back, so one window times both; sm: the split-warp
//    kernel, even warps reading the peer, odd warps writing it);
//  - size: one copy's bytes; quick runs 256 MiB, standard the transfer sweep.
// The method is nvbandwidth's (NVIDIA/nvbandwidth: CE vs SM copies between device pairs,
// events on the copying streams); the code is ours. Both ways with the copy engines, a sample is
// one window: the start event on src's stream, dst's stream forked from it and joined back
// before the stop event (as transfer.bidir forks and joins its second stream), so the window
// runs from the first copy's start to the last one's end. (node_state leaves the timing of a
// node-wide case to it: no harness event spans two GPUs.)
//
// Check: the source is a seeded pattern of 64-bit words, the destination poisoned (0xFF)
// before; after the samples every byte of each destination is read back and compared with the
// pattern (transfer_math.hpp), so a byte never written or written wrong fails the result.
//
// Peer access is enabled for the case (cudaDeviceEnablePeerAccess both ways) and disabled
// again after it (peer_access_scope, RAII), so no other case runs with it on.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <cuda_runtime.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpuspec/benches/device_timing.cuh"
#include "gpuspec/benches/families.hpp"
#include "gpuspec/benches/node_state.hpp"
#include "gpuspec/benches/transfer_pattern.hpp"
#include "gpuspec/host/p2p_plan.hpp"
#include "gpuspec/host/topology.hpp"
#include "gpuspec/kernels/cuda_check.cuh"
#include "gpuspec/kernels/cuda_handles.cuh"
#include "gpuspec/kernels/host_copy.hpp"
#include "gpuspec/kernels/pointer_chase.hpp" // size_text, parse_size_text
#include "gpuspec/kernels/transfer_math.hpp"

#include "../src/p2p_support.hpp"

namespace gpuspec::benches {
namespace {

constexpr std::uint64_t seed_forward = 0x6770757370326f01ull; // src's buffer
constexpr std::uint64_t seed_back = 0x6770757370326f02ull;    // dst's buffer (both_ways)

/// One GPU's side of the case: its source (seeded) and destination (poisoned) buffers and a
/// stream, all on that GPU.
struct side {
  int cuda = -1;
  kernels::device_buffer<std::byte> source, destination;
  std::optional<kernels::stream> stream;
};

side make_side(int cuda, std::uint64_t bytes, std::uint64_t seed, bool sends, bool receives) {
  const kernels::device_scope on(cuda);
  side s;
  s.cuda = cuda;
  s.stream.emplace();
  if (sends) {
    s.source = kernels::device_buffer<std::byte>(bytes);
    upload_transfer_pattern(s.source.data(), bytes, seed);
  }
  if (receives) {
    s.destination = kernels::device_buffer<std::byte>(bytes);
    GPUSPEC_CUDA_CHECK(cudaMemset(s.destination.data(), kernels::transfer_poison_byte, bytes));
  }
  GPUSPEC_CUDA_CHECK(cudaDeviceSynchronize());
  return s;
}

/// Every byte of `destination` (on its GPU) against the pattern `seed`.
kernels::byte_comparison check_destination(const std::byte* destination, std::uint64_t bytes,
                                           std::uint64_t seed) {
  kernels::byte_comparison r;
  std::vector<std::byte> got(std::min(bytes, transfer_piece_bytes)), expected(got.size());
  for (std::uint64_t at = 0; at < bytes; at += got.size()) {
    const auto len = static_cast<std::size_t>(std::min<std::uint64_t>(got.size(), bytes - at));
    GPUSPEC_CUDA_CHECK(cudaMemcpy(got.data(), destination + at, len, cudaMemcpyDefault));
    kernels::fill_transfer_pattern(std::span(expected.data(), len), seed, at / 8);
    r.append(kernels::compare_bytes(std::span<const std::byte>(got.data(), len),
                                    std::span<const std::byte>(expected.data(), len), at));
  }
  return r;
}

std::string comparison_text(const std::string& what, const kernels::byte_comparison& c) {
  if (c.mismatched_bytes == 0)
    return fmt::format("{}: all {} bytes equal", what, c.compared);
  return fmt::format("{}: {} of {} bytes differ ({} 8-byte word(s) still hold the 0xFF poison: "
                     "never written); the first at byte {}: 0x{:02x}, expected 0x{:02x}",
                     what, c.mismatched_bytes, c.compared, c.unwritten_words, *c.first_mismatch,
                     c.first_got, c.first_expected);
}

/// Whether each GPU of the pair reaches the other's memory (dst reads src: sm, and ce's best
/// path; for both ways src reaches dst); not_supported, saying why, when not.
bool peers_reach(node_state& state, const node_device& src, const node_device& dst, int src_index,
                 int dst_index, const reports::gpu_pair* path) {
  int dst_reaches_src = 0, src_reaches_dst = 0;
  GPUSPEC_CUDA_CHECK(cudaDeviceCanAccessPeer(&dst_reaches_src, dst.cuda_device, src.cuda_device));
  GPUSPEC_CUDA_CHECK(cudaDeviceCanAccessPeer(&src_reaches_dst, src.cuda_device, dst.cuda_device));
  if (!dst_reaches_src || !src_reaches_dst) {
    state.not_supported(fmt::format(
        "no peer access between GPU {} and GPU {} (cudaDeviceCanAccessPeer: {} -> {} {}, {} -> "
        "{} {}); NVML P2P read: {}, write: {}: a copy would go through host memory, which is "
        "not a peer transfer",
        src_index, dst_index, dst_index, src_index, dst_reaches_src ? "yes" : "no", src_index,
        dst_index, src_reaches_dst ? "yes" : "no", path ? path->p2p_read : "not known",
        path ? path->p2p_write : "not known"));
    return false;
  }
  return true;
}

/// Every byte of each destination against its source's seeded pattern.
reports::verification check_copies(const side& a, const side& b, std::uint64_t bytes, bool both,
                                   int src_index, int dst_index) {
  std::vector<std::string> parts;
  bool failed = false;
  const auto check = [&](const std::byte* destination, std::uint64_t seed, std::string what) {
    const auto c = check_destination(destination, bytes, seed);
    failed = failed || c.mismatched_bytes > 0;
    parts.push_back(comparison_text(what, c));
  };
  check(b.destination.data(), seed_forward,
        fmt::format("GPU {}'s destination against GPU {}'s seeded source", dst_index, src_index));
  if (both)
    check(a.destination.data(), seed_back,
          fmt::format("GPU {}'s destination against GPU {}'s seeded source", src_index, dst_index));
  reports::verification v;
  v.status = failed ? reports::verification_status::failed : reports::verification_status::passed;
  if (!failed)
    v.max_rel_error = 0.0;
  v.detail = fmt::format("{}", fmt::join(parts, "; "));
  return v;
}

/// One sample of a pair's copies: `copies` of `bytes` (each way), by the copy engines
/// (cudaMemcpyPeerAsync) or an SM kernel on dst reading src's memory, timed on one stream with
/// the harness's events: dst's for the SM kernel, src's for the copy engines; both ways with the
/// copy engines, dst's stream is forked from it and joined back (events made on their GPUs).
class p2p_copies {
public:
  p2p_copies(side& a, side& b, std::uint64_t bytes, std::uint64_t copies, bool both, bool sm)
      : m_a(a), m_b(b), m_timed(sm ? b : a), m_bytes(bytes), m_copies(copies), m_both(both),
        m_sm(sm) {
    const int directions = both ? 2 : 1;
    {
      const kernels::device_scope on(b.cuda);
      m_blocks = kernels::host_copy_grid_blocks((directions * bytes) / 16,
                                                kernels::host_copy_resident_blocks());
    }
    if (both && !sm) {
      {
        const kernels::device_scope on(a.cuda);
        m_fork.emplace(cudaEventDisableTiming);
      }
      const kernels::device_scope on(b.cuda);
      m_join.emplace(cudaEventDisableTiming);
    }
    const kernels::device_scope on(m_timed.cuda);
    m_timer.emplace();
  }

  /// Enqueues and times one sample; its device seconds.
  double sample() {
    {
      const kernels::device_scope on(m_timed.cuda);
      m_timer->begin(*m_timed.stream);
    }
    if (m_sm)
      enqueue_sm();
    else
      enqueue_copy_engines();
    {
      const kernels::device_scope on(m_timed.cuda);
      m_timer->end(*m_timed.stream);
    }
    m_timer->wait();
    return m_timer->seconds();
  }

private:
  void enqueue_sm() {
    const kernels::device_scope on(m_b.cuda);
    for (std::uint64_t i = 0; i < m_copies; ++i) {
      if (m_both)
        kernels::launch_host_copy_bidirectional(m_a.source.data(), m_b.destination.data(),
                                                m_b.source.data(), m_a.destination.data(), m_bytes,
                                                m_blocks, m_b.stream->ref().handle());
      else
        kernels::launch_host_copy(m_a.source.data(), m_b.destination.data(), m_bytes,
                                  kernels::host_copy_direction::host_to_device, m_blocks,
                                  m_b.stream->ref().handle());
    }
  }

  void enqueue_copy_engines() {
    if (m_both) {
      const kernels::device_scope on(m_a.cuda);
      m_fork->record(*m_a.stream);
      GPUSPEC_CUDA_CHECK(cudaStreamWaitEvent(m_b.stream->get(), m_fork->get(), 0));
    }
    for (std::uint64_t i = 0; i < m_copies; ++i) {
      GPUSPEC_CUDA_CHECK(cudaMemcpyPeerAsync(m_b.destination.data(), m_b.cuda, m_a.source.data(),
                                             m_a.cuda, m_bytes, m_a.stream->get()));
      if (m_both)
        GPUSPEC_CUDA_CHECK(cudaMemcpyPeerAsync(m_a.destination.data(), m_a.cuda, m_b.source.data(),
                                               m_b.cuda, m_bytes, m_b.stream->get()));
    }
    if (m_both) {
      {
        const kernels::device_scope on(m_b.cuda);
        m_join->record(*m_b.stream);
      }
      GPUSPEC_CUDA_CHECK(cudaStreamWaitEvent(m_a.stream->get(), m_join->get(), 0));
    }
  }

  side &m_a, &m_b, &m_timed;
  std::uint64_t m_bytes, m_copies;
  bool m_both, m_sm;
  unsigned m_blocks = 1;
  std::optional<kernels::event> m_fork, m_join;
  std::optional<event_pair> m_timer; ///< made on the timed stream's GPU
};

void p2p_case(node_state& state) {
  const auto pair = resolve_pair(state);
  if (!pair)
    return; // skipped, and said why
  const int src_index = pair->src_index, dst_index = pair->dst_index;
  const node_device& src = *pair->src;
  const node_device& dst = *pair->dst;
  const bool both = state.axis("direction") == "both_ways";
  const bool sm = state.axis("engine") == "sm";
  const int directions = both ? 2 : 1;

  const auto topology = node_topology(state.devices());
  const auto* path = reports::find_pair(topology, src_index, dst_index);
  state.add_parameter("path", host::p2p_path_text(topology, src_index, dst_index));
  state.add_parameter("nvlink_links", path != nullptr ? path->nvlink_links : 0);

  if (!peers_reach(state, src, dst, src_index, dst_index, path))
    return;
  const peer_access_scope dst_to_src(dst.cuda_device, src.cuda_device);
  const peer_access_scope src_to_dst(src.cuda_device, dst.cuda_device);

  const std::uint64_t bytes = kernels::parse_size_text(state.axis("size"));
  side a = make_side(src.cuda_device, bytes, seed_forward, true, both);
  side b = make_side(dst.cuda_device, bytes, seed_back, both, true);
  const std::uint64_t copies = kernels::transfer_copies_per_sample(bytes);
  p2p_copies copies_of(a, b, bytes, copies, both, sm);
  reports::work_per_iteration work;
  work.bytes = static_cast<double>(directions * copies * bytes);
  state.set_work_samples(state.time_samples([&] { return copies_of.sample(); }), work);
  state.add_parameter("copies_per_sample", copies);
  state.set_ceiling(host::p2p_ceiling(topology, src.info, dst.info, directions));

  state.set_verification(check_copies(a, b, bytes, both, src_index, dst_index));
}

} // namespace

void register_transfer_p2p_benchmarks(registry& r) {
  r.add_node("transfer.p2p",
             "peer copies between two GPUs, every ordered pair: copy engines or SMs, one way or "
             "both ways, against the path between them (NVLink or PCIe)",
             p2p_case)
      .in_suites({"quick", "standard", "full"})
      .with_node_axis("pair", host::p2p_planned_pairs)
      .with_axis("engine", {"ce", "sm"})
      .with_axis("direction", {"one_way", "both_ways"})
      .with_axis("size", kernels::transfer_size_texts());
}

} // namespace gpuspec::benches
