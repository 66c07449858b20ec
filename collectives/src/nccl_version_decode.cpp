#include <string>

#include "gpuspec/collectives/nccl_version.hpp"

namespace gpuspec::collectives {

std::string decode_nccl_version(int code) {
  if (code <= 0)
    return "unknown (code " + std::to_string(code) + ")";
  int major = 0, minor = 0, patch = 0;
  if (code >= 10000) {
    major = code / 10000;
    minor = (code % 10000) / 100;
    patch = code % 100;
  } else {
    major = code / 1000;
    minor = (code % 1000) / 100;
    patch = code % 100;
  }
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

} // namespace gpuspec::collectives
