#pragma once
/// Internal to the loaders of user-written JSON files (reports, spec tables, expectation
/// rules): reading the file, parsing it with repeated keys rejected, and the field paths and
/// library messages their errors share. Bad input never throws.

#include <cstddef>
#include <exception>
#include <filesystem>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "gpuspec/reports/outcome.hpp"

namespace gpuspec::reports::detail {

/// The first problem found while reading a document; thrown by `fail` deep in a loader and
/// converted to an input_error at its boundary.
struct field_failure {
  std::string field;
  std::string message;
};

[[noreturn]] void fail(std::string field, std::string message);

/// JSON-quoted and escaped, for messages: "ok", "a\"b". Bad UTF-8 becomes U+FFFD.
[[nodiscard]] std::string quote(std::string_view s);

/// parent.key, or parent["odd.key"] for a key that is not an identifier.
[[nodiscard]] std::string member_path(std::string_view parent, std::string_view key);

/// parent[index].
[[nodiscard]] std::string index_path(std::string_view parent, std::size_t index);

/// nlohmann's what() without its "[json.exception.parse_error.101] " prefix.
[[nodiscard]] std::string library_message(const std::exception& e);

/// The bytes of `file`, or an error naming it: it cannot be opened or read, or it is a folder
/// ("is a folder, not a <what> file"; `what` is "report", "spec table", ...).
[[nodiscard]] outcome<std::string> read_input_file(const std::filesystem::path& file,
                                                   std::string_view what);

/// `text` parsed as one JSON document, or an error naming `file`: empty or only white space
/// ("..., not a <what>"), not valid JSON (with the byte offset), or a key repeated within one
/// object (nlohmann would keep the last silently; the error names its path).
[[nodiscard]] outcome<nlohmann::ordered_json>
parse_json_document(std::string_view text, std::string_view file, std::string_view what);

} // namespace gpuspec::reports::detail
