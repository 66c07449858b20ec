#include "gpuspec/reports/text_format.hpp"

namespace gpuspec::reports {

std::string format_parameters(const nlohmann::ordered_json& parameters) {
  if (!parameters.is_object())
    return parameters.dump();
  std::string out;
  for (const auto& [k, v] : parameters.items()) {
    if (!out.empty())
      out += ' ';
    out += k + '=' + (v.is_string() ? v.get<std::string>() : v.dump());
  }
  return out;
}

std::string format_values(const nlohmann::ordered_json& parameters) {
  if (!parameters.is_object())
    return parameters.dump();
  std::string out;
  for (const auto& [k, v] : parameters.items()) {
    if (!out.empty())
      out += ' ';
    out += v.is_string() ? v.get<std::string>() : v.dump();
  }
  return out;
}

std::string markdown_cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n')
      out += ' ';
    else
      out += c;
  }
  return out;
}

} // namespace gpuspec::reports
