#pragma once
/// Empty-kernel launches (kernels/src/empty_launch.cu), one by one on a stream or as a CUDA
/// graph of kernel nodes. CUDA-free: the graph's handles are opaque pointers, named by the
/// CUDA runtime's own incomplete struct types as stream_handle.hpp does for streams.
///
/// The kernel is empty but for one fire-and-forget atomic add to a counter by its one thread, so
/// a check can count the launches that really ran (a launch that failed to run, or ran twice,
/// shows up); with a null counter it does nothing at all.

#include <cstdint>

#include "gpuspec/kernels/stream_handle.hpp"

struct CUgraph_st;
struct CUgraphExec_st;

namespace gpuspec::kernels {

/// Launches per iteration of latency.launch, on the stream and as graph nodes. Well under the
/// about 1000 launches a stream's queue holds before cudaLaunchKernel blocks (NVIDIA's forums
/// report that depth): the harness enqueues a whole iteration behind its hold kernel, and a
/// blocked enqueue would only end when the hold times out.
inline constexpr std::uint32_t empty_launches_per_iteration = 256;

/// Enqueues one launch of the empty kernel (1 block of 1 thread) on `stream`; it adds 1 to
/// `*counter` (device memory) unless counter is null. A launch error throws kernels::cuda_error.
void launch_empty_counted(unsigned long long* counter, stream_handle stream);

/// A CUDA graph of `nodes` launches of the empty kernel, one after another (a chain, as a
/// stream would run them), each adding 1 to `*counter` unless it is null; instantiated and
/// uploaded to the device once, when made, so launch() enqueues the whole graph with one call.
/// Made by stream capture on a private stream. Move-only; the destructor frees the graph and
/// its executable and never throws. Throws kernels::cuda_error if capture, instantiation or
/// upload fails, and std::invalid_argument for 0 nodes.
class empty_launch_graph {
public:
  empty_launch_graph(std::uint32_t nodes, unsigned long long* counter);
  ~empty_launch_graph();
  empty_launch_graph(empty_launch_graph&& other) noexcept;
  empty_launch_graph& operator=(empty_launch_graph&& other) noexcept;
  empty_launch_graph(const empty_launch_graph&) = delete;
  empty_launch_graph& operator=(const empty_launch_graph&) = delete;

  /// Enqueues the whole graph on `stream` (cudaGraphLaunch).
  void launch(stream_handle stream) const;
  [[nodiscard]] std::uint32_t nodes() const noexcept { return m_nodes; }

private:
  void reset() noexcept;
  CUgraph_st* m_graph = nullptr;
  CUgraphExec_st* m_exec = nullptr;
  std::uint32_t m_nodes = 0;
};

} // namespace gpuspec::kernels
