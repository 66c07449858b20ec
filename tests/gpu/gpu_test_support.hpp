#pragma once
// GPU tests come out SKIPPED, with the reason, where there is no usable GPU (CONTRIBUTING.md, style
// 14).

#include <string>

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "gpuspec/kernels/cuda_check.cuh"

namespace gpuspec::testing {

/// "" when the CUDA runtime sees at least one device, else why not.
inline std::string gpu_unavailable_reason() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    return "no usable GPU: cudaGetDeviceCount: " + kernels::describe_cuda_error(err);
  }
  if (count <= 0)
    return "no usable GPU: the CUDA runtime reports no device";
  return {};
}

/// Fixture for tests that need a GPU: skips in SetUp, and makes device 0 current.
class gpu_test : public ::testing::Test {
protected:
  void SetUp() override {
    if (const std::string why = gpu_unavailable_reason(); !why.empty())
      GTEST_SKIP() << why;
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  }
};

} // namespace gpuspec::testing
