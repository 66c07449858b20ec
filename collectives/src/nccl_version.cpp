// Built with NCCL's header: asks the NCCL opened at run time (nccl_library.hpp).

#include <string>

#include "gpuspec/collectives/nccl_library.hpp"
#include "gpuspec/collectives/nccl_version.hpp"

namespace gpuspec::collectives {

std::string nccl_version() {
  const auto& nccl = process_nccl();
  if (!nccl.library)
    return nccl.problem;
  int code = 0;
  if (const ncclResult_t result = nccl.library->api().get_version(&code); result != ncclSuccess)
    return "ncclGetVersion failed: " + nccl.library->error_text(result);
  return decode_nccl_version(code);
}

std::string nccl_header_version() { return decode_nccl_version(NCCL_VERSION_CODE); }

std::string nccl_unusable_reason() {
  const auto& nccl = process_nccl();
  return nccl.library ? std::string() : "NCCL: " + nccl.problem;
}

} // namespace gpuspec::collectives
