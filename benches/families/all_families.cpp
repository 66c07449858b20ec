// The list of benchmark families: no static-initialiser registration, one call per family.

#include "gpuspec/benches/families.hpp"

namespace gpuspec::benches {

void register_all_families(registry& r) {
  register_stream_benchmarks(r);
  register_cache_benchmarks(r);
  register_latency_benchmarks(r);
  register_compute_fma_benchmarks(r);
  register_tensor_mma_benchmarks(r);
  register_gemm_cublas_benchmarks(r);
  register_gemm_blockscaled_benchmarks(r);
  register_gemm_custom_benchmarks(r);
  register_transfer_benchmarks(r);
  register_transfer_p2p_benchmarks(r);
  register_transfer_p2p_latency_benchmarks(r);
  register_collective_benchmarks(r);
  register_burnin_benchmarks(r);
}

} // namespace gpuspec::benches
