#include "p2p_support.hpp"

#include <string>

#include <cuda_runtime.h>

#include "gpuspec/benches/nvml_library.hpp"
#include "gpuspec/benches/topology.hpp"
#include "gpuspec/kernels/cuda_check.cuh"
#include "gpuspec/kernels/cuda_handles.cuh"
#include "gpuspec/spine/inventory.hpp" // nvml_library_path

namespace gpuspec::benches {

peer_access_scope::peer_access_scope(int device, int peer) : m_device(device), m_peer(peer) {
  const kernels::device_scope on(device);
  const cudaError_t e = cudaDeviceEnablePeerAccess(peer, 0);
  if (e == cudaErrorPeerAccessAlreadyEnabled) {
    (void)cudaGetLastError(); // not ours to disable
    return;
  }
  GPUSPEC_CUDA_CHECK(e);
  m_enabled = true;
}

peer_access_scope::~peer_access_scope() {
  if (!m_enabled)
    return;
  int previous = 0;
  GPUSPEC_CUDA_CHECK_NOEXCEPT(cudaGetDevice(&previous));
  GPUSPEC_CUDA_CHECK_NOEXCEPT(cudaSetDevice(m_device));
  GPUSPEC_CUDA_CHECK_NOEXCEPT(cudaDeviceDisablePeerAccess(m_peer));
  GPUSPEC_CUDA_CHECK_NOEXCEPT(cudaSetDevice(previous));
}

reports::topology_info node_topology(const std::vector<node_device>& devices) {
  std::string why;
  const auto nvml = nvml_library::open(why, spine::nvml_library_path());
  if (!nvml)
    return {};
  std::vector<reports::device_info> infos;
  for (const auto& d : devices)
    infos.push_back(d.info);
  return probe_topology(*nvml, infos);
}

} // namespace gpuspec::benches
