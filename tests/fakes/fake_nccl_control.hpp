#pragma once
/// The fake libnccl's controls and counters (fake_nccl.cpp, README.md here). A test opens the
/// fake with dlopen (the same handle gpuspec's loader gets) and resolves
/// gpuspecFakeNcclState(); everything in it may be read or written from any thread.

#include <atomic>

struct gpuspec_fake_nccl_state {
  /// 0 (the default): every call but ncclGetVersion and ncclGetErrorString fails with
  /// ncclInvalidUsage, and nothing is counted. 1: the calls succeed as NCCL's would, on fake
  /// communicators that move no data, and are counted below.
  std::atomic<int> works{0};
  /// 1: the next ncclGroupEnd blocks until some ncclCommAbort (at most 30 s), then fails with
  /// ncclSystemError; it clears itself. A collective stuck in its launch, for the watchdog.
  std::atomic<int> hang_next_group_end{0};

  std::atomic<long> blocking_inits{0};    ///< ncclCommInitRankConfig with config->blocking 1
  std::atomic<long> nonblocking_inits{0}; ///< ... with blocking 0 (unset is blocking, as NCCL)
  std::atomic<long> group_starts{0};
  std::atomic<long> group_ends{0};
  std::atomic<long> in_progress_returns{0}; ///< calls answered ncclInProgress (non-blocking)
  std::atomic<long> async_error_polls{0};   ///< ncclCommGetAsyncError
  std::atomic<long> collectives{0};         ///< the five collectives
  std::atomic<long> point_to_point{0};      ///< ncclSend, ncclRecv
  std::atomic<long> aborts{0};              ///< ncclCommAbort
  std::atomic<long> finalizes{0};
  std::atomic<long> destroys{0};
  std::atomic<long> debug_resets{0}; ///< ncclResetDebugInit
  std::atomic<long> log_lines{0};    ///< lines written to the debug log (NCCL_DEBUG_FILE)
};

extern "C" gpuspec_fake_nccl_state* gpuspecFakeNcclState();

/// Internal to the fake: fake_nccl_abort.cpp's ncclCommAbort counts through it.
void gpuspec_fake_nccl_aborted();
