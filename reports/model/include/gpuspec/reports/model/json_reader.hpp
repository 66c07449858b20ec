#pragma once
/// The one strict JSON object reader of every JSON document gpuspec reads: the files it loads
/// (reports, the spec table, the expectation rules) and the documents its own processes pass
/// each other (the coordinator-worker wire, the MPI ranks' messages). Public so that code
/// outside reports/ reads JSON the same way; the names stay in `detail` (as the loaders have
/// always called them).
///
/// A reader is made for one JSON object with its declared keys; an unknown key is rejected
/// when it is made (with a "did you mean" when one is close), a repeated key too, so a typo is
/// reported as the typo, not as the missing field it was meant to be; a missing key when it is
/// read. Every error names the field path (`results[3].stats.median`) and is thrown as
/// detail::field_failure, the one error type of a reader, which each reader's boundary turns
/// into an input_error: `read_guarded`, `read_json_text` or `read_json_value` below.
///
/// A document built in code (an nlohmann value) is read through `read_json_value`: it is
/// written as text and parsed again, which is what makes a wire message and a file read alike.

#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gpuspec/reports/model/json_input.hpp"
#include "gpuspec/reports/model/outcome.hpp"

namespace gpuspec::reports::inline model::detail {

/// A field path built only when an error needs it: a reader names every field it reads, and
/// formatting each name up front would cost more than the reading (tests/perf).
/// A parameter type only: it views its parent's text, so it must not outlive the call it is
/// passed to.
class path_ref {
  enum class kind { whole, member, item };

public:
  path_ref(const std::string& path) : m_parent(path) {} // NOLINT(google-explicit-constructor)
  path_ref(const char* path) : m_parent(path) {}        // NOLINT(google-explicit-constructor)
  path_ref(std::string_view parent, std::string_view key)
      : m_parent(parent), m_key(key), m_kind(kind::member) {}
  path_ref(std::string_view parent, std::size_t index)
      : m_parent(parent), m_index(index), m_kind(kind::item) {}
  [[nodiscard]] std::string str() const {
    switch (m_kind) {
    case kind::member:
      return member_path(m_parent, m_key);
    case kind::item:
      return index_path(m_parent, m_index);
    case kind::whole:
      break;
    }
    return std::string(m_parent);
  }

private:
  std::string_view m_parent;
  std::string_view m_key;
  std::size_t m_index = 0;
  kind m_kind = kind::whole;
};

/// The array or object of an element already known to be one, by value: a range-for over
/// `e.get_array().value_unsafe()` would iterate a temporary that is gone.
[[nodiscard]] inline simdjson::dom::array array_of(element e) {
  return e.get_array().value_unsafe();
}
[[nodiscard]] inline simdjson::dom::object object_of(element e) {
  return e.get_object().value_unsafe();
}

/// "a string", "an object", "null", ...: what an element is, for messages.
[[nodiscard]] std::string describe(element e);

[[nodiscard]] std::string read_string(element e, const path_ref& path);
[[nodiscard]] bool read_bool(element e, const path_ref& path);
/// A finite number (an integer counts).
[[nodiscard]] double read_double(element e, const path_ref& path);
/// An integer within int64 (an integral double such as 3.0 counts, as in JSON Schema).
[[nodiscard]] std::int64_t read_int64(element e, const path_ref& path);
/// An integer that fits T.
template <class T> [[nodiscard]] T read_integer(element e, const path_ref& path) {
  if (e.type() == simdjson::dom::element_type::UINT64) {
    const std::uint64_t v = e.get_uint64().value_unsafe();
    if (!std::in_range<T>(v)) {
      fail(path.str(),
           fmt::format("expected an integer from {} to {}, got {}", std::numeric_limits<T>::min(),
                       std::numeric_limits<T>::max(), v));
    }
    return static_cast<T>(v);
  }
  const std::int64_t v = read_int64(e, path);
  if (!std::in_range<T>(v)) {
    fail(path.str(), fmt::format("expected an integer from {} to {}, got {}",
                                 std::numeric_limits<T>::min(), std::numeric_limits<T>::max(), v));
  }
  return static_cast<T>(v);
}

/// Each element of an array read by `read(element, path_ref)`.
template <class F> auto read_array(element e, const path_ref& path, F read) {
  using value_type = decltype(read(e, path));
  if (!e.is_array()) {
    fail(path.str(), fmt::format("expected an array, got {}", describe(e)));
  }
  const std::string parent = path.str();
  const simdjson::dom::array array = array_of(e);
  std::vector<value_type> values;
  values.reserve(array.size());
  std::size_t i = 0;
  for (const element item : array) {
    values.push_back(read(item, path_ref(parent, i++)));
  }
  return values;
}

/// Calls `visit(key, value, path)` for each member of an object whose keys are free (counters,
/// a result's parameters, a spec row's peaks): a key may appear once.
void for_each_member(element e, const path_ref& path, std::string_view expected,
                     const std::function<void(std::string_view, element, const path_ref&)>& visit);

/// The element as an nlohmann value (a result's axes and observations), repeated keys rejected.
[[nodiscard]] nlohmann::ordered_json to_json_value(element e, const path_ref& path);

/// The closest of `names` to `typo` by edit distance, when it is close enough to be a typo.
[[nodiscard]] std::optional<std::string_view> closest_name(std::string_view typo,
                                                           std::span<const std::string_view> names);

/// A comma-separated list of quoted names, for messages: "a", "b".
[[nodiscard]] std::string quoted_list(std::span<const std::string_view> names);

/// How a reader treats a key that is not there.
enum class presence {
  /// Every declared key must be present (a report: an absent optional is written as null).
  all_required,
  /// A key may be left out; `at` fails for a missing one, `find` and the optional getters do not
  /// (the spec table and the rule files).
  optional_keys,
};

/// The keys must outlive the reader: static arrays (report_fields.hpp's lists, a loader's own
/// constexpr arrays).
class object_reader {
public:
  static constexpr std::size_t max_keys = 64;

