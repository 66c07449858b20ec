#pragma once
/// One registered benchmark case as `gpuspec list` prints it: a host type, so the CLI's
/// host-only build names it too.

#include <string>
#include <vector>

namespace gpuspec::host {

/// One registered benchmark case, for `gpuspec list`.
struct benchmark_listing {
  std::string id;
  std::string description;
  std::vector<std::string> suites;
  std::string parameters; ///< e.g. "dtype=fp32|fp64"
};

} // namespace gpuspec::host
