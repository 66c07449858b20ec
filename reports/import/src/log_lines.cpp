// Numbered lines of a foreign log (log_lines.hpp).
#include "gpuspec/reports/import/log_lines.hpp"

namespace gpuspec::reports::inline import {
namespace {

/// "[1,0]<stdout>:" or "[1,12]<stderr>:": OpenMPI's --tag-output prefix, else 0.
std::size_t mpi_prefix_length(std::string_view line) {
  if (!line.starts_with('['))
    return 0;
  const auto close = line.find("]<std");
  if (close == std::string_view::npos || close > 16)
    return 0;
  const auto colon = line.find(">:", close);
  return colon == std::string_view::npos || colon > close + 8 ? 0 : colon + 2;
}

} // namespace

std::vector<log_line> split_log_lines(std::string_view text) {
  std::vector<log_line> lines;
  std::size_t number = 0;
  while (!text.empty()) {
    const auto end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    if (line.ends_with('\r'))
      line.remove_suffix(1);
    line.remove_prefix(mpi_prefix_length(line));
    lines.push_back({++number, line});
  }
  return lines;
}

std::string_view trim_blanks(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos)
    return {};
  const auto last = text.find_last_not_of(" \t");
  return text.substr(first, last - first + 1);
}

std::vector<std::string_view> blank_fields(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < text.size()) {
    const auto start = text.find_first_not_of(" \t", i);
    if (start == std::string_view::npos)
      break;
    const auto end = text.find_first_of(" \t", start);
    out.push_back(text.substr(start, end == std::string_view::npos ? end : end - start));
    i = end == std::string_view::npos ? text.size() : end;
  }
  return out;
}

} // namespace gpuspec::reports::import
