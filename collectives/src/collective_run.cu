// NCCL collectives over every GPU of the node from one process and one thread (nccl-tests'
// `-g N` shape): one non-blocking communicator per GPU, made in one group, so that each can be
// aborted when a collective does not finish by its deadline.
//
// What it measures: the time of one collective call, per iteration of a batch, on the slowest
// GPU (CUDA events on every GPU's stream; nccl-tests times the batch on the host over all GPUs,
// which the slowest GPU bounds). Bound by the links between the GPUs (NVLink/NVSwitch, PCIe)
// at large sizes and by launch and synchronisation latency at small ones.
//
// Check: seeded integer inputs (expected_values.hpp), a fresh input after the timed samples,
// one call, then a kernel per GPU compares every output element with its exact expected value
// and counts the unequal ones: nccl-tests' #wrong, per rank. Nothing is copied to the host.
//
// Watchdog: every wait is a poll (cudaEventQuery, ncclCommGetAsyncError) against the request's
// deadline; past it every communicator is aborted (ncclCommAbort) and the outcome names the
// ranks whose stop event had not completed.
//
// NCCL is called through the table opened at run time (nccl_library.hpp), never linked. The
// same code runs this process's one rank of a many-process communicator (join(), gpuspec-mpi):
// a rank here is the communicator's rank, first_rank + the index of the GPU in this process.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>
#include <nccl.h>

#include "gpuspec/collectives/collective_run.hpp"
#include "gpuspec/collectives/expected_values.hpp"
#include "gpuspec/collectives/nccl_library.hpp"
#include "gpuspec/kernels/cuda_check.cuh"
#include "gpuspec/kernels/cuda_handles.cuh"

namespace gpuspec::collectives {

namespace {

using clock_type = std::chrono::steady_clock;

static_assert(sizeof(ncclUniqueId) == unique_id_bytes, "unique_id must hold an ncclUniqueId");

/// The process's NCCL, or nccl_unavailable with the loader's words.
const nccl_library& loaded_nccl() {
  const auto& nccl = process_nccl();
  if (!nccl.library)
    throw nccl_unavailable("NCCL: " + nccl.problem);
  return *nccl.library;
}

[[noreturn]] void throw_nccl(const nccl_library& nccl, ncclResult_t code, const char* call,
                             const char* file, int line) {
  throw nccl_error(std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " +
                   nccl.error_text(code));
}

/// ncclInProgress is not a failure for a non-blocking communicator: the caller polls.
void check_nccl(const nccl_library& nccl, ncclResult_t code, const char* call, const char* file,
                int line) {
  if (code != ncclSuccess && code != ncclInProgress)
    throw_nccl(nccl, code, call, file, line);
}

/// `nccl` is the nccl_library, `expr` a call through its table (nccl.api().send(...)).
#define GPUSPEC_NCCL_CHECK(nccl, expr) check_nccl((nccl), (expr), #expr, __FILE__, __LINE__)

double seconds_since(clock_type::time_point start) {
  return std::chrono::duration<double>(clock_type::now() - start).count();
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
__global__ void fill_input(T* data, std::uint64_t count, std::uint64_t seed, int rank, int nranks) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < count;
       i += std::uint64_t{gridDim.x} * blockDim.x)
    data[i] = from_integer<T>(input_value(seed, rank, i, nranks));
}

/// Zeroes (0 is never an expected value: inputs are at least 1).
template <class T> __global__ void poison(T* data, std::uint64_t count) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < count;
       i += std::uint64_t{gridDim.x} * blockDim.x)
    data[i] = from_integer<T>(0);
}

