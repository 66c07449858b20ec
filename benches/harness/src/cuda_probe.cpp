// The CUDA backend's probe of a MIG device (spine/cuda_probe.hpp, docs/health.md): what the
// runtime, started under the CUDA_VISIBLE_DEVICES `gpuspec health` set, counts and device 0's
// UUID. cudaGetDeviceCount initialises the runtime (cuInit) and cudaGetDeviceProperties reads
// the device's attributes; neither creates a context, and no kernel runs, so a job on the MIG
// device is not disturbed.

#include "gpuspec/benches/cuda_worker.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

namespace gpuspec::benches {

namespace {

/// "<name>: <text>" of a CUDA error, and the error cleared.
std::string error_text(cudaError_t e) {
  (void)cudaGetLastError();
  return fmt::format("{}: {}", cudaGetErrorName(e), cudaGetErrorString(e));
}

/// cudaDeviceProp::uuid in NVML's 8-4-4-4-12 grouping, without a prefix (cuda_probe.hpp).
std::string uuid_text(const cudaUUID_t& u) {
  std::string out;
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10)
      out += '-';
    out += fmt::format("{:02x}", static_cast<unsigned char>(u.bytes[i]));
  }
  return out;
}

} // namespace

spine::cuda_probe_answer probe_cuda_device() {
  spine::cuda_probe_answer a;
  a.backend = "cuda";
  if (const cudaError_t e = cudaGetDeviceCount(&a.devices); e != cudaSuccess) {
    a.devices = 0;
    a.error = error_text(e);
    return a;
  }
  if (a.devices < 1)
    return a;
  cudaDeviceProp p{};
  if (const cudaError_t e = cudaGetDeviceProperties(&p, 0); e != cudaSuccess) {
    a.error = error_text(e);
    return a;
  }
  a.uuid = uuid_text(p.uuid);
  return a;
}

} // namespace gpuspec::benches
