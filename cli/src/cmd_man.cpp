#include "gpuspec/cli/cmd_man.hpp"

#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "gpuspec/cli/build_stamp.hpp"
#include "gpuspec/cli/cli_model.hpp"
#include "gpuspec/cli/man_page.hpp"

namespace gpuspec::cli {

namespace {

/// The pages' date: SOURCE_DATE_EPOCH's (reproducible builds: dpkg-buildpackage sets it), else
/// none, so that two builds of one tree write the same pages.
std::string page_date() {
  const char* epoch = std::getenv("SOURCE_DATE_EPOCH");
  if (epoch == nullptr || *epoch == '\0')
    return "";
  char* end = nullptr;
  const std::time_t t = std::strtoll(epoch, &end, 10);
  std::tm utc{};
  char out[16] = {};
  if (*end != '\0' || gmtime_r(&t, &utc) == nullptr ||
      std::strftime(out, sizeof out, "%Y-%m-%d", &utc) == 0)
    return "";
  return out;
}

} // namespace

void setup_man(CLI::App& app, man_options& o) {
  auto* cmd = app.add_subcommand("__man", "Write the man pages into a folder (the build does)");
  cmd->group(""); // hidden: the build's, not an operator's
  cmd->add_option("DIR", o.folder, "The folder (made if missing)")->required();
  o.app = &app;
}

exit_code run_man(const man_options& o) {
  const auto pages = man_pages(describe_command_line(*o.app),
                               {std::string(this_build_stamp().version), page_date()});
  std::error_code ec;
  std::filesystem::create_directories(o.folder, ec);
  for (const auto& page : pages) {
    const auto path = std::filesystem::path(o.folder) / page.file_name;
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << page.text;
    if (!out.flush()) {
      fmt::print(stderr, "gpuspec __man: {}: cannot be written\n", path.string());
      return exit_code::unknown;
    }
  }
  return exit_code::pass;
}

} // namespace gpuspec::cli
