// transfer.{h2d,d2h,bidir}: copies between host memory and the GPU over its PCIe link.
//
// What it measures: bandwidth in GB/s (1e9 bytes/s) of host-to-device, device-to-host, and both
// at once, each a memcpy counted once per direction it moves data (docs/design.md rule 8: bidir
// counts both directions; nvbandwidth's CE bidir figure is the one direction of its measured
// stream, so ours is about twice it). Bound by the PCIe link (and, for pageable memory, the
// host's own staging copy); judged against the link the card and its slot can reach, the lower
// of the GPU's and the system's maxima, not the link as trained (set_pcie_ceiling,
// pcie_link.hpp). Hardware: any CUDA GPU on PCIe; mapped pinned memory for engine=sm.
//
// Axes:
//  - memory: pinned (page-locked, on the GPU's own NUMA node: mmap + mbind + cudaHostRegister,
//    else cudaHostAlloc, and numa_binding says which) or pageable (the same mmap + mbind, not
//    registered, so the driver stages it through its own pinned buffers);
//  - engine: copy_engine (cudaMemcpyAsync, the DMA engines) or sm (host_copy.cu: kernels that
//    load and store the host buffer through its device mapping, nvbandwidth's SM copy). Pageable
//    memory has no device mapping, so pageable x sm is skipped;
//  - size: one copy's bytes, 4 KiB to 1 GiB by factors of 4; quick runs 256 MiB alone.
// The method is nvbandwidth's (NVIDIA/nvbandwidth: CE vs SM copies, the hold kernel, events on
// the copies' stream, CPU affinity to the GPU's node); the code is ours. This file holds no
// device code (the SM copies are kernels/src/host_copy.cu), so it is a .cpp, built by the host
// compiler: fmt's compile-time format strings do not build under nvcc.
//
// Timing: a sample is `copies` back-to-back copies of the case's size (transfer_math.hpp: at
// least 16 MiB per sample, at most 64 copies), behind the harness's hold kernel for pinned
// memory. bidir with the copy engines: the host-to-device copies go on the harness's stream and
// the device-to-host ones on a second stream forked from it and joined back with events inside
// the timed work, so the stop event waits for both; with SMs, one split-warp kernel copies both
// ways (even warps one way, odd warps the other). Pageable copies run without the hold
// (set_launch_hold(false)): cudaMemcpyAsync from or to pageable memory waits on the stream and
// stages through the host thread, so behind the hold it would block until the hold timed out.
//
// Cache: hot. No L2 flush: the data lives in host memory and crosses the link every time. The
// copy engines read or write host memory over PCIe for each copy, and the SM kernels read host
// memory with ld.global.cv and write it with st.global.wt, which the PTX ISA defines as fetching
// again from and writing through to system memory, so no sample is served from an L2 line of an
// earlier one. The device-side buffer may stay in L2 for sizes under it; the link is then still
// what bounds the copy (device memory and L2 are tens of times faster than any PCIe link).
//
// NUMA: the worker thread is bound to the GPU's local CPUs (sysfs local_cpulist) for the whole
// case, allocation included, and restored after it; the parameters numa_node, numa_binding,
// host_memory_node (where the kernel says the pages are), gpu_local_cpus and cpu_affinity say
// what was done.
//
// Check: sources are a seeded pattern of non-zero 64-bit words; destinations are poisoned with
// 0xFF bytes (a word no pattern word equals) before the run. After the samples every byte of
// each destination is compared with its source on the host: memcmp over 4 KiB blocks, and in a
// block that differs, the count of differing bytes, of words still holding the poison (never
// written), and the first mismatch.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "gpuspec/benches/bench_state.cuh"
#include "gpuspec/benches/families.hpp"
#include "gpuspec/benches/transfer_pattern.hpp"
#include "gpuspec/host/numa_placement.hpp"
#include "gpuspec/host/pci_bus_id.hpp"
#include "gpuspec/kernels/cuda_check.cuh"
#include "gpuspec/kernels/cuda_handles.cuh"
#include "gpuspec/kernels/fill.hpp"
#include "gpuspec/kernels/host_copy.hpp"
#include "gpuspec/kernels/pointer_chase.hpp" // parse_size_text
#include "gpuspec/kernels/transfer_math.hpp"

