// Loading the expectation rules (expectations.hpp) with the one object reader of every file
// gpuspec loads (json_reader.hpp): unknown, repeated and mistyped keys are named with their
// path.

#include "gpuspec/reports/expectations.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include <fmt/format.h>

#include "json_reader.hpp"

namespace gpuspec::reports {

bool pattern_matches(std::string_view pattern, std::string_view id) {
  // Iterative glob with '*' only; backtracks to the last star.
  std::size_t p = 0, s = 0, star = std::string_view::npos, mark = 0;
  while (s < id.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = s;
    } else if (p < pattern.size() && pattern[p] == id[s]) {
      ++p;
      ++s;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      s = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*')
    ++p;
  return p == pattern.size();
}

namespace {

/// True when every axis condition of `rule` holds in `axes` (a result's axes object).
bool axes_match(const expectation_rule& rule, const nlohmann::ordered_json& axes) {
  for (const auto& [name, allowed] : rule.axes) {
    if (!axes.is_object())
      return false;
    const auto it = axes.find(name);
    if (it == axes.end() || !it->is_string())
      return false;
    if (std::find(allowed.begin(), allowed.end(), it->get<std::string>()) == allowed.end())
      return false;
  }
  return true;
}

} // namespace

const expectation_rule* expectations::find(std::string_view bench_id,
                                           const nlohmann::ordered_json& axes) const {
  const expectation_rule* best = nullptr;
  auto literal = [](const std::string& p) {
    return std::count_if(p.begin(), p.end(), [](char c) { return c != '*'; });
  };
  const auto more_specific = [&](const expectation_rule& a, const expectation_rule& b) {
    if (a.layer != b.layer)
      return a.layer > b.layer;
    if (a.axes.size() != b.axes.size())
      return a.axes.size() > b.axes.size();
    return literal(a.pattern) > literal(b.pattern);
  };
  for (const auto& rule : rules) {
    if (!pattern_matches(rule.pattern, bench_id) || !axes_match(rule, axes))
      continue;
    if (best == nullptr || more_specific(rule, *best))
      best = &rule;
  }
  return best;
}

namespace {

using detail::element;
using detail::fail;
using detail::object_reader;
using detail::presence;

constexpr std::array<std::string_view, 3> top_keys{"schema", "settings", "rules"};
constexpr std::array<std::string_view, 6> rule_keys{"pattern", "axes",          "pass",
                                                    "warn",    "informational", "why"};

struct setting {
  std::string_view key;
  double min, max;
  bool integer;
  double expectation_settings::*real;
  int expectation_settings::*whole;
};

constexpr std::array<setting, 18> settings_table{{
    {"sibling_threshold", 0, 1, false, &expectation_settings::sibling_threshold, nullptr},
    {"outlier_z", -100, 0, false, &expectation_settings::outlier_z, nullptr},
    {"fleet_min_reports", 3, 1e9, true, nullptr, &expectation_settings::fleet_min_reports},
    {"baseline_tolerance", 0, 1, false, &expectation_settings::baseline_tolerance, nullptr},
    {"low_clock_fraction", 0, 1, false, &expectation_settings::low_clock_fraction, nullptr},
    {"mem_clock_fraction", 0, 1, false, &expectation_settings::mem_clock_fraction, nullptr},
    {"max_plausible_temperature_c", 50, 1000, false,
     &expectation_settings::max_plausible_temperature_c, nullptr},
    {"impossible_margin", 0, 1, false, &expectation_settings::impossible_margin, nullptr},
    {"temperature_limit_c", 30, 150, true, nullptr, &expectation_settings::temperature_limit_c},
    {"sibling_clock_fraction", 0, 1, false, &expectation_settings::sibling_clock_fraction, nullptr},
    {"power_draw_fraction", 0, 1, false, &expectation_settings::power_draw_fraction, nullptr},
    {"ecc_corrected_storm", 1, 1e9, true, nullptr, &expectation_settings::ecc_corrected_storm},
    {"datasheet_tolerance", 0, 1, false, &expectation_settings::datasheet_tolerance, nullptr},
    {"burnin_drift_warn", 0, 1, false, &expectation_settings::burnin_drift_warn, nullptr},
    {"burnin_drift_fail", 0, 1, false, &expectation_settings::burnin_drift_fail, nullptr},
    {"burnin_min_busy_fraction", 0, 1, false, &expectation_settings::burnin_min_busy_fraction,
     nullptr},
    {"burnin_idle_power_margin", 0, 10, false, &expectation_settings::burnin_idle_power_margin,
     nullptr},
    {"burnin_min_duration_s", 0, 30.0 * 24 * 3600, false,
     &expectation_settings::burnin_min_duration_s, nullptr},
}};

constexpr auto setting_keys = [] {
  std::array<std::string_view, settings_table.size()> keys{};
  for (std::size_t i = 0; i < keys.size(); ++i)
    keys[i] = settings_table[i].key;
  return keys;
}();

/// A fraction in (0, 2].
double read_fraction(element e, const std::string& path) {
  const double v = detail::read_double(e, path);
  if (v <= 0 || v > 2)
    fail(path, fmt::format("a fraction must be in (0, 2], got {}", v));
  return v;
}

void read_settings(element e, expectation_settings& s) {
  const object_reader o(e, "settings", setting_keys, presence::optional_keys);
  for (const auto& entry : settings_table) {
    const auto value = o.find(entry.key);
    if (!value)
      continue;
    const std::string field = o.path_of(entry.key);
    const double v = detail::read_double(*value, field);
    if (v < entry.min || v > entry.max)
      fail(field, fmt::format("expected a number in [{}, {}], got {}", entry.min, entry.max, v));
    if (entry.integer) {
      if (v != std::floor(v))
        fail(field, "expected an integer");
      s.*entry.whole = static_cast<int>(v);
    } else {
      s.*entry.real = v;
    }
  }
}

/// The rule's axis conditions: an object of axis names, each a value or an array of values.
std::vector<std::pair<std::string, std::vector<std::string>>> read_axes(element e,
                                                                        const std::string& path) {
  if (!e.is_object())
    fail(path, fmt::format("expected an object of axis values, got {}", detail::describe(e)));
  std::vector<std::pair<std::string, std::vector<std::string>>> out;
  for (const auto field : detail::object_of(e)) {
    const std::string name(field.key);
    const std::string at = detail::member_path(path, name);
    std::vector<std::string> values;
    if (field.value.is_string())
      values.push_back(detail::read_string(field.value, at));
    else if (field.value.is_array())
      values = detail::read_array(field.value, at, detail::read_string);
    else
      fail(at, fmt::format("expected a value or an array of values, got {}",
                           detail::describe(field.value)));
    if (values.empty())
      fail(at, "an axis condition needs at least one value");
    out.emplace_back(name, std::move(values));
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// Fills `rule` from `e`; a new rule (`require_all`) needs pattern, pass and warn.
void read_rule(element e, const std::string& path, bool require_all, expectation_rule& rule) {
  const object_reader o(e, path, rule_keys, presence::optional_keys);
  if (const auto v = o.find("informational"))
    rule.informational = detail::read_bool(*v, o.path_of("informational"));
  if (require_all)
    for (const std::string_view key : {"pattern", "pass", "warn"})
      if (!rule.informational || key == "pattern")
        (void)o.at(key);
  if (const auto p = o.find("pattern")) {
    rule.pattern = detail::read_string(*p, o.path_of("pattern"));
    if (rule.pattern.empty())
      fail(o.path_of("pattern"), "the pattern is empty");
  }
  if (const auto a = o.find("axes"))
    rule.axes = read_axes(*a, o.path_of("axes"));
  if (const auto v = o.find("pass"))
    rule.pass = read_fraction(*v, o.path_of("pass"));
  if (const auto v = o.find("warn"))
    rule.warn = read_fraction(*v, o.path_of("warn"));
  if (const auto v = o.find("why"))
    rule.why = detail::read_string(*v, o.path_of("why"));
  if (rule.warn > rule.pass)
    fail(o.path_of("warn"),
         fmt::format("the warn fraction {} is above the pass fraction {}", rule.warn, rule.pass));
}

/// Shared by the base parse and the merge: `base` is null for a base file.
expectations apply(const expectations* base, element root) {
  if (!root.is_object())
    fail("", fmt::format("expected a JSON object, got {}", detail::describe(root)));
  element schema;
  if (detail::object_of(root).at_key("schema").get(schema))
    fail("schema", "missing");
  const std::string version = detail::read_string(schema, "schema");
  if (version == "gpuspec.expect.v1")
    fail("schema", fmt::format("\"gpuspec.expect.v1\" files named the ceiling of each rule; since "
                               "\"{}\" each result carries its reference (docs/check.md): remove "
                               "the rules' \"ceiling\" fields and set \"schema\" to \"{}\"",
                               expectations_schema_version, expectations_schema_version));
  if (version != expectations_schema_version)
    fail("schema", fmt::format("expected \"{}\", got {}", expectations_schema_version,
                               detail::quote(version)));
  const object_reader o(root, "", top_keys, presence::optional_keys);
  if (base == nullptr)
    (void)o.at("rules");

  expectations out = base ? *base : expectations{};
  int layer = 0;
  if (base)
    for (const auto& r : base->rules)
      layer = std::max(layer, r.layer + 1);
  if (const auto s = o.find("settings"))
    read_settings(*s, out.settings);
  const auto rules = o.find("rules");
  if (!rules)
    return out;
  if (!rules->is_array())
    fail("rules", fmt::format("expected an array, got {}", detail::describe(*rules)));
  std::size_t i = 0;
  for (const element rj : detail::array_of(*rules)) {
    const std::string path = fmt::format("rules[{}]", i++);
    const object_reader ro(rj, path, rule_keys, presence::optional_keys);
    const std::string pattern = detail::read_string(ro.at("pattern"), ro.path_of("pattern"));
    const auto axes = ro.find("axes") ? read_axes(*ro.find("axes"), ro.path_of("axes"))
                                      : decltype(expectation_rule::axes){};
    // A pattern (with the same axis conditions) already in this layer is a duplicate; one in a
    // lower layer is overridden.
    auto same = std::find_if(out.rules.begin(), out.rules.end(), [&](const expectation_rule& r) {
      return r.pattern == pattern && r.axes == axes;
    });
    if (same != out.rules.end() && same->layer == layer)
      fail(path + ".pattern", "duplicate pattern '" + pattern + "'");
    expectation_rule rule = same != out.rules.end() ? *same : expectation_rule{};
    read_rule(rj, path, same == out.rules.end(), rule);
    rule.layer = layer;
    if (same != out.rules.end())
      *same = rule;
    else
      out.rules.push_back(rule);
  }
  return out;
}

outcome<expectations> read_document(const expectations* base,
                                    const outcome<detail::json_document>& document,
                                    std::string_view file) {
  if (!document)
    return document.error();
  try {
    return apply(base, document.value().root());
  } catch (const detail::field_failure& failure) {
    return input_error{std::string(file), failure.field, failure.message};
  } catch (const simdjson::simdjson_error& e) {
    return input_error{std::string(file), "", e.what()};
  }
}

outcome<expectations> load(const expectations* base, const std::filesystem::path& file) {
  auto text = detail::read_input_file(file, "rule set");
  if (!text)
    return text.error();
  return read_document(base, detail::parse_json(text.value(), file.string(), "rule set"),
                       file.string());
}

} // namespace

outcome<expectations> parse_expectations(const nlohmann::ordered_json& j, std::string_view file) {
  return read_document(nullptr, detail::parse_json_value(j, file, "rule set"), file);
}

outcome<expectations> merge_expectations(const expectations& base,
                                         const nlohmann::ordered_json& site,
                                         std::string_view file) {
  return read_document(&base, detail::parse_json_value(site, file, "rule set"), file);
}

outcome<expectations> load_expectations(const std::filesystem::path& file) {
  return load(nullptr, file);
}

outcome<expectations> load_expectations(const std::filesystem::path& file,
                                        const expectations& base) {
  return load(&base, file);
}

} // namespace gpuspec::reports
