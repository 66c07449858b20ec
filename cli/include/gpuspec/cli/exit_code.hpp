#pragma once
/// Exit codes of the monitoring-plugin convention (docs/design.md, "CLI contract").

namespace gpuspec::cli {

enum class exit_code : int {
  pass = 0,    ///< everything judged fine
  warn = 1,    ///< something to look at
  fail = 2,    ///< a failed verdict
  unknown = 3, ///< no verdict: no GPU, no driver, bad usage, bad input
};

/// What each code means, as the man pages' EXIT STATUS says it (docs/design.md, "CLI contract").
struct exit_code_meaning {
  exit_code code;
  const char* meaning;
};
inline constexpr exit_code_meaning exit_code_meanings[] = {
    {exit_code::pass, "pass: everything judged fine"},
    {exit_code::warn, "warn: something to look at"},
    {exit_code::fail, "fail: a failed verdict (for diff, a significant regression)"},
    {exit_code::unknown, "unknown: no verdict could be reached (no GPU, no driver, NCCL missing, "
                         "bad usage, bad input; the message names the file and the field)"},
};

/// Worst-wins roll-up: unknown only wins over pass (a verdict that was reached outranks it).
[[nodiscard]] constexpr exit_code worst(exit_code a, exit_code b) {
  auto rank = [](exit_code c) {
    switch (c) {
    case exit_code::pass:
      return 0;
    case exit_code::unknown:
      return 1;
    case exit_code::warn:
      return 2;
    case exit_code::fail:
      return 3;
    }
    return 3;
  };
  return rank(a) >= rank(b) ? a : b;
}

[[nodiscard]] constexpr int to_int(exit_code c) { return static_cast<int>(c); }

} // namespace gpuspec::cli