namespace gpuspec::benches {

namespace {

using kernels::transfer_kind;

constexpr std::uint64_t seed_h2d = 0x6770757370656811ull; // host source of the h2d direction
constexpr std::uint64_t seed_d2h = 0x6770757370656812ull; // device source of the d2h direction

/// Device memory left free beside the buffers (context, other tenants).
constexpr std::uint64_t reserve_bytes = std::uint64_t{256} << 20;
/// Host scratch for filling and reading back device buffers, in pieces of at most this.

std::string mib_text(std::uint64_t bytes) { return fmt::format("{:.0f} MiB", bytes / 1048576.0); }

// --- placement: host buffers on the GPU's node ----------------------------------------------

/// Where a case's host buffers go: the node to bind them to, or why none.
struct host_placement {
  std::optional<int> node;
  std::string why_unbound; ///< "none: ..." is added by numa_memory
  bool thread_bound = false;
};

/// Free memory on the node must be at least this many times the buffers, or they are not bound:
/// MPOL_BIND memory cannot spill to another node, and a node that runs out kills the worker.
constexpr std::uint64_t node_headroom = 2;
/// The host buffers of every GPU's worker together (they measure at the same time) may take at
/// most this fraction of the host's memory (MemTotal; numa_placement.hpp says why not
/// MemAvailable). Initial policy.
constexpr double host_share = 0.5;

host_placement place(const host::gpu_numa_locality& where, std::uint64_t host_bytes,
                     bool thread_bound) {
  host_placement p;
  p.thread_bound = thread_bound;
  if (!where.node) {
    p.why_unbound = where.why_no_node;
    return p;
  }
  const auto node_free = host::node_free_bytes("/", *where.node);
  if (node_free && *node_free < node_headroom * host_bytes) {
    p.why_unbound =
        fmt::format("node {} has {} free, under {} times the {} of host buffers: "
                    "not bound, so the pages may come from another node rather "
                    "than run the node out of memory",
                    *where.node, mib_text(*node_free), node_headroom, mib_text(host_bytes));
    return p;
  }
  p.node = where.node;
  return p;
}

/// One host buffer of a case, where it lives and how it got there. Pinned: mmap + mbind to the
/// GPU's node + cudaHostRegister (mapped, portable); where mbind or the registration fails,
/// cudaHostAlloc, first touched by the worker thread (bound to the GPU's CPUs when it could
/// be). Pageable: the same mmap + mbind, not registered.
class host_buffer {
public:
  static host_buffer pinned(std::size_t bytes, const host_placement& where) {
    host_buffer b;
    std::string why;
    if (where.node) {
      host::numa_memory memory(bytes, where.node);
      if (memory.bound()) {
        try {
          kernels::host_registration registration(memory.data(), memory.mapped_bytes());
          b.m_memory = std::move(memory);
          b.m_registration = std::move(registration);
          b.m_host = static_cast<std::byte*>(b.m_registration.host());
          b.m_device = b.m_registration.device();
          b.m_binding = "mbind";
          return b;
        } catch (const kernels::cuda_error& e) {
          why = fmt::format("none: cudaHostRegister of the memory mbind placed failed ({})",
                            e.what());
        }
      } else {
        why = memory.binding();
      }
    } else {
      why = "none: " + where.why_unbound;
    }
    b.m_fallback = kernels::pinned_buffer<std::byte>(bytes); // cudaHostAlloc, zeroed: touched
    b.m_host = b.m_fallback.host();
    b.m_device = b.m_fallback.device();
    b.m_binding = why + fmt::format("; cudaHostAlloc instead, first touched by the worker thread{}",
                                    where.thread_bound ? " (bound to the GPU's local CPUs)"
                                                       : " (not bound to the GPU's CPUs)");
    return b;
  }

  static host_buffer pageable(std::size_t bytes, const host_placement& where) {
    host_buffer b;
    b.m_memory = host::numa_memory(bytes, where.node, where.why_unbound);
    b.m_host = static_cast<std::byte*>(b.m_memory.data());
    b.m_binding = b.m_memory.binding();
    return b;
  }

