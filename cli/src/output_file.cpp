// An output that is an input (output_file.hpp).

#include "gpuspec/cli/output_file.hpp"

#include <sys/stat.h>

#include <filesystem>
#include <system_error>

namespace gpuspec::cli {

namespace {

std::filesystem::path normal(const std::string& p) {
  std::error_code ec;
  auto absolute = std::filesystem::absolute(p, ec);
  if (ec)
    absolute = p;
  // weakly_canonical resolves the links of what exists and keeps the rest as written.
  auto canonical = std::filesystem::weakly_canonical(absolute, ec);
  return ec ? absolute.lexically_normal() : canonical;
}

} // namespace

std::string output_clash(const std::string& output, const std::vector<std::string>& inputs) {
  if (output.empty())
    return "";
  struct stat out {};
  const bool out_exists = ::stat(output.c_str(), &out) == 0;
  const auto out_path = normal(output);
  for (const auto& input : inputs) {
    if (input.empty())
      continue;
    struct stat in {};
    if (out_exists && ::stat(input.c_str(), &in) == 0 && in.st_dev == out.st_dev &&
        in.st_ino == out.st_ino && S_ISREG(out.st_mode))
      return input;
    if (normal(input) == out_path)
      return input;
  }
  return "";
}

} // namespace gpuspec::cli
