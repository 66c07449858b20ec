#pragma once
/// Internal to the Prometheus printers (`gpuspec check --format prom`, `gpuspec health --format
/// prom`): the text format's escaping and metric families kept together with their HELP and
/// TYPE lines, written once for both.

#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace gpuspec::reports::detail {

inline std::string label_value(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

inline std::string sample_value(double v) {
  if (std::isnan(v))
    return "NaN";
  if (std::isinf(v))
    return v > 0 ? "+Inf" : "-Inf";
  return fmt::format("{}", v);
}

/// Metric families in a fixed order, each with its samples kept together.
class families {
public:
  void declare(const std::string& name, const std::string& help) {
    m_order.push_back(name);
    m_help[name] = help;
  }
  void add(const std::string& name, const std::vector<std::pair<std::string, std::string>>& labels,
           double value) {
    std::string line = name;
    if (!labels.empty()) {
      line += '{';
      for (std::size_t i = 0; i < labels.size(); ++i)
        line += fmt::format("{}{}=\"{}\"", i ? "," : "", labels[i].first,
                            label_value(labels[i].second));
      line += '}';
    }
    m_lines[name] += line + " " + sample_value(value) + "\n";
  }
  [[nodiscard]] std::string text() const {
    std::string out;
    for (const auto& name : m_order) {
      const auto it = m_lines.find(name);
      if (it == m_lines.end())
        continue;
      out +=
          fmt::format("# HELP {} {}\n# TYPE {} gauge\n{}", name, m_help.at(name), name, it->second);
    }
    return out;
  }

private:
  std::vector<std::string> m_order;
  std::map<std::string, std::string> m_help, m_lines;
};

} // namespace gpuspec::reports::detail
