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
  // Set first: a call the first ncclCommAbort ends returns on the caller's thread while this
  // one aborts the others, and the caller must already see that the ranks were aborted (a
  // timeout), not take the call's error for an NCCL failure.
  m_aborted.store(true);
  for (ncclComm_t c : comms)
    if (c != nullptr)
      (void)api().comm_abort(c);
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

namespace {

/// One rank's part of one call: its buffers, communicator and stream.
struct rank_call {
  const nccl_library& nccl;
  const std::byte* in;
  std::byte* out;
  std::uint64_t count; ///< the call's count (collective_counts::param_count)
  ncclDataType_t type;
  std::size_t element_bytes;
  int rank, nranks, root;
  ncclComm_t comm;
  cudaStream_t stream;
};

/// The NCCL calls of the row's nccl_call for one rank (collective_kind.hpp).
void call_nccl(nccl_call call, const rank_call& k) {
  const nccl_library& nccl = k.nccl;
  const nccl_api& api = nccl.api();
  switch (call) {
  case nccl_call::all_reduce:
    GPUSPEC_NCCL_CHECK(nccl,
                       api.all_reduce(k.in, k.out, k.count, k.type, ncclSum, k.comm, k.stream));
    return;
  case nccl_call::all_gather:
    GPUSPEC_NCCL_CHECK(nccl, api.all_gather(k.in, k.out, k.count, k.type, k.comm, k.stream));
    return;
  case nccl_call::reduce_scatter:
    GPUSPEC_NCCL_CHECK(nccl,
                       api.reduce_scatter(k.in, k.out, k.count, k.type, ncclSum, k.comm, k.stream));
    return;
  case nccl_call::broadcast:
    GPUSPEC_NCCL_CHECK(nccl, api.broadcast(k.in, k.out, k.count, k.type, k.root, k.comm, k.stream));
    return;
  case nccl_call::reduce:
    GPUSPEC_NCCL_CHECK(nccl,
                       api.reduce(k.in, k.out, k.count, k.type, ncclSum, k.root, k.comm, k.stream));
    return;
  case nccl_call::send_recv_each:
    for (int p = 0; p < k.nranks; ++p) {
      const std::size_t at = static_cast<std::size_t>(p) * k.count * k.element_bytes;
      GPUSPEC_NCCL_CHECK(nccl, api.send(k.in + at, k.count, k.type, p, k.comm, k.stream));
      GPUSPEC_NCCL_CHECK(nccl, api.recv(k.out + at, k.count, k.type, p, k.comm, k.stream));
    }
    return;
  case nccl_call::send_recv_ring:
    GPUSPEC_NCCL_CHECK(nccl,
                       api.send(k.in, k.count, k.type, (k.rank + 1) % k.nranks, k.comm, k.stream));
    GPUSPEC_NCCL_CHECK(nccl, api.recv(k.out, k.count, k.type, (k.rank + k.nranks - 1) % k.nranks,
                                      k.comm, k.stream));
    return;
  }
}

} // namespace

void enqueue(nccl_ranks& s, device_ops& ops, const collective_request& q,
             const collective_counts& c) {
  const nccl_call call = collective_of(q.kind).call;
  const nccl_library& nccl = *s.nccl;
  GPUSPEC_NCCL_CHECK(nccl, nccl.api().group_start());
  for (int r = 0; r < s.local_ranks(); ++r) {
    s.select_device(s.devices[r]);
    call_nccl(call, rank_call{nccl, ops.send_data(r), ops.recv_data(r), c.param_count,
                              nccl_type(q.type), static_cast<std::size_t>(element_size(q.type)),
                              s.rank_of(r), s.group_size, q.root, s.comms[r], ops.stream(r)});
  }
  GPUSPEC_NCCL_CHECK(nccl, nccl.api().group_end());
}

namespace {

/// One measured case's run over `s`: the batches, the phases (warm-up, samples, check) and
/// what a timeout leaves in the outcome.
class case_schedule {
public:
  case_schedule(nccl_ranks& s, device_ops& ops, const collective_request& q,
                const collective_counts& c)
      : m_s(s), m_ops(ops), m_q(q), m_c(c), m_deadline(after_seconds(q.deadline_s)) {
    m_o.nranks = s.group_size;
    m_o.counts = c;
  }

