// NCCL collectives over every GPU of the node from one process and one thread (nccl-tests'
// `-g N` shape): one blocking communicator per GPU, made in one group; a watchdog thread aborts
// them when a collective does not finish by its deadline (collective_driver.hpp).
//
// What it measures: the time of one collective call, per iteration of a batch, on the slowest
// GPU (CUDA events on every GPU's stream; nccl-tests times the batch on the host over all GPUs,
// which the slowest GPU bounds). Bound by the links between the GPUs (NVLink/NVSwitch, PCIe)
// at large sizes and by launch and synchronisation latency at small ones.
//
// Check: seeded integer inputs (expected_values.hpp); after the timed samples every receive
// buffer zeroed, a fresh input under another seed, one call, then a kernel per GPU compares
// every output element with its exact expected value and counts the unequal ones: nccl-tests'
// #wrong, per rank. Nothing is copied to the host.
//
// This file is CUDA's part: buffers, streams, events and kernels (cuda_device_ops). What NCCL
// is asked and when (the schedule, the watchdog) is collective_driver.cpp's, shared with the
// host tests that run it against the fake NCCL.
//
// NCCL is called through the table opened at run time (nccl_library.hpp), never linked. The
// same code runs this process's one rank of a many-process communicator (join(), gpuspec-mpi):
// a rank here is the communicator's rank, first_rank + the index of the GPU in this process.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>
#include <nccl.h>

#include "gpuspec/collectives/collective_driver.hpp"
#include "gpuspec/collectives/collective_run.hpp"
#include "gpuspec/collectives/expected_values.hpp"
#include "gpuspec/collectives/nccl_library.hpp"
#include "gpuspec/kernels/cuda_check.cuh"
#include "gpuspec/kernels/cuda_handles.cuh"

namespace gpuspec::collectives {

namespace {

static_assert(sizeof(ncclUniqueId) == unique_id_bytes, "unique_id must hold an ncclUniqueId");

/// The process's NCCL, or nccl_unavailable with the loader's words.
const nccl_library& loaded_nccl() {
  const auto& nccl = process_nccl();
  if (!nccl.library)
    throw nccl_unavailable("NCCL: " + nccl.problem);
  return *nccl.library;
}

// --- element types ---------------------------------------------------------------------------

template <class T> __device__ T from_integer(std::uint32_t v);
template <> __device__ float from_integer<float>(std::uint32_t v) { return static_cast<float>(v); }
template <> __device__ __half from_integer<__half>(std::uint32_t v) { return __uint2half_rn(v); }
template <> __device__ __nv_bfloat16 from_integer<__nv_bfloat16>(std::uint32_t v) {
  return __float2bfloat16(static_cast<float>(v));
}
template <class T> __device__ float to_float(T v);
template <> __device__ float to_float<float>(float v) { return v; }
template <> __device__ float to_float<__half>(__half v) { return __half2float(v); }
template <> __device__ float to_float<__nv_bfloat16>(__nv_bfloat16 v) {
  return __bfloat162float(v);
}

/// Rank `rank`'s input, element i at data[i].
template <class T>
__global__ void fill_input(T* data, std::uint64_t count, value_rule rule, std::uint64_t seed,
                           int rank, int nranks) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < count;
       i += std::uint64_t{gridDim.x} * blockDim.x)
    data[i] = from_integer<T>(input_value(rule, seed, rank, i, nranks));
}

/// Zeroes (0 is never an expected value: inputs are at least 1).
template <class T> __global__ void poison(T* data, std::uint64_t count) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < count;
       i += std::uint64_t{gridDim.x} * blockDim.x)
    data[i] = from_integer<T>(0);
}

/// Counts the output elements that differ from their exact expected value.
template <class T>
__global__ void count_wrong(const T* out, collective_counts counts, value_rule rule,
                            std::uint64_t seed, int rank, int nranks, int root,
                            unsigned long long* wrong) {
  unsigned long long mine = 0;
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
       i < counts.recv_count; i += std::uint64_t{gridDim.x} * blockDim.x) {
    const std::uint32_t want = expected_value(rule, seed, rank, i, nranks, root, counts);
    if (want != 0 && to_float(out[i]) != static_cast<float>(want))
      ++mine;
  }
  if (mine != 0)
    atomicAdd(wrong, mine);
}

constexpr int block_threads = 256;
constexpr int max_blocks = 1024;

int blocks_for(std::uint64_t count) {
  const std::uint64_t b = (count + block_threads - 1) / block_threads;
  return static_cast<int>(std::clamp<std::uint64_t>(b, 1, max_blocks));
}

/// Runs `f` with T the element type of `t`.
template <class F> void with_type(element_type t, F&& f) {
  switch (t) {
  case element_type::fp32:
    f(float{});
    return;
  case element_type::fp16:
    f(__half{});
    return;
  case element_type::bf16:
    f(__nv_bfloat16{});
    return;
  }
}

} // namespace

// --- communicators ---------------------------------------------------------------------------

