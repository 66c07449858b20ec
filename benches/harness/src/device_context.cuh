#pragma once
// What the harness keeps per device for a run: the stream the work is timed on, the two
// events, the hold flag and the L2 flush buffer. Internal to gpuspec_benches.

#include <cstddef>
#include <cstdint>

#include "gpuspec/benches/device_timing.cuh"
#include "gpuspec/kernels/cuda_handles.cuh"

namespace gpuspec::benches {

/// The hold kernel's host side (nvbench's blocking_kernel): block() enqueues the hold,
/// release() lets it go, timed_out() tells afterwards whether it gave up waiting.
class stream_blocker {
public:
  stream_blocker();
  /// Clears the flags and enqueues the hold kernel. The stream must be idle (the previous
  /// sample synchronised), since the flags are shared with the previous hold kernel.
  void block(kernels::stream_ref s, double timeout_seconds);
  void release() noexcept;
  /// Read after synchronising the stream.
  [[nodiscard]] bool timed_out() const;

private:
  kernels::pinned_buffer<int> m_flags; // [0] release, [1] timed out
};

/// Releases a stream_blocker when it goes out of scope, so an exception between block() and
/// release() never leaves the hold kernel to time out.
class release_guard {
public:
  explicit release_guard(stream_blocker& blocker) noexcept : m_blocker(&blocker) {}
  ~release_guard() { release(); }
  void release() noexcept {
    if (m_blocker != nullptr)
      m_blocker->release();
    m_blocker = nullptr;
  }
  release_guard(const release_guard&) = delete;
  release_guard& operator=(const release_guard&) = delete;
  release_guard(release_guard&&) = delete;
  release_guard& operator=(release_guard&&) = delete;

private:
  stream_blocker* m_blocker;
};

/// Reads a zeroed scratch buffer of 2x the L2 size (at least 8 MiB) before each cold sample.
class l2_flusher {
public:
  explicit l2_flusher(std::int64_t l2_bytes);
  void flush(kernels::stream_ref s);
  [[nodiscard]] std::size_t bytes() const { return m_scratch.bytes(); }

private:
  kernels::device_buffer<unsigned char> m_scratch;
  kernels::device_buffer<unsigned> m_sink;
};

/// Made with the device current (inside a device_scope); the device stays the same for its
/// lifetime. Creating it creates the CUDA context, so a GPU that cannot start fails here.
class device_context {
public:
  explicit device_context(int cuda_index);

  [[nodiscard]] int cuda_index() const { return m_cuda_index; }
  [[nodiscard]] std::int64_t l2_bytes() const { return m_l2_bytes; }
  [[nodiscard]] kernels::stream_ref stream() const { return m_stream.ref(); }
  /// The events the state's spans are timed with (device_timing.cuh).
  [[nodiscard]] event_pair& timer() { return m_timer; }
  [[nodiscard]] stream_blocker& blocker() { return m_blocker; }
  [[nodiscard]] l2_flusher& flusher() { return m_flusher; }

private:
  int m_cuda_index;
  std::int64_t m_l2_bytes;
  kernels::stream m_stream;
  event_pair m_timer;
  stream_blocker m_blocker;
  l2_flusher m_flusher;
};

} // namespace gpuspec::benches
