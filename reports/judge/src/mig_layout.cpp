// A site's declared MIG layouts (mig_layout.hpp): reading the rules file's "mig_layout" key,
// and which declaration holds for a GPU.

#include "gpuspec/reports/judge/mig_layout.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <map>

#include <fmt/format.h>

#include "mig_layout_file.hpp"

namespace gpuspec::reports::inline judge {

namespace {

constexpr std::array<std::string_view, 5> mig_layout_keys{"gpus", "spec", "profiles", "whole",
                                                          "why"};

/// Digits, at least one, from `i`; false when none.
bool skip_digits(std::string_view text, std::size_t& i) {
  const std::size_t start = i;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) != 0)
    ++i;
  return i > start;
}

} // namespace

bool is_mig_profile_name(std::string_view text) {
  std::size_t i = 0;
  if (!skip_digits(text, i) || i >= text.size())
    return false;
  if (text[i] == 'c') { // "<c>c.<g>g.<GB>gb"
    if (text.substr(i, 2) != "c.")
      return false;
    i += 2;
    if (!skip_digits(text, i) || i >= text.size())
      return false;
  }
  if (text.substr(i, 2) != "g.")
    return false;
  i += 2;
  return skip_digits(text, i) && text.substr(i) == "gb";
}

const mig_layout_rule* declared_layout(const std::vector<mig_layout_rule>& rules,
                                       const device_info& d) {
  for (const auto& r : rules)
    if (std::find(r.gpus.begin(), r.gpus.end(), d.index) != r.gpus.end())
      return &r;
  if (d.spec_id.empty())
    return nullptr;
  for (const auto& r : rules)
    if (std::find(r.spec.begin(), r.spec.end(), d.spec_id) != r.spec.end())
      return &r;
  return nullptr;
}

std::string layout_text(const std::vector<std::string>& profiles, bool whole) {
  if (whole)
    return "whole (MIG off)";
  if (profiles.empty())
    return "no MIG device";
  std::vector<std::pair<std::string, int>> groups; // in first-seen order
  for (const auto& p : profiles) {
    auto it =
        std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == p; });
    if (it == groups.end())
      groups.emplace_back(p, 1);
    else
      ++it->second;
  }
  std::string out;
  for (const auto& [profile, n] : groups)
    out += (out.empty() ? "" : " + ") + (n == 1 ? profile : fmt::format("{} x {}", n, profile));
  return out;
}

namespace detail {

namespace {

using model::detail::element;
using model::detail::fail;
using model::detail::object_reader;
using model::detail::presence;

mig_layout_rule read_declaration(element e, const std::string& path, std::size_t entry) {
  const object_reader o(e, path, mig_layout_keys, presence::optional_keys);
  mig_layout_rule r;
  r.entry = entry;
  if (o.find("gpus") && o.find("spec"))
    fail(path, "an entry names its GPUs by \"gpus\" (NVML indices) or by \"spec\" (spec-table "
               "rows), not both");
  if (o.find("gpus")) {
    r.gpus =
        model::detail::read_array(o.at("gpus"), o.field("gpus"), model::detail::read_integer<int>);
    if (r.gpus.empty())
      fail(o.path_of("gpus"), "expected at least one GPU index");
    for (const int g : r.gpus)
      if (g < 0)
        fail(o.path_of("gpus"), fmt::format("a GPU index is 0 or more, got {}", g));
  } else if (o.find("spec")) {
    const element s = o.at("spec");
    if (s.is_string())
      r.spec.push_back(model::detail::read_string(s, o.field("spec")));
    else
      r.spec = model::detail::read_array(s, o.field("spec"), model::detail::read_string);
    if (r.spec.empty() ||
        std::any_of(r.spec.begin(), r.spec.end(), [](const std::string& id) { return id.empty(); }))
      fail(o.path_of("spec"), "expected a spec-table row id or an array of them, none empty");
  } else {
    fail(path, "an entry names the GPUs it declares: \"gpus\" (NVML indices) or \"spec\" "
               "(spec-table row ids)");
  }
  if (o.find("profiles") && o.find("whole"))
    fail(path, "an entry declares \"profiles\" (MIG on) or \"whole\": true (MIG off), not both");
  if (const auto w = o.find("whole")) {
    r.whole = model::detail::read_bool(*w, o.field("whole"));
    if (!r.whole)
      fail(o.path_of("whole"), "\"whole\": false declares nothing: give \"profiles\" instead");
  } else if (o.find("profiles")) {
    r.profiles = o.strings("profiles");
    if (r.profiles.empty())
      fail(o.path_of("profiles"), "expected at least one MIG profile (\"whole\": true declares "
                                  "MIG off)");
    for (std::size_t i = 0; i < r.profiles.size(); ++i)
      if (!is_mig_profile_name(r.profiles[i]))
        fail(fmt::format("{}[{}]", o.path_of("profiles"), i),
             fmt::format("'{}' is not a MIG profile name as NVML's attributes give it: "
                         "\"<g>g.<GB>gb\" or \"<c>c.<g>g.<GB>gb\" (\"1g.10gb\", \"1c.3g.40gb\"; "
                         "media extensions, \"+me\", cannot be told and are not written)",
                         r.profiles[i]));
    std::sort(r.profiles.begin(), r.profiles.end());
  } else {
    fail(path, "an entry declares \"profiles\" (MIG on, its MIG devices' profiles) or "
               "\"whole\": true (MIG off)");
  }
  if (const auto w = o.find("why"))
    r.why = model::detail::read_string(*w, o.field("why"));
  return r;
}

} // namespace

std::vector<mig_layout_rule> read_mig_layouts(element e, const std::string& path) {
  if (!e.is_array())
    fail(path, fmt::format("expected an array of layout declarations, got {}",
                           model::detail::describe(e)));
  std::vector<mig_layout_rule> out;
  std::map<int, std::size_t> gpu_entry;
  std::map<std::string, std::size_t> spec_entry;
  std::size_t i = 0;
  for (const element item : model::detail::array_of(e)) {
    const std::string at = fmt::format("{}[{}]", path, i);
    auto r = read_declaration(item, at, i);
    for (const int g : r.gpus)
      if (const auto [it, added] = gpu_entry.emplace(g, i); !added)
        fail(at + ".gpus",
             fmt::format("GPU {} is declared again ({}[{}] declares it)", g, path, it->second));
    for (const auto& s : r.spec)
      if (const auto [it, added] = spec_entry.emplace(s, i); !added)
        fail(at + ".spec", fmt::format("spec row '{}' is declared again ({}[{}] declares it)", s,
                                       path, it->second));
    out.push_back(std::move(r));
    ++i;
  }
  return out;
}

} // namespace detail

} // namespace gpuspec::reports::judge
