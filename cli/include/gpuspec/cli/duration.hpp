#pragma once
/// `--duration` of `gpuspec run --suite burnin` (docs/burnin.md): "30m", "90s", "2h", "1h30m",
/// "1d"; every number needs its unit (a bare "30" is refused, not read as 30 seconds).

#include <optional>
#include <string>
#include <string_view>

namespace gpuspec::cli {

/// The longest burn-in `--duration` accepts: 30 days.
inline constexpr double max_duration_s = 30.0 * 24 * 3600;

/// Seconds, or nullopt with `why` set to one sentence naming what is wrong: an empty text, a
/// number without its unit (a bare number too), a unit that is not s, m, h or d, a number
/// missing before a unit, a unit repeated or out of order (h before m before s), zero, or more
/// than `max_s` (30 days unless told: `db stale --older-than` allows a year).
[[nodiscard]] std::optional<double> parse_duration(std::string_view text, std::string& why,
                                                   double max_s = max_duration_s);

} // namespace gpuspec::cli
