#include "gpuspec/kernels/cuda_check.cuh"

#include <cstdio>

namespace gpuspec::kernels {

namespace {
std::string message(cudaError_t code, const char* call, const char* file, int line) {
  return std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " +
         describe_cuda_error(code);
}

/// A failing runtime call also sets the thread's "last error", which only cudaGetLastError
/// clears. Left set, it would be reported again by the next GPUSPEC_CUDA_CHECK_LAUNCH, blaming
/// an innocent launch (another benchmark's, or another GPU's after this one failed to start).
/// Once reported here it is consumed. A sticky error (a fault inside a kernel) stays: every
/// later call on that context keeps returning it, as it should.
void consume_last_error() noexcept { (void)cudaGetLastError(); }
} // namespace

std::string describe_cuda_error(cudaError_t code) {
  const char* name = cudaGetErrorName(code);
  const char* text = cudaGetErrorString(code);
  return std::string(name != nullptr ? name : "cudaError") + " (" +
         (text != nullptr ? text : "no description") + ", code " +
         std::to_string(static_cast<int>(code)) + ")";
}

void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line) {
  consume_last_error();
  throw cuda_error(code, message(code, call, file, line));
}

void log_cuda_error(cudaError_t code, const char* call, const char* file, int line) noexcept {
  consume_last_error();
  try {
    std::fprintf(stderr, "gpuspec: %s\n", message(code, call, file, line).c_str());
  } catch (...) { // NOLINT(bugprone-empty-catch): out of memory while logging; nothing left to do
  }
}

} // namespace gpuspec::kernels
