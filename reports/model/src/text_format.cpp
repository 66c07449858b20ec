#include "gpuspec/reports/model/text_format.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gpuspec/reports/model/units.hpp"

namespace gpuspec::reports::inline model {

std::string format_figure(double value) {
  if (!std::isfinite(value))
    return std::isnan(value) ? "nan" : value > 0 ? "inf" : "-inf";
  const double a = std::abs(value);
  if (a >= 1e6)
    return fmt::format("{:.4g}", value);
  if (a >= 100)
    return fmt::format("{:.1f}", value);
  if (a >= 1)
    return fmt::format("{:.2f}", value);
  return fmt::format("{:.4g}", value);
}

std::string format_percent(double fraction) {
  if (!std::isfinite(fraction))
    return format_figure(fraction) + "%";
  const double percent = 100 * fraction;
  return std::abs(percent) < 1e5 ? fmt::format("{:.1f}%", percent)
                                 : fmt::format("{:.3g}%", percent);
}

std::string format_quantity(const std::optional<double>& value, metric_unit unit_of) {
  if (!value || !std::isfinite(*value))
    return "";
  const std::string unit(to_string(unit_of));
  const std::string number = format_figure(*value);
  return unit.empty() ? number : number + " " + unit;
}

std::string format_percent(const std::optional<double>& fraction) {
  return fraction && std::isfinite(*fraction) ? format_percent(*fraction) : "";
}

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

std::string elide_path(std::string_view path, std::size_t width) {
  const auto starts = [](char c) { return (static_cast<unsigned char>(c) & 0xC0U) != 0x80U; };
  std::size_t points = 0;
  for (char c : path)
    points += starts(c) ? 1 : 0;
  if (points <= width)
    return std::string(path);
  if (width <= 1)
    return width == 1 ? "…" : "";
  // The last width - 1 code points, after the "…".
  std::size_t keep = width - 1, at = path.size();
  while (at > 0 && keep > 0) {
    --at;
    if (starts(path[at]))
      --keep;
  }
  std::string_view tail = path.substr(at);
  // Start at a directory boundary when there is one in the tail, keeping the file's name.
  if (const auto slash = tail.find('/'); slash != std::string_view::npos && slash + 1 < tail.size())
    tail.remove_prefix(slash);
  return "…" + std::string(tail);
}

namespace {

/// The length of the valid UTF-8 sequence at `i` (2..4, no overlong form, no surrogate), or 0.
std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto b = static_cast<unsigned char>(s[i]);
  const std::size_t n = b >= 0xc2 && b <= 0xdf   ? 2
                        : b >= 0xe0 && b <= 0xef ? 3
                        : b >= 0xf0 && b <= 0xf4 ? 4
                                                 : 0;
  if (n == 0 || i + n > s.size())
    return 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80)
      return 0;
  const auto b1 = static_cast<unsigned char>(s[i + 1]);
  if ((b == 0xe0 && b1 < 0xa0) || (b == 0xed && b1 >= 0xa0) || (b == 0xf0 && b1 < 0x90) ||
      (b == 0xf4 && b1 >= 0x90))
    return 0;
  return n;
}

} // namespace

std::string escape_control(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto b = static_cast<unsigned char>(text[i]);
    if (b >= 0x20 && b < 0x7f) {
      out += text[i++];
    } else if (b == '\n') {
      out += "\\n";
      ++i;
    } else if (b == '\t') {
      out += "\\t";
      ++i;
    } else if (b == '\r') {
      out += "\\r";
      ++i;
    } else if (b < 0x80) {
      out += fmt::format("\\x{:02x}", b); // the other C0 controls (ESC among them), DEL
      ++i;
    } else if (const auto n = utf8_length(text, i); n == 0) {
      out += fmt::format("\\x{:02x}", b); // not UTF-8 (a lone 0x9b is CSI to some terminals)
      ++i;
    } else if (n == 2 && b == 0xc2 && static_cast<unsigned char>(text[i + 1]) < 0xa0) {
      out += fmt::format("\\u{:04x}", static_cast<unsigned char>(text[i + 1])); // C1
      i += 2;
    } else {
      out.append(text.substr(i, n));
      i += n;
    }
  }
  return out;
}

std::string markdown_cell(std::string_view text) {
  std::string spaced(text);
  std::replace(spaced.begin(), spaced.end(), '\n', ' ');
  std::string out;
  for (char c : escape_control(spaced)) {
    if (c == '|')
      out += "\\|";
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

std::string format_gpu_ranges(const std::vector<int>& devices) {
  std::string out;
  for (std::size_t i = 0; i < devices.size();) {
    std::size_t j = i;
    while (j + 1 < devices.size() && devices[j + 1] == devices[j] + 1)
      ++j;
    out += out.empty() ? "" : ",";
    if (j >= i + 2) {
      out += fmt::format("{}-{}", devices[i], devices[j]);
      i = j + 1;
    } else {
      out += std::to_string(devices[i]);
      ++i;
    }
  }
  return out;
}

} // namespace gpuspec::reports::model
