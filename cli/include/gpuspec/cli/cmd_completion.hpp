#pragma once
/// `gpuspec completion bash|zsh`: the shell completion script, generated from the command line's
/// definition (completion_script.hpp); docs/cli.md says where to put it.

#include <string>

#include <CLI/CLI.hpp> // the whole header: CLI11 2.1 defines its vtables inline there

#include "exit_code.hpp"

namespace gpuspec::cli {

struct completion_options {
  std::string shell;             ///< bash | zsh
  const CLI::App* app = nullptr; ///< the whole command line, described when the command runs
};

void setup_completion(CLI::App& app, completion_options& options);
/// Prints the script on stdout; 0.
[[nodiscard]] exit_code run_completion(const completion_options& options);

} // namespace gpuspec::cli