  /// Warm-up and the timed samples; false once one timed out (the outcome then says so).
  bool timed_phases() {
    m_ops.prepare(m_q.seed);
    if (!timed_batch(m_q.warmup_iterations, "warm-up", false))
      return false;
    for (int k = 0; k < m_q.samples; ++k)
      if (!timed_batch(m_q.iterations, "sample " + std::to_string(k + 1), true))
        return false;
    return true;
  }

  /// The check: every receive buffer zeroed, inputs under another seed, one untimed call (the
  /// one with NCCL's tuning log on), every element compared on its own GPU.
  void check() {
    const std::uint64_t seed = check_seed(m_q.seed);
    m_ops.prepare(seed);
    if (m_q.tuning_log)
      m_q.tuning_log(true);
    std::vector<int> pending;
    try {
      pending = batch(1);
    } catch (...) {
      if (m_q.tuning_log)
        m_q.tuning_log(false);
      throw;
    }
    if (m_q.tuning_log)
      m_q.tuning_log(false);
    if (!pending.empty()) {
      time_out(pending, "check");
      return;
    }
    m_o.wrong_per_rank = m_ops.count_wrong(seed);
  }

  [[nodiscard]] collective_outcome& outcome() { return m_o; }

private:
  [[nodiscard]] std::vector<int> all_ranks() const {
    std::vector<int> r(m_s.local_ranks());
    for (int i = 0; i < m_s.local_ranks(); ++i)
      r[i] = i;
    return r;
  }

  void time_out(const std::vector<int>& pending, std::string phase) {
    m_o.timed_out = true;
    for (int r : pending)
      m_o.ranks_not_finished.push_back(m_s.rank_of(r));
    m_o.phase = std::move(phase);
    m_s.abort_all();
  }

  /// A batch: every start event, the calls back to back (a blocking group end returns once the
  /// calls are launched), every stop event; then the wait. Returns the ranks not finished by
  /// the deadline; all of them when a call did not return (the watchdog aborted it).
  std::vector<int> batch(int iterations) {
    try {
      m_ops.record_begin();
      for (int i = 0; i < iterations && !m_s.aborted(); ++i)
        enqueue(m_s, m_ops, m_q, m_c);
      if (m_s.aborted())
        return all_ranks();
      m_ops.record_end();
    } catch (const nccl_error&) {
      if (m_s.aborted())
        return all_ranks();
      throw;
    }
    auto pending = wait_all(m_s, m_ops, m_deadline);
    if (pending.empty() && driver_clock::now() > m_deadline)
      pending = all_ranks();
    return pending;
  }

  /// A batch of `iterations` (a sample's time per call kept when `sample`), reported to
  /// q.on_run; false (and the outcome timed out in `phase`) when a rank did not finish.
  bool timed_batch(int iterations, std::string phase, bool sample) {
    const auto t0 = driver_clock::now();
    if (const auto pending = batch(iterations); !pending.empty()) {
      time_out(pending, std::move(phase));
      return false;
    }
    if (sample)
      m_o.seconds_per_iteration.push_back(m_ops.slowest_seconds() / iterations);
    if (m_q.on_run)
      m_q.on_run(++m_runs, seconds_since(t0));
    return true;
  }

  nccl_ranks& m_s;
  device_ops& m_ops;
  const collective_request& m_q;
  const collective_counts& m_c;
  driver_clock::time_point m_deadline;
  collective_outcome m_o;
  int m_runs = 0;
};

} // namespace

collective_outcome run_schedule(nccl_ranks& s, device_ops& ops, const collective_request& q,
                                const collective_counts& c) {
  if (s.aborted())
    throw nccl_error("the communicators were aborted by an earlier collective");
  case_schedule schedule(s, ops, q, c);
  const watchdog dog(s, after_seconds(q.deadline_s + watchdog_grace_s));
  if (schedule.timed_phases())
    schedule.check();
  return std::move(schedule.outcome());
}

} // namespace gpuspec::collectives