struct node_communicators::impl : nccl_ranks {
  std::vector<kernels::stream> streams;
};

namespace {

/// The bootstrap id from NCCL, or nccl_unavailable with its words.
ncclUniqueId fresh_unique_id(const nccl_library& nccl) {
  ncclUniqueId id;
  if (const ncclResult_t r = nccl.api().get_unique_id(&id); r != ncclSuccess)
    throw nccl_unavailable("ncclGetUniqueId failed: " + nccl.error_text(r));
  return id;
}

/// A stream per GPU of `s`, then its communicators (init_ranks).
void start(node_communicators::impl& s, const ncclUniqueId& id, double deadline_s) {
  s.select_device = [](int d) { GPUSPEC_CUDA_CHECK(cudaSetDevice(d)); };
  for (int d : s.devices) {
    kernels::device_scope on(d);
    s.streams.emplace_back();
  }
  init_ranks(s, id, deadline_s);
}

} // namespace

unique_id make_unique_id() {
  const ncclUniqueId id = fresh_unique_id(loaded_nccl());
  unique_id out{};
  std::memcpy(out.data(), &id, sizeof id);
  return out;
}

std::shared_ptr<node_communicators> node_communicators::create(const std::vector<int>& cuda_devices,
                                                               double deadline_s) {
  auto s = std::make_unique<impl>();
  s->nccl = &loaded_nccl();
  s->devices = cuda_devices;
  s->group_size = static_cast<int>(cuda_devices.size());
  if (s->group_size < 1)
    throw nccl_unavailable("no GPU to make a communicator over");
  start(*s, fresh_unique_id(*s->nccl), deadline_s);
  return std::shared_ptr<node_communicators>(new node_communicators(std::move(s)));
}

std::shared_ptr<node_communicators> node_communicators::join(int cuda_device, const unique_id& id,
                                                             int nranks, int rank,
                                                             double deadline_s) {
  if (nranks < 1 || rank < 0 || rank >= nranks)
    throw nccl_unavailable("rank " + std::to_string(rank) + " of " + std::to_string(nranks) +
                           " is not a rank of the communicator");
  auto s = std::make_unique<impl>();
  s->nccl = &loaded_nccl();
  s->devices = {cuda_device};
  s->group_size = nranks;
  s->first_rank = rank;
  ncclUniqueId nccl_id;
  std::memcpy(&nccl_id, id.data(), sizeof nccl_id);
  start(*s, nccl_id, deadline_s);
  return std::shared_ptr<node_communicators>(new node_communicators(std::move(s)));
}

node_communicators::node_communicators(std::unique_ptr<impl> state) : m_impl(std::move(state)) {}

node_communicators::~node_communicators() {
  if (m_impl)
    close_ranks(*m_impl, 10.0); // a bounded wait; what does not finish is aborted
}

int node_communicators::nranks() const { return m_impl->local_ranks(); }
int node_communicators::group_size() const { return m_impl->group_size; }
bool node_communicators::aborted() const { return m_impl->aborted(); }
void node_communicators::abort() { m_impl->abort_all(); }

bool built_with_nccl() { return true; }

bool nccl_resets_debug() {
  const auto& nccl = process_nccl();
  return nccl.library && nccl.library->api().reset_debug_init != nullptr;
}

void reset_nccl_debug() {
  if (nccl_resets_debug())
    process_nccl().library->api().reset_debug_init();
}

// --- one collective --------------------------------------------------------------------------

namespace {

/// CUDA's part of a measured case: per rank its buffers and events, on the communicators'
/// streams, and the fill and compare kernels.
class cuda_device_ops final : public device_ops {
public:
  cuda_device_ops(node_communicators::impl& s, const collective_request& q,
                  const collective_counts& c)
      : m_s(s), m_q(q), m_c(c), m_rule(collective_of(q.kind).values),
        m_eb(static_cast<std::size_t>(element_size(q.type))) {
    const std::size_t send_bytes = c.send_count * m_eb, recv_bytes = c.recv_count * m_eb;
    for (int r = 0; r < s.local_ranks(); ++r) {
      kernels::device_scope on(s.devices[r]);
      const std::size_t g = static_cast<std::size_t>(s.rank_of(r));
      rank_buffers b;
      if (q.in_place) {
        // The call reads and writes one buffer at nccl-tests' offsets.
        b.whole_bytes = std::max(send_bytes, recv_bytes);
        b.recv = kernels::device_buffer<std::byte>(b.whole_bytes);
        b.send_ptr = b.recv.data() + c.send_inplace_offset * g * m_eb;
        b.recv_ptr = b.recv.data() + c.recv_inplace_offset * g * m_eb;
      } else {
        b.whole_bytes = recv_bytes;
        b.send = kernels::device_buffer<std::byte>(send_bytes);
        b.recv = kernels::device_buffer<std::byte>(recv_bytes);
        b.send_ptr = b.send.data();
        b.recv_ptr = b.recv.data();
      }
      m_b.push_back(std::move(b));
      m_begin.emplace_back();
      m_end.emplace_back();
    }
  }

