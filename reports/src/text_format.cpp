#include "gpuspec/reports/text_format.hpp"

#include <fmt/format.h>

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

std::string process_text(const gpu_process& p) {
  std::string detail = p.name.empty() ? std::string("name unknown") : p.name;
  if (p.used_memory_bytes)
    detail += fmt::format(", {:.1f} GiB", static_cast<double>(*p.used_memory_bytes) / (1 << 30));
  if (p.kind == "graphics")
    detail += ", graphics";
  return fmt::format("pid {} ({})", p.pid, detail);
}

std::string processes_text(const std::vector<gpu_process>& processes) {
  if (processes.empty())
    return "no process";
  std::string out;
  for (const auto& p : processes)
    out += (out.empty() ? "" : ", ") + process_text(p);
  return out;
}

} // namespace gpuspec::reports