  object_reader(element e, std::string path, std::span<const std::string_view> keys,
                presence p = presence::all_required);

  [[nodiscard]] std::string path_of(std::string_view key) const { return member_path(m_path, key); }
  [[nodiscard]] const std::string& path() const { return m_path; }

  /// The value of a declared key; missing is an error naming it.
  [[nodiscard]] element at(std::string_view key) const;
  /// The value of a declared key, or nullopt when absent.
  [[nodiscard]] std::optional<element> find(std::string_view key) const;
  /// Present and not null.
  [[nodiscard]] bool has(std::string_view key) const;

  /// The path of `key`, built only when an error needs it.
  [[nodiscard]] path_ref field(std::string_view key) const { return {m_path, key}; }

  [[nodiscard]] std::string string(std::string_view key) const {
    return read_string(at(key), field(key));
  }
  [[nodiscard]] bool boolean(std::string_view key) const { return read_bool(at(key), field(key)); }
  [[nodiscard]] double number(std::string_view key) const {
    return read_double(at(key), field(key));
  }
  /// null (or, for optional keys, absent) is nullopt.
  [[nodiscard]] std::optional<double> nullable_number(std::string_view key) const;
  template <class T> [[nodiscard]] T integer(std::string_view key) const {
    return read_integer<T>(at(key), field(key));
  }
  template <class T> [[nodiscard]] std::optional<T> nullable_integer(std::string_view key) const {
    const auto e = nullable(key);
    return e ? std::optional<T>(read_integer<T>(*e, field(key))) : std::nullopt;
  }
  [[nodiscard]] std::optional<bool> nullable_boolean(std::string_view key) const;
  /// A count: an integer, 0 or more.
  [[nodiscard]] std::int64_t count(std::string_view key) const;
  [[nodiscard]] std::vector<std::string> strings(std::string_view key) const {
    return read_array(at(key), field(key), read_string);
  }
  [[nodiscard]] std::vector<double> numbers(std::string_view key) const {
    return read_array(at(key), field(key), read_double);
  }

private:
  [[nodiscard]] std::size_t index_of(std::string_view key) const;
  [[nodiscard]] std::optional<element> nullable(std::string_view key) const;

