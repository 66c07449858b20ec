#pragma once
/// Shell completion scripts generated from the command line's definition (cli_model.hpp):
/// subcommands at every level, their options, option values the definition knows (choices,
/// files, folders, benchmark ids), positional files. `gpuspec completion bash|zsh` prints them;
/// the build writes them into <build>/completion (cli/docs.cmake).

#include <string>
#include <vector>

#include "cli_model.hpp"

namespace gpuspec::cli {

/// What the scripts offer beyond the definition itself.
struct completion_words {
  std::vector<std::string> benchmarks; ///< benchmark_words(backend_list()): empty in host-only
};

/// A bash script defining _gpuspec and `complete -F _gpuspec gpuspec`; uses bash-completion's
/// _filedir where that is loaded, plain compgen where not.
[[nodiscard]] std::string bash_completion_script(const command_spec& root,
                                                 const completion_words& words);
/// A zsh `#compdef gpuspec` file (_arguments, _describe): autoloaded from $fpath, or sourced
/// after compinit.
[[nodiscard]] std::string zsh_completion_script(const command_spec& root,
                                                const completion_words& words);

} // namespace gpuspec::cli
