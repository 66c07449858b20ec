// Built when CMake did not find NCCL.

#include <string>

#include "gpuspec/collectives/nccl_version.hpp"

namespace gpuspec::collectives {

std::string nccl_version() { return "not built with NCCL"; }

} // namespace gpuspec::collectives