  std::string m_path;
  std::span<const std::string_view> m_keys;
  presence m_presence;
  std::array<element, max_keys> m_values{}; ///< by declared key
  std::uint64_t m_found = 0;                ///< bit i: m_keys[i] is present
  mutable std::size_t m_cursor = 0;         ///< readers ask in declared order: start there
};

/// A name table of an enum: (value, name) pairs.
template <class E, std::size_t N> using name_table = std::array<std::pair<E, std::string_view>, N>;

/// One of a table's names.
template <class E, std::size_t N>
E read_enum(element e, const path_ref& path, const name_table<E, N>& table) {
  std::array<std::string_view, N> names{};
  for (std::size_t i = 0; i < N; ++i) {
    names[i] = table[i].second;
  }
  if (!e.is_string()) {
    fail(path.str(), fmt::format("expected one of {}, got {}", quoted_list(names), describe(e)));
  }
  const std::string_view text = e.get_string().value_unsafe();
  for (const auto& [value, name] : table) {
    if (name == text) {
      return value;
    }
  }
  fail(path.str(), fmt::format("expected one of {}, got {}", quoted_list(names), quote(text)));
}

/// A string from a fixed set.
[[nodiscard]] std::string read_one_of(element e, const path_ref& path,
                                      std::span<const std::string_view> allowed);

/// `field` (a path relative to a nested document) under `parent`: "device" and "devices[0]"
/// give "device.devices[0]"; either may be "".
[[nodiscard]] inline std::string nested_path(std::string_view parent, std::string_view field) {
  if (parent.empty() || field.empty()) {
    return std::string(parent.empty() ? field : parent);
  }
  return fmt::format("{}{}{}", parent, field.front() == '[' ? "" : ".", field);
}

/// The value of a document nested at `path` and read by its own public reader (a report inside
/// a worker's assignment, a result inside a journal line: `report_from_json(to_json_value(e,
/// path), file)`), or that reader's error thrown as a field_failure under `path`.
template <class T> T read_nested(outcome<T> read, std::string_view path) {
  if (!read) {
    fail(nested_path(path, read.error().field), read.error().message);
  }
  return std::move(read).value();
}

/// The boundary of a reader: `read()`'s value, or the first field_failure it threw as an
/// input_error naming `file` and the failure's field. A simdjson error (not expected: types are
/// checked before every get) is an input_error naming `field`, as bad input must never throw.
template <class F>
auto read_guarded(std::string_view file, std::string_view field, F read)
    -> outcome<std::invoke_result_t<F&>> {
  using value_type = std::invoke_result_t<F&>;
  try {
    return outcome<value_type>(read());
  } catch (const field_failure& failure) {
    return outcome<value_type>(input_error{std::string(file), failure.field, failure.message});
  } catch (const simdjson::simdjson_error& e) {
    return outcome<value_type>(input_error{std::string(file), std::string(field), e.what()});
  }
}

/// `text` parsed as one JSON document (`what`: "report", "plan", ...) and its root read by
/// `read(element)`; every error is an input_error naming `file` (a file's name, or what a
/// message is: "worker message").
template <class F>
auto read_json_text(std::string_view text, std::string_view file, std::string_view what, F read)
    -> outcome<std::invoke_result_t<F&, element>> {
  const auto document = parse_json(text, file, what);
  if (!document) {
    return document.error();
  }
  const element root = document.value().root();
  return read_guarded(file, "", [&]() { return read(root); });
}

/// The same for a document built in code: its first NaN or infinity is an error naming its
/// path (parse_json_value), else it is read as `read_json_text` reads text.
template <class F>
auto read_json_value(const nlohmann::ordered_json& j, std::string_view file, std::string_view what,
                     F read) -> outcome<std::invoke_result_t<F&, element>> {
  const auto document = parse_json_value(j, file, what);
  if (!document) {
    return document.error();
  }
  const element root = document.value().root();
  return read_guarded(file, "", [&]() { return read(root); });
}

} // namespace gpuspec::reports::model::detail
