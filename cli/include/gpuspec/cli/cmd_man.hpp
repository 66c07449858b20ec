#pragma once
/// `gpuspec __man DIR`: hidden; writes the man pages (man_page.hpp) into DIR at build time
/// (cli/docs.cmake).

#include <string>

#include <CLI/CLI.hpp> // the whole header: CLI11 2.1 defines its vtables inline there

#include "exit_code.hpp"

namespace gpuspec::cli {

struct man_options {
  std::string folder;
  const CLI::App* app = nullptr; ///< the whole command line, described when the command runs
};

void setup_man(CLI::App& app, man_options& options);
/// 0, or 3 with the file named when one cannot be written.
[[nodiscard]] exit_code run_man(const man_options& options);

} // namespace gpuspec::cli
