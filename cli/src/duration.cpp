// `--duration` (duration.hpp): a sequence of <number><unit>, units in decreasing order; every
// number has its unit.

#include "gpuspec/cli/duration.hpp"

#include <cctype>
#include <charconv>
#include <cmath>

#include <fmt/format.h>

namespace gpuspec::cli {

std::optional<double> parse_duration(std::string_view text, std::string& why, double max_s) {
  if (text.empty()) {
    why = "the duration is empty (e.g. 30m, 90s, 2h, 1h30m)";
    return std::nullopt;
  }
  constexpr std::string_view units = "dhms"; // in the order they may appear
  constexpr double seconds_per[] = {86400, 3600, 60, 1};
  double total = 0;
  std::size_t next_unit = 0; // units before this one are used up
  std::size_t i = 0;
  while (i < text.size()) {
    double value = 0;
    const auto [end, ec] = std::from_chars(text.data() + i, text.data() + text.size(), value);
    if (ec != std::errc() || end == text.data() + i || !std::isfinite(value) || value < 0) {
      why = fmt::format("'{}' is not a duration: expected a number at '{}' (e.g. 30m, 90s, 2h)",
                        text, text.substr(i));
      return std::nullopt;
    }
    i = static_cast<std::size_t>(end - text.data());
    if (i == text.size()) {
      // A bare number is refused: `--duration 30` meant 30 minutes to whoever typed it, and
      // 30 seconds of burn-in proves nothing.
      why = next_unit == 0
                ? fmt::format("'{}' has no unit: write {}s, {}m or {}h (a bare number is not "
                              "taken as seconds)",
                              text, text, text, text)
                : fmt::format("'{}' is not a duration: the last number has no unit", text);
      return std::nullopt;
    }
    const auto u = units.find(static_cast<char>(std::tolower(static_cast<unsigned char>(text[i]))));
    if (u == std::string_view::npos) {
      why = fmt::format("'{}' is not a duration: '{}' is not a unit (s, m, h or d)", text, text[i]);
      return std::nullopt;
    }
    if (u < next_unit) {
      why = fmt::format("'{}' is not a duration: units go from days to seconds, once each", text);
      return std::nullopt;
    }
    total += value * seconds_per[u];
    next_unit = u + 1;
    ++i;
  }
  if (!(total > 0)) {
    why = fmt::format("'{}' is no time at all: a burn-in needs a positive duration", text);
    return std::nullopt;
  }
  if (total > max_s) {
    why = fmt::format("'{}' is more than {} days", text, max_s / 86400);
    return std::nullopt;
  }
  return total;
}

} // namespace gpuspec::cli
