#pragma once
/// The command line as data: what `gpuspec completion` and the man pages are generated from,
/// read off the one CLI11 definition (the setup_<name> functions) so that neither can drift
/// from what the parser accepts. Hidden options and subcommands (group "", e.g. __worker) are
/// left out: an operator never types them.

#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp> // the whole header: CLI11 2.1 defines its vtables inline there

#include "gpuspec/host/benchmark_listing.hpp"

namespace gpuspec::cli {

/// Value names (CLI11's type_name) that tell completion what an option's value is; --help and
/// the man pages show them too ("--specs FILE").
namespace value_name {
inline constexpr const char* file = "FILE";       ///< a file (a report, a spec table, an output)
inline constexpr const char* folder = "DIR";      ///< a folder
inline constexpr const char* benchmark = "BENCH"; ///< a benchmark id or a dotted prefix of one
} // namespace value_name

enum class value_kind {
  none,      ///< free text or a number: nothing to offer
  choice,    ///< one of `choices` (CLI::IsMember / CheckedTransformer)
  file,      ///< value_name::file
  folder,    ///< value_name::folder
  benchmark, ///< value_name::benchmark: the registry's ids and their dotted prefixes
};

/// One option, flag or positional argument.
struct argument_spec {
  std::vector<std::string> names; ///< "-o", "--output"; a positional's one name ("REPORT")
  bool positional = false;
  bool takes_value = false; ///< false for a flag
  std::string value_name;   ///< "FILE", "TEXT", "FLOAT" (CLI11's, before any ':')
  value_kind kind = value_kind::none;
  std::vector<std::string> choices;
  std::string default_value; ///< "" when none is shown
  std::string description;
  bool required = false;
  bool many = false; ///< takes several values (REPORT...)
};

struct command_spec {
  std::vector<std::string> path; ///< {"gpuspec", "db", "ingest"}
  std::string description;
  std::vector<argument_spec> options;     ///< in definition order, option groups' included
  std::vector<argument_spec> positionals; ///< in order
  std::vector<command_spec> subcommands;
  bool needs_subcommand = false;

  [[nodiscard]] const std::string& name() const { return path.back(); }
  /// "gpuspec db ingest"
  [[nodiscard]] std::string display_path() const;
};

/// The public command tree under `app` (its root is `app` itself).
[[nodiscard]] command_spec describe_command_line(const CLI::App& app);

/// What a benchmark value completes to: every id and every dotted prefix of one ("memory.",
/// "memory.stream.", "memory.stream.triad"), sorted, once each.
[[nodiscard]] std::vector<std::string>
benchmark_words(const std::vector<host::benchmark_listing>& listings);

/// "{table,md,json}" (IsMember) or "{a->1,b->2}" (CheckedTransformer) -> the accepted words;
/// empty for a description that is no set. Exposed for its test.
[[nodiscard]] std::vector<std::string> choices_of(std::string_view type_name);

} // namespace gpuspec::cli
