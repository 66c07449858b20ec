#pragma once
/// A foreign log as numbered lines, the common input of every importer: each line's number
/// (1-based, as an editor shows it) travels with its text so that a figure names the line it
/// came from and a mangled line is reported by file and line.

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace gpuspec::reports::inline import {

struct log_line {
  std::size_t number = 0; ///< 1-based
  /// The line without a trailing '\r' and without an MPI launcher's output prefix
  /// ("[1,0]<stdout>:", OpenMPI's --tag-output), which several posted logs carry.
  std::string_view text;
};

/// Splits `text` (which must outlive the result) into lines.
[[nodiscard]] std::vector<log_line> split_log_lines(std::string_view text);

/// `text` without leading and trailing blanks (spaces, tabs).
[[nodiscard]] std::string_view trim_blanks(std::string_view text);

/// `text` split at runs of blanks.
[[nodiscard]] std::vector<std::string_view> blank_fields(std::string_view text);

/// A log that cannot be read: the line (0: the whole file) and why. The importer's caller adds
/// the file name (import_log).
class log_error : public std::runtime_error {
public:
  log_error(std::size_t line, const std::string& why) : std::runtime_error(why), m_line(line) {}
  [[nodiscard]] std::size_t line() const { return m_line; }

private:
  std::size_t m_line;
};

} // namespace gpuspec::reports::import
