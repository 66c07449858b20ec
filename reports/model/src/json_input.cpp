#include "gpuspec/reports/model/json_input.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <optional>
#include <system_error>
#include <utility>

#include <fmt/format.h>

namespace gpuspec::reports::inline model::detail {
namespace {

using json = nlohmann::ordered_json;

bool is_identifier(std::string_view key) {
  if (key.empty()) {
    return false;
  }
  const auto alpha = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  };
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (!alpha(key.front())) {
    return false;
  }
  return std::all_of(key.begin(), key.end(), [&](char c) { return alpha(c) || digit(c); });
}

/// The path of the first NaN or infinity inside `j`, if any.
std::optional<std::string> find_non_finite(const json& j, const std::string& path) {
  if (j.is_number_float()) {
    if (!std::isfinite(j.get<double>())) {
      return path;
    }
  } else if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (auto found = find_non_finite(it.value(), member_path(path, it.key()))) {
        return found;
      }
    }
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i) {
      if (auto found = find_non_finite(j[i], index_path(path, i))) {
        return found;
      }
    }
  }
  return std::nullopt;
}

/// Why simdjson would not take `text`: nlohmann's message where it rejects the text too (it
/// names the byte), else simdjson's own (a number out of range it will not round, a document
/// nested too deep).
input_error parse_error(std::string_view text, const std::string& file,
                        simdjson::error_code error) {
  try {
    const json unused = json::parse(text.begin(), text.end());
    (void)unused;
  } catch (const json::parse_error& e) {
    return input_error{file, "",
                       fmt::format("not valid JSON (at byte {}): {}", e.byte, library_message(e))};
  } catch (const json::exception& e) {
    // e.g. out_of_range 406: a number too large for a double.
    return input_error{file, "", fmt::format("not valid JSON: {}", library_message(e))};
  }
  return input_error{file, "",
                     fmt::format("not valid JSON for gpuspec: {}", simdjson::error_message(error))};
}

} // namespace

void fail(std::string field, std::string message) {
  throw field_failure{std::move(field), std::move(message)};
}

std::string quote(std::string_view s) {
  return json(std::string(s)).dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string member_path(std::string_view parent, std::string_view key) {
  if (!is_identifier(key)) {
    return fmt::format("{}[{}]", parent, quote(key));
  }
  return parent.empty() ? std::string(key) : fmt::format("{}.{}", parent, key);
}

std::string index_path(std::string_view parent, std::size_t index) {
  return fmt::format("{}[{}]", parent, index);
}

std::string library_message(const std::exception& e) {
  const std::string_view text = e.what();
  const auto end = text.find("] ");
  return std::string(text.starts_with("[json.exception.") && end != std::string_view::npos
                         ? text.substr(end + 2)
                         : text);
}

outcome<std::string> read_input_file(const std::filesystem::path& file, std::string_view what) {
  const std::string name = file.string();
  const auto failed = [&](std::string_view step, int error) {
    return input_error{name, "",
                       fmt::format("{}: {}", step, std::generic_category().message(error))};
  };
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return failed("cannot open", errno);
  }
  struct stat info {};
  const bool stat_ok = ::fstat(fd, &info) == 0;
  if (stat_ok && S_ISDIR(info.st_mode)) {
    ::close(fd);
    return input_error{name, "", fmt::format("is a folder, not a {} file", what)};
  }
  std::string text;
  if (stat_ok && info.st_size > 0) {
    text.reserve(static_cast<std::size_t>(info.st_size));
  }
  std::array<char, 65536> buffer{};
  for (;;) {
    const ssize_t got = ::read(fd, buffer.data(), buffer.size());
    if (got < 0 && errno == EINTR) {
      continue;
    }
    if (got < 0) {
      const int error = errno;
      ::close(fd);
      return failed("cannot read", error);
    }
    if (got == 0) {
      break;
    }
    text.append(buffer.data(), static_cast<std::size_t>(got));
  }
  ::close(fd);
  return text;
}

outcome<json_document> parse_json(std::string_view text, std::string_view file,
                                  std::string_view what) {
  const std::string name(file);
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    return input_error{name, "",
                       text.empty()
                           ? fmt::format("the file is empty, not a {}", what)
                           : fmt::format("the file holds only white space, not a {}", what)};
  }
  auto parser = std::make_unique<simdjson::dom::parser>();
  element root;
  const auto error = parser->parse(text.data(), text.size(), true).get(root);
  if (error == simdjson::MEMALLOC) {
    // Never the second parse below for a text this large: out of memory inside nlohmann's
    // parser unwinds through its tree's destructor, which allocates, and ends the process.
    return input_error{name, "",
                       fmt::format("too large to parse in the memory this process may use "
                                   "({:.1f} MiB)",
                                   static_cast<double>(text.size()) / (1 << 20))};
  }
  if (error) {
    return parse_error(text, name, error);
  }
  return json_document(std::move(parser), root);
}

outcome<json_document> parse_json_value(const nlohmann::ordered_json& j, std::string_view file,
                                        std::string_view what) {
  if (auto bad = find_non_finite(j, "")) {
    return input_error{std::string(file), *bad, "expected a finite number, got NaN or infinity"};
  }
  return parse_json(j.dump(-1, ' ', false, json::error_handler_t::replace), file, what);
}

} // namespace gpuspec::reports::model::detail
