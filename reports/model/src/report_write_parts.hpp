#pragma once
// Internal to the report writer (report_writer.cpp, report_write_results.cpp): field paths, the
// in-order object writer and the checks every written number passes. Inline: the writer calls
// them for every value of a report.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "gpuspec/reports/model/reference.hpp"
#include "gpuspec/reports/model/report_json.hpp"
#include "gpuspec/reports/model/report_names.hpp"
#include "gpuspec/reports/model/units.hpp"

namespace gpuspec::reports::inline model::report_write {

using json = nlohmann::ordered_json;
using detail::name_of;
using detail::quote;

/// A field's path (`results[3].stats.median`), made into text only when an error names it:
/// the writer passes one with every value it writes, and formatting each up front cost more
/// than the writing (docs/fleet.md, "Scale"). It points at its parent, so it must not outlive
/// it: a parameter, or a local named before the children made from it.
class field_path {
  enum class kind { root, member, item };

public:
  field_path(const char* root) : m_text(root) {} // NOLINT(google-explicit-constructor)
  field_path(const field_path& parent, std::string_view key)
      : m_parent(&parent), m_text(key), m_kind(kind::member) {}
  field_path(const field_path& parent, std::size_t index)
      : m_parent(&parent), m_index(index), m_kind(kind::item) {}

  [[nodiscard]] std::string str() const {
    switch (m_kind) {
    case kind::member:
      return detail::member_path(m_parent->str(), m_text);
    case kind::item:
      return detail::index_path(m_parent->str(), m_index);
    case kind::root:
      break;
    }
    return std::string(m_text);
  }

private:
  const field_path* m_parent = nullptr;
  std::string_view m_text; ///< the root's path, or a member's key
  std::size_t m_index = 0;
  kind m_kind = kind::root;
};

/// A JSON object written one new key at a time, in order: each key is appended, where
/// ordered_json's operator[] would first compare it with every key before it. The writer's keys
/// are fixed and distinct (a counter set's are a map's), so nothing is ever looked up.
class object_writer {
public:
  explicit object_writer(std::size_t keys) { members().reserve(keys); }
  json& operator[](std::string_view key) {
    return members().emplace_back(std::string(key), nullptr).second;
  }
  [[nodiscard]] json take() { return std::move(m_object); }

private:
  json::object_t& members() { return m_object.get_ref<json::object_t&>(); }
  json m_object = json::object();
};

[[noreturn]] inline void unwritable(const field_path& path, std::string_view why) {
  throw std::invalid_argument(fmt::format("cannot write report: {}: {}", path.str(), why));
}

/// The first NaN or infinity inside `j`, named by its path.
inline void require_finite(const json& j, const field_path& path) {
  if (j.is_number_float()) {
    if (!std::isfinite(j.get<double>())) {
      unwritable(path, "NaN or infinity; a report never holds either");
    }
  } else if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      require_finite(it.value(), field_path(path, it.key()));
    }
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i) {
      require_finite(j[i], field_path(path, i));
    }
  }
}

inline json number(double v, const field_path& path) {
  if (!std::isfinite(v)) {
    unwritable(
        path,
        fmt::format("{} is not finite; a report never holds NaN or infinity (use no value)", v));
  }
  return v;
}

inline json number(const std::optional<double>& v, const field_path& path) {
  return v ? number(*v, path) : json(nullptr);
}

template <class T> inline json nullable(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

inline json numbers(const std::vector<double>& values, const field_path& path) {
  json array = json::array();
  auto& items = array.get_ref<json::array_t&>();
  items.reserve(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    items.emplace_back(number(values[i], field_path(path, i)));
  }
  return array;
}

template <std::size_t N>
inline void require_one_of(const std::string& value, const std::array<std::string_view, N>& allowed,
                           const field_path& path) {
  if (std::find(allowed.begin(), allowed.end(), value) == allowed.end()) {
    unwritable(path,
               fmt::format("{} is not one of {}", quote(value), detail::quoted_list(allowed)));
  }
}

/// One result (report_write_results.cpp).
json result_json(const result& r, const field_path& path);
/// A device's MIG device and a result's reference to one (report_mig_json.cpp; v1.2).
json mig_instance_json(const mig_instance& m);
json mig_ref_json(const mig_ref& m);
/// True when `r` holds a key v1.2 added: it is then written as v1.2, else as v1.1.
bool holds_version_1_2_keys(const report& r);

} // namespace gpuspec::reports::model::report_write
