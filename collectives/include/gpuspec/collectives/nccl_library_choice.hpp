#pragma once
/// Which file gpuspec opens as NCCL (nccl_library.hpp opens it). Pure and CUDA-free, so that
/// the choice is tested in every build.

#include <optional>
#include <string>
#include <vector>

namespace gpuspec::collectives {

/// The environment variable that names the NCCL library to open (a path or a file name).
inline constexpr const char* nccl_library_variable = "GPUSPEC_NCCL_LIBRARY";

/// The files to try, in order. `chosen`, the value of $GPUSPEC_NCCL_LIBRARY, when set and not
/// empty: that one alone (who names a library wants that one, not a fallback). Otherwise
/// libnccl.so.2 (the runtime package's soname), libnccl.so (a development install), then
/// `build_library`, the file CMake found at build time when there was one: it stands in for
/// the run path a linked libnccl had, so a build tree still finds the toolkit's NCCL where it
/// is not on the loader's path.
[[nodiscard]] std::vector<std::string>
nccl_library_candidates(const std::optional<std::string>& chosen, const std::string& build_library);

} // namespace gpuspec::collectives
