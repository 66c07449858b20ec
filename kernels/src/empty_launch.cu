// Empty-kernel launches, one at a time on a stream or as a CUDA graph of kernel nodes.
//
// What it measures (with latency.launch): the cost of a kernel launch itself, with no work in
// the kernel: the GPU's time per queued launch (front end, block scheduling, kernel completion)
// and, in the benchmark, the host's time to enqueue one. Bound by the launch path (driver,
// command processor, scheduler), not by the SMs. Any architecture the build targets; graphs
// need CUDA 10 or later, which every supported toolkit is.
//
// The kernel's one thread adds 1 to a counter in device memory (a fire-and-forget reduction,
// RED in SASS, which the thread does not wait for), so the benchmark can check that every
// launch it asked for ran exactly once. That is the only work; with a null counter it does
// nothing at all.
//
// The graph is made by stream capture of `nodes` launches on a private stream (a chain of
// kernel nodes, as the stream would run them), instantiated once and uploaded to the device
// once, so that launching it is one call and the first launch does no setup either.

#include "gpuspec/kernels/empty_launch.hpp"

#include <stdexcept>
#include <type_traits>
#include <utility>

#include <cuda_runtime.h>

#include "gpuspec/kernels/cuda_check.cuh"
#include "gpuspec/kernels/cuda_handles.cuh"

namespace gpuspec::kernels {

namespace {

__global__ void __launch_bounds__(32) empty_counted_kernel(unsigned long long* counter) {
  if (counter != nullptr && threadIdx.x == 0)
    atomicAdd(counter, 1ull);
}

static_assert(std::is_same_v<cudaGraph_t, CUgraph_st*> &&
                  std::is_same_v<cudaGraphExec_t, CUgraphExec_st*>,
              "the header's opaque graph types must be the runtime's");

} // namespace

void launch_empty_counted(unsigned long long* counter, stream_handle stream) {
  empty_counted_kernel<<<1, 1, 0, stream>>>(counter);
  GPUSPEC_CUDA_CHECK_LAUNCH();
}

empty_launch_graph::empty_launch_graph(std::uint32_t nodes, unsigned long long* counter)
    : m_nodes(nodes) {
  if (nodes == 0)
    throw std::invalid_argument("empty_launch_graph: the graph needs at least one node");
  const stream capture; // non-blocking, private: nothing else is enqueued on it
  try {
    // Thread-local capture: other threads' CUDA calls (none are expected) are not affected.
    GPUSPEC_CUDA_CHECK(cudaStreamBeginCapture(capture.get(), cudaStreamCaptureModeThreadLocal));
    try {
      for (std::uint32_t i = 0; i < nodes; ++i)
        launch_empty_counted(counter, capture.handle());
    } catch (...) {
      cudaGraph_t partial = nullptr;
      (void)cudaStreamEndCapture(capture.get(), &partial);
      if (partial != nullptr)
        (void)cudaGraphDestroy(partial);
      (void)cudaGetLastError();
      throw;
    }
    GPUSPEC_CUDA_CHECK(cudaStreamEndCapture(capture.get(), &m_graph));
    GPUSPEC_CUDA_CHECK(cudaGraphInstantiate(&m_exec, m_graph, 0));
    GPUSPEC_CUDA_CHECK(cudaGraphUpload(m_exec, capture.get()));
    capture.synchronize();
  } catch (...) {
    reset();
    throw;
  }
}

empty_launch_graph::~empty_launch_graph() { reset(); }

empty_launch_graph::empty_launch_graph(empty_launch_graph&& other) noexcept
    : m_graph(std::exchange(other.m_graph, nullptr)), m_exec(std::exchange(other.m_exec, nullptr)),
      m_nodes(std::exchange(other.m_nodes, 0)) {}

empty_launch_graph& empty_launch_graph::operator=(empty_launch_graph&& other) noexcept {
  if (this != &other) {
    reset();
    m_graph = std::exchange(other.m_graph, nullptr);
    m_exec = std::exchange(other.m_exec, nullptr);
    m_nodes = std::exchange(other.m_nodes, 0);
  }
  return *this;
}

void empty_launch_graph::launch(stream_handle stream) const {
  if (m_exec == nullptr)
    throw std::logic_error("empty_launch_graph::launch: the graph was moved from");
  GPUSPEC_CUDA_CHECK(cudaGraphLaunch(m_exec, stream));
}

void empty_launch_graph::reset() noexcept {
  if (m_exec != nullptr)
    GPUSPEC_CUDA_CHECK_NOEXCEPT(cudaGraphExecDestroy(m_exec));
  if (m_graph != nullptr)
    GPUSPEC_CUDA_CHECK_NOEXCEPT(cudaGraphDestroy(m_graph));
  m_exec = nullptr;
  m_graph = nullptr;
}

} // namespace gpuspec::kernels
