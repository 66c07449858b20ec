#include "gpuspec/cli/cmd_completion.hpp"

#include <iostream>

#include "gpuspec/cli/backend.hpp"
#include "gpuspec/cli/cli_model.hpp"
#include "gpuspec/cli/completion_script.hpp"

namespace gpuspec::cli {

void setup_completion(CLI::App& app, completion_options& o) {
  auto* cmd = app.add_subcommand(
      "completion", "Print the shell completion script: gpuspec completion bash > ~/.local/share/"
                    "bash-completion/completions/gpuspec (docs/cli.md)");
  cmd->add_option("SHELL", o.shell, "The shell: bash or zsh")
      ->required()
      ->check(CLI::IsMember({"bash", "zsh"}));
  o.app = &app;
}

exit_code run_completion(const completion_options& o) {
  // Described now, not in setup: every subcommand is defined by the time one runs.
  const command_spec root = describe_command_line(*o.app);
  const completion_words words{benchmark_words(backend_list())};
  std::cout << (o.shell == "zsh" ? zsh_completion_script(root, words)
                                 : bash_completion_script(root, words));
  return std::cout.flush() ? exit_code::pass : exit_code::unknown;
}

} // namespace gpuspec::cli
