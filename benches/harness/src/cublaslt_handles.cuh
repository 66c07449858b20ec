#pragma once
/// RAII for cuBLASLt handles (CONTRIBUTING.md, style 7), beside cuda_handles.cuh: move-only owners
/// with noexcept destructors. cuBLASLt reports cublasStatus_t, so GPUSPEC_CUBLAS_CHECK serves.
///
///   lt_handle          cublasLtCreate / cublasLtDestroy
///   lt_matmul_desc     cublasLtMatmulDescCreate (compute type, scale type)
///   lt_matrix_layout   cublasLtMatrixLayoutCreate (type, rows, cols, ld; column-major)
///   lt_preference      cublasLtMatmulPreferenceCreate
///
/// Users link CUDA::cublasLt (and CUDA::cublas for the status text).

#include <cstdint>
#include <utility>

#include <cublasLt.h>

#include "gpuspec/kernels/cublas_check.cuh"

namespace gpuspec::benches {

/// A move-only owner of a cuBLASLt opaque pointer destroyed by `Destroy`.
template <class Handle, cublasStatus_t (*Destroy)(Handle)> class lt_owner {
public:
  lt_owner() = default;
  ~lt_owner() { reset(); }
  lt_owner(lt_owner&& other) noexcept : m_handle(std::exchange(other.m_handle, nullptr)) {}
  lt_owner& operator=(lt_owner&& other) noexcept {
    if (this != &other) {
      reset();
      m_handle = std::exchange(other.m_handle, nullptr);
    }
    return *this;
  }
  lt_owner(const lt_owner&) = delete;
  lt_owner& operator=(const lt_owner&) = delete;

  [[nodiscard]] Handle get() const noexcept { return m_handle; }

protected:
  Handle m_handle = nullptr;

private:
  void reset() noexcept {
    if (m_handle != nullptr)
      GPUSPEC_CUBLAS_CHECK_NOEXCEPT(Destroy(m_handle));
    m_handle = nullptr;
  }
};

class lt_handle : public lt_owner<cublasLtHandle_t, cublasLtDestroy> {
public:
  lt_handle() { GPUSPEC_CUBLAS_CHECK(cublasLtCreate(&m_handle)); }
};

class lt_matmul_desc : public lt_owner<cublasLtMatmulDesc_t, cublasLtMatmulDescDestroy> {
public:
  lt_matmul_desc(cublasComputeType_t compute, cudaDataType_t scale) {
    GPUSPEC_CUBLAS_CHECK(cublasLtMatmulDescCreate(&m_handle, compute, scale));
  }
  template <class T> void set(cublasLtMatmulDescAttributes_t attribute, const T& value) {
    GPUSPEC_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(m_handle, attribute, &value, sizeof value));
  }
};

class lt_matrix_layout : public lt_owner<cublasLtMatrixLayout_t, cublasLtMatrixLayoutDestroy> {
public:
  lt_matrix_layout(cudaDataType_t type, std::uint64_t rows, std::uint64_t cols, std::int64_t ld) {
    GPUSPEC_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&m_handle, type, rows, cols, ld));
  }
};

class lt_preference : public lt_owner<cublasLtMatmulPreference_t, cublasLtMatmulPreferenceDestroy> {
public:
  lt_preference() { GPUSPEC_CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&m_handle)); }
  template <class T> void set(cublasLtMatmulPreferenceAttributes_t attribute, const T& value) {
    GPUSPEC_CUBLAS_CHECK(
        cublasLtMatmulPreferenceSetAttribute(m_handle, attribute, &value, sizeof value));
  }
};

} // namespace gpuspec::benches
