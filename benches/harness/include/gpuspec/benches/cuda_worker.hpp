#pragma once
/// The CUDA measurement backend of a worker (`gpuspec __worker` in a CUDA build): plans from
/// the benchmark registry, measures one GPU's cases through the harness (bench_state), samples
/// that GPU's telemetry itself. Host types only.

#include "gpuspec/spine/worker.hpp"

namespace gpuspec::benches {

[[nodiscard]] spine::worker_backend cuda_worker_backend();

/// `--probe-mig` (spine/cuda_probe.hpp): cudaGetDeviceCount and device 0's UUID, no context.
[[nodiscard]] spine::cuda_probe_answer probe_cuda_device();

} // namespace gpuspec::benches
