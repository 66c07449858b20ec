#pragma once
/// RAII for CUDA runtime handles (CONTRIBUTING.md, style 7): move-only owners with noexcept
/// destructors, and non-owning `_ref` views (CCCL's cuda::stream / cuda::stream_ref split).
///
///   device_buffer<T>  cudaMalloc'ed array          pinned_buffer<T>  cudaHostAlloc'ed, mapped
///   host_registration host memory page-locked by cudaHostRegister, mapped (memory not owned)
///   stream            owning, non-blocking         stream_ref        a cudaStream_t, not owned
///   event             timing event                 device_scope      sets a device, restores
///
/// Constructors throw kernels::cuda_error; destructors log a failure and go on. A moved-from
/// owner is empty and its destructor does nothing.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <new>
#include <span>
#include <type_traits>
#include <utility>

#include <cuda_runtime_api.h>

#include "gpuspec/kernels/cuda_check.cuh"
#include "gpuspec/kernels/stream_handle.hpp"

namespace gpuspec::kernels {

namespace detail {
template <class T> std::size_t checked_bytes(std::size_t count) {
  if (count > std::numeric_limits<std::size_t>::max() / sizeof(T))
    throw std::bad_array_new_length();
  return count * sizeof(T);
}
} // namespace detail

/// `count` elements of device memory (uninitialised), freed with cudaFree. The pointer is
/// 256-byte aligned. An empty buffer (count 0 or default-constructed) holds nullptr.
template <class T> class device_buffer {
  static_assert(std::is_trivially_copyable_v<T>, "device memory holds trivially copyable types");

public:
  device_buffer() = default;
  explicit device_buffer(std::size_t count) {
    if (count == 0)
      return;
    void* p = nullptr;
    GPUSPEC_CUDA_CHECK(cudaMalloc(&p, detail::checked_bytes<T>(count)));
    m_data = static_cast<T*>(p);
    m_count = count;
  }
  ~device_buffer() { reset(); }
  device_buffer(device_buffer&& other) noexcept
      : m_data(std::exchange(other.m_data, nullptr)), m_count(std::exchange(other.m_count, 0)) {}
  device_buffer& operator=(device_buffer&& other) noexcept {
    if (this != &other) {
      reset();
      m_data = std::exchange(other.m_data, nullptr);
      m_count = std::exchange(other.m_count, 0);
    }
    return *this;
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;

  [[nodiscard]] T* data() const noexcept { return m_data; }
  [[nodiscard]] std::size_t size() const noexcept { return m_count; }
  [[nodiscard]] std::size_t bytes() const noexcept { return m_count * sizeof(T); }
  [[nodiscard]] bool empty() const noexcept { return m_count == 0; }

  void reset() noexcept {
    if (m_data != nullptr)
      GPUSPEC_CUDA_CHECK_NOEXCEPT(cudaFree(m_data));
    m_data = nullptr;
    m_count = 0;
  }

private:
  T* m_data = nullptr;
  std::size_t m_count = 0;
};

/// `count` elements of page-locked host memory, mapped into every device's address space
/// (cudaHostAllocPortable | cudaHostAllocMapped), zero-initialised. host() for the CPU,
/// device() for kernels.
template <class T> class pinned_buffer {
  static_assert(std::is_trivially_copyable_v<T>, "pinned memory holds trivially copyable types");

public:
  pinned_buffer() = default;
  explicit pinned_buffer(std::size_t count) {
    if (count == 0)
      return;
    const std::size_t bytes = detail::checked_bytes<T>(count);
    void* p = nullptr;
    GPUSPEC_CUDA_CHECK(cudaHostAlloc(&p, bytes, cudaHostAllocPortable | cudaHostAllocMapped));
    m_host = static_cast<T*>(p);
    m_count = count;
    void* d = nullptr;
    try {
      GPUSPEC_CUDA_CHECK(cudaHostGetDevicePointer(&d, p, 0));
    } catch (...) {
      reset();
      throw;
    }
    m_device = static_cast<T*>(d);
    for (std::size_t i = 0; i < count; ++i)
      ::new (static_cast<void*>(m_host + i)) T{};
  }
  ~pinned_buffer() { reset(); }
  pinned_buffer(pinned_buffer&& other) noexcept
      : m_host(std::exchange(other.m_host, nullptr)),
        m_device(std::exchange(other.m_device, nullptr)), m_count(std::exchange(other.m_count, 0)) {
  }
  pinned_buffer& operator=(pinned_buffer&& other) noexcept {
    if (this != &other) {
      reset();
      m_host = std::exchange(other.m_host, nullptr);
      m_device = std::exchange(other.m_device, nullptr);
      m_count = std::exchange(other.m_count, 0);
    }
    return *this;
  }
  pinned_buffer(const pinned_buffer&) = delete;
  pinned_buffer& operator=(const pinned_buffer&) = delete;

  [[nodiscard]] T* host() const noexcept { return m_host; }
  [[nodiscard]] T* device() const noexcept { return m_device; }
  [[nodiscard]] std::span<T> span() const noexcept { return {m_host, m_count}; }
  [[nodiscard]] std::size_t size() const noexcept { return m_count; }

  void reset() noexcept {
    if (m_host != nullptr)
      GPUSPEC_CUDA_CHECK_NOEXCEPT(cudaFreeHost(m_host));
    m_host = nullptr;
    m_device = nullptr;
    m_count = 0;
  }

private:
  T* m_host = nullptr;
  T* m_device = nullptr;
  std::size_t m_count = 0;
};

/// Host memory someone else allocated (an mmap placed on a NUMA node), page-locked and mapped
/// into every device's address space for this object's lifetime: cudaHostRegister with
/// cudaHostRegisterPortable | cudaHostRegisterMapped, cudaHostUnregister in the destructor. The
/// memory must outlive the registration; host() is the pointer given, device() the address
/// kernels use.
class host_registration {
public:
  host_registration() = default;
  host_registration(void* host, std::size_t bytes) {
    if (host == nullptr || bytes == 0)
      return;
    GPUSPEC_CUDA_CHECK(
        cudaHostRegister(host, bytes, cudaHostRegisterPortable | cudaHostRegisterMapped));
    m_host = host;
    void* d = nullptr;
    try {
      GPUSPEC_CUDA_CHECK(cudaHostGetDevicePointer(&d, host, 0));
    } catch (...) {
      reset();
      throw;
    }
    m_device = d;
  }
  ~host_registration() { reset(); }
  host_registration(host_registration&& other) noexcept
      : m_host(std::exchange(other.m_host, nullptr)),
        m_device(std::exchange(other.m_device, nullptr)) {}
  host_registration& operator=(host_registration&& other) noexcept {
    if (this != &other) {
      reset();
      m_host = std::exchange(other.m_host, nullptr);
      m_device = std::exchange(other.m_device, nullptr);
    }
    return *this;
  }
  host_registration(const host_registration&) = delete;
  host_registration& operator=(const host_registration&) = delete;

  [[nodiscard]] void* host() const noexcept { return m_host; }
  [[nodiscard]] void* device() const noexcept { return m_device; }
  [[nodiscard]] bool empty() const noexcept { return m_host == nullptr; }

  void reset() noexcept {
    if (m_host != nullptr)
      GPUSPEC_CUDA_CHECK_NOEXCEPT(cudaHostUnregister(m_host));
    m_host = nullptr;
    m_device = nullptr;
  }

private:
  void* m_host = nullptr;
  void* m_device = nullptr;
};

/// A stream that someone else owns. Copyable; the default is the legacy default stream.
class stream_ref {
public:
  stream_ref() = default;
  explicit stream_ref(cudaStream_t stream) noexcept : m_stream(stream) {}
  [[nodiscard]] cudaStream_t get() const noexcept { return m_stream; }
  /// The same stream as the launchers' CUDA-free handle type.
  [[nodiscard]] stream_handle handle() const noexcept { return m_stream; }
  void synchronize() const { GPUSPEC_CUDA_CHECK(cudaStreamSynchronize(m_stream)); }
  friend bool operator==(stream_ref, stream_ref) = default;

private:
  cudaStream_t m_stream = nullptr;
};

/// An owning stream on the current device, created non-blocking (it does not synchronise with
/// the legacy default stream).
class stream {
public:
  explicit stream(unsigned flags = cudaStreamNonBlocking) {
    GPUSPEC_CUDA_CHECK(cudaStreamCreateWithFlags(&m_stream, flags));
  }
  ~stream() { reset(); }
  stream(stream&& other) noexcept : m_stream(std::exchange(other.m_stream, nullptr)) {}
  stream& operator=(stream&& other) noexcept {
    if (this != &other) {
      reset();
      m_stream = std::exchange(other.m_stream, nullptr);
    }
    return *this;
  }
  stream(const stream&) = delete;
  stream& operator=(const stream&) = delete;

  [[nodiscard]] stream_ref ref() const noexcept { return stream_ref(m_stream); }
  operator stream_ref() const noexcept { return ref(); } // NOLINT(google-explicit-constructor)
  [[nodiscard]] cudaStream_t get() const noexcept { return m_stream; }
  [[nodiscard]] stream_handle handle() const noexcept { return m_stream; }
  void synchronize() const { ref().synchronize(); }

private:
  void reset() noexcept {
    if (m_stream != nullptr)
      GPUSPEC_CUDA_CHECK_NOEXCEPT(cudaStreamDestroy(m_stream));
    m_stream = nullptr;
  }
  cudaStream_t m_stream = nullptr;
};

/// A timing event on the current device.
class event {
public:
  explicit event(unsigned flags = cudaEventDefault) {
    GPUSPEC_CUDA_CHECK(cudaEventCreateWithFlags(&m_event, flags));
  }
  ~event() { reset(); }
  event(event&& other) noexcept : m_event(std::exchange(other.m_event, nullptr)) {}
  event& operator=(event&& other) noexcept {
    if (this != &other) {
      reset();
      m_event = std::exchange(other.m_event, nullptr);
    }
    return *this;
  }
  event(const event&) = delete;
  event& operator=(const event&) = delete;

  void record(stream_ref s) { GPUSPEC_CUDA_CHECK(cudaEventRecord(m_event, s.get())); }
  void synchronize() const { GPUSPEC_CUDA_CHECK(cudaEventSynchronize(m_event)); }
  [[nodiscard]] cudaEvent_t get() const noexcept { return m_event; }

  /// Device time from `start` to `stop` in seconds (cudaEventElapsedTime, about 0.5 µs
  /// resolution). Both must have completed.
  [[nodiscard]] static double elapsed_seconds(const event& start, const event& stop) {
    float ms = 0.0f;
    GPUSPEC_CUDA_CHECK(cudaEventElapsedTime(&ms, start.m_event, stop.m_event));
    return static_cast<double>(ms) * 1e-3;
  }

private:
  void reset() noexcept {
    if (m_event != nullptr)
      GPUSPEC_CUDA_CHECK_NOEXCEPT(cudaEventDestroy(m_event));
    m_event = nullptr;
  }
  cudaEvent_t m_event = nullptr;
};

/// Makes `device` current for a scope and restores the device that was current before.
class device_scope {
public:
  explicit device_scope(int device) {
    GPUSPEC_CUDA_CHECK(cudaGetDevice(&m_previous));
    GPUSPEC_CUDA_CHECK(cudaSetDevice(device));
    m_device = device;
  }
  ~device_scope() {
    if (m_previous != m_device)
      GPUSPEC_CUDA_CHECK_NOEXCEPT(cudaSetDevice(m_previous));
  }
  device_scope(const device_scope&) = delete;
  device_scope& operator=(const device_scope&) = delete;
  device_scope(device_scope&&) = delete;
  device_scope& operator=(device_scope&&) = delete;

  [[nodiscard]] int device() const noexcept { return m_device; }

private:
  int m_previous = 0;
  int m_device = 0;
};

} // namespace gpuspec::kernels
