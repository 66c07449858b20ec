// gpuspec: one executable, one file per subcommand; this file only wires them and owns the one
// try/catch that turns errors into exit codes (CONTRIBUTING.md, style 11).

#include <cstdio>
#include <exception>
#include <filesystem>
#include <new>
#include <string>
#include <system_error>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "gpuspec/cli/build_info.hpp"
#include "gpuspec/cli/cmd_check.hpp"
#include "gpuspec/cli/cmd_compare.hpp"
#include "gpuspec/cli/cmd_completion.hpp"
#include "gpuspec/cli/cmd_db.hpp"
#include "gpuspec/cli/cmd_diff.hpp"
#include "gpuspec/cli/cmd_health.hpp"
#include "gpuspec/cli/cmd_import.hpp"
#include "gpuspec/cli/cmd_info.hpp"
#include "gpuspec/cli/cmd_list.hpp"
#include "gpuspec/cli/cmd_man.hpp"
#include "gpuspec/cli/cmd_run.hpp"
#include "gpuspec/cli/cmd_specs.hpp"
#include "gpuspec/cli/cmd_worker.hpp"
#include "gpuspec/cli/command_examples.hpp"
#include "gpuspec/cli/device_dispatch.hpp"
#include "gpuspec/cli/exit_code.hpp"

namespace {

/// What was too large, for an out-of-memory exit: the largest file the command line names (its
/// size), else the command line's longest argument.
std::string too_large(int argc, char** argv) {
  std::string largest;
  std::uintmax_t largest_size = 0;
  std::string longest;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    std::error_code ec;
    const auto size = std::filesystem::is_regular_file(arg, ec)
                          ? std::filesystem::file_size(arg, ec)
                          : std::uintmax_t{0};
    if (!ec && size > largest_size) {
      largest_size = size;
      largest = arg;
    }
    if (arg.size() > longest.size())
      longest = arg;
  }
  if (!largest.empty())
    return fmt::format("the largest input, {} ({:.1f} MiB), is too large for the memory this "
                       "process may use",
                       largest, static_cast<double>(largest_size) / (1 << 20));
  return fmt::format("an argument of {} characters is too large to work on", longest.size());
}

} // namespace

int main(int argc, char** argv) {
  using gpuspec::cli::exit_code;
  using gpuspec::cli::to_int;
  // A host-only gpuspec with the gpuspec-cuda13 package installed beside it: that build runs the
  // device commands (the packages' split, docs/design.md "Shipping").
  if (const auto handed_over = gpuspec::cli::dispatch_to_device_build(argc, argv))
    return *handed_over;
  if (const auto mismatch = gpuspec::cli::handed_over_version_mismatch())
    return *mismatch;

  CLI::App app{
      "gpuspec: measure what a GPU server really delivers, and say why when it falls short"};
  // Called only when --version is given: it opens NVML and asks the runtime (build_info.hpp).
  app.set_version_flag(
      "--version", [] { return gpuspec::cli::version_text("gpuspec"); },
      "Print the version, commit, build date and the CUDA, cuBLAS, NCCL and NVML "
      "versions built against and found, and exit");
  app.require_subcommand(1);

  gpuspec::cli::info_options info;
  gpuspec::cli::list_options list;
  gpuspec::cli::run_cli_options run;
  run.command_line.assign(argv, argv + argc);
  gpuspec::cli::setup_info(app, info);
  gpuspec::cli::setup_list(app, list);
  gpuspec::cli::setup_run(app, run);
  gpuspec::cli::check_cli_options check;
  gpuspec::cli::setup_check(app, check);
  gpuspec::cli::import_cli_options import_options;
  gpuspec::cli::setup_import(app, import_options);
  gpuspec::cli::specs_options specs;
  gpuspec::cli::setup_specs(app, specs);
  gpuspec::cli::diff_cli_options diff;
  gpuspec::cli::compare_cli_options compare;
  gpuspec::cli::setup_diff(app, diff);
  gpuspec::cli::setup_compare(app, compare);
  gpuspec::cli::health_options health;
  gpuspec::cli::setup_health(app, health);
  gpuspec::cli::db_cli_options db;
  gpuspec::cli::setup_db(app, db);
  gpuspec::cli::completion_options completion;
  gpuspec::cli::setup_completion(app, completion);
  gpuspec::cli::worker_cli_options worker;
  gpuspec::cli::setup_worker(app, worker);
  gpuspec::cli::man_options man;
  gpuspec::cli::setup_man(app, man);
  gpuspec::cli::add_example_footers(app);
  app.footer(gpuspec::cli::help_footer(""));

  try {
    app.parse(argc, argv);
    if (app.got_subcommand("info"))
      return to_int(gpuspec::cli::run_info(info));
    if (app.got_subcommand("list"))
      return to_int(gpuspec::cli::run_list(list));
    if (app.got_subcommand("run"))
      return to_int(gpuspec::cli::run_run(run));
    if (app.got_subcommand("check"))
      return to_int(gpuspec::cli::run_check(check));
    if (app.got_subcommand("import"))
      return to_int(gpuspec::cli::run_import(import_options));
    if (app.got_subcommand("specs"))
      return to_int(gpuspec::cli::run_specs(specs));
    if (app.got_subcommand("diff"))
      return to_int(gpuspec::cli::run_diff(diff));
    if (app.got_subcommand("compare"))
      return to_int(gpuspec::cli::run_compare(compare));
    if (app.got_subcommand("health"))
      return to_int(gpuspec::cli::run_health(health));
    if (app.got_subcommand("db"))
      return to_int(gpuspec::cli::run_db(db));
    if (app.got_subcommand("completion"))
      return to_int(gpuspec::cli::run_completion(completion));
    if (app.got_subcommand("__man"))
      return to_int(gpuspec::cli::run_man(man));
    if (app.got_subcommand("__worker"))
      return gpuspec::cli::run_worker(worker);
    return to_int(exit_code::unknown);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::Error& e) {
    (void)app.exit(e); // prints the usage error
    return to_int(exit_code::unknown);
  } catch (const std::bad_alloc&) {
    // Out of memory: said in a few words (the message itself must not need much memory).
    try {
      fmt::print(stderr, "gpuspec: out of memory: {}\n", too_large(argc, argv));
    } catch (...) {
      std::fputs("gpuspec: out of memory\n", stderr);
    }
    return to_int(exit_code::unknown);
  } catch (const std::exception& e) {
    fmt::print(stderr, "gpuspec: error: {}\n", e.what());
    return to_int(exit_code::unknown);
  }
}
