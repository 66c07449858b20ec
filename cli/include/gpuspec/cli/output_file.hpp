#pragma once
/// An output file that is also an input: `check r.json -o r.json` or `run -o R --html R` wrote
/// the verdict or the page over the report it came from. Found before anything is written.

#include <string>
#include <string_view>
#include <vector>

namespace gpuspec::cli {

/// The first of `inputs` that writing `output` would overwrite: the same path (both made
/// absolute and normal), or, when both exist, the same file (device and inode: a hard link, a
/// symbolic link, another spelling); "" when none is. Empty names are left out.
[[nodiscard]] std::string output_clash(const std::string& output,
                                       const std::vector<std::string>& inputs);

/// The one delivery of a command's document (check, diff, compare, health): on stdout when
/// `output` is "", else written atomically to `output` and, where `verdict` is not "", the
/// verdict said on stderr ("gpuspec diff: fail (exit code 2), written to d.md"). False, with the
/// error said on stderr, when the file cannot be written.
[[nodiscard]] bool deliver_output(std::string_view command, const std::string& text,
                                  const std::string& output, std::string_view verdict);
/// Refuses an `output` that is one of `inputs` (output_clash), saying so on stderr as `command`:
/// true when the command may go on.
[[nodiscard]] bool output_is_safe(std::string_view command, const std::string& output,
                                  const std::vector<std::string>& inputs);

} // namespace gpuspec::cli