/// Counts the output elements that differ from their exact expected value.
template <class T>
__global__ void count_wrong(const T* out, collective_counts counts, collective_kind kind,
                            std::uint64_t seed, int rank, int nranks, int root,
                            unsigned long long* wrong) {
  unsigned long long mine = 0;
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
       i < counts.recv_count; i += std::uint64_t{gridDim.x} * blockDim.x) {
    const std::uint32_t want = expected_value(kind, seed, rank, i, nranks, root, counts);
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

ncclDataType_t nccl_type(element_type t) {
  switch (t) {
  case element_type::fp32:
    return ncclFloat32;
  case element_type::fp16:
    return ncclFloat16;
  case element_type::bf16:
    return ncclBfloat16;
  }
  return ncclFloat32;
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

struct node_communicators::impl {
  const nccl_library* nccl = nullptr; ///< process_nccl()'s, which outlives every communicator
  std::vector<int> devices;
  std::vector<ncclComm_t> comms;
  std::vector<kernels::stream> streams;
  int group_size = 0; ///< the communicator's ranks, every process's
  int first_rank = 0; ///< the communicator's rank of comms[0]
  bool aborted = false;

  [[nodiscard]] const nccl_api& api() const { return nccl->api(); }
  [[nodiscard]] int rank_of(int local) const { return first_rank + local; }

  /// Waits until no communicator is in progress, or the deadline. True if all settled; throws
  /// nccl_error for an asynchronous error.
  bool settle(clock_type::time_point deadline) {
    for (;;) {
      bool busy = false;
      for (ncclComm_t c : comms) {
        ncclResult_t state = ncclSuccess;
        GPUSPEC_NCCL_CHECK(*nccl, api().comm_get_async_error(c, &state));
        if (state == ncclInProgress)
          busy = true;
        else if (state != ncclSuccess)
          throw_nccl(*nccl, state, "ncclCommGetAsyncError", __FILE__, __LINE__);
      }
      if (!busy)
        return true;
      if (clock_type::now() > deadline)
        return false;
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }

  void abort_all() noexcept {
    for (ncclComm_t c : comms)
      if (c != nullptr)
        (void)api().comm_abort(c);
    comms.assign(comms.size(), nullptr);
    aborted = true;
  }
};

namespace {

/// The bootstrap id from NCCL, or nccl_unavailable with its words.
ncclUniqueId fresh_unique_id(const nccl_library& nccl) {
  ncclUniqueId id;
  if (const ncclResult_t r = nccl.api().get_unique_id(&id); r != ncclSuccess)
    throw nccl_unavailable("ncclGetUniqueId failed: " + nccl.error_text(r));
  return id;
}

/// Makes comms[local] = rank first_rank + local of group_size for every GPU of `s`, in one
/// group, non-blocking, and waits for them until the deadline.
void init_ranks(node_communicators::impl& s, const ncclUniqueId& id, double deadline_s) {
  const int n = static_cast<int>(s.devices.size());
  for (int d : s.devices) {
    kernels::device_scope on(d);
    s.streams.emplace_back();
  }
  s.comms.assign(n, nullptr);
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;
  const auto deadline = clock_type::now() + std::chrono::duration_cast<clock_type::duration>(
                                                std::chrono::duration<double>(deadline_s));
  const nccl_library& nccl = *s.nccl;
  try {
    GPUSPEC_NCCL_CHECK(nccl, nccl.api().group_start());
    for (int r = 0; r < n; ++r) {
      GPUSPEC_CUDA_CHECK(cudaSetDevice(s.devices[r]));
      GPUSPEC_NCCL_CHECK(nccl, nccl.api().comm_init_rank_config(&s.comms[r], s.group_size, id,
                                                                s.rank_of(r), &config));
    }
    GPUSPEC_NCCL_CHECK(nccl, nccl.api().group_end());
    if (!s.settle(deadline)) {
      s.abort_all();
      throw nccl_unavailable("NCCL's communicators were not ready within " +
                             std::to_string(deadline_s) + " s; aborted");
    }
  } catch (const nccl_error& e) {
    s.abort_all();
    throw nccl_unavailable(std::string("NCCL could not make the communicators: ") + e.what());
  }
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
  init_ranks(*s, fresh_unique_id(*s->nccl), deadline_s);
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
  init_ranks(*s, nccl_id, deadline_s);
  return std::shared_ptr<node_communicators>(new node_communicators(std::move(s)));
}

node_communicators::node_communicators(std::unique_ptr<impl> state) : m_impl(std::move(state)) {}

node_communicators::~node_communicators() {
  if (!m_impl || m_impl->aborted)
    return;
  // Finalise (flushes outstanding work) with a bounded wait; abort what does not finish.
  try {
    for (ncclComm_t c : m_impl->comms)
      GPUSPEC_NCCL_CHECK(*m_impl->nccl, m_impl->api().comm_finalize(c));
    if (!m_impl->settle(clock_type::now() + std::chrono::seconds(10))) {
      m_impl->abort_all();
      return;
    }
    for (ncclComm_t& c : m_impl->comms) {
      (void)m_impl->api().comm_destroy(c);
      c = nullptr;
    }
  } catch (...) {
    m_impl->abort_all();
  }
}

int node_communicators::nranks() const { return static_cast<int>(m_impl->comms.size()); }
int node_communicators::group_size() const { return m_impl->group_size; }
bool node_communicators::aborted() const { return m_impl->aborted; }
void node_communicators::abort() { m_impl->abort_all(); }

bool built_with_nccl() { return true; }

// --- one collective --------------------------------------------------------------------------

namespace {

/// One rank's buffers and where the call reads and writes in them.
struct rank_buffers {
  kernels::device_buffer<std::byte> send, recv;
  std::byte* send_ptr = nullptr;
  std::byte* recv_ptr = nullptr;
};

/// Enqueues one call of the collective on every rank, in one group.
void enqueue(node_communicators::impl& s, const collective_request& q, const collective_counts& c,
             std::vector<rank_buffers>& b) {
  const int local = static_cast<int>(s.comms.size());
  const int n = s.group_size;
  const ncclDataType_t type = nccl_type(q.type);
  const std::size_t eb = static_cast<std::size_t>(element_size(q.type));
  const nccl_library& nccl = *s.nccl;
  const nccl_api& api = nccl.api();
  GPUSPEC_NCCL_CHECK(nccl, api.group_start());
  for (int r = 0; r < local; ++r) {
    const int g = s.rank_of(r);
    GPUSPEC_CUDA_CHECK(cudaSetDevice(s.devices[r]));
    const void* in = b[r].send_ptr;
    void* out = b[r].recv_ptr;
    ncclComm_t comm = s.comms[r];
    cudaStream_t st = s.streams[r].get();
    switch (q.kind) {
    case collective_kind::all_reduce:
      GPUSPEC_NCCL_CHECK(nccl, api.all_reduce(in, out, c.param_count, type, ncclSum, comm, st));
      break;
    case collective_kind::all_gather:
      GPUSPEC_NCCL_CHECK(nccl, api.all_gather(in, out, c.param_count, type, comm, st));
      break;
    case collective_kind::reduce_scatter:
      GPUSPEC_NCCL_CHECK(nccl, api.reduce_scatter(in, out, c.param_count, type, ncclSum, comm, st));
      break;
    case collective_kind::broadcast:
      GPUSPEC_NCCL_CHECK(nccl, api.broadcast(in, out, c.param_count, type, q.root, comm, st));
      break;
    case collective_kind::reduce:
      GPUSPEC_NCCL_CHECK(nccl, api.reduce(in, out, c.param_count, type, ncclSum, q.root, comm, st));
      break;
    case collective_kind::alltoall:
      // Point-to-point pairs, which every NCCL since 2.7 has (ncclAlltoAll is 2.28's).
      for (int p = 0; p < n; ++p) {
        const std::size_t at = static_cast<std::size_t>(p) * c.param_count * eb;
        GPUSPEC_NCCL_CHECK(nccl, api.send(b[r].send_ptr + at, c.param_count, type, p, comm, st));
        GPUSPEC_NCCL_CHECK(nccl, api.recv(b[r].recv_ptr + at, c.param_count, type, p, comm, st));
      }
      break;
    case collective_kind::sendrecv:
      GPUSPEC_NCCL_CHECK(nccl, api.send(in, c.param_count, type, (g + 1) % n, comm, st));
      GPUSPEC_NCCL_CHECK(nccl, api.recv(out, c.param_count, type, (g + n - 1) % n, comm, st));
      break;
    }
  }
  GPUSPEC_NCCL_CHECK(nccl, api.group_end());
}

/// Waits for `done[r]` on every GPU of this process until the deadline. Returns the local
/// indices of those not finished.
std::vector<int> wait_all(node_communicators::impl& s, std::vector<kernels::event>& done,
                          clock_type::time_point deadline) {
  for (;;) {
    std::vector<int> pending;
    for (std::size_t r = 0; r < done.size(); ++r) {
      const cudaError_t e = cudaEventQuery(done[r].get());
      if (e == cudaErrorNotReady)
        pending.push_back(static_cast<int>(r));
      else
        GPUSPEC_CUDA_CHECK(e);
    }
    for (ncclComm_t c : s.comms) {
      ncclResult_t state = ncclSuccess;
      GPUSPEC_NCCL_CHECK(*s.nccl, s.api().comm_get_async_error(c, &state));
      if (state != ncclSuccess && state != ncclInProgress)
        throw_nccl(*s.nccl, state, "ncclCommGetAsyncError", __FILE__, __LINE__);
    }
    if (pending.empty() || clock_type::now() > deadline)
      return pending;
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
}

} // namespace

collective_outcome run_collective(node_communicators& comms, const collective_request& q) {
  auto& s = comms.state();
  if (s.aborted)
    throw nccl_error("the communicators were aborted by an earlier collective");
  const int local = static_cast<int>(s.comms.size()); // the GPUs of this process
  const int n = s.group_size;                         // the communicator's ranks
  const int eb = element_size(q.type);
  collective_outcome o;
  o.nranks = n;
  o.counts = counts_for_size(q.kind, q.size_bytes, eb, n);
  const collective_counts& c = o.counts;
  const auto start = clock_type::now();
  const auto deadline = start + std::chrono::duration_cast<clock_type::duration>(
                                    std::chrono::duration<double>(q.deadline_s));

  // Buffers: in place the call reads and writes one buffer at nccl-tests' offsets.
  std::vector<rank_buffers> b(local);
  const std::size_t send_bytes = c.send_count * eb, recv_bytes = c.recv_count * eb;
  for (int r = 0; r < local; ++r) {
    kernels::device_scope on(s.devices[r]);
    const std::size_t g = static_cast<std::size_t>(s.rank_of(r));
    if (q.in_place) {
      b[r].recv = kernels::device_buffer<std::byte>(std::max(send_bytes, recv_bytes));
      b[r].send_ptr = b[r].recv.data() + c.send_inplace_offset * g * eb;
      b[r].recv_ptr = b[r].recv.data() + c.recv_inplace_offset * g * eb;
    } else {
      b[r].send = kernels::device_buffer<std::byte>(send_bytes);
      b[r].recv = kernels::device_buffer<std::byte>(recv_bytes);
      b[r].send_ptr = b[r].send.data();
      b[r].recv_ptr = b[r].recv.data();
    }
  }
  const auto initialise = [&] {
    with_type(q.type, [&](auto zero) {
      using T = decltype(zero);
      for (int r = 0; r < local; ++r) {
        kernels::device_scope on(s.devices[r]);
        cudaStream_t st = s.streams[r].get();
        if (!q.in_place && c.recv_count > 0) {
          poison<T><<<blocks_for(c.recv_count), block_threads, 0, st>>>(
              reinterpret_cast<T*>(b[r].recv_ptr), c.recv_count);
          GPUSPEC_CUDA_CHECK_LAUNCH();
        }
        if (c.send_count > 0) {
          fill_input<T><<<blocks_for(c.send_count), block_threads, 0, st>>>(
              reinterpret_cast<T*>(b[r].send_ptr), c.send_count, q.seed, s.rank_of(r), n);
          GPUSPEC_CUDA_CHECK_LAUNCH();
        }
      }
    });
  };

  std::vector<kernels::event> begin, end;
  for (int r = 0; r < local; ++r) {
    kernels::device_scope on(s.devices[r]);
    begin.emplace_back();
    end.emplace_back();
  }
  const auto timed_out = [&](const std::vector<int>& pending, std::string phase) {
    o.timed_out = true;
    for (int r : pending)
      o.ranks_not_finished.push_back(s.rank_of(r));
    o.phase = std::move(phase);
    s.abort_all();
    return o;
  };
  // A batch of `iterations` calls behind a start event, then a stop event, on every rank.
  const auto batch = [&](int iterations) -> std::vector<int> {
    for (int r = 0; r < local; ++r) {
      kernels::device_scope on(s.devices[r]);
      begin[r].record(s.streams[r]);
    }
    for (int i = 0; i < iterations; ++i) {
      enqueue(s, q, c, b);
      if (!s.settle(deadline))
        return {}; // the enqueue itself is stuck: no stop event recorded yet
    }
    for (int r = 0; r < local; ++r) {
      kernels::device_scope on(s.devices[r]);
      end[r].record(s.streams[r]);
    }
    return wait_all(s, end, deadline);
  };
  const auto all_ranks = [&] { // local indices, as wait_all's
    std::vector<int> r(local);
    for (int i = 0; i < local; ++i)
      r[i] = i;
    return r;
  };

  initialise();
  int runs = 0;
  {
    const auto t0 = clock_type::now();
    const auto pending = batch(q.warmup_iterations);
    if (clock_type::now() > deadline || !pending.empty())
      return timed_out(pending.empty() ? all_ranks() : pending, "warm-up");
    if (q.on_run)
      q.on_run(++runs, seconds_since(t0));
  }
  for (int k = 0; k < q.samples; ++k) {
    const auto t0 = clock_type::now();
    const auto pending = batch(q.iterations);
    if (clock_type::now() > deadline || !pending.empty())
      return timed_out(pending.empty() ? all_ranks() : pending, "sample " + std::to_string(k + 1));
    double slowest = 0;
    for (int r = 0; r < local; ++r)
      slowest = std::max(slowest, kernels::event::elapsed_seconds(begin[r], end[r]));
    o.seconds_per_iteration.push_back(slowest / q.iterations);
    if (q.on_run)
      q.on_run(++runs, seconds_since(t0));
  }

  // The check: fresh inputs, one call, every element compared on its own GPU.
  initialise();
  if (const auto pending = batch(1); clock_type::now() > deadline || !pending.empty())
    return timed_out(pending.empty() ? all_ranks() : pending, "check");
  std::vector<kernels::device_buffer<unsigned long long>> wrong;
  for (int r = 0; r < local; ++r) {
    kernels::device_scope on(s.devices[r]);
    wrong.emplace_back(1);
    GPUSPEC_CUDA_CHECK(
        cudaMemsetAsync(wrong[r].data(), 0, sizeof(unsigned long long), s.streams[r].get()));
    if (c.recv_count > 0) {
      with_type(q.type, [&](auto zero) {
        using T = decltype(zero);
        count_wrong<T><<<blocks_for(c.recv_count), block_threads, 0, s.streams[r].get()>>>(
            reinterpret_cast<const T*>(b[r].recv_ptr), c, q.kind, q.seed, s.rank_of(r), n, q.root,
            wrong[r].data());
        GPUSPEC_CUDA_CHECK_LAUNCH();
      });
    }
  }
  for (int r = 0; r < local; ++r) {
    kernels::device_scope on(s.devices[r]);
    unsigned long long count = 0;
    GPUSPEC_CUDA_CHECK(cudaMemcpyAsync(&count, wrong[r].data(), sizeof count,
                                       cudaMemcpyDeviceToHost, s.streams[r].get()));
    s.streams[r].synchronize();
    o.wrong_per_rank.push_back(static_cast<std::int64_t>(count));
  }
  return o;
}

} // namespace gpuspec::collectives
