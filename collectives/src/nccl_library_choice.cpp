#include "gpuspec/collectives/nccl_library_choice.hpp"

namespace gpuspec::collectives {

std::vector<std::string> nccl_library_candidates(const std::optional<std::string>& chosen,
                                                 const std::string& build_library) {
  if (chosen && !chosen->empty())
    return {*chosen};
  std::vector<std::string> out{"libnccl.so.2", "libnccl.so"};
  if (!build_library.empty() && build_library != "libnccl.so.2" && build_library != "libnccl.so")
    out.push_back(build_library);
  return out;
}

} // namespace gpuspec::collectives
