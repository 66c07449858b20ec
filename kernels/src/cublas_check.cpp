#include "gpuspec/kernels/cublas_check.cuh"

#include <cstdio>

namespace gpuspec::kernels {

namespace {
std::string message(cublasStatus_t status, const char* call, const char* file, int line) {
  return std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " +
         describe_cublas_status(status);
}
} // namespace

std::string describe_cublas_status(cublasStatus_t status) {
  const char* name = cublasGetStatusName(status);
  const char* text = cublasGetStatusString(status);
  return std::string(name != nullptr ? name : "CUBLAS_STATUS") + " (" +
         (text != nullptr ? text : "no description") + ", code " +
         std::to_string(static_cast<int>(status)) + ")";
}

void throw_cublas_error(cublasStatus_t status, const char* call, const char* file, int line) {
  throw cublas_error(status, message(status, call, file, line));
}

void log_cublas_error(cublasStatus_t status, const char* call, const char* file,
                      int line) noexcept {
  try {
    std::fprintf(stderr, "gpuspec: %s\n", message(status, call, file, line).c_str());
  } catch (...) { // NOLINT(bugprone-empty-catch): out of memory while logging; nothing left to do
  }
}

} // namespace gpuspec::kernels
