#include "gpuspec/reports/model/host_names.hpp"

#include <algorithm>
#include <cctype>
#include <map>

#include <fmt/format.h>

namespace gpuspec::reports::inline model {

namespace {

bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

/// The digit run of `s` from `at`, without its leading zeros (at least one digit kept).
std::string_view digit_run(std::string_view s, std::size_t& at) {
  const std::size_t start = at;
  while (at < s.size() && is_digit(s[at]))
    ++at;
  std::string_view run = s.substr(start, at - start);
  while (run.size() > 1 && run.front() == '0')
    run.remove_prefix(1);
  return run;
}

/// A name split into its prefix and trailing number ("node-", "07"); no number: all prefix.
struct numbered {
  std::string prefix, digits;
};
numbered split_number(std::string_view name) {
  std::size_t k = name.size();
  while (k > 0 && is_digit(name[k - 1]))
    --k;
  return {std::string(name.substr(0, k)), std::string(name.substr(k))};
}

/// "0-6,8,10-12" from sorted numbers, each written at `width` digits (0: as it is).
std::string ranges_text(const std::vector<unsigned long long>& numbers, std::size_t width) {
  std::string out;
  auto put = [&](unsigned long long n) { return fmt::format("{:0{}}", n, width); };
  for (std::size_t i = 0; i < numbers.size();) {
    std::size_t j = i;
    while (j + 1 < numbers.size() && numbers[j + 1] == numbers[j] + 1)
      ++j;
    out += (out.empty() ? "" : ",") + put(numbers[i]);
    if (j > i)
      out += "-" + put(numbers[j]);
    i = j + 1;
  }
  return out;
}

} // namespace

bool natural_less(std::string_view a, std::string_view b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (is_digit(a[i]) && is_digit(b[j])) {
      const auto x = digit_run(a, i), y = digit_run(b, j);
      if (x.size() != y.size())
        return x.size() < y.size();
      if (x != y)
        return x < y;
      continue;
    }
    if (a[i] != b[j])
      return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
    ++i;
    ++j;
  }
  if ((a.size() - i) != (b.size() - j))
    return a.size() - i < b.size() - j;
  return a < b; // equal in natural order ("n01", "n1"): by bytes, so the order is total
}

std::vector<std::string> host_groups(std::vector<std::string> names) {
  std::sort(names.begin(), names.end(),
            [](const std::string& a, const std::string& b) { return natural_less(a, b); });
  names.erase(std::unique(names.begin(), names.end()), names.end());
  // (prefix, digit width or 0 where the numbers have no leading zero) -> numbers
  std::map<std::pair<std::string, std::size_t>, std::vector<unsigned long long>> numbered_names;
  std::vector<std::pair<std::string, std::size_t>> order;
  std::vector<std::string> out;
  std::vector<std::string> alone;
  for (const auto& name : names) {
    const auto [prefix, digits] = split_number(name);
    if (digits.empty() || digits.size() > 18) {
      alone.push_back(name);
      continue;
    }
    const std::size_t width = digits.size() > 1 && digits.front() == '0' ? digits.size() : 0;
    auto key = std::make_pair(prefix, width);
    // "node-10" belongs to "node-07"'s padded series: a number as wide as a padded one joins it.
    if (width == 0 && numbered_names.contains({prefix, digits.size()}))
      key.second = digits.size();
    auto& list = numbered_names[key];
    if (list.empty())
      order.push_back(key);
    list.push_back(std::stoull(digits));
  }
  std::vector<std::pair<std::string, std::string>> groups; // (first name, text)
  for (const auto& key : order) {
    auto& list = numbered_names[key];
    std::sort(list.begin(), list.end());
    const std::string first = key.first + fmt::format("{:0{}}", list.front(), key.second);
    groups.emplace_back(
        first, list.size() == 1 ? first : key.first + "[" + ranges_text(list, key.second) + "]");
  }
  for (const auto& name : alone)
    groups.emplace_back(name, name);
  std::stable_sort(groups.begin(), groups.end(),
                   [](const auto& a, const auto& b) { return natural_less(a.first, b.first); });
  for (auto& g : groups)
    out.push_back(std::move(g.second));
  return out;
}

} // namespace gpuspec::reports::model