  [[nodiscard]] std::byte* host() const { return m_host; }
  /// The address kernels use (pinned memory only; nullptr for pageable).
  [[nodiscard]] void* device() const { return m_device; }
  [[nodiscard]] const std::string& binding() const { return m_binding; }

private:
  host::numa_memory m_memory;                   // the mbind path
  kernels::host_registration m_registration;    // after m_memory: unregistered before unmapped
  kernels::pinned_buffer<std::byte> m_fallback; // the cudaHostAlloc path
  std::byte* m_host = nullptr;
  void* m_device = nullptr;
  std::string m_binding;
};

// --- the case's buffers ---------------------------------------------------------------------

struct transfer_buffers {
  std::uint64_t bytes = 0;
  // h2d direction: host source -> device destination
  std::optional<host_buffer> h2d_source;
  kernels::device_buffer<std::byte> h2d_destination;
  // d2h direction: device source -> host destination
  kernels::device_buffer<std::byte> d2h_source;
  std::optional<host_buffer> d2h_destination;
};

bool moves_h2d(transfer_kind kind) { return kind != transfer_kind::d2h; }
bool moves_d2h(transfer_kind kind) { return kind != transfer_kind::h2d; }

transfer_buffers make_buffers(transfer_kind kind, bool pinned, std::uint64_t bytes,
                              const host_placement& where, kernels::stream_ref stream) {
  transfer_buffers b;
  b.bytes = bytes;
  const auto host = [&] {
    return pinned ? host_buffer::pinned(bytes, where) : host_buffer::pageable(bytes, where);
  };
  if (moves_h2d(kind)) {
    b.h2d_source = host();
    kernels::fill_transfer_pattern(std::span(b.h2d_source->host(), bytes), seed_h2d, 0);
    b.h2d_destination = kernels::device_buffer<std::byte>(bytes);
    kernels::poison_with_byte(b.h2d_destination.data(), bytes, kernels::transfer_poison_byte,
                              stream.handle());
  }
  if (moves_d2h(kind)) {
    b.d2h_source = kernels::device_buffer<std::byte>(bytes);
    upload_transfer_pattern(b.d2h_source.data(), bytes, seed_d2h);
    b.d2h_destination = host();
    std::memset(b.d2h_destination->host(), kernels::transfer_poison_byte, bytes);
  }
  stream.synchronize();
  return b;
}

/// numa_binding: one buffer's, or each buffer's where a bidir case's two differ.
std::string binding_of(const transfer_buffers& b) {
  if (b.h2d_source && b.d2h_destination && b.h2d_source->binding() != b.d2h_destination->binding())
    return fmt::format("h2d source: {}; d2h destination: {}", b.h2d_source->binding(),
                       b.d2h_destination->binding());
  return b.h2d_source ? b.h2d_source->binding() : b.d2h_destination->binding();
}

// --- the check ------------------------------------------------------------------------------

/// Every byte of the h2d destination (device memory, read back a piece at a time) against its
/// host source.
kernels::byte_comparison check_h2d(const transfer_buffers& b) {
  kernels::byte_comparison r;
  std::vector<std::byte> piece(std::min<std::uint64_t>(b.bytes, transfer_piece_bytes));
  for (std::uint64_t at = 0; at < b.bytes; at += piece.size()) {
    const std::size_t len =
        static_cast<std::size_t>(std::min<std::uint64_t>(piece.size(), b.bytes - at));
    GPUSPEC_CUDA_CHECK(
        cudaMemcpy(piece.data(), b.h2d_destination.data() + at, len, cudaMemcpyDeviceToHost));
    r.append(kernels::compare_bytes(std::span<const std::byte>(piece.data(), len),
                                    std::span<const std::byte>(b.h2d_source->host() + at, len),
                                    at));
  }
  return r;
}

/// Every byte of the d2h destination (host memory) against its source's pattern, regenerated on
/// the host a piece at a time (the device source was uploaded from the same pattern).
kernels::byte_comparison check_d2h(const transfer_buffers& b) {
  kernels::byte_comparison r;
  std::vector<std::byte> expected(std::min<std::uint64_t>(b.bytes, transfer_piece_bytes));
  for (std::uint64_t at = 0; at < b.bytes; at += expected.size()) {
    const std::size_t len =
        static_cast<std::size_t>(std::min<std::uint64_t>(expected.size(), b.bytes - at));
    kernels::fill_transfer_pattern(std::span(expected.data(), len), seed_d2h, at / 8);
    r.append(kernels::compare_bytes(std::span<const std::byte>(b.d2h_destination->host() + at, len),
                                    std::span<const std::byte>(expected.data(), len), at));
  }
  return r;
}

std::string comparison_text(const char* what, const kernels::byte_comparison& c) {
  if (c.mismatched_bytes == 0)
    return fmt::format("{}: all {} bytes equal", what, c.compared);
  return fmt::format("{}: {} of {} bytes differ ({} 8-byte word(s) still hold the 0xFF poison: "
                     "never written); the first at byte {}: 0x{:02x}, expected 0x{:02x}",
                     what, c.mismatched_bytes, c.compared, c.unwritten_words, *c.first_mismatch,
                     c.first_got, c.first_expected);
}

reports::verification check_transfer(transfer_kind kind, const transfer_buffers& b) {
  std::vector<std::string> parts;
  bool failed = false;
  if (moves_h2d(kind)) {
    const auto c = check_h2d(b);
    failed = failed || c.mismatched_bytes > 0;
    parts.push_back(comparison_text(
        "host-to-device destination (device memory, read back) against its host source", c));
  }
  if (moves_d2h(kind)) {
    const auto c = check_d2h(b);
    failed = failed || c.mismatched_bytes > 0;
    parts.push_back(comparison_text(
        "device-to-host destination (host memory) against its device source's seeded pattern", c));
  }
  reports::verification v;
  v.status = failed ? reports::verification_status::failed : reports::verification_status::passed;
  v.tolerance = 0.0;
  if (!failed)
    v.max_rel_error = 0.0;
  std::string detail = "every byte of each destination compared with its source on the host, "
                       "after the samples: ";
  for (std::size_t i = 0; i < parts.size(); ++i)
    detail += (i > 0 ? "; " : "") + parts[i];
  v.detail = std::move(detail);
  return v;
}

// --- the case -------------------------------------------------------------------------------

constexpr const char* pageable_sm_reason =
    "an SM copy loads and stores host memory through its device mapping, which only page-locked "
    "(pinned) memory has; kernels reach pageable memory only through HMM or ATS page faults, "
    "which would measure the fault path, not the link";

/// Whether the device and the host have room for `buffer_bytes` (every GPU of the node may
/// run its transfers at once); skips the case, saying why, when not.
bool room_for(bench_state& state, std::uint64_t buffer_bytes) {
  std::size_t free_bytes = 0, total_bytes = 0;
  GPUSPEC_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (buffer_bytes + reserve_bytes > free_bytes) {
    state.skip(fmt::format("the device buffers need {} of device memory and {} is free ({} kept "
                           "in reserve)",
                           mib_text(buffer_bytes), mib_text(free_bytes), mib_text(reserve_bytes)));
    return false;
  }
  int node_gpus = 1;
  GPUSPEC_CUDA_CHECK(cudaGetDeviceCount(&node_gpus));
  if (const auto why = host::host_memory_skip_reason(buffer_bytes, node_gpus,
                                                     host::host_total_bytes("/"), host_share);
      !why.empty()) {
    state.skip(why);
    return false;
  }
  return true;
}

/// One sample's copies: `copies` of `bytes` each way the kind moves, by the copy engines
/// (cudaMemcpyAsync; bidir on a second stream forked from the harness's and joined back) or by
/// an SM kernel through the pinned buffers' device mapping.
class transfer_work {
public:
  transfer_work(transfer_kind kind, bool sm, const transfer_buffers& b, std::uint64_t bytes,
                std::uint64_t copies, unsigned blocks)
      : m_kind(kind), m_sm(sm), m_b(b), m_bytes(bytes), m_copies(copies), m_blocks(blocks) {
    if (kind == transfer_kind::bidir && !sm) {
      m_other.emplace();
      m_fork.emplace(cudaEventDisableTiming);
      m_join.emplace(cudaEventDisableTiming);
    }
  }

