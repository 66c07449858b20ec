#pragma once
/// Expectation rules (specs/expect.json, docs/check.md): for each benchmark, the pass and warn
/// fractions of its reference, plus the thresholds of the other frames and rules. A site file
/// can override any rule or setting.

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpuspec/reports/host_rules.hpp"
#include "gpuspec/reports/outcome.hpp"
#include "gpuspec/reports/reference.hpp"

namespace gpuspec::reports {

/// Version 2: a rule gives the fractions only. Version 1 also named the ceiling that judges a
/// benchmark; each result now carries its reference (reference.hpp), and a version 1 file is
/// rejected with a message saying how to change it.
inline constexpr const char* expectations_schema_version = "gpuspec.expect.v2";

struct expectation_rule {
  std::string pattern; ///< bench id, exact or with '*' wildcards: "memory.stream.*"
  /// Axis conditions: the rule matches a result only if each named axis holds one of the
  /// listed values ("memory": ["pinned"], "size": ["256 MiB", "1 GiB"]). Empty: any result of
  /// the pattern. A result that no rule matches is not judged (an informational figure).
  std::vector<std::pair<std::string, std::vector<std::string>>> axes;
  double pass = 0.85; ///< fraction of the result's reference at or above: pass
  double warn = 0.75; ///< at or above (and below pass): warn; below: fail
  /// Reported, not judged: the figure is shown with its efficiency, and its verdict is
  /// `skipped` with `why` (latency-bound sizes, pageable copies). Findings from its telemetry
  /// and a failed verification still count.
  bool informational = false;
  std::string why; ///< the justification, for people
  int layer = 0;   ///< 0 for the base file, 1 for a site file: higher layers win
};

struct expectation_settings {
  double sibling_threshold = 0.05;  ///< below the siblings' median by more than this
  double outlier_z = -3.5;          ///< modified z-score bound (siblings and fleet)
  int fleet_min_reports = 10;       ///< reports of one model for the fleet frame
  double baseline_tolerance = 0.05; ///< pass within this of the baseline median
  double low_clock_fraction = 0.10; ///< telemetry samples under 75% SM clock, above: diagnosed
  double mem_clock_fraction = 0.95; ///< median memory clock under this x max: diagnosed
  double max_plausible_temperature_c = 200; ///< at or above: telemetry impossible
  /// A result above its clock-adjusted ceiling by more than this (and 3 x its own cv) is
  /// impossible: the timer saw less work than was done.
  double impossible_margin = 0.03;
  /// The site's temperature limit: a result whose telemetry peaked at or above it warns.
  int temperature_limit_c = default_temperature_limit_c;
  /// A result whose median SM clock is under this fraction of identical siblings' warns.
  double sibling_clock_fraction = 0.80;
  /// SW power capping is named as a cause only when the limit is below its default or the
  /// draw peaked under this fraction of the limit (capping at full draw is normal).
  double power_draw_fraction = 0.90;
  /// Corrected ECC errors during the run at or above this count warn (a storm).
  int ecc_corrected_storm = 100;
  /// A carried datasheet ceiling further than this (relative) from the spec table's is stale
  /// or edited: the spec table's judges.
  double datasheet_tolerance = default_datasheet_tolerance;
  /// Burn-in (docs/burnin.md; an initial policy, like the fractions): throughput of the last
  /// intervals below the first ones' by more than `burnin_drift_warn` warns, by more than
  /// `burnin_drift_fail` fails.
  double burnin_drift_warn = 0.05;
  double burnin_drift_fail = 0.15;
  /// A burn-in busy for less than this fraction of its --duration did too little work:
  /// inconclusive.
  double burnin_min_busy_fraction = 0.5;
  /// A burn-in whose power never rose above its idle power by this fraction did not load the
  /// GPU: inconclusive.
  double burnin_idle_power_margin = 0.10;
  /// The shortest burn-in that can pass (initial policy, for acceptance, to be revisited once
  /// burn-ins of real GPUs are on record): a burn-in that loaded its GPU for less than this is
  /// reported, and judged inconclusive, never passed. 10 minutes is ten of the burn-in's
  /// 45 s GEMM + 15 s memory-test cycles (docs/burnin.md).
  double burnin_min_duration_s = 600;
  friend bool operator==(const expectation_settings&, const expectation_settings&) = default;
};

struct expectations {
  expectation_settings settings;
  std::vector<expectation_rule> rules;

  /// The rule for a result (its bench id and axes): the highest layer first, then the most axis
  /// conditions, then the most specific pattern (the most literal characters); nullptr when
  /// none matches.
  [[nodiscard]] const expectation_rule* find(std::string_view bench_id,
                                             const nlohmann::ordered_json& axes = {}) const;
};

/// True when `bench_id` matches `pattern` ('*' matches any run of characters, dots included).
[[nodiscard]] bool pattern_matches(std::string_view pattern, std::string_view bench_id);

/// Parses a base file: every rule field but `why` required, settings optional (defaults above).
[[nodiscard]] outcome<expectations> parse_expectations(const nlohmann::ordered_json& j,
                                                       std::string_view file);
/// Merges a site file over `base`: a rule whose pattern is already there may give only the
/// fields it changes; a new pattern needs pattern, pass and warn; settings given replace the
/// base's.
/// Site rules get layer base+1, so they win over any base rule they match.
[[nodiscard]] outcome<expectations> merge_expectations(const expectations& base,
                                                       const nlohmann::ordered_json& site,
                                                       std::string_view file);
/// Reads and parses (missing, empty, non-JSON files are errors naming the file).
[[nodiscard]] outcome<expectations> load_expectations(const std::filesystem::path& file);
[[nodiscard]] outcome<expectations> load_expectations(const std::filesystem::path& file,
                                                      const expectations& base);

} // namespace gpuspec::reports
