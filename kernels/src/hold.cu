// The hold kernel (nvbench's blocking kernel): one thread spinning on a host-written flag, so a
// batch of timed work can be enqueued behind it and start back-to-back once released.
// Bound by nothing (it waits); any architecture from Volta on (__nanosleep, %globaltimer).

#include "gpuspec/kernels/hold.hpp"

#include <cstdint>
#include <stdexcept>

#include <cuda_runtime.h>

#include "gpuspec/kernels/cuda_check.cuh"

namespace gpuspec::kernels {

namespace {

__device__ __forceinline__ std::uint64_t global_timer_ns() {
  std::uint64_t t = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

/// Spins until *release != 0, or until `timeout_ns` of %globaltimer have passed. `max_polls` is a
/// backstop in case the global timer does not advance (each poll is a read of host memory over
/// the bus plus a short sleep, far more than a nanosecond, so the backstop fires well after the
/// timeout and only if the timer is broken).
__global__ void hold_kernel(const volatile int* release, volatile int* timed_out,
                            std::uint64_t timeout_ns, std::uint64_t max_polls) {
  const std::uint64_t start = global_timer_ns();
  for (std::uint64_t polls = 0; *release == 0; ++polls) {
    if (global_timer_ns() - start >= timeout_ns || polls >= max_polls) {
      *timed_out = 1;
      __threadfence_system();
      return;
    }
    __nanosleep(256);
  }
}

} // namespace

void launch_hold(const int* release, int* timed_out, double timeout_seconds, stream_handle stream) {
  if (!(timeout_seconds > 0.0) || timeout_seconds > 3600.0)
    throw std::invalid_argument("launch_hold: the timeout must be in (0, 3600] seconds");
  const auto timeout_ns = static_cast<std::uint64_t>(timeout_seconds * 1e9);
  const std::uint64_t max_polls = timeout_ns; // >= 1 ns per poll: fires only if the timer is stuck
  hold_kernel<<<1, 1, 0, stream>>>(release, timed_out, timeout_ns, max_polls);
  GPUSPEC_CUDA_CHECK_LAUNCH();
}

} // namespace gpuspec::kernels
