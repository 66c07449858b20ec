#pragma once
/// What the query commands read from their command line (docs/fleet.md): dates, software-stack
/// ranges and the windows of `db compare`. Pure parsers, each refusing bad text with one
/// sentence in `why` (fuzzed: tests/unit/fleet/selectors_test.cpp).

#include <optional>
#include <string>
#include <string_view>

namespace gpuspec::fleet {

/// A UTC date as the reports write times: "2026-11-30", "2026-11-30T02:31", "2026-11-30T02:31:04"
/// with or without a final "Z", or " " in place of "T". Returns the canonical form
/// "2026-11-30T02:31:04Z" (what reports write, so that text order is time order); nullopt with
/// `why` for anything else: a month, day, hour, minute or second out of range (30 February,
/// 24:00), a year before 1970 or after 9999, trailing text, a time zone other than Z.
[[nodiscard]] std::optional<std::string> parse_utc_date(std::string_view text, std::string& why);

/// Seconds since 1970 of a canonical date (parse_utc_date's form), and back.
[[nodiscard]] long long utc_seconds(const std::string& canonical);
[[nodiscard]] std::string utc_text(long long seconds);

/// Compares two version strings part by part ("550.54.15" < "550.127.05" < "560"): parts split
/// at '.', '-' and '_', numeric parts compared as numbers, others as text, a number before text;
/// a version that runs out first is the smaller. <0, 0, >0.
[[nodiscard]] int compare_versions(std::string_view a, std::string_view b);

/// A software-stack selector, "driver=550..", "cuda=12.4..12.8", "nccl=..2.21", "driver=550":
/// `key` one of driver, cuda (the CUDA driver version), cuda_runtime, cublas, nccl, vbios,
/// gpuspec; a range LO..HI holds versions v with LO <= v < HI (either end may be left out); a
/// single version V holds V and every version that starts with V's parts (550 holds 550.54.15).
struct stack_range {
  std::string key;
  std::string low, high; ///< "" for an open end
  bool exact = false;    ///< the single-version form (prefix match on `low`)
  /// Whether `version` is in the range; an empty version (not recorded) never is.
  [[nodiscard]] bool holds(std::string_view version) const;
};

/// The keys stack_range accepts, in the order the docs list them.
inline constexpr const char* stack_keys[] = {"driver", "cuda",  "cuda_runtime", "cublas",
                                             "nccl",   "vbios", "gpuspec"};

[[nodiscard]] std::optional<stack_range> parse_stack_range(std::string_view text, std::string& why);

/// One side of `db compare`: the runs before a date (`--before DATE`: started earlier), from a
/// date on (`--after DATE`), or of a stack range (either flag with KEY=RANGE).
struct window {
  std::optional<std::string> before, from; ///< canonical dates
  std::optional<stack_range> stack;
  std::string label; ///< "before 2026-11-01T00:00:00Z", "driver=550.."
};

/// `text` is a date or a KEY=RANGE; `is_before`: the --before side (a date bounds it above).
[[nodiscard]] std::optional<window> parse_window(std::string_view text, bool is_before,
                                                 std::string& why);

} // namespace gpuspec::fleet
