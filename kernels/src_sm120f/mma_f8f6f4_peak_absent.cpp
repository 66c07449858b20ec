// The kind::f8f6f4 mma.sync kernels of a build without the sm_120f target (its architecture list
// has no 120): mma_f8f6f4_built() says so, and there is no kernel to launch (launch_mma_sync_peak
// then throws std::logic_error for those variants). Compiled instead of mma_f8f6f4_peak.cu, never
// beside it (kernels/CMakeLists.txt). Plain C++: the kernel type is a function pointer.

#include <cstdint>

#include "gpuspec/kernels/mma_peak.hpp"

namespace gpuspec::kernels {

using mma_kernel = void (*)(const std::uint32_t*, const std::uint32_t*, const std::uint32_t*,
                            std::uint32_t*, std::uint32_t*, std::uint32_t*, std::uint32_t,
                            std::uint32_t);

bool mma_f8f6f4_built() { return false; }

mma_kernel mma_f8f6f4_kernel(mma_variant) { return nullptr; }

} // namespace gpuspec::kernels
