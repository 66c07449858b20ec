// Loading the expectation rules (expectations.hpp) with the one object reader of every file
// gpuspec loads (json_reader.hpp): unknown, repeated and mistyped keys are named with their
// path.

#include "gpuspec/reports/judge/expectations.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <span>

#include <fmt/format.h>

#include "gpuspec/reports/judge/host_rules.hpp"
#include "gpuspec/reports/model/arch_rates.hpp"
#include "gpuspec/reports/model/json_reader.hpp"

#include "mig_layout_file.hpp"

namespace gpuspec::reports::inline judge {

namespace {

// model::detail, named in full: in a unity batch with the check's frames, judge::detail
// (integrity.hpp) would be found first.
using model::detail::element;
using model::detail::fail;
using model::detail::object_reader;
using model::detail::presence;

constexpr std::array<std::string_view, 4> top_keys{"schema", "settings", "rules", "mig_layout"};
constexpr std::array<std::string_view, 11> rule_keys{
    "pattern",   "axes", "shape_class", "path",          "accumulation", "min_size",
    "overrides", "pass", "warn",        "informational", "why"};
/// The keys a version 2 file may not use.
constexpr std::array<std::string_view, 5> v3_rule_keys{"shape_class", "path", "accumulation",
                                                       "min_size", "overrides"};
constexpr std::array<std::string_view, 6> override_keys{"arch", "spec",          "pass",
                                                        "warn", "informational", "why"};

struct setting {
  std::string_view key;
  double min, max;
  bool integer;
  double expectation_settings::*real;
  int expectation_settings::*whole;
};

constexpr std::array<setting, 19> settings_table{{
    {"sibling_threshold", 0, 1, false, &expectation_settings::sibling_threshold, nullptr},
    {"sibling_fail_threshold", 0, 1, false, &expectation_settings::sibling_fail_threshold, nullptr},
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
  const double v = model::detail::read_double(e, path);
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
    const double v = model::detail::read_double(*value, field);
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
    fail(path,
         fmt::format("expected an object of axis values, got {}", model::detail::describe(e)));
  std::vector<std::pair<std::string, std::vector<std::string>>> out;
  for (const auto field : model::detail::object_of(e)) {
    const std::string name(field.key);
    const std::string at = model::detail::member_path(path, name);
    std::vector<std::string> values;
    if (field.value.is_string())
      values.push_back(model::detail::read_string(field.value, at));
    else if (field.value.is_array())
      values = model::detail::read_array(field.value, at, model::detail::read_string);
    else
      fail(at, fmt::format("expected a value or an array of values, got {}",
                           model::detail::describe(field.value)));
    if (values.empty())
      fail(at, "an axis condition needs at least one value");
    out.emplace_back(name, std::move(values));
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// A value or an array of values, each one of `allowed` (empty: any non-empty string).
std::vector<std::string> read_values(element e, const std::string& path, std::string_view what,
                                     std::span<const std::string_view> allowed) {
  std::vector<std::string> values;
  if (e.is_string())
    values.push_back(model::detail::read_string(e, path));
  else if (e.is_array())
    values = model::detail::read_array(e, path, model::detail::read_string);
  else
    fail(path, fmt::format("expected a {} or an array of them, got {}", what,
                           model::detail::describe(e)));
  if (values.empty())
    fail(path, fmt::format("expected at least one {}", what));
  for (const auto& v : values) {
    if (v.empty())
      fail(path, fmt::format("an empty {}", what));
    if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), v) == allowed.end()) {
      std::string list;
      for (const auto a : allowed)
        list += (list.empty() ? "" : ", ") + std::string(a);
      fail(path, fmt::format("unknown {} '{}': expected one of {}", what, v, list));
    }
  }
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  return values;
}

const std::vector<std::string_view>& arch_names() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> out;
    for (const auto& row : arch_rate_table())
      if (std::find(out.begin(), out.end(), row.name) == out.end())
        out.push_back(row.name);
    return out;
  }();
  return names;
}

void check_fractions(double pass, double warn, const std::string& warn_path) {
  if (warn > pass)
    fail(warn_path, fmt::format("the warn fraction {} is above the pass fraction {}", warn, pass));
}