  void enqueue(kernels::stream_ref s) {
    if (m_sm)
      return enqueue_sm(s);
    if (m_kind == transfer_kind::h2d) {
      copy(m_b.h2d_destination.data(), m_b.h2d_source->host(), cudaMemcpyHostToDevice, s);
    } else if (m_kind == transfer_kind::d2h) {
      copy(m_b.d2h_destination->host(), m_b.d2h_source.data(), cudaMemcpyDeviceToHost, s);
    } else {
      m_fork->record(s);
      GPUSPEC_CUDA_CHECK(cudaStreamWaitEvent(m_other->get(), m_fork->get(), 0));
      copy(m_b.h2d_destination.data(), m_b.h2d_source->host(), cudaMemcpyHostToDevice, s);
      copy(m_b.d2h_destination->host(), m_b.d2h_source.data(), cudaMemcpyDeviceToHost, *m_other);
      m_join->record(*m_other);
      GPUSPEC_CUDA_CHECK(cudaStreamWaitEvent(s.get(), m_join->get(), 0));
    }
  }

private:
  void copy(void* dst, const void* src, cudaMemcpyKind direction, kernels::stream_ref s) const {
    for (std::uint64_t c = 0; c < m_copies; ++c)
      GPUSPEC_CUDA_CHECK(cudaMemcpyAsync(dst, src, m_bytes, direction, s.get()));
  }

