#include "device_context.cuh"

#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <string>

#include <cuda_runtime_api.h>

#include "gpuspec/kernels/cuda_check.cuh"
#include "gpuspec/kernels/hold.hpp"
#include "gpuspec/kernels/l2_flush.hpp"

namespace gpuspec::benches {

namespace {

/// The device must already be current (device_scope); cudaFree(nullptr) makes sure its context
/// exists, so a GPU that cannot start fails here, with CUDA's words.
int require_current(int cuda_index) {
  int current = -1;
  GPUSPEC_CUDA_CHECK(cudaGetDevice(&current));
  if (current != cuda_index)
    throw std::logic_error("device_context for CUDA device " + std::to_string(cuda_index) +
                           " made while device " + std::to_string(current) + " is current");
  GPUSPEC_CUDA_CHECK(cudaFree(nullptr));
  return cuda_index;
}

std::int64_t query_l2_bytes(int cuda_index) {
  int bytes = 0;
  GPUSPEC_CUDA_CHECK(cudaDeviceGetAttribute(&bytes, cudaDevAttrL2CacheSize, cuda_index));
  return bytes;
}

std::size_t scratch_bytes(std::int64_t l2_bytes) {
  constexpr std::size_t minimum = std::size_t{8} << 20;
  constexpr std::size_t unit = std::size_t{2} << 20;
  const std::size_t twice = l2_bytes > 0 ? 2 * static_cast<std::size_t>(l2_bytes) : 0;
  const std::size_t bytes = std::max(minimum, twice);
  return (bytes + unit - 1) / unit * unit;
}

} // namespace

stream_blocker::stream_blocker() : m_flags(2) {}

void stream_blocker::block(kernels::stream_ref s, double timeout_seconds) {
  std::atomic_ref<int>(m_flags.host()[0]).store(0);
  std::atomic_ref<int>(m_flags.host()[1]).store(0);
  kernels::launch_hold(m_flags.device(), m_flags.device() + 1, timeout_seconds, s.handle());
}

void stream_blocker::release() noexcept { std::atomic_ref<int>(m_flags.host()[0]).store(1); }

bool stream_blocker::timed_out() const {
  return std::atomic_ref<int>(m_flags.host()[1]).load() != 0;
}

l2_flusher::l2_flusher(std::int64_t l2_bytes) : m_scratch(scratch_bytes(l2_bytes)), m_sink(1) {
  GPUSPEC_CUDA_CHECK(cudaMemset(m_scratch.data(), 0, m_scratch.bytes()));
  GPUSPEC_CUDA_CHECK(cudaMemset(m_sink.data(), 0, m_sink.bytes()));
  // cudaMemset runs on the legacy default stream, which the harness's non-blocking stream does
  // not wait for.
  GPUSPEC_CUDA_CHECK(cudaDeviceSynchronize());
}

void l2_flusher::flush(kernels::stream_ref s) {
  kernels::launch_l2_flush(m_scratch.data(), m_scratch.bytes(), m_sink.data(), s.handle());
}

device_context::device_context(int cuda_index)
    : m_cuda_index(require_current(cuda_index)), m_l2_bytes(query_l2_bytes(cuda_index)),
      m_flusher(m_l2_bytes) {
  // First launches of the helper kernels (module loading is lazy) happen here, outside timing.
  m_flusher.flush(stream());
  m_blocker.block(stream(), 5.0);
  m_blocker.release();
  m_stream.synchronize();
  if (m_blocker.timed_out())
    throw std::runtime_error(
        "the hold kernel timed out although it was released at once: the GPU did not see "
        "the host's write to mapped pinned memory");
}

} // namespace gpuspec::benches
