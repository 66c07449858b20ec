#pragma once
/// JSON mapping of the report model, loading with field-level errors, and atomic writing.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "gpuspec/reports/model/outcome.hpp"
#include "gpuspec/reports/model/report.hpp"

namespace gpuspec::reports::inline model {

/// Stable key order, as the schema lists them: report_fields.hpp's lists, the order of the
/// fields in report.hpp with two keys renamed (`result::ceiling_value` is "ceiling" and
/// `result::check` is "verification") and a result's axes and observations written together as
/// "parameters" (axes first), with the axes again apart as "axes" (v1.1), so that a reader of
/// version 1 still finds every parameter where it was.
///
/// Every key is always written: an absent optional is written as null, never left out, so a
/// program reading the file can index any key. A `reading` is the integer, or its status string.
///
/// What is written always loads: to_json throws std::invalid_argument (a bug in the producer,
/// naming the field path) for anything report_from_json would reject:
///  - a NaN or infinite double anywhere, including inside `parameters` (JSON has no NaN; a value
///    that is not known is a std::nullopt, set by the producer, never a NaN turned into null);
///  - a negative count (`stats.n`, `telemetry.samples`);
///  - a `reading` with both a value and a status, or with neither, or a status other than
///    "not supported" / "unavailable: <why>";
///  - `schema` not one of `readable_report_versions` (the current version is written whatever
///    `schema` holds: a report read from an older minor version is written as the current one),
///    `axes` or `observations` not a JSON object, or a key in both;
///  - `ceiling.spec_figure` other than "" and reference.hpp's figures;
///  - a result whose status is not ok with an empty `reason`; a failed result whose `failure`
///    is none, or a `failure` on a result that is not failed; `gpus_busy` under 1;
///  - `run.backend` other than "cuda", "stand-in", "none", "";
///  - `cache_state` other than "cold", "hot", ""; `stop_reason` other than "cv_target",
///    "stalled", "time_cap", "sample_cap", "".
[[nodiscard]] nlohmann::ordered_json to_json(const report& r);

/// Exactly the text save_report writes: to_json(r) with a 2-space indent and a final newline.
/// Doubles are written as the shortest text that reads back to the same bits. Strings that are
/// not valid UTF-8 are written with U+FFFD in place of the bad bytes (never an exception).
[[nodiscard]] std::string to_json_text(const report& r);

/// A result's `parameters` as a report writes them: its axes, then its observations.
[[nodiscard]] nlohmann::ordered_json parameters_of(const result& r);

/// One result as the report writes it (the journal's lines carry these); throws as to_json.
[[nodiscard]] nlohmann::ordered_json result_to_json(const result& r);
/// One result of the current version, as result_to_json wrote it; errors name `file` and
/// `field` (e.g. "line 12: result"). Never throws on bad input.
[[nodiscard]] outcome<result> result_from_json(const nlohmann::ordered_json& j,
                                               std::string_view file, std::string_view field);

/// The minor version of a readable schema string (0 for "gpuspec.report.v1", 1 for
/// "gpuspec.report.v1.1"), -1 for any other.
[[nodiscard]] int report_minor_version(std::string_view schema);

/// Parses a document already read; `file` is only used to name the source in errors.
/// Rejects a wrong or missing "schema", missing required fields and mistyped fields, naming
/// the field path. A document of an older minor version must not hold the fields a later one
/// added (they would be unknown keys there); they take their defaults, or are derived the one
/// way they can be (docs/report.md, "Versions"): `failure` from the status and the
/// verification; the axes from `parameters` by the version 1 registry's axes (every parameter,
/// for a bench id it did not have), the rest being observations; the ceiling's `spec_figure`
/// and `roofline_bytes` from what the version 1 harness recorded, and its `reference` by
/// reference.hpp's choose_reference. In version 1.1 each key of `axes` must be in `parameters`
/// with the same value. A unit is one of units.hpp's symbols.
///
/// Strict, as the schema is: every key must be present (null for an absent optional), no
/// unknown keys (reported as the unknown key, with a "did you mean" when one is close), exact
/// JSON types (an integer written as 3.0 counts as an integer, as in JSON Schema; 3.5 does
/// not), integers within the field's C++ type, counts (`stats.n`, `telemetry.samples`) not
/// negative, enum strings from their set, and the rules listed under to_json. The first
/// problem is returned; `field` is the path, with keys that are not identifiers in brackets:
/// `devices[1].counters_after["pcie.replay"]`; "" for the document as a whole. Never throws on
/// bad input.
[[nodiscard]] outcome<report> report_from_json(const nlohmann::ordered_json& j,
                                               std::string_view file);

/// Parses report text (what load_report does after reading the file): empty text, truncated
/// and non-JSON text (with the byte offset), duplicate keys (with their path) and everything
/// report_from_json rejects are errors naming `file`.
[[nodiscard]] outcome<report> parse_report(std::string_view text, std::string_view file);

/// Reads and parses a report file: missing, empty, truncated and non-JSON files are errors
/// naming the file (and the byte offset for a parse error: nlohmann's, the 1-based position at
/// which parsing failed; field ""). Never throws on bad input.
[[nodiscard]] outcome<report> load_report(const std::filesystem::path& file);

/// Writes `text` to `file` atomically: a temporary file in the same folder, flushed and
/// fsync'ed, then renamed over the target. Throws std::system_error on failure, leaving any
/// existing file untouched. The temporary is ".<name>.tmp.<pid>.<n>" (created exclusively, n
/// the first free number), removed on failure; the folder is fsync'ed after the rename. Only a
/// regular file or a new path is renamed over: anything else that exists (a character device
/// such as /dev/null, a FIFO, a link such as /dev/stdout) is written through, never replaced; a
/// folder is refused.
void write_file_atomically(const std::filesystem::path& file, std::string_view text);

/// to_json(r) pretty-printed (2-space indent) and written atomically.
void save_report(const std::filesystem::path& file, const report& r);

/// Enum names as written in reports ("ok", "not_supported", "passed", "pass", ...).
[[nodiscard]] std::string_view to_string(result_status s);
[[nodiscard]] std::string_view to_string(verification_status s);
[[nodiscard]] std::string_view to_string(check_status s);
[[nodiscard]] std::string_view to_string(failure_kind f);

/// The inverse of to_string; std::nullopt for a name that is not one of the enum's.
[[nodiscard]] std::optional<result_status> result_status_from_string(std::string_view s);
[[nodiscard]] std::optional<verification_status>
verification_status_from_string(std::string_view s);
[[nodiscard]] std::optional<check_status> check_status_from_string(std::string_view s);

} // namespace gpuspec::reports::model