  void enqueue_sm(kernels::stream_ref s) const {
    for (std::uint64_t c = 0; c < m_copies; ++c) {
      if (m_kind == transfer_kind::h2d)
        kernels::launch_host_copy(m_b.h2d_source->device(), m_b.h2d_destination.data(), m_bytes,
                                  kernels::host_copy_direction::host_to_device, m_blocks,
                                  s.handle());
      else if (m_kind == transfer_kind::d2h)
        kernels::launch_host_copy(m_b.d2h_source.data(), m_b.d2h_destination->device(), m_bytes,
                                  kernels::host_copy_direction::device_to_host, m_blocks,
                                  s.handle());
      else
        kernels::launch_host_copy_bidirectional(
            m_b.h2d_source->device(), m_b.h2d_destination.data(), m_b.d2h_source.data(),
            m_b.d2h_destination->device(), m_bytes, m_blocks, s.handle());
    }
  }

  transfer_kind m_kind;
  bool m_sm;
  const transfer_buffers& m_b;
  std::uint64_t m_bytes, m_copies;
  unsigned m_blocks;
  std::optional<kernels::stream> m_other;
  std::optional<kernels::event> m_fork, m_join;
};

/// The SM copy's grid (0 for the copy engines), in the parameters.
unsigned sm_copy_blocks(bench_state& state, bool sm, std::uint64_t bytes, int directions) {
  if (!sm)
    return 0;
  const std::uint64_t vectors = bytes / 16 * static_cast<std::uint64_t>(directions);
  const unsigned blocks =
      kernels::host_copy_grid_blocks(vectors, kernels::host_copy_resident_blocks());
  state.add_parameter("sm_copy_blocks", blocks);
  state.add_parameter("sm_copy_threads_per_block", kernels::host_copy_block_threads);
  return blocks;
}

void run_transfer(bench_state& state, transfer_kind kind) {
  const std::string& memory = state.axis("memory");
  const std::string& engine = state.axis("engine");
  if (memory != "pinned" && memory != "pageable")
    throw std::invalid_argument("transfer: unknown memory '" + memory + "'");
  if (engine != "copy_engine" && engine != "sm")
    throw std::invalid_argument("transfer: unknown engine '" + engine + "'");
  const bool pinned = memory == "pinned";
  const bool sm = engine == "sm";
  if (!pinned && sm) {
    state.skip(pageable_sm_reason);
    return;
  }
  const std::uint64_t bytes = kernels::parse_size_text(state.axis("size"));
  const std::uint64_t copies = kernels::transfer_copies_per_sample(bytes);
  const int directions = kernels::transfer_directions(kind);
  const std::uint64_t buffer_bytes = bytes * static_cast<std::uint64_t>(directions);
  if (!room_for(state, buffer_bytes))
    return;

  // --- placement: the thread on the GPU's CPUs, then the host buffers on its node ------------
  const host::gpu_numa_locality where =
      host::read_gpu_numa_locality("/", host::normalize_pci_bus_id(state.device().pci_bus_id));
  const host::thread_affinity_scope affinity(where.cpus); // restored when the case ends
  const kernels::stream_ref stream = state.stream();
  const transfer_buffers b =
      make_buffers(kind, pinned, bytes, place(where, buffer_bytes, affinity.bound()), stream);
  const std::byte* any_host = b.h2d_source ? b.h2d_source->host() : b.d2h_destination->host();
  const std::optional<int> pages_on = host::node_of_pages(any_host, bytes);

  state.add_parameter("bytes_per_copy", bytes);
  state.add_parameter("copies_per_sample", copies);
  state.add_parameter("directions", directions);
  state.add_parameter("numa_node",
                      where.node ? nlohmann::ordered_json(*where.node) : nlohmann::ordered_json());
  state.add_parameter("numa_binding", binding_of(b));
  state.add_parameter("host_memory_node",
                      pages_on ? nlohmann::ordered_json(*pages_on) : nlohmann::ordered_json());
  state.add_parameter("gpu_local_cpus", where.cpus_text);
  state.add_parameter("cpu_affinity", affinity.status());
  state.add_parameter("launch_hold", pinned);
  if (const auto available = host::host_available_bytes("/"))
    state.add_parameter("host_memory_available_bytes", *available);

  // --- the work -------------------------------------------------------------------------------
  state.set_bytes_per_iteration(kernels::transfer_bytes_per_sample(kind, bytes, copies));
  state.set_cache_mode(cache_mode::hot);
  state.set_pcie_ceiling(directions);
  state.set_launch_hold(pinned);
  transfer_work work(kind, sm, b, bytes, copies, sm_copy_blocks(state, sm, bytes, directions));
  state.exec([&](kernels::stream_ref s) { work.enqueue(s); });

  // --- the check ------------------------------------------------------------------------------
  if (state.interrupted())
    return; // an interrupted result is not judged (bench_state): no need to compare 2 GiB
  stream.synchronize();
  state.set_verification(check_transfer(kind, b));
}

} // namespace

void register_transfer_benchmarks(registry& r) {
  const std::vector<std::string> suites{"quick", "standard", "full"};
  const std::vector<std::string> memories{"pinned", "pageable"};
  const std::vector<std::string> engines{"copy_engine", "sm"};
  const std::vector<std::string> sizes = kernels::transfer_size_texts();
  // Setup beyond the default allowance: up to 2 GiB of host memory placed, page-locked, filled
  // and compared byte for byte, on every GPU of a node at once.
  constexpr double setup_allowance_s = 120.0;
  const auto add = [&](const char* id, const char* description, transfer_kind kind) {
    r.add(id, description, [kind](bench_state& state) { run_transfer(state, kind); })
        .in_suites(suites)
        .with_axis("memory", memories)
        .with_axis("engine", engines)
        .with_axis("size", sizes)
        .with_setup_allowance(setup_allowance_s);
  };
  add("transfer.h2d",
      "host-to-device copies over PCIe, pinned or pageable host memory on the GPU's NUMA node, "
      "copy engine or SM, 4 KiB to 1 GiB",
      transfer_kind::h2d);
  add("transfer.d2h",
      "device-to-host copies over PCIe, pinned or pageable host memory on the GPU's NUMA node, "
      "copy engine or SM, 4 KiB to 1 GiB",
      transfer_kind::d2h);
  add("transfer.bidir",
      "both directions at once over PCIe (bytes of both counted), pinned or pageable, copy "
      "engines on two streams or one split-warp SM kernel, 4 KiB to 1 GiB",
      transfer_kind::bidir);
}

} // namespace gpuspec::benches
