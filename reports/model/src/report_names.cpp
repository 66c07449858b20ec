#include "gpuspec/reports/model/report_names.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "gpuspec/reports/model/report_json.hpp"

namespace gpuspec::reports::inline model {
namespace detail {

bool is_reading_status(std::string_view s) {
  if (s == not_supported_text) {
    return true;
  }
  if (!s.starts_with(unavailable_prefix) || s.size() == unavailable_prefix.size()) {
    return false;
  }
  return s.find_first_of("\r\n") == std::string_view::npos;
}

bool is_hex_word(std::string_view s) {
  if (s.size() != 18 || !s.starts_with("0x")) {
    return false;
  }
  return s.find_first_not_of("0123456789abcdef", 2) == std::string_view::npos;
}

template <class E, std::size_t N> std::string_view name_of(const name_table<E, N>& table, E value) {
  for (const auto& [e, name] : table) {
    if (e == value) {
      return name;
    }
  }
  throw std::invalid_argument(
      fmt::format("enum value {} has no name in a report", static_cast<int>(value)));
}

template std::string_view name_of(const name_table<result_status, 4>&, result_status);
template std::string_view name_of(const name_table<verification_status, 3>&, verification_status);
template std::string_view name_of(const name_table<check_status, 4>&, check_status);
template std::string_view name_of(const name_table<failure_kind, 8>&, failure_kind);
template std::string_view name_of(const name_table<reference_kind, 3>&, reference_kind);

namespace {

template <class E, std::size_t N>
std::optional<E> value_of(const name_table<E, N>& table, std::string_view name) {
  for (const auto& [e, text] : table) {
    if (text == name) {
      return e;
    }
  }
  return std::nullopt;
}

} // namespace
} // namespace detail

std::string_view to_string(result_status s) {
  return detail::name_of(detail::result_status_names, s);
}
std::string_view to_string(verification_status s) {
  return detail::name_of(detail::verification_status_names, s);
}
std::string_view to_string(check_status s) {
  return detail::name_of(detail::check_status_names, s);
}
std::string_view to_string(failure_kind f) {
  return detail::name_of(detail::failure_kind_names, f);
}

std::optional<result_status> result_status_from_string(std::string_view s) {
  return detail::value_of(detail::result_status_names, s);
}
std::optional<verification_status> verification_status_from_string(std::string_view s) {
  return detail::value_of(detail::verification_status_names, s);
}
std::optional<check_status> check_status_from_string(std::string_view s) {
  return detail::value_of(detail::check_status_names, s);
}

} // namespace gpuspec::reports::model
