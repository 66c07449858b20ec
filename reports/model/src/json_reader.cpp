#include "gpuspec/reports/model/json_reader.hpp"

#include <algorithm>
#include <stdexcept>

namespace gpuspec::reports::inline model::detail {
namespace {

using simdjson::dom::element_type;

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) {
    row[j] = j;
  }
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

} // namespace

std::string describe(element e) {
  switch (e.type()) {
  case element_type::NULL_VALUE:
    return "null";
  case element_type::OBJECT:
    return "an object";
  case element_type::ARRAY:
    return "an array";
  case element_type::STRING:
    return "a string";
  case element_type::BOOL:
    return "a boolean";
  case element_type::INT64:
  case element_type::UINT64:
  case element_type::DOUBLE:
    return "a number";
  }
  return "nothing";
}

std::string read_string(element e, const path_ref& path) {
  if (!e.is_string()) {
    fail(path.str(), fmt::format("expected a string, got {}", describe(e)));
  }
  return std::string(e.get_string().value_unsafe());
}

bool read_bool(element e, const path_ref& path) {
  if (!e.is_bool()) {
    fail(path.str(), fmt::format("expected true or false, got {}", describe(e)));
  }
  return e.get_bool().value_unsafe();
}

double read_double(element e, const path_ref& path) {
  switch (e.type()) {
  case element_type::DOUBLE: {
    const double v = e.get_double().value_unsafe();
    if (!std::isfinite(v)) {
      fail(path.str(), fmt::format("expected a finite number, got {}", v));
    }
    return v;
  }
  case element_type::INT64:
    return static_cast<double>(e.get_int64().value_unsafe());
  case element_type::UINT64:
    return static_cast<double>(e.get_uint64().value_unsafe());
  default:
    fail(path.str(), fmt::format("expected a number, got {}", describe(e)));
  }
}

std::int64_t read_int64(element e, const path_ref& path) {
  constexpr auto min = std::numeric_limits<std::int64_t>::min();
  constexpr auto max = std::numeric_limits<std::int64_t>::max();
  switch (e.type()) {
  case element_type::INT64:
    return e.get_int64().value_unsafe();
  case element_type::UINT64:
    fail(path.str(), fmt::format("expected an integer from {} to {}, got {}", min, max,
                                 e.get_uint64().value_unsafe()));
  case element_type::DOUBLE: {
    const double d = e.get_double().value_unsafe();
    if (!std::isfinite(d) || std::trunc(d) != d) {
      fail(path.str(), fmt::format("expected an integer, got {}", d));
    }
    // Integral doubles beyond 2^53 are not exact; past 2^63 they do not fit any field.
    if (std::abs(d) >= 9007199254740992.0) {
      fail(path.str(), fmt::format("expected an integer from {} to {}, got {}", min, max, d));
    }
    return static_cast<std::int64_t>(d);
  }
  default:
    fail(path.str(), fmt::format("expected an integer, got {}", describe(e)));
  }
}

void for_each_member(element e, const path_ref& path, std::string_view expected,
                     const std::function<void(std::string_view, element, const path_ref&)>& visit) {
  if (!e.is_object()) {
    fail(path.str(), fmt::format("expected {}, got {}", expected, describe(e)));
  }
  const std::string parent = path.str();
  const simdjson::dom::object object = object_of(e);
  std::vector<std::string_view> seen;
  seen.reserve(object.size());
  for (const auto field : object) {
    const path_ref at(parent, field.key);
    if (std::find(seen.begin(), seen.end(), field.key) != seen.end()) {
      fail(at.str(), "duplicate key; each field may appear once");
    }
    seen.push_back(field.key);
    visit(field.key, field.value, at);
  }
}

nlohmann::ordered_json to_json_value(element e, const path_ref& path) {
  switch (e.type()) {
  case element_type::NULL_VALUE:
    return nullptr;
  case element_type::BOOL:
    return e.get_bool().value_unsafe();
  case element_type::INT64:
    return e.get_int64().value_unsafe();
  case element_type::UINT64:
    return e.get_uint64().value_unsafe();
  case element_type::DOUBLE:
    return read_double(e, path);
  case element_type::STRING:
    return std::string(e.get_string().value_unsafe());
  case element_type::ARRAY: {
    auto out = nlohmann::ordered_json::array();
    const std::string parent = path.str();
    std::size_t i = 0;
    for (const element item : array_of(e)) {
      out.push_back(to_json_value(item, path_ref(parent, i++)));
    }
    return out;
  }
  case element_type::OBJECT: {
    auto out = nlohmann::ordered_json::object();
    for_each_member(e, path, "an object",
                    [&](std::string_view key, element value, const path_ref& at) {
                      out[std::string(key)] = to_json_value(value, at);
                    });
    return out;
  }
  }
  return nullptr;
}

