#include "p2p_support.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include <cuda_runtime.h>

#include "gpuspec/host/nvml_library.hpp"
#include "gpuspec/host/p2p_plan.hpp"
#include "gpuspec/host/topology.hpp"
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

std::optional<peer_pair> resolve_pair(node_state& state) {
  const auto pair = host::parse_p2p_pair(state.axis("pair"));
  if (!pair)
    throw std::invalid_argument(state.id() + ": the pair axis value " + state.axis("pair") +
                                " is not \"src->dst\"");
  const auto [src_index, dst_index] = *pair;
  std::vector<int> selected;
  for (const auto& d : state.devices())
    selected.push_back(d.info.index);
  // Which pairs the plan sampled on this node: the report says so beside each pair's figure.
  state.add_parameter("pairs_planned", host::p2p_plan_text(static_cast<int>(selected.size()),
                                                           state.options().suite));
  if (const auto why = host::p2p_pair_skip_reason(selected, src_index, dst_index); !why.empty()) {
    state.skip(why);
    return std::nullopt;
  }
  const auto device_of = [&](int index) {
    return &*std::find_if(state.devices().begin(), state.devices().end(),
                          [&](const node_device& d) { return d.info.index == index; });
  };
  return peer_pair{src_index, dst_index, device_of(src_index), device_of(dst_index)};
}

reports::topology_info node_topology(const std::vector<node_device>& devices) {
  std::string why;
  const auto nvml = host::nvml_library::open(why, spine::nvml_library_path());
  if (!nvml)
    return {};
  std::vector<reports::device_info> infos;
  for (const auto& d : devices)
    infos.push_back(d.info);
  return probe_topology(*nvml, infos);
}

} // namespace gpuspec::benches
