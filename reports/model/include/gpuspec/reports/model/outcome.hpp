#pragma once
/// Value-or-error for expected bad input (a file a user wrote). Bugs throw; bad input returns.

#include <string>
#include <utility>
#include <variant>

namespace gpuspec::reports::inline model {

/// Where and why an input was rejected: the file, the field (a JSON-pointer-like path such as
/// "results[3].stats.median"), and a sentence.
struct input_error {
  std::string file;
  std::string field;
  std::string message;

  /// "report.json: results[3].stats.median: expected a number, got a string"
  [[nodiscard]] std::string to_string() const;
};

template <class T> class outcome {
public:
  outcome(T value) : m_state(std::move(value)) {}           // NOLINT(google-explicit-constructor)
  outcome(input_error error) : m_state(std::move(error)) {} // NOLINT(google-explicit-constructor)

  [[nodiscard]] bool has_value() const { return m_state.index() == 0; }
  explicit operator bool() const { return has_value(); }
  [[nodiscard]] T& value() & { return std::get<0>(m_state); }
  [[nodiscard]] const T& value() const& { return std::get<0>(m_state); }
  [[nodiscard]] T&& value() && { return std::get<0>(std::move(m_state)); }
  [[nodiscard]] const input_error& error() const { return std::get<1>(m_state); }

private:
  std::variant<T, input_error> m_state;
};

} // namespace gpuspec::reports::model
