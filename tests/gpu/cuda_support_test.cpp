// Host tests of the CUDA error checks and of the RAII handles' empty states: nothing here needs
// a GPU (error names come from the runtime's own tables; empty handles make no CUDA call).

#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include <gtest/gtest.h>

#include "gpuspec/kernels/cublas_check.cuh"
#include "gpuspec/kernels/cuda_check.cuh"
#include "gpuspec/kernels/cuda_handles.cuh"

namespace k = gpuspec::kernels;

TEST(cuda_check, what_names_the_call_the_place_and_the_error) {
  try {
    k::throw_cuda_error(cudaErrorMemoryAllocation, "cudaMalloc(&p, bytes)", "kernels/src/x.cu", 12);
    FAIL() << "no throw";
  } catch (const k::cuda_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("cudaMalloc(&p, bytes)"), std::string::npos) << what;
    EXPECT_NE(what.find("kernels/src/x.cu:12"), std::string::npos) << what;
    EXPECT_NE(what.find("cudaErrorMemoryAllocation"), std::string::npos) << what;
    EXPECT_NE(what.find("out of memory"), std::string::npos) << what;
    EXPECT_EQ(e.code(), cudaErrorMemoryAllocation);
  }
}

TEST(cuda_check, the_macro_throws_a_runtime_error_and_passes_success) {
  EXPECT_NO_THROW(GPUSPEC_CUDA_CHECK(cudaSuccess));
  EXPECT_THROW(GPUSPEC_CUDA_CHECK(cudaErrorInvalidValue), std::runtime_error);
  EXPECT_NO_THROW(GPUSPEC_CUDA_CHECK_NOEXCEPT(cudaErrorInvalidValue)); // logs only
  // A real failing call: no such device, with or without a GPU in the machine.
  EXPECT_THROW(GPUSPEC_CUDA_CHECK(cudaSetDevice(9999)), k::cuda_error);
}

TEST(cublas_check, what_names_the_call_and_the_status) {
  try {
    GPUSPEC_CUBLAS_CHECK(CUBLAS_STATUS_NOT_INITIALIZED);
    FAIL() << "no throw";
  } catch (const k::cublas_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("CUBLAS_STATUS_NOT_INITIALIZED"), std::string::npos) << what;
    EXPECT_NE(what.find("cuda_support_test.cpp"), std::string::npos) << what;
    EXPECT_EQ(e.status(), CUBLAS_STATUS_NOT_INITIALIZED);
  }
}

TEST(cuda_handles, are_move_only) {
  static_assert(!std::is_copy_constructible_v<k::device_buffer<float>>);
  static_assert(std::is_nothrow_move_constructible_v<k::device_buffer<float>>);
  static_assert(std::is_nothrow_move_assignable_v<k::device_buffer<float>>);
  static_assert(!std::is_copy_constructible_v<k::pinned_buffer<int>>);
  static_assert(std::is_nothrow_move_constructible_v<k::pinned_buffer<int>>);
  static_assert(!std::is_copy_constructible_v<k::stream>);
  static_assert(std::is_nothrow_move_constructible_v<k::stream>);
  static_assert(!std::is_copy_constructible_v<k::event>);
  static_assert(std::is_nothrow_move_constructible_v<k::event>);
  static_assert(std::is_copy_constructible_v<k::stream_ref>);
  static_assert(!std::is_copy_constructible_v<k::device_scope>);
  static_assert(!std::is_move_constructible_v<k::device_scope>);
  static_assert(std::is_nothrow_destructible_v<k::device_buffer<float>>);
  static_assert(std::is_nothrow_destructible_v<k::stream>);
  static_assert(std::is_nothrow_destructible_v<k::device_scope>);
}

TEST(cuda_handles, empty_buffers_make_no_cuda_call) {
  k::device_buffer<float> empty(0);
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(empty.data(), nullptr);
  k::device_buffer<float> moved(std::move(empty));
  EXPECT_EQ(moved.bytes(), 0u);
  k::pinned_buffer<int> none;
  EXPECT_EQ(none.host(), nullptr);
  EXPECT_EQ(none.size(), 0u);
  EXPECT_EQ(k::stream_ref().get(), nullptr);
}

TEST(cuda_handles, a_buffer_too_big_to_count_throws_before_allocating) {
  EXPECT_THROW(k::device_buffer<double>(~std::size_t{0} / 2), std::bad_array_new_length);
}
