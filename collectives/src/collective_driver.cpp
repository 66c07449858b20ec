// NCCL's side of the collectives (collective_driver.hpp): blocking communicators, the watchdog,
// one call on every rank, and the schedule of a measured case.

#include "gpuspec/collectives/collective_driver.hpp"

#include <string>
#include <utility>

#include "gpuspec/collectives/expected_values.hpp"

namespace gpuspec::collectives {

namespace {

[[noreturn]] void throw_nccl(const nccl_library& nccl, ncclResult_t code, const char* call,
                             const char* file, int line) {
  throw nccl_error(std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " +
                   nccl.error_text(code));
}

/// Blocking communicators: anything but ncclSuccess is a failure.
void check_nccl(const nccl_library& nccl, ncclResult_t code, const char* call, const char* file,
                int line) {
  if (code != ncclSuccess)
    throw_nccl(nccl, code, call, file, line);
}

/// `nccl` is the nccl_library, `expr` a call through its table (nccl.api().send(...)).
#define GPUSPEC_NCCL_CHECK(nccl, expr) check_nccl((nccl), (expr), #expr, __FILE__, __LINE__)

double seconds_since(driver_clock::time_point start) {
  return std::chrono::duration<double>(driver_clock::now() - start).count();
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

/// Throws nccl_error if a communicator reports an asynchronous error.
void check_async_errors(nccl_ranks& s) {
  for (ncclComm_t c : s.comms) {
    ncclResult_t state = ncclSuccess;
    GPUSPEC_NCCL_CHECK(*s.nccl, s.api().comm_get_async_error(c, &state));
    if (state != ncclSuccess && state != ncclInProgress)
      throw_nccl(*s.nccl, state, "ncclCommGetAsyncError", __FILE__, __LINE__);
  }
}

/// Waits, after a batch's stop events were recorded, until they completed, the deadline
/// passed or the communicators were aborted. Returns the local ranks not finished.
std::vector<int> wait_all(nccl_ranks& s, device_ops& ops, driver_clock::time_point deadline) {
  for (;;) {
    std::vector<int> pending = ops.end_pending();
    if (s.aborted() && pending.empty()) // the watchdog ended it: every rank was still in it
      for (int r = 0; r < s.local_ranks(); ++r)
        pending.push_back(r);
    if (s.aborted())
      return pending;
    check_async_errors(s);
    if (pending.empty() || driver_clock::now() > deadline)
      return pending;
    // Outside the timed region: every call of the batch and its stop event are queued already.
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
}

} // namespace

driver_clock::time_point after_seconds(double seconds) {
  return driver_clock::now() +
         std::chrono::duration_cast<driver_clock::duration>(std::chrono::duration<double>(seconds));
}

void nccl_ranks::abort_all() noexcept {
  const std::lock_guard<std::mutex> lock(m_abort);
  if (m_aborted.load())
    return;
  for (ncclComm_t c : comms)
    if (c != nullptr)
      (void)api().comm_abort(c);
  m_aborted.store(true);
}

watchdog::watchdog(nccl_ranks& ranks, driver_clock::time_point deadline)
    : m_thread([this, &ranks, deadline] {
        std::unique_lock<std::mutex> lock(m_mutex);
        if (m_wake.wait_until(lock, deadline, [this] { return m_done; }))
          return;
        m_fired.store(true);
        lock.unlock();
        ranks.abort_all();
      }) {}

watchdog::~watchdog() {
  {
    const std::lock_guard<std::mutex> lock(m_mutex);
    m_done = true;
  }
  m_wake.notify_all();
  m_thread.join();
}

void init_ranks(nccl_ranks& s, const ncclUniqueId& id, double deadline_s) {
  const int n = static_cast<int>(s.devices.size());
  s.comms.assign(n, nullptr);
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 1;
  const nccl_library& nccl = *s.nccl;
  const auto deadline = after_seconds(deadline_s);
  try {
    GPUSPEC_NCCL_CHECK(nccl, nccl.api().group_start());
    for (int r = 0; r < n; ++r) {
      s.select_device(s.devices[r]);
      GPUSPEC_NCCL_CHECK(nccl, nccl.api().comm_init_rank_config(&s.comms[r], s.group_size, id,
                                                                s.rank_of(r), &config));
    }
    // Inside a group the calls above only queue; ncclGroupEnd makes them, and blocks.
    const watchdog dog(s, deadline);
    const ncclResult_t ended = nccl.api().group_end();
    if (dog.fired() || s.aborted())
      throw nccl_unavailable("NCCL's communicators were not ready within " +
                             std::to_string(deadline_s) + " s; aborted");
    check_nccl(nccl, ended, "ncclGroupEnd", __FILE__, __LINE__);
  } catch (const nccl_error& e) {
    s.abort_all();
    throw nccl_unavailable(std::string("NCCL could not make the communicators: ") + e.what());
  }
}

void close_ranks(nccl_ranks& s, double deadline_s) noexcept {
  if (s.aborted())
    return;
  try {
    const watchdog dog(s, after_seconds(deadline_s));
    // Finalise flushes outstanding work (blocking: the group end returns when it is done); one
    // group, so that one thread finalises every communicator together.
    GPUSPEC_NCCL_CHECK(*s.nccl, s.api().group_start());
    for (ncclComm_t c : s.comms)
      GPUSPEC_NCCL_CHECK(*s.nccl, s.api().comm_finalize(c));
    GPUSPEC_NCCL_CHECK(*s.nccl, s.api().group_end());
    if (dog.fired() || s.aborted())
      return;
    for (ncclComm_t& c : s.comms) {
      (void)s.api().comm_destroy(c);
      c = nullptr;
    }
  } catch (...) {
    s.abort_all();
  }
}

void enqueue(nccl_ranks& s, device_ops& ops, const collective_request& q,
             const collective_counts& c) {
  const int local = s.local_ranks();
  const int n = s.group_size;
  const ncclDataType_t type = nccl_type(q.type);
  const std::size_t eb = static_cast<std::size_t>(element_size(q.type));
  const nccl_library& nccl = *s.nccl;
  const nccl_api& api = nccl.api();
  GPUSPEC_NCCL_CHECK(nccl, api.group_start());
  for (int r = 0; r < local; ++r) {
    const int g = s.rank_of(r);
    s.select_device(s.devices[r]);
    const std::byte* in = ops.send_data(r);
    std::byte* out = ops.recv_data(r);
    ncclComm_t comm = s.comms[r];
    cudaStream_t st = ops.stream(r);
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
        GPUSPEC_NCCL_CHECK(nccl, api.send(in + at, c.param_count, type, p, comm, st));
        GPUSPEC_NCCL_CHECK(nccl, api.recv(out + at, c.param_count, type, p, comm, st));
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

collective_outcome run_schedule(nccl_ranks& s, device_ops& ops, const collective_request& q,
                                const collective_counts& c) {
  if (s.aborted())
    throw nccl_error("the communicators were aborted by an earlier collective");
  const int local = s.local_ranks();
  collective_outcome o;
  o.nranks = s.group_size;
  o.counts = c;
  const auto deadline = after_seconds(q.deadline_s);
  const watchdog dog(s, after_seconds(q.deadline_s + watchdog_grace_s));

  const auto all_ranks = [&] {
    std::vector<int> r(local);
    for (int i = 0; i < local; ++i)
      r[i] = i;
    return r;
  };
  const auto timed_out = [&](const std::vector<int>& pending, std::string phase) {
    o.timed_out = true;
    for (int r : pending)
      o.ranks_not_finished.push_back(s.rank_of(r));
    o.phase = std::move(phase);
    s.abort_all();
    return o;
  };
  // A batch: every start event, the calls back to back (a blocking group end returns once the
  // calls are launched), every stop event; then the wait. Returns the ranks not finished by
  // the deadline; all of them when a call did not return (the watchdog aborted it).
  const auto batch = [&](int iterations) -> std::vector<int> {
    try {
      ops.record_begin();
      for (int i = 0; i < iterations && !s.aborted(); ++i)
        enqueue(s, ops, q, c);
      if (s.aborted())
        return all_ranks();
      ops.record_end();
    } catch (const nccl_error&) {
      if (s.aborted())
        return all_ranks();
      throw;
    }
    auto pending = wait_all(s, ops, deadline);
    if (pending.empty() && driver_clock::now() > deadline)
      pending = all_ranks();
    return pending;
  };

  ops.prepare(q.seed);
  int runs = 0;
  {
    const auto t0 = driver_clock::now();
    if (const auto pending = batch(q.warmup_iterations); !pending.empty())
      return timed_out(pending, "warm-up");
    if (q.on_run)
      q.on_run(++runs, seconds_since(t0));
  }
  for (int k = 0; k < q.samples; ++k) {
    const auto t0 = driver_clock::now();
    if (const auto pending = batch(q.iterations); !pending.empty())
      return timed_out(pending, "sample " + std::to_string(k + 1));
    o.seconds_per_iteration.push_back(ops.slowest_seconds() / q.iterations);
    if (q.on_run)
      q.on_run(++runs, seconds_since(t0));
  }

  // The check: every receive buffer zeroed, inputs under another seed, one untimed call (the
  // one with NCCL's tuning log on), every element compared on its own GPU.
  const std::uint64_t seed = check_seed(q.seed);
  ops.prepare(seed);
  if (q.tuning_log)
    q.tuning_log(true);
  std::vector<int> pending;
  try {
    pending = batch(1);
  } catch (...) {
    if (q.tuning_log)
      q.tuning_log(false);
    throw;
  }
  if (q.tuning_log)
    q.tuning_log(false);
  if (!pending.empty())
    return timed_out(pending, "check");
  o.wrong_per_rank = ops.count_wrong(seed);
  return o;
}

} // namespace gpuspec::collectives
