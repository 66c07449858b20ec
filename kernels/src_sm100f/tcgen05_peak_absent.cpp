// The tcgen05 peak launchers of a build without the sm_100f kernels (its architecture list has no
// 100 or 103): tcgen05_peak_built() says so, and the launchers throw. Compiled instead of
// tcgen05_peak.cu, never beside it (kernels/CMakeLists.txt), so the two define the same
// functions. Plain C++. The tensor.mma benchmarks then measure 10.x with mma.sync where that is
// honest, and say why not where it is not (plan_tc_peak).

#include <stdexcept>
#include <string>

#include "gpuspec/kernels/tcgen05_peak.hpp"

namespace gpuspec::kernels {

namespace {

[[noreturn]] void not_built(const char* what) {
  throw std::logic_error(std::string(what).append(
      ": the sm_100f tcgen05 kernels were not built (the build's CUDA architecture list has no "
      "100 or 103)"));
}

} // namespace

bool tcgen05_peak_built() { return false; }

tcgen05_peak_launch prepare_tcgen05_peak(tc_dtype) { not_built("prepare_tcgen05_peak"); }

void launch_tcgen05_peak(const tcgen05_peak_launch&, const std::uint8_t*, const std::uint8_t*,
                         const std::uint8_t*, std::uint32_t*, std::uint32_t*, std::uint32_t*,
                         unsigned, std::uint32_t, stream_handle) {
  not_built("launch_tcgen05_peak");
}

} // namespace gpuspec::kernels
