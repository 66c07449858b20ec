#pragma once
/// The stream argument of every launcher, without cuda_runtime.h.
///
/// `cudaStream_t` is `CUstream_st*`; naming the incomplete struct here lets host code pass a
/// stream (a `cudaStream_t` converts implicitly) while the launcher headers stay CUDA-free.
/// A null handle is the legacy default stream.

struct CUstream_st;

namespace gpuspec::kernels {

using stream_handle = CUstream_st*;

} // namespace gpuspec::kernels