rule_override read_override(element e, const std::string& path) {
  const object_reader o(e, path, override_keys, presence::optional_keys);
  rule_override out;
  if (const auto v = o.find("arch"))
    out.arch = read_values(*v, o.path_of("arch"), "architecture", arch_names());
  if (const auto v = o.find("spec"))
    out.spec = read_values(*v, o.path_of("spec"), "spec-table row id", {});
  if (out.arch.empty() && out.spec.empty())
    fail(path, "an override names the architectures (\"arch\") or spec-table rows (\"spec\") "
               "it is for");
  if (const auto v = o.find("informational"))
    out.informational = model::detail::read_bool(*v, o.path_of("informational"));
  if (!out.informational) {
    out.pass = read_fraction(o.at("pass"), o.path_of("pass"));
    out.warn = read_fraction(o.at("warn"), o.path_of("warn"));
  }
  if (const auto v = o.find("why"))
    out.why = model::detail::read_string(*v, o.path_of("why"));
  check_fractions(out.pass, out.warn, o.path_of("warn"));
  return out;
}

/// The selectors of a rule (what, with the pattern, names it).
struct rule_key {
  std::vector<std::pair<std::string, std::vector<std::string>>> axes;
  std::vector<std::string> shape_class, path, accumulation;
  std::optional<std::uint64_t> min_bytes;
  friend bool operator==(const rule_key&, const rule_key&) = default;
};

rule_key key_of(const expectation_rule& r) {
  return {r.axes, r.shape_class, r.path, r.accumulation, r.min_bytes};
}

rule_key read_key(const object_reader& o, bool v3) {
  if (!v3)
    for (const auto key : v3_rule_keys)
      if (o.find(key))
        fail(o.path_of(key),
             fmt::format("\"{}\" is a key of \"{}\": set \"schema\" to \"{}\" to use it", key,
                         expectations_schema_version, expectations_schema_version));
  rule_key k;
  if (const auto a = o.find("axes"))
    k.axes = read_axes(*a, o.path_of("axes"));
  if (const auto v = o.find("shape_class"))
    k.shape_class = read_values(*v, o.path_of("shape_class"), "shape class", shape_class_values);
  if (const auto v = o.find("path"))
    k.path = read_values(*v, o.path_of("path"), "path", path_values);
  if (const auto v = o.find("accumulation"))
    k.accumulation =
        read_values(*v, o.path_of("accumulation"), "accumulation", accumulation_values);
  if (const auto v = o.find("min_size")) {
    const std::string text = model::detail::read_string(*v, o.path_of("min_size"));
    k.min_bytes = size_in_bytes(text);
    if (!k.min_bytes)
      fail(o.path_of("min_size"),
           fmt::format("'{}' is not a size: expected digits and one of B, KiB, MiB, GiB, KB, MB, "
                       "GB (\"16MiB\", \"40MB\")",
                       text));
  }
  return k;
}

/// Fills `rule` from `e`; a new rule (`require_all`) needs pattern, pass and warn. Overrides
/// given replace those of the same architectures and rows, and the others are added.
void read_rule(element e, const std::string& path, bool require_all, expectation_rule& rule) {
  const object_reader o(e, path, rule_keys, presence::optional_keys);
  if (const auto v = o.find("informational"))
    rule.informational = model::detail::read_bool(*v, o.path_of("informational"));
  if (require_all)
    for (const std::string_view key : {"pattern", "pass", "warn"})
      if (!rule.informational || key == "pattern")
        (void)o.at(key);
  if (const auto p = o.find("pattern")) {
    rule.pattern = model::detail::read_string(*p, o.path_of("pattern"));
    if (rule.pattern.empty())
      fail(o.path_of("pattern"), "the pattern is empty");
  }
  if (const auto v = o.find("pass"))
    rule.pass = read_fraction(*v, o.path_of("pass"));
  if (const auto v = o.find("warn"))
    rule.warn = read_fraction(*v, o.path_of("warn"));
  if (const auto v = o.find("why"))
    rule.why = model::detail::read_string(*v, o.path_of("why"));
  check_fractions(rule.pass, rule.warn, o.path_of("warn"));
  // A site rule that sets the fractions and says nothing of overrides holds for every GPU: the
  // lower layer's overrides go with the fractions they refined.
  if (!require_all && !o.find("overrides") &&
      (o.find("pass") || o.find("warn") || o.find("informational")))
    rule.overrides.clear();
  if (const auto v = o.find("overrides")) {
    const std::string at = o.path_of("overrides");
    if (!v->is_array())
      fail(at, fmt::format("expected an array of overrides, got {}", model::detail::describe(*v)));
    std::size_t i = 0;
    std::vector<rule_override> given;
    for (const element oe : model::detail::array_of(*v)) {
      auto next = read_override(oe, fmt::format("{}[{}]", at, i++));
      for (const auto& g : given)
        if (g.arch == next.arch && g.spec == next.spec)
          fail(fmt::format("{}[{}]", at, i - 1),
               "a second override for the same architectures and spec-table rows");
      given.push_back(std::move(next));
    }
    for (auto& g : given) {
      auto same =
          std::find_if(rule.overrides.begin(), rule.overrides.end(), [&](const rule_override& x) {
            return x.arch == g.arch && x.spec == g.spec;
          });
      if (same != rule.overrides.end())
        *same = std::move(g);
      else
        rule.overrides.push_back(std::move(g));
    }
  }
}

