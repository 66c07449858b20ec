#pragma once
/// Internal to the Prometheus printers (`gpuspec check --format prom`, `gpuspec health --format
/// prom`): the text format's escaping, metric families kept together with their HELP and TYPE
/// lines, and the one builder of a GPU's labels, written once for both.

#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "gpuspec/reports/judge/verdict.hpp"

namespace gpuspec::reports::inline render::detail {

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

using labels = std::vector<std::pair<std::string, std::string>>;

/// dcgm-exporter's labels of a GPU, so that dashboards can join the two: gpu, UUID,
/// pci_bus_id, modelName, Hostname (several GPUs: each comma-separated).
inline labels gpu_labels(std::string gpu, std::string uuid, std::string pci_bus_id,
                         std::string model, const std::string& hostname) {
  return {{"gpu", std::move(gpu)},
          {"UUID", std::move(uuid)},
          {"pci_bus_id", std::move(pci_bus_id)},
          {"modelName", std::move(model)},
          {"Hostname", hostname}};
}

/// The labels of each GPU of a node, by index.
inline std::map<int, labels> node_gpu_labels(const node_verdict& node) {
  std::map<int, labels> out;
  for (const auto& g : node.gpus)
    out[g.index] = gpu_labels(std::to_string(g.index), g.uuid, g.pci_bus_id, g.name, node.hostname);
  return out;
}

/// The labels of `device` where the node has it, else `otherwise`.
inline labels labels_of(const std::map<int, labels>& gpus, const std::optional<int>& device,
                        labels otherwise) {
  if (device) {
    if (const auto it = gpus.find(*device); it != gpus.end())
      return it->second;
  }
  return otherwise;
}

/// Metric families in a fixed order, each with its samples kept together.
class families {
public:
  void declare(const std::string& name, const std::string& help) {
    m_order.push_back(name);
    m_help[name] = help;
  }
  void add(const std::string& name, const labels& label_set, double value) {
    std::string line = name;
    if (!label_set.empty()) {
      line += '{';
      for (std::size_t i = 0; i < label_set.size(); ++i)
        line += fmt::format("{}{}=\"{}\"", i ? "," : "", label_set[i].first,
                            label_value(label_set[i].second));
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

} // namespace gpuspec::reports::render::detail
