#pragma once
/// An NVTX range for the lifetime of a scope (docs/design.md rule 11), so an Nsight Systems
/// timeline reads like the report. NVTX3 is header-only: with no tool attached, push and pop are a
/// branch on a null function pointer. Link CUDA::nvtx3 (the include folder and libdl).

#include <string>

#include <nvtx3/nvToolsExt.h>

namespace gpuspec::kernels {

class nvtx_range {
public:
  explicit nvtx_range(const std::string& name) noexcept { nvtxRangePushA(name.c_str()); }
  ~nvtx_range() { nvtxRangePop(); }
  nvtx_range(const nvtx_range&) = delete;
  nvtx_range& operator=(const nvtx_range&) = delete;
  nvtx_range(nvtx_range&&) = delete;
  nvtx_range& operator=(nvtx_range&&) = delete;
};

} // namespace gpuspec::kernels
