#include "gpuspec/kernels/cuda_check.cuh"

#include <cstdio>

namespace gpuspec::kernels {

namespace {
std::string message(cudaError_t code, const char* call, const char* file, int line) {
  return std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " +
         describe_cuda_error(code);
}
} // namespace

std::string describe_cuda_error(cudaError_t code) {
  const char* name = cudaGetErrorName(code);
  const char* text = cudaGetErrorString(code);
  return std::string(name != nullptr ? name : "cudaError") + " (" +
         (text != nullptr ? text : "no description") + ", code " +
         std::to_string(static_cast<int>(code)) + ")";
}

void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line) {
  throw cuda_error(code, message(code, call, file, line));
}

void log_cuda_error(cudaError_t code, const char* call, const char* file, int line) noexcept {
  try {
    std::fprintf(stderr, "gpuspec: %s\n", message(code, call, file, line).c_str());
  } catch (...) { // NOLINT(bugprone-empty-catch): out of memory while logging; nothing left to do
  }
}

} // namespace gpuspec::kernels
