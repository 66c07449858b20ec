#pragma once
/// `gpuspec diff OLD NEW`: what changed between two reports of the same machine, inventory
/// first, then each metric judged against the noise both runs measured (docs/diff-compare.md).
/// Pure functions: no I/O.

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpuspec/reports/report.hpp"
#include "gpuspec/reports/significance.hpp"
#include "gpuspec/reports/text_format.hpp"

namespace gpuspec::reports {

struct diff_options {
  /// Significance level of the two-sided Mann–Whitney U test.
  double alpha = 0.01;
  /// Smallest |relative change of the median| that counts as a change at all.
  double min_effect = 0.02;
  /// A significant regression at least this large fails; smaller ones warn.
  double fail_threshold = 0.05;
};

/// How GPUs of the two reports are paired: the first key that every GPU of both reports has,
/// non-empty and unique within its report.
enum class device_key { serial, uuid, index };

/// One GPU of either report, paired by `key`.
struct device_match {
  std::string identity;         ///< "serial 1324…", "uuid GPU-…", "index 3"
  std::string name;             ///< the newer name where both exist
  std::optional<int> old_index; ///< NVML index in OLD; nullopt: not in OLD
  std::optional<int> new_index; ///< NVML index in NEW; nullopt: not in NEW
  friend bool operator==(const device_match&, const device_match&) = default;
};

/// One inventory field that differs. `scope` is "host" or a GPU's identity.
struct inventory_change {
  std::string scope;
  std::string field;                ///< "driver_version", "vbios", "power_limit_w", "index", ...
  std::string old_value, new_value; ///< "" when unknown or absent
  friend bool operator==(const inventory_change&, const inventory_change&) = default;
};

enum class change_kind {
  unchanged,        ///< no significant change of at least min_effect
  improved,         ///< significant, at least min_effect, in the good direction
  regression,       ///< significant, at least min_effect, in the bad direction
  noisy_regression, ///< at least fail_threshold in the bad direction, but not significant
  failed,           ///< ok in OLD, not ok in NEW
  recovered,        ///< not ok in OLD, ok in NEW
  not_compared,     ///< neither side ok: nothing to compare
  missing_in_new,   ///< in OLD only
  new_in_new,       ///< in NEW only
};

struct metric_diff {
  std::string bench_id;
  nlohmann::ordered_json parameters = nlohmann::ordered_json::object();
  std::string metric, unit;
  bool higher_is_better = true;
  std::string device; ///< the GPU identities the result ran on, joined by ","
  std::vector<int> old_devices, new_devices; ///< NVML indices on each side
  std::optional<double> old_median, new_median;
  std::int64_t old_n = 0, new_n = 0;
  std::optional<double> relative_change; ///< (new - old) / |old|; nullopt when not computable
  std::optional<double> p_value;         ///< nullopt when no test was made
  mann_whitney_method method = mann_whitney_method::none;
  change_kind kind = change_kind::unchanged;
  check_status verdict = check_status::pass; ///< skipped for not_compared
  std::string note;                          ///< a sentence saying why
};

struct diff_output {
  diff_options options;
  std::string old_label, new_label; ///< hostnames and start times, for headings
  device_key key = device_key::index;
  std::vector<device_match> devices;
  std::vector<inventory_change> inventory;   ///< host first, then each GPU; informational
  std::vector<metric_diff> metrics;          ///< OLD's order, then results only in NEW
  check_status verdict = check_status::pass; ///< worst over metrics and GPUs (never skipped)
};

/// Compares two reports. Results are paired by (bench_id, parameters, metric, GPU identity).
///
/// Each metric pair: p from mann_whitney_u(old samples, new samples) (no test when either side
/// has fewer than 2 samples); relative change of the median r = (new - old) / |old|;
/// regression amount g = -r when higher is better, else r. Then, in order:
///  - not ok on either side: failed (fail) / recovered (pass) / not_compared (skipped);
///  - old median 0 and new median not 0: not_compared, warn (no relative change exists);
///  - p < alpha and |r| >= min_effect: g >= fail_threshold -> regression, fail;
///    g > 0 -> regression, warn; else improved, pass;
///  - g >= fail_threshold without significance (noisy or untested) -> noisy_regression, warn;
///  - else unchanged, pass.
/// In OLD only: missing_in_new, warn. In NEW only: new_in_new, pass. A GPU of OLD absent from
/// NEW: warn. Inventory changes are listed and do not change the verdict.
/// Throws std::invalid_argument for options out of range (alpha not in (0, 1), min_effect < 0,
/// fail_threshold < min_effect).
[[nodiscard]] diff_output diff_reports(const report& old_report, const report& new_report,
                                       const diff_options& options = {});

[[nodiscard]] std::string_view to_string(change_kind k);
[[nodiscard]] std::string_view to_string(device_key k);

/// Machine-readable form ("gpuspec.diff.v1"): stable key order; every key present.
[[nodiscard]] nlohmann::ordered_json to_json(const diff_output& d);
/// A Markdown document: inventory table, GPU pairing, metrics table, verdict.
[[nodiscard]] std::string to_markdown(const diff_output& d);

} // namespace gpuspec::reports