  cudaStream_t stream(int local) override { return m_s.streams[local].get(); }
  const std::byte* send_data(int local) override { return m_b[local].send_ptr; }
  std::byte* recv_data(int local) override { return m_b[local].recv_ptr; }

  void prepare(std::uint64_t seed) override {
    with_type(m_q.type, [&](auto zero) {
      using T = decltype(zero);
      for (int r = 0; r < m_s.local_ranks(); ++r) {
        kernels::device_scope on(m_s.devices[r]);
        cudaStream_t st = stream(r);
        // The whole receive allocation (in place: the one buffer, own data included), then the
        // input over it: nothing of an earlier call survives where the check looks.
        const std::uint64_t whole = m_b[r].whole_bytes / m_eb;
        if (whole > 0) {
          poison<T><<<blocks_for(whole), block_threads, 0, st>>>(
              reinterpret_cast<T*>(m_b[r].recv.data()), whole);
          GPUSPEC_CUDA_CHECK_LAUNCH();
        }
        if (m_c.send_count > 0) {
          fill_input<T><<<blocks_for(m_c.send_count), block_threads, 0, st>>>(
              reinterpret_cast<T*>(m_b[r].send_ptr), m_c.send_count, m_rule, seed, m_s.rank_of(r),
              m_s.group_size);
          GPUSPEC_CUDA_CHECK_LAUNCH();
        }
      }
    });
  }

  void record_begin() override { record(m_begin); }
  void record_end() override { record(m_end); }

  std::vector<int> end_pending() override {
    std::vector<int> pending;
    for (std::size_t r = 0; r < m_end.size(); ++r) {
      const cudaError_t e = cudaEventQuery(m_end[r].get());
      if (e == cudaErrorNotReady)
        pending.push_back(static_cast<int>(r));
      else
        GPUSPEC_CUDA_CHECK(e);
    }
    return pending;
  }

  double slowest_seconds() override {
    double slowest = 0;
    for (std::size_t r = 0; r < m_end.size(); ++r)
      slowest = std::max(slowest, kernels::event::elapsed_seconds(m_begin[r], m_end[r]));
    return slowest;
  }

  std::vector<std::int64_t> count_wrong(std::uint64_t seed) override {
    const int local = m_s.local_ranks();
    std::vector<kernels::device_buffer<unsigned long long>> wrong;
    for (int r = 0; r < local; ++r) {
      kernels::device_scope on(m_s.devices[r]);
      wrong.emplace_back(1);
      GPUSPEC_CUDA_CHECK(
          cudaMemsetAsync(wrong[r].data(), 0, sizeof(unsigned long long), stream(r)));
      if (m_c.recv_count > 0) {
        with_type(m_q.type, [&](auto zero) {
          using T = decltype(zero);
          gpuspec::collectives::count_wrong<T>
              <<<blocks_for(m_c.recv_count), block_threads, 0, stream(r)>>>(
                  reinterpret_cast<const T*>(m_b[r].recv_ptr), m_c, m_rule, seed, m_s.rank_of(r),
                  m_s.group_size, m_q.root, wrong[r].data());
          GPUSPEC_CUDA_CHECK_LAUNCH();
        });
      }
    }
    std::vector<std::int64_t> out;
    for (int r = 0; r < local; ++r) {
      kernels::device_scope on(m_s.devices[r]);
      unsigned long long count = 0;
      GPUSPEC_CUDA_CHECK(cudaMemcpyAsync(&count, wrong[r].data(), sizeof count,
                                         cudaMemcpyDeviceToHost, stream(r)));
      m_s.streams[r].synchronize();
      out.push_back(static_cast<std::int64_t>(count));
    }
    return out;
  }

private:
  struct rank_buffers {
    kernels::device_buffer<std::byte> send, recv;
    std::size_t whole_bytes = 0; ///< recv's allocation
    std::byte* send_ptr = nullptr;
    std::byte* recv_ptr = nullptr;
  };

  void record(std::vector<kernels::event>& events) {
    for (int r = 0; r < m_s.local_ranks(); ++r) {
      kernels::device_scope on(m_s.devices[r]);
      events[r].record(m_s.streams[r]);
    }
  }

  node_communicators::impl& m_s;
  const collective_request& m_q;
  const collective_counts& m_c;
  value_rule m_rule; ///< the row's, for the kernels
  std::size_t m_eb;
  std::vector<rank_buffers> m_b;
  std::vector<kernels::event> m_begin, m_end;
};

} // namespace

collective_outcome run_collective(node_communicators& comms, const collective_request& q) {
  auto& s = comms.state();
  if (s.aborted())
    throw nccl_error("the communicators were aborted by an earlier collective");
  const collective_counts c =
      counts_for_size(q.kind, q.size_bytes, element_size(q.type), s.group_size);
  cuda_device_ops ops(s, q, c);
  return run_schedule(s, ops, q, c);
}

} // namespace gpuspec::collectives
