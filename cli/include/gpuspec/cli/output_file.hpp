#pragma once
/// An output file that is also an input: `check r.json -o r.json` or `run -o R --html R` wrote
/// the verdict or the page over the report it came from. Found before anything is written.

#include <string>
#include <vector>

namespace gpuspec::cli {

/// The first of `inputs` that writing `output` would overwrite: the same path (both made
/// absolute and normal), or, when both exist, the same file (device and inode: a hard link, a
/// symbolic link, another spelling); "" when none is. Empty names are left out.
[[nodiscard]] std::string output_clash(const std::string& output,
                                       const std::vector<std::string>& inputs);

} // namespace gpuspec::cli
