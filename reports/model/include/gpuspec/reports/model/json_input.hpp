#pragma once
/// Beneath the one JSON reader (json_reader.hpp), for every document gpuspec reads: the files
/// it loads (reports, spec tables, expectation rules) and its processes' messages. Reading the
/// file, parsing it, and the field paths and library messages their errors share. Bad input
/// never throws out of a reader.
///
/// Parsing is simdjson's (Debian's libsimdjson-dev), several times faster than a DOM of
/// nlohmann::json, which `check` over 10,000 results and `compare` over 1,000 reports need
/// (tests/perf). Where simdjson rejects a text, nlohmann parses it again for its message,
/// which names the byte at which the text stopped being JSON.

#include <cstddef>
#include <exception>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>
#include <simdjson.h>

#include "gpuspec/reports/model/outcome.hpp"

namespace gpuspec::reports::inline model::detail {

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

using element = simdjson::dom::element;

/// A parsed document: the parser owns the values `root()` and every element below it point at.
class json_document {
public:
  json_document(std::unique_ptr<simdjson::dom::parser> parser, element root)
      : m_parser(std::move(parser)), m_root(root) {}
  [[nodiscard]] element root() const { return m_root; }

private:
  std::unique_ptr<simdjson::dom::parser> m_parser;
  element m_root;
};

/// `text` parsed as one JSON document, or an error naming `file`: empty or only white space
/// ("..., not a <what>"), not valid JSON (with the byte offset). A key repeated within an
/// object is not rejected here: the readers (json_reader.hpp) name it with its path.
[[nodiscard]] outcome<json_document> parse_json(std::string_view text, std::string_view file,
                                                std::string_view what);

/// A document built in code (the public overloads that take nlohmann values): its first NaN or
/// infinity is an error naming its path, as it could never have been read from a file; else it
/// is written as text and parsed as a file would be.
[[nodiscard]] outcome<json_document> parse_json_value(const nlohmann::ordered_json& j,
                                                      std::string_view file, std::string_view what);

} // namespace gpuspec::reports::model::detail
