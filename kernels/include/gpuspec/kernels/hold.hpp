#pragma once
/// The hold ("blocking") kernel of nvbench and nvbandwidth (docs/design.md rule 2). CUDA-free.
///
/// The harness enqueues the hold kernel, then the start event, the timed work and the stop event
/// behind it, and only then releases the hold from the host: the work starts back-to-back on the
/// device, and launch latency is not charged to it. The kernel spins until the host writes a
/// non-zero value to `*release` (host memory mapped into the device's address space) or until
/// `timeout_seconds` have passed on the device's global timer, whichever comes first; on a
/// timeout it writes 1 to `*timed_out` so the host can tell, after synchronising, that the hold
/// did not do its job. A forgotten release therefore costs at most the timeout, never a hung GPU.

#include "gpuspec/kernels/stream_handle.hpp"

namespace gpuspec::kernels {

/// `release` and `timed_out` are device-side addresses of mapped pinned host memory
/// (cudaHostGetDevicePointer). One thread; enqueued on `stream`. Throws kernels::cuda_error on a
/// launch error and std::invalid_argument for a timeout that is not positive.
void launch_hold(const int* release, int* timed_out, double timeout_seconds, stream_handle stream);

} // namespace gpuspec::kernels
