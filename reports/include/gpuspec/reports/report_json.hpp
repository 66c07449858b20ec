#pragma once
/// JSON mapping of the report model, loading with field-level errors, and atomic writing.

#include <filesystem>
#include <string_view>

#include <nlohmann/json.hpp>

#include "gpuspec/reports/outcome.hpp"
#include "gpuspec/reports/report.hpp"

namespace gpuspec::reports {

/// Stable key order, as the schema lists them.
[[nodiscard]] nlohmann::ordered_json to_json(const report& r);

/// Parses a document already read; `file` is only used to name the source in errors.
/// Rejects a wrong or missing "schema", missing required fields and mistyped fields, naming
/// the field path.
[[nodiscard]] outcome<report> report_from_json(const nlohmann::ordered_json& j,
                                               std::string_view file);

/// Reads and parses a report file: missing, empty, truncated and non-JSON files are errors
/// naming the file (and the byte offset for a parse error).
[[nodiscard]] outcome<report> load_report(const std::filesystem::path& file);

/// Writes `text` to `file` atomically: a temporary file in the same folder, flushed and
/// fsync'ed, then renamed over the target. Throws std::system_error on failure, leaving any
/// existing file untouched.
void write_file_atomically(const std::filesystem::path& file, std::string_view text);

/// to_json(r) pretty-printed (2-space indent) and written atomically.
void save_report(const std::filesystem::path& file, const report& r);

/// Enum names as written in reports ("ok", "not_supported", "passed", "pass", ...).
[[nodiscard]] std::string_view to_string(result_status s);
[[nodiscard]] std::string_view to_string(verification_status s);
[[nodiscard]] std::string_view to_string(check_status s);

} // namespace gpuspec::reports
