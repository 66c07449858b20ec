#include "gpuspec/benches/registry.hpp"

#include <algorithm>
#include <cmath>
#include <regex>
#include <stdexcept>

#include <fmt/format.h>

#include "gpuspec/benches/families.hpp"

namespace gpuspec::benches {

namespace {

/// Dotted lower-case: at least two parts of [a-z0-9_], e.g. "memory.stream.triad".
bool is_valid_id(std::string_view id) {
  static const std::regex pattern("[a-z0-9_]+(\\.[a-z0-9_]+)+");
  return std::regex_match(id.begin(), id.end(), pattern);
}

std::string known_suites_text() {
  std::string out;
  for (auto name : suite_names)
    out += (out.empty() ? "" : ", ") + std::string(name);
  return out;
}

} // namespace

bool is_known_suite(std::string_view suite) {
  return std::find(std::begin(suite_names), std::end(suite_names), suite) != std::end(suite_names);
}

benchmark_definition::benchmark_definition(std::string id, std::string description,
                                           benchmark_function run)
    : m_id(std::move(id)), m_description(std::move(description)), m_run(std::move(run)) {
  if (!m_run)
    throw std::invalid_argument("benchmark " + m_id + ": no function");
}

benchmark_definition::benchmark_definition(std::string id, std::string description,
                                           node_function run)
    : m_id(std::move(id)), m_description(std::move(description)), m_node_run(std::move(run)) {
  if (!m_node_run)
    throw std::invalid_argument("benchmark " + m_id + ": no function");
}

benchmark_definition& benchmark_definition::in_suites(std::vector<std::string> suites) {
  for (const auto& s : suites)
    if (!is_known_suite(s))
      throw std::invalid_argument("benchmark " + m_id + ": '" + s + "' is not a suite (" +
                                  known_suites_text() + ")");
  m_suites = std::move(suites);
  return *this;
}

benchmark_definition& benchmark_definition::with_axis(std::string name,
                                                      std::vector<std::string> values,
                                                      std::size_t quick_count) {
  if (name.empty() || values.empty())
    throw std::invalid_argument("benchmark " + m_id +
                                ": an axis needs a name and at least one value");
  for (const auto& a : m_axes)
    if (a.name == name)
      throw std::invalid_argument("benchmark " + m_id + ": axis '" + name + "' declared twice");
  quick_count = std::clamp<std::size_t>(quick_count, 1, values.size());
  m_axes.push_back(axis{std::move(name), std::move(values), quick_count, {}});
  return *this;
}

benchmark_definition& benchmark_definition::with_node_axis(std::string name,
                                                           node_axis_values values) {
  if (name.empty() || !values)
    throw std::invalid_argument("benchmark " + m_id +
                                ": a node axis needs a name and a function planning its values");
  for (const auto& a : m_axes)
    if (a.name == name)
      throw std::invalid_argument("benchmark " + m_id + ": axis '" + name + "' declared twice");
  m_axes.push_back(axis{std::move(name), {}, 1, std::move(values)});
  return *this;
}

benchmark_definition& benchmark_definition::with_setup_allowance(double seconds) {
  if (!(seconds > 0.0) || !std::isfinite(seconds))
    throw std::invalid_argument("benchmark " + m_id + ": the setup allowance must be positive");
  m_setup_allowance_s = seconds;
  return *this;
}

benchmark_definition& benchmark_definition::runs_for_the_duration() {
  m_runs_for_duration = true;
  return *this;
}

bool benchmark_definition::runs_in(std::string_view suite) const {
  return suite == "full" || std::find(m_suites.begin(), m_suites.end(), suite) != m_suites.end();
}

std::string benchmark_definition::axes_text() const {
  std::string out;
  for (const auto& a : m_axes) {
    if (!out.empty())
      out += ' ';
    out += a.name + '=';
    if (a.from_node)
      out += "<planned from the node's GPUs>";
    for (std::size_t i = 0; i < a.values.size(); ++i)
      out += (i == 0 ? "" : "|") + a.values[i];
  }
  return out;
}

void registry::check_new_id(const std::string& id) const {
  if (!is_valid_id(id))
    throw std::invalid_argument("benchmark id '" + id +
                                "' is not dotted lower-case (e.g. memory.stream.triad)");
  if (find(id) != nullptr)
    throw std::invalid_argument("benchmark id '" + id + "' is registered twice");
}

benchmark_definition& registry::add(std::string id, std::string description,
                                    benchmark_function run) {
  check_new_id(id);
  return m_benchmarks.emplace_back(std::move(id), std::move(description), std::move(run));
}

benchmark_definition& registry::add_node(std::string id, std::string description,
                                         node_function run) {
  check_new_id(id);
  return m_benchmarks.emplace_back(std::move(id), std::move(description), std::move(run));
}

const benchmark_definition* registry::find(std::string_view id) const {
  for (const auto& b : m_benchmarks)
    if (b.id() == id)
      return &b;
  return nullptr;
}

std::string bench_case::parameters_text() const {
  std::string out;
  for (const auto& [name, value] : values)
    out += (out.empty() ? "" : " ") + name + '=' + value;
  return out;
}

const std::string& bench_case::value(std::string_view axis_name) const {
  for (const auto& [name, value] : values)
    if (name == axis_name)
      return value;
  throw std::out_of_range("benchmark " + id() + " has no axis '" + std::string(axis_name) + "'");
}

std::string check_selection(std::string_view suite, std::string_view filter) {
  if (!is_known_suite(suite))
    return fmt::format("'{}' is not a suite ({})", suite, known_suites_text());
  try {
    const std::regex check{std::string(filter), std::regex::ECMAScript};
  } catch (const std::regex_error& e) {
    return fmt::format("the filter '{}' is not a valid regular expression: {}", filter, e.what());
  }
  return {};
}

std::vector<bench_case> select_cases(const registry& r, std::string_view suite,
                                     std::string_view filter, const std::vector<int>& gpus) {
  if (auto problem = check_selection(suite, filter); !problem.empty())
    throw std::invalid_argument(problem);
  const std::regex pattern{std::string(filter), std::regex::ECMAScript};
  const bool all_values = suite == "standard" || suite == "full";

  std::vector<bench_case> out;
  for (const auto& def : r.benchmarks()) {
    if (!def.runs_in(suite) || !std::regex_search(def.id(), pattern))
      continue;
    // Cartesian product of the axes' selected values, the first axis varying slowest.
    std::vector<bench_case> partial{bench_case{&def, {}}};
    for (const auto& a : def.axes()) {
      const std::vector<std::string> planned =
          a.from_node ? a.from_node(gpus, suite) : std::vector<std::string>{};
      const std::vector<std::string>& values = a.from_node ? planned : a.values;
      const std::size_t count = all_values || a.from_node ? values.size() : a.quick_count;
      std::vector<bench_case> next;
      for (const auto& p : partial)
        for (std::size_t i = 0; i < count; ++i) {
          bench_case c = p;
          c.values.emplace_back(a.name, values[i]);
          next.push_back(std::move(c));
        }
      partial = std::move(next);
    }
    out.insert(out.end(), partial.begin(), partial.end());
  }
  return out;
}

const registry& benchmark_registry() {
  static const registry filled = [] {
    registry r;
    register_all_families(r);
    return r;
  }();
  return filled;
}

} // namespace gpuspec::benches
