#pragma once
/// This build's version, git commit and build date. Defined in a file that the
/// gpuspec_build_stamp target generates at every build (cmake/GpuspecBuildStamp.cmake), in a
/// library of its own, so that a new commit recompiles that one file and nothing else.

#include <string_view>

namespace gpuspec::cli {

struct build_stamp {
  std::string_view version;    ///< the project's version, "0.1.0"
  std::string_view commit;     ///< "400c3a1f2b3c", "400c3a1f2b3c-dirty" or "unknown"
  std::string_view build_date; ///< UTC, ISO 8601
};

[[nodiscard]] build_stamp this_build_stamp();

} // namespace gpuspec::cli