std::optional<std::string_view> closest_name(std::string_view typo,
                                             std::span<const std::string_view> names) {
  std::string_view closest;
  std::size_t best = std::numeric_limits<std::size_t>::max();
  for (const std::string_view known : names) {
    const std::size_t d = edit_distance(typo, known);
    if (d < best) {
      best = d;
      closest = known;
    }
  }
  if (best <= std::max<std::size_t>(2, closest.size() / 4)) {
    return closest;
  }
  return std::nullopt;
}

std::string quoted_list(std::span<const std::string_view> names) {
  std::string text;
  for (const auto& name : names) {
    if (!text.empty()) {
      text += ", ";
    }
    text += quote(name);
  }
  return text;
}

object_reader::object_reader(element e, std::string path, std::span<const std::string_view> keys,
                             presence p)
    : m_path(std::move(path)), m_keys(keys), m_presence(p) {
  if (keys.size() > max_keys) {
    throw std::logic_error(fmt::format("object_reader: {} keys at {}", keys.size(), m_path));
  }
  if (!e.is_object()) {
    fail(m_path, fmt::format("expected an object, got {}", describe(e)));
  }
  for (const auto field : object_of(e)) {
    const std::size_t i = index_of(field.key);
    if (i == m_keys.size()) {
      const auto close = closest_name(field.key, m_keys);
      fail(path_of(field.key),
           close ? fmt::format("unknown field (did you mean {}?)", quote(*close))
                 : fmt::format("unknown field; the fields here are {}", quoted_list(m_keys)));
    }
    if ((m_found & (std::uint64_t{1} << i)) != 0) {
      fail(path_of(field.key), "duplicate key; each field may appear once");
    }
    m_found |= std::uint64_t{1} << i;
    m_values[i] = field.value;
  }
}

std::size_t object_reader::index_of(std::string_view key) const {
  const std::size_t n = m_keys.size();
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = (m_cursor + k) % n;
    if (m_keys[i] == key) {
      m_cursor = i + 1 == n ? 0 : i + 1;
      return i;
    }
  }
  return n;
}

std::optional<element> object_reader::find(std::string_view key) const {
  const std::size_t i = index_of(key);
  if (i == m_keys.size()) {
    throw std::logic_error(fmt::format("object_reader: {} not declared", path_of(key)));
  }
  if ((m_found & (std::uint64_t{1} << i)) == 0) {
    return std::nullopt;
  }
  return m_values[i];
}

element object_reader::at(std::string_view key) const {
  const auto e = find(key);
  if (!e) {
    fail(path_of(key), m_presence == presence::all_required
                           ? "missing; every field of a report is written (null when not known)"
                           : "missing");
  }
  return *e;
}

bool object_reader::has(std::string_view key) const {
  const auto e = find(key);
  return e && !e->is_null();
}

std::optional<element> object_reader::nullable(std::string_view key) const {
  const auto e = m_presence == presence::all_required ? std::optional<element>(at(key)) : find(key);
  if (!e || e->is_null()) {
    return std::nullopt;
  }
  return e;
}

std::optional<double> object_reader::nullable_number(std::string_view key) const {
  const auto e = nullable(key);
  return e ? std::optional<double>(read_double(*e, field(key))) : std::nullopt;
}

std::optional<bool> object_reader::nullable_boolean(std::string_view key) const {
  const auto e = nullable(key);
  return e ? std::optional<bool>(read_bool(*e, field(key))) : std::nullopt;
}

std::int64_t object_reader::count(std::string_view key) const {
  const auto v = integer<std::int64_t>(key);
  if (v < 0) {
    fail(path_of(key), fmt::format("expected a count (0 or more), got {}", v));
  }
  return v;
}

std::string read_one_of(element e, const path_ref& path,
                        std::span<const std::string_view> allowed) {
  std::string value = read_string(e, path);
  if (std::find(allowed.begin(), allowed.end(), value) == allowed.end()) {
    fail(path.str(), fmt::format("expected one of {}, got {}", quoted_list(allowed), quote(value)));
  }
  return value;
}

} // namespace gpuspec::reports::model::detail