/// Shared by the base parse and the merge: `base` is null for a base file.
expectations apply(const expectations* base, element root) {
  if (!root.is_object())
    fail("", fmt::format("expected a JSON object, got {}", model::detail::describe(root)));
  element schema;
  if (model::detail::object_of(root).at_key("schema").get(schema))
    fail("schema", "missing");
  const std::string version = model::detail::read_string(schema, "schema");
  if (version == "gpuspec.expect.v1")
    fail("schema", fmt::format("\"gpuspec.expect.v1\" files named the ceiling of each rule; since "
                               "\"{}\" each result carries its reference (docs/check.md): remove "
                               "the rules' \"ceiling\" fields and set \"schema\" to \"{}\"",
                               expectations_schema_version, expectations_schema_version));
  if (version != expectations_schema_version && version != expectations_schema_v2)
    fail("schema", fmt::format("expected \"{}\" (or \"{}\"), got {}", expectations_schema_version,
                               expectations_schema_v2, model::detail::quote(version)));
  const bool v3 = version == expectations_schema_version;
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
  if (const auto m = o.find("mig_layout")) {
    if (!v3)
      fail("mig_layout", fmt::format("\"mig_layout\" is a key of \"{}\": set \"schema\" to \"{}\" "
                                     "to use it",
                                     expectations_schema_version, expectations_schema_version));
    out.mig_layouts = judge::detail::read_mig_layouts(*m, "mig_layout");
  }
  const auto rules = o.find("rules");
  if (!rules)
    return out;
  if (!rules->is_array())
    fail("rules", fmt::format("expected an array, got {}", model::detail::describe(*rules)));
  std::size_t i = 0;
  for (const element rj : model::detail::array_of(*rules)) {
    const std::string path = fmt::format("rules[{}]", i++);
    const object_reader ro(rj, path, rule_keys, presence::optional_keys);
    const std::string pattern = model::detail::read_string(ro.at("pattern"), ro.path_of("pattern"));
    const rule_key key = read_key(ro, v3);
    // A pattern (with the same axis conditions and selectors) already in this layer is a
    // duplicate; one in a lower layer is overridden.
    auto same = std::find_if(out.rules.begin(), out.rules.end(), [&](const expectation_rule& r) {
      return r.pattern == pattern && key_of(r) == key;
    });
    if (same != out.rules.end() && same->layer == layer)
      fail(path + ".pattern", "duplicate pattern '" + pattern + "'");
    expectation_rule rule = same != out.rules.end() ? *same : expectation_rule{};
    rule.axes = key.axes;
    rule.shape_class = key.shape_class;
    rule.path = key.path;
    rule.accumulation = key.accumulation;
    rule.min_bytes = key.min_bytes;
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
                                    const outcome<model::detail::json_document>& document,
                                    std::string_view file) {
  if (!document)
    return document.error();
  return model::detail::read_guarded(file, "",
                                     [&]() { return apply(base, document.value().root()); });
}

outcome<expectations> load(const expectations* base, const std::filesystem::path& file) {
  auto text = model::detail::read_input_file(file, "rule set");
  if (!text)
    return text.error();
  return read_document(base, model::detail::parse_json(text.value(), file.string(), "rule set"),
                       file.string());
}

} // namespace

outcome<expectations> parse_expectations(const nlohmann::ordered_json& j, std::string_view file) {
  return read_document(nullptr, model::detail::parse_json_value(j, file, "rule set"), file);
}

outcome<expectations> merge_expectations(const expectations& base,
                                         const nlohmann::ordered_json& site,
                                         std::string_view file) {
  return read_document(&base, model::detail::parse_json_value(site, file, "rule set"), file);
}

outcome<expectations> load_expectations(const std::filesystem::path& file) {
  return load(nullptr, file);
}

outcome<expectations> load_expectations(const std::filesystem::path& file,
                                        const expectations& base) {
  return load(&base, file);
}

} // namespace gpuspec::reports::judge
