#pragma once
/// Man pages in roff (man(7)) generated from the command line's definition (cli_model.hpp):
/// gpuspec.1 and one gpuspec-<command>.1 per public subcommand (a command with subcommands of
/// its own, db, gets one page with a section each). Written at build time by the hidden
/// `gpuspec __man DIR` (cli/docs.cmake).
///
/// Our own generator rather than help2man: help2man reads the text CLI11's formatter prints and
/// guesses its structure (CLI11 writes "-h,--help" with no space, "OPTIONS:" headings, wrapped
/// descriptions), needs one wrapper script per subcommand, and cannot give db's subcommands
/// sections of their own; the definition itself has every option's names, value name, choices,
/// default and whether it is required, and no build dependency comes with it.

#include <string>
#include <vector>

#include "cli_model.hpp"

namespace gpuspec::cli {

struct man_page {
  std::string file_name; ///< "gpuspec.1", "gpuspec-check.1"
  std::string text;      ///< roff
};

struct man_context {
  std::string version; ///< "0.1.0"
  std::string date;    ///< "2026-12-02", or "" (SOURCE_DATE_EPOCH decides: reproducible builds)
};

/// Every page: gpuspec.1 first, then the subcommands' in definition order.
[[nodiscard]] std::vector<man_page> man_pages(const command_spec& root, const man_context& ctx);

} // namespace gpuspec::cli
