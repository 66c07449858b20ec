#pragma once
/// Error handling for cuBLAS (CONTRIBUTING.md, style 6), the counterpart of cuda_check.cuh:
///   GPUSPEC_CUBLAS_CHECK(cublasCreate(&handle));          // throws kernels::cublas_error
///   GPUSPEC_CUBLAS_CHECK_NOEXCEPT(cublasDestroy(handle)); // destructors: logs to stderr
/// Targets using it link CUDA::cublas.

#include <stdexcept>
#include <string>

#include <cublas_api.h>

namespace gpuspec::kernels {

class cublas_error : public std::runtime_error {
public:
  cublas_error(cublasStatus_t status, const std::string& what)
      : std::runtime_error(what), m_status(status) {}
  [[nodiscard]] cublasStatus_t status() const noexcept { return m_status; }

private:
  cublasStatus_t m_status;
};

/// "CUBLAS_STATUS_NOT_INITIALIZED (the library was not initialized)"
[[nodiscard]] std::string describe_cublas_status(cublasStatus_t status);

[[noreturn]] void throw_cublas_error(cublasStatus_t status, const char* call, const char* file,
                                     int line);
void log_cublas_error(cublasStatus_t status, const char* call, const char* file, int line) noexcept;

inline void check_cublas(cublasStatus_t status, const char* call, const char* file, int line) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw_cublas_error(status, call, file, line);
}

inline void check_cublas_noexcept(cublasStatus_t status, const char* call, const char* file,
                                  int line) noexcept {
  if (status != CUBLAS_STATUS_SUCCESS)
    log_cublas_error(status, call, file, line);
}

} // namespace gpuspec::kernels

#define GPUSPEC_CUBLAS_CHECK(expr)                                                                 \
  ::gpuspec::kernels::check_cublas((expr), #expr, __FILE__, __LINE__)

#define GPUSPEC_CUBLAS_CHECK_NOEXCEPT(expr)                                                        \
  ::gpuspec::kernels::check_cublas_noexcept((expr), #expr, __FILE__, __LINE__)
