// The wgmma peak launchers of a build without the sm_90a kernels (its architecture list has no
// 90): wgmma_peak_built() says so, and the launchers throw. Compiled instead of wgmma_peak.cu,
// never beside it (kernels/CMakeLists.txt), so the two define the same functions. Plain C++: no
// CUDA is needed to say that nothing was built. The tensor.mma benchmarks then measure Hopper
// with mma.sync and record that path.

#include <stdexcept>
#include <string>

#include "gpuspec/kernels/wgmma_peak.hpp"

namespace gpuspec::kernels {

namespace {

[[noreturn]] void not_built(const char* what) {
  throw std::logic_error(std::string(what).append(
      ": the sm_90a wgmma kernels were not built (the build's CUDA architecture list has no 90)"));
}

} // namespace

bool wgmma_peak_built() { return false; }

wgmma_peak_launch prepare_wgmma_peak(tc_dtype) { not_built("prepare_wgmma_peak"); }

void launch_wgmma_peak(const wgmma_peak_launch&, const std::uint8_t*, const std::uint8_t*,
                       const std::uint8_t*, std::uint32_t*, std::uint32_t*, std::uint32_t*,
                       unsigned, std::uint32_t, stream_handle) {
  not_built("launch_wgmma_peak");
}

} // namespace gpuspec::kernels
