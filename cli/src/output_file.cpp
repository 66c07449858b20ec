// An output that is an input (output_file.hpp).

#include "gpuspec/cli/output_file.hpp"

#include <sys/stat.h>

#include <filesystem>
#include <iostream>
#include <system_error>

#include <fmt/format.h>

#include "gpuspec/reports/model/report_json.hpp"

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

bool deliver_output(std::string_view command, const std::string& text, const std::string& output,
                    std::string_view verdict) {
  if (output.empty()) {
    std::cout << text << std::flush;
    return true;
  }
  try {
    reports::write_file_atomically(output, text);
  } catch (const std::exception& e) {
    fmt::print(stderr, "gpuspec {}: cannot write {}: {}\n", command, output, e.what());
    return false;
  }
  if (!verdict.empty())
    fmt::print(stderr, "gpuspec {}: {}, written to {}\n", command, verdict, output);
  return true;
}

bool output_is_safe(std::string_view command, const std::string& output,
                    const std::vector<std::string>& inputs) {
  const auto clash = output_clash(output, inputs);
  if (clash.empty())
    return true;
  fmt::print(stderr,
             "gpuspec {}: -o {} is the input {}: it would be overwritten; write it elsewhere\n",
             command, output, clash);
  return false;
}

} // namespace gpuspec::cli
