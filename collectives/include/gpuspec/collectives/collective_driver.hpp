#pragma once
/// NCCL's side of the collectives, without CUDA's: the communicators (blocking, made in one
/// group), the watchdog that aborts them past a deadline, one call of a collective on every
/// rank, and the schedule of one measured case (warm-up, timed samples, check). What runs on the
/// GPUs (streams, events, the fill and compare kernels) is behind device_ops: collective_run.cu
/// gives CUDA's, the host tests give stand-ins and load the fake NCCL (tests/fakes), so what
/// NCCL is asked, in which order and with what in between, is tested without a GPU.
///
/// How a case is timed (docs/collectives.md): blocking communicators, as nccl-tests uses, so
/// that ncclGroupEnd returns once the calls are launched; each sample is the start events, the
/// calls back to back, the stop events, and only then a wait. Nothing sleeps or polls between
/// two calls of a sample. (Non-blocking communicators return ncclInProgress from every group
/// end since NCCL 2.23, which finishes it on a thread of its own; waiting for each one put the
/// host's polling interval into every call.) The deadline is kept by a watchdog thread that
/// calls ncclCommAbort (NCCL: it aborts any uncompleted operation), which ends a call that
/// never returns; the waits after a sample poll the stop events and ncclCommGetAsyncError
/// against the same deadline.
///
/// Includes nccl.h: only for gpuspec_collectives' NCCL sources and their tests.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include <nccl.h>

#include "gpuspec/collectives/collective_run.hpp"
#include "gpuspec/collectives/nccl_library.hpp"

namespace gpuspec::collectives {

using driver_clock = std::chrono::steady_clock;

/// A point `seconds` from now.
[[nodiscard]] driver_clock::time_point after_seconds(double seconds);

/// NCCL's part of node_communicators: one blocking communicator per GPU of this process.
struct nccl_ranks {
  const nccl_library* nccl = nullptr; ///< process_nccl()'s (or a test's), outliving the ranks
  std::vector<int> devices;           ///< CUDA ordinals, one per local rank
  std::vector<ncclComm_t> comms;
  int group_size = 0; ///< the communicator's ranks, every process's
  int first_rank = 0; ///< the communicator's rank of comms[0]
  /// Makes a CUDA ordinal current (cudaSetDevice) before a call on its communicator.
  std::function<void(int)> select_device = [](int) {};

  [[nodiscard]] const nccl_api& api() const { return nccl->api(); }
  [[nodiscard]] int rank_of(int local) const { return first_rank + local; }
  [[nodiscard]] int local_ranks() const { return static_cast<int>(comms.size()); }
  /// True once abort_all began: the communicators must not be used again.
  [[nodiscard]] bool aborted() const { return m_aborted.load(); }
  /// ncclCommAbort on every communicator, once, from any thread (the watchdog's or the
  /// caller's); the handles are kept but never used again.
  void abort_all() noexcept;

private:
  std::mutex m_abort;
  std::atomic<bool> m_aborted{false};
};

/// Calls ranks.abort_all() from a thread of its own if `deadline` passes before the watchdog is
/// destroyed. The thread waits on a condition variable: no polling.
class watchdog {
public:
  watchdog(nccl_ranks& ranks, driver_clock::time_point deadline);
  ~watchdog();
  watchdog(const watchdog&) = delete;
  watchdog& operator=(const watchdog&) = delete;
  /// True if the deadline passed and the communicators were aborted.
  [[nodiscard]] bool fired() const { return m_fired.load(); }

private:
  std::mutex m_mutex;
  std::condition_variable m_wake;
  bool m_done = false;
  std::atomic<bool> m_fired{false};
  std::thread m_thread;
};

/// How long the watchdog of a measured case waits past the case's deadline: the waits after
/// each sample see the deadline first and name the ranks that had not finished; the watchdog
/// is for a call that never returns. 1 s, initial policy.
inline constexpr double watchdog_grace_s = 1.0;

/// Makes s.comms: rank s.rank_of(r) of s.group_size on s.devices[r] for every r, blocking, in one
/// group, under a watchdog at `deadline_s`. Throws nccl_unavailable with NCCL's words, or when
/// the watchdog had to abort them.
void init_ranks(nccl_ranks& s, const ncclUniqueId& id, double deadline_s);

/// Finalises and destroys the communicators, or aborts them if that does not finish within
/// `deadline_s` or fails. Nothing for communicators already aborted.
void close_ranks(nccl_ranks& s, double deadline_s) noexcept;

/// What a measured case needs from the GPUs. `local` is the index of a GPU of this process.
class device_ops {
public:
  virtual ~device_ops() = default;
  /// The stream the calls of rank `local` are launched on.
  [[nodiscard]] virtual cudaStream_t stream(int local) = 0;
  /// Where rank `local`'s call reads and writes (in place, inside one buffer).
  [[nodiscard]] virtual const std::byte* send_data(int local) = 0;
  [[nodiscard]] virtual std::byte* recv_data(int local) = 0;
  /// Queues, on every rank's stream: the whole receive buffer zeroed (0 is never an expected
  /// value), then the input seeded with `seed` (expected_values.hpp) at the send data.
  virtual void prepare(std::uint64_t seed) = 0;
  /// Records every rank's start (begin) or stop (end) event on its stream.
  virtual void record_begin() = 0;
  virtual void record_end() = 0;
  /// The ranks whose stop event has not completed (cudaEventQuery); never blocks.
  [[nodiscard]] virtual std::vector<int> end_pending() = 0;
  /// The slowest rank's seconds from its start to its stop event.
  [[nodiscard]] virtual double slowest_seconds() = 0;
  /// Per rank, the output elements unequal to their exact value for inputs seeded with `seed`.
  [[nodiscard]] virtual std::vector<std::int64_t> count_wrong(std::uint64_t seed) = 0;
};

/// Launches one call of q's collective on every rank of `s`, in one group.
void enqueue(nccl_ranks& s, device_ops& ops, const collective_request& q,
             const collective_counts& c);

/// The measured case: warm-up, q.samples timed batches of q.iterations calls, then the check
/// (fresh inputs under check_seed(q.seed), one call with q.tuning_log on, the comparison), as
/// run_collective documents. `c` are counts_for_size's for the request.
[[nodiscard]] collective_outcome run_schedule(nccl_ranks& s, device_ops& ops,
                                              const collective_request& q,
                                              const collective_counts& c);

} // namespace gpuspec::collectives
