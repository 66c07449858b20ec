#include "json_input.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <set>
#include <system_error>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace gpuspec::reports::detail {
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

/// Parser callback state that rejects a key repeated within one object (nlohmann would keep
/// the last silently), naming its path.
class duplicate_key_detector {
public:
  struct duplicate {
    std::string path;
  };

  void operator()(json::parse_event_t event, const json& parsed) {
    switch (event) {
    case json::parse_event_t::object_start:
      m_stack.push_back({false, 0, {}, {}});
      break;
    case json::parse_event_t::array_start:
      m_stack.push_back({true, 0, {}, {}});
      break;
    case json::parse_event_t::key: {
      frame& top = m_stack.back();
      top.key = parsed.get<std::string>();
      if (!top.keys.insert(top.key).second) {
        throw duplicate{path()};
      }
      break;
    }
    case json::parse_event_t::object_end:
    case json::parse_event_t::array_end:
      m_stack.pop_back();
      element_done();
      break;
    case json::parse_event_t::value:
      element_done();
      break;
    }
  }

private:
  struct frame {
    bool is_array;
    std::size_t index;
    std::string key;
    std::set<std::string> keys;
  };

  void element_done() {
    if (!m_stack.empty() && m_stack.back().is_array) {
      ++m_stack.back().index;
    }
  }

  [[nodiscard]] std::string path() const {
    std::string p;
    for (const frame& f : m_stack) {
      p = f.is_array ? index_path(p, f.index) : member_path(p, f.key);
    }
    return p;
  }

  std::vector<frame> m_stack;
};

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
  if (::fstat(fd, &info) == 0 && S_ISDIR(info.st_mode)) {
    ::close(fd);
    return input_error{name, "", fmt::format("is a folder, not a {} file", what)};
  }
  std::string text;
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

outcome<nlohmann::ordered_json> parse_json_document(std::string_view text, std::string_view file,
                                                    std::string_view what) {
  const std::string name(file);
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    return input_error{name, "",
                       text.empty()
                           ? fmt::format("the file is empty, not a {}", what)
                           : fmt::format("the file holds only white space, not a {}", what)};
  }
  try {
    duplicate_key_detector detector;
    return json::parse(text.begin(), text.end(),
                       [&detector](int /*depth*/, json::parse_event_t event, json& parsed) {
                         detector(event, parsed);
                         return true;
                       });
  } catch (const json::parse_error& e) {
    return input_error{name, "",
                       fmt::format("not valid JSON (at byte {}): {}", e.byte, library_message(e))};
  } catch (const json::exception& e) {
    // e.g. out_of_range 406: a number too large for a double.
    return input_error{name, "", fmt::format("not valid JSON: {}", library_message(e))};
  } catch (const duplicate_key_detector::duplicate& d) {
    return input_error{name, d.path, "duplicate key; each field may appear once"};
  }
}

} // namespace gpuspec::reports::detail
