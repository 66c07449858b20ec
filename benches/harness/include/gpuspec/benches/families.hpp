#pragma once
/// Each benchmark family's register function, and the one place that calls them all
/// (all_families.cpp). A new family adds its function here and one line there.

#include "gpuspec/benches/registry.hpp"

namespace gpuspec::benches {

/// memory.stream.{copy,scale,add,triad,dot} (families/stream.cpp)
void register_stream_benchmarks(registry& r);

/// cache.l2.read, cache.shared (families/cache_bandwidth.cpp)
void register_cache_benchmarks(registry& r);

/// latency.{l1,l2,dram}, latency.sweep, latency.launch (families/latency.cpp)
void register_latency_benchmarks(registry& r);

/// compute.fma.{fp32,fp64,fp16x2,int32} (families/compute_fma.cpp)
void register_compute_fma_benchmarks(registry& r);

/// tensor.mma.{fp16,bf16,tf32,int8,fp8} and the sm_90a wgmma peak (families/tensor_mma.cpp)
void register_tensor_mma_benchmarks(registry& r);

/// gemm.cublas.* (families/gemm_cublas.cpp)
void register_gemm_cublas_benchmarks(registry& r);
/// gemm.cublas.{mxfp8_e4m3, mxfp8_e5m2, nvfp4, mxfp4}: block-scaled cuBLASLt GEMMs (Blackwell).
void register_gemm_blockscaled_benchmarks(registry& r);

/// gemm.custom.{sgemm,hgemm_tc} (families/gemm_custom.cpp)
void register_gemm_custom_benchmarks(registry& r);

/// transfer.{h2d,d2h,bidir} (families/transfer.cpp)
void register_transfer_benchmarks(registry& r);
/// transfer.p2p: peer copies between every ordered pair of the selected GPUs (node-wide).
void register_transfer_p2p_benchmarks(registry& r);
/// transfer.p2p_latency, node-wide (families/transfer_p2p_latency.cpp)
void register_transfer_p2p_latency_benchmarks(registry& r);

/// collective.{all_reduce,all_gather,reduce_scatter,broadcast,reduce,alltoall,sendrecv}, node-wide
/// (families/collective.cpp)
void register_collective_benchmarks(registry& r);

/// burnin.gemm, memory.test (families/burnin.cpp)
void register_burnin_benchmarks(registry& r);
/// Calls every family's register function, in the order `gpuspec list` shows them.
void register_all_families(registry& r);

} // namespace gpuspec::benches
