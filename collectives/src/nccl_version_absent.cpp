// Built when CMake did not find NCCL's header.

#include <string>

#include "gpuspec/collectives/nccl_version.hpp"

namespace gpuspec::collectives {

std::string nccl_version() { return "not built with NCCL"; }

std::string nccl_header_version() { return "not built with NCCL"; }

std::string nccl_unusable_reason() { return "gpuspec was built without NCCL"; }

} // namespace gpuspec::collectives
