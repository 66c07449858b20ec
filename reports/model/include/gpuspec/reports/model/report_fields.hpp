#pragma once
/// The keys of every object of a report, listed once, in the order the writer writes them, each
/// with the minor version that added it. The reader takes its keys from this list, and a test
/// (ReportFields.*) holds the writer and the JSON Schema to it: a field added to one of the
/// three and not the others fails there.

#include <span>
#include <string_view>

namespace gpuspec::reports::inline model {

struct report_field {
  std::string_view key;
  int since_minor = 0; ///< 0: in gpuspec.report.v1; 1: added by v1.1; 2: by v1.2
  /// Written only when it has a value, and accepted absent (never null) by the reader: a
  /// result's `burnin`, `host.topology`, a device's `activity`. The one exception to "every key
  /// is always present", so that reports without them are unchanged and v1.1 documents written
  /// before these keys existed still load.
  bool optional = false;
};

/// One object of the report and its fields. `name` is the schema's $defs name ("result",
/// "device_info", ...; "report" for the document itself).
struct report_object {
  std::string_view name;
  std::span<const report_field> fields;
};

/// Every object, the document first.
[[nodiscard]] std::span<const report_object> report_objects();
/// The fields of one object; throws std::out_of_range for a name not in report_objects().
[[nodiscard]] std::span<const report_field> report_fields_of(std::string_view object);
/// The keys an object holds in a document of minor version `minor` (0, 1 or 2), in order.
/// Static storage: the span outlives every reader.
[[nodiscard]] std::span<const std::string_view> report_keys_of(std::string_view object, int minor);

} // namespace gpuspec::reports::model
