#include "gpuspec/reports/expectations.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gpuspec/reports/spec_table.hpp"
#include "json_input.hpp"

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

const expectation_rule* expectations::find(std::string_view bench_id) const {
  const expectation_rule* best = nullptr;
  auto literal = [](const std::string& p) {
    return std::count_if(p.begin(), p.end(), [](char c) { return c != '*'; });
  };
  for (const auto& rule : rules) {
    if (!pattern_matches(rule.pattern, bench_id))
      continue;
    if (best == nullptr || rule.layer > best->layer ||
        (rule.layer == best->layer && literal(rule.pattern) > literal(best->pattern)))
      best = &rule;
  }
  return best;
}

namespace {

std::string type_name(const nlohmann::ordered_json& j) { return j.type_name(); }

bool valid_ceiling(const std::string& c) {
  if (c == "memory_bandwidth_gbs" || c == "nvlink_gbs" || c == "pcie_gbs" || c == "efficiency" ||
      c == "datasheet")
    return true;
  if (c.starts_with("peaks."))
    return std::find(std::begin(peak_keys), std::end(peak_keys), c.substr(6)) !=
           std::end(peak_keys);
  return false;
}

/// Fills `out` from `j`; when `require_all`, every rule field must be present.
std::optional<input_error> read_rule(const nlohmann::ordered_json& j, const std::string& path,
                                     std::string_view file, bool require_all,
                                     expectation_rule& out) {
  auto err = [&](const std::string& field, std::string msg) {
    return input_error{std::string(file), field, std::move(msg)};
  };
  if (!j.is_object())
    return err(path, "expected an object, got " + type_name(j));
  for (const auto& [key, value] : j.items()) {
    const std::string field = path + "." + key;
    if (key == "pattern" || key == "ceiling" || key == "why") {
      if (!value.is_string())
        return err(field, "expected a string, got " + type_name(value));
      const auto s = value.get<std::string>();
      if (key == "pattern") {
        if (s.empty())
          return err(field, "the pattern is empty");
        out.pattern = s;
      } else if (key == "ceiling") {
        if (!valid_ceiling(s))
          return err(field, "unknown ceiling '" + s +
                                "' (expected memory_bandwidth_gbs, nvlink_gbs, pcie_gbs, "
                                "efficiency or peaks.<key>)");
        out.ceiling = s;
      } else {
        out.why = s;
      }
    } else if (key == "pass" || key == "warn") {
      if (!value.is_number())
        return err(field, "expected a number, got " + type_name(value));
      const double v = value.get<double>();
      if (!std::isfinite(v) || v <= 0 || v > 2)
        return err(field, fmt::format("a fraction must be in (0, 2], got {}", v));
      (key == "pass" ? out.pass : out.warn) = v;
    } else {
      return err(field, "unknown key");
    }
  }
  if (require_all)
    for (const char* key : {"pattern", "ceiling", "pass", "warn"})
      if (!j.contains(key))
        return err(path + "." + key, "missing");
  if (out.warn > out.pass)
    return err(path + ".warn", fmt::format("the warn fraction {} is above the pass fraction {}",
                                           out.warn, out.pass));
  return std::nullopt;
}

std::optional<input_error> read_settings(const nlohmann::ordered_json& j, std::string_view file,
                                         expectation_settings& s) {
  auto err = [&](const std::string& field, std::string msg) {
    return input_error{std::string(file), field, std::move(msg)};
  };
  if (!j.is_object())
    return err("settings", "expected an object, got " + type_name(j));
  struct entry {
    const char* key;
    double* value;
    double min, max;
    bool integer = false;
  };
  double fleet = s.fleet_min_reports;
  double temperature = s.temperature_limit_c;
  double storm = s.ecc_corrected_storm;
  const entry entries[] = {
      {"sibling_threshold", &s.sibling_threshold, 0, 1},
      {"outlier_z", &s.outlier_z, -100, 0},
      {"fleet_min_reports", &fleet, 3, 1e9, true},
      {"baseline_tolerance", &s.baseline_tolerance, 0, 1},
      {"low_clock_fraction", &s.low_clock_fraction, 0, 1},
      {"mem_clock_fraction", &s.mem_clock_fraction, 0, 1},
      {"max_plausible_temperature_c", &s.max_plausible_temperature_c, 50, 1000},
      {"impossible_margin", &s.impossible_margin, 0, 1},
      {"temperature_limit_c", &temperature, 30, 150, true},
      {"sibling_clock_fraction", &s.sibling_clock_fraction, 0, 1},
      {"power_draw_fraction", &s.power_draw_fraction, 0, 1},
      {"ecc_corrected_storm", &storm, 1, 1e12, true},
      {"datasheet_tolerance", &s.datasheet_tolerance, 0, 1},
  };
  for (const auto& item : j.items()) {
    // Named copies, not structured bindings: C++20 lambdas may not capture bindings (clang).
    const std::string& key = item.key();
    const auto& value = item.value();
    const std::string field = "settings." + key;
    const auto* e = std::find_if(std::begin(entries), std::end(entries),
                                 [&key](const entry& x) { return key == x.key; });
    if (e == std::end(entries))
      return err(field, "unknown key");
    if (!value.is_number())
      return err(field, "expected a number, got " + type_name(value));
    const double v = value.get<double>();
    if (!std::isfinite(v) || v < e->min || v > e->max)
      return err(field, fmt::format("expected a number in [{}, {}], got {}", e->min, e->max, v));
    if (e->integer && v != std::floor(v))
      return err(field, "expected an integer");
    *e->value = v;
  }
  s.temperature_limit_c = static_cast<int>(temperature);
  s.ecc_corrected_storm = static_cast<int>(storm);
  s.fleet_min_reports = static_cast<int>(fleet);
  return std::nullopt;
}

/// Shared by the base parse and the merge: `base` is empty for a base file.
outcome<expectations> apply(const expectations* base, const nlohmann::ordered_json& j,
                            std::string_view file) {
  auto err = [&](const std::string& field, std::string msg) {
    return input_error{std::string(file), field, std::move(msg)};
  };
  if (!j.is_object())
    return err("", "expected a JSON object, got " + type_name(j));
  if (!j.contains("schema"))
    return err("schema", "missing");
  if (!j["schema"].is_string() || j["schema"].get<std::string>() != expectations_schema_version)
    return err("schema", fmt::format("expected \"{}\", got {}", expectations_schema_version,
                                     j["schema"].dump()));
  for (const auto& [key, value] : j.items())
    if (key != "schema" && key != "settings" && key != "rules")
      return err(key, "unknown key (expected schema, settings, rules)");
  if (base == nullptr && !j.contains("rules"))
    return err("rules", "missing");

  expectations out = base ? *base : expectations{};
  int layer = 0;
  if (base)
    for (const auto& r : base->rules)
      layer = std::max(layer, r.layer + 1);
  if (j.contains("settings"))
    if (auto e = read_settings(j["settings"], file, out.settings))
      return *e;
  if (j.contains("rules")) {
    const auto& rules = j["rules"];
    if (!rules.is_array())
      return err("rules", "expected an array, got " + type_name(rules));
    for (std::size_t i = 0; i < rules.size(); ++i) {
      const std::string path = fmt::format("rules[{}]", i);
      const auto& rj = rules[i];
      if (!rj.is_object())
        return err(path, "expected an object, got " + type_name(rj));
      if (!rj.contains("pattern"))
        return err(path + ".pattern", "missing");
      if (!rj["pattern"].is_string())
        return err(path + ".pattern", "expected a string, got " + type_name(rj["pattern"]));
      const std::string pattern = rj["pattern"].get<std::string>();
      // A pattern already in this layer is a duplicate; one in a lower layer is overridden.
      auto same = std::find_if(out.rules.begin(), out.rules.end(),
                               [&](const expectation_rule& r) { return r.pattern == pattern; });
      if (same != out.rules.end() && same->layer == layer)
        return err(path + ".pattern", "duplicate pattern '" + pattern + "'");
      expectation_rule rule = same != out.rules.end() ? *same : expectation_rule{};
      if (auto e = read_rule(rj, path, file, same == out.rules.end(), rule))
        return *e;
      rule.layer = layer;
      if (same != out.rules.end())
        *same = rule;
      else
        out.rules.push_back(rule);
    }
  }
  return out;
}

outcome<nlohmann::ordered_json> read_json(const std::filesystem::path& file) {
  auto text = detail::read_input_file(file, "rule set");
  if (!text) {
    return text.error();
  }
  return detail::parse_json_document(text.value(), file.string(), "rule set");
}

} // namespace

outcome<expectations> parse_expectations(const nlohmann::ordered_json& j, std::string_view file) {
  return apply(nullptr, j, file);
}

outcome<expectations> merge_expectations(const expectations& base,
                                         const nlohmann::ordered_json& site,
                                         std::string_view file) {
  return apply(&base, site, file);
}

outcome<expectations> load_expectations(const std::filesystem::path& file) {
  auto j = read_json(file);
  if (!j)
    return j.error();
  return parse_expectations(j.value(), file.string());
}

outcome<expectations> load_expectations(const std::filesystem::path& file,
                                        const expectations& base) {
  auto j = read_json(file);
  if (!j)
    return j.error();
  return merge_expectations(base, j.value(), file.string());
}

} // namespace gpuspec::reports
