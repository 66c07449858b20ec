#pragma once
/// Error handling for the CUDA runtime (CONTRIBUTING.md, style 6).
///
///   GPUSPEC_CUDA_CHECK(cudaMalloc(&p, bytes));  // throws kernels::cuda_error on failure
///   kernel<<<grid, block, 0, stream>>>(...);
///   GPUSPEC_CUDA_CHECK_LAUNCH();                // after every <<<>>>: cudaGetLastError
///   GPUSPEC_CUDA_CHECK_NOEXCEPT(cudaFree(p));   // destructors: logs to stderr, never throws
///
/// what() names the call as written, the file and line, and the runtime's own name and words
/// for the error: "cudaMalloc(&p, bytes) failed at kernels/src/x.cu:12: cudaErrorMemoryAllocation
/// (out of memory)". No exit(): the caller decides (a benchmark's failure is its result's reason).

#include <stdexcept>
#include <string>

#include <cuda_runtime_api.h>

namespace gpuspec::kernels {

class cuda_error : public std::runtime_error {
public:
  cuda_error(cudaError_t code, const std::string& what) : std::runtime_error(what), m_code(code) {}
  [[nodiscard]] cudaError_t code() const noexcept { return m_code; }

private:
  cudaError_t m_code;
};

/// "cudaErrorNoDevice (no CUDA-capable device is detected)"
[[nodiscard]] std::string describe_cuda_error(cudaError_t code);

/// Throws cuda_error for `code`, naming `call`, `file` and `line`.
[[noreturn]] void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line);

/// Writes the same text as throw_cuda_error to stderr. For destructors and cleanup paths.
void log_cuda_error(cudaError_t code, const char* call, const char* file, int line) noexcept;

inline void check_cuda(cudaError_t code, const char* call, const char* file, int line) {
  if (code != cudaSuccess)
    throw_cuda_error(code, call, file, line);
}

inline void check_cuda_noexcept(cudaError_t code, const char* call, const char* file,
                                int line) noexcept {
  if (code != cudaSuccess)
    log_cuda_error(code, call, file, line);
}

} // namespace gpuspec::kernels

#define GPUSPEC_CUDA_CHECK(expr) ::gpuspec::kernels::check_cuda((expr), #expr, __FILE__, __LINE__)

#define GPUSPEC_CUDA_CHECK_NOEXCEPT(expr)                                                          \
  ::gpuspec::kernels::check_cuda_noexcept((expr), #expr, __FILE__, __LINE__)

/// After each kernel launch: a bad configuration or a missing kernel image shows up here; a
/// fault inside the kernel shows up at the next synchronising call.
#define GPUSPEC_CUDA_CHECK_LAUNCH()                                                                \
  ::gpuspec::kernels::check_cuda(cudaGetLastError(), "kernel launch (cudaGetLastError)", __FILE__, \
                                 __LINE__)
