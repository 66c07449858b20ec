// Built when CMake found NCCL: asks the linked library.

#include <string>

#include <nccl.h>

#include "gpuspec/collectives/nccl_version.hpp"

namespace gpuspec::collectives {

std::string nccl_version() {
  int code = 0;
  const ncclResult_t result = ncclGetVersion(&code);
  if (result != ncclSuccess) {
    const char* text = ncclGetErrorString(result);
    return std::string("ncclGetVersion failed: ") + (text != nullptr ? text : "no description");
  }
  return decode_nccl_version(code);
}

} // namespace gpuspec::collectives
