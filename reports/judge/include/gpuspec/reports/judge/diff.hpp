#pragma once
/// `gpuspec diff OLD NEW`: what changed between two reports of the same machine, inventory
/// first, then each metric judged against the noise both runs measured (docs/diff-compare.md).
/// Pure functions: no I/O.

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpuspec/reports/judge/significance.hpp"
#include "gpuspec/reports/model/identity.hpp"
#include "gpuspec/reports/model/report.hpp"
#include "gpuspec/reports/model/text_format.hpp"

namespace gpuspec::reports::inline judge {

struct diff_options {
  /// The false-discovery rate over the whole comparison: a metric's change is significant when
  /// its Benjamini–Hochberg q-value (over every pair tested) is under this.
  double alpha = 0.01;
  /// Smallest |relative change of the median| that counts as a change at all.
  double min_effect = 0.02;
  /// A significant regression at least this large fails; smaller ones warn.
  double fail_threshold = 0.05;
};

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

/// An observation (what the harness chose or found) that differs between the two results of a
/// pair: context for the change, never a reason not to pair them.
struct observation_change {
  std::string key;
  std::string old_value, new_value; ///< as JSON; "" when absent on that side
  friend bool operator==(const observation_change&, const observation_change&) = default;
};

struct metric_diff {
  std::string bench_id;
  nlohmann::ordered_json axes = nlohmann::ordered_json::object();
  std::string metric;
  metric_unit unit = metric_unit::none; ///< OLD's; NEW's values are converted to it
  bool higher_is_better = true;
  std::string device; ///< the GPU identities the result ran on, joined by ","
  std::vector<int> old_devices, new_devices; ///< NVML indices on each side
  std::optional<double> old_median, new_median;
  std::int64_t old_n = 0, new_n = 0;
  std::optional<double> relative_change; ///< (new - old) / |old|; nullopt when not computable
  std::optional<double> p_value;         ///< nullopt when no test was made
  /// Benjamini–Hochberg adjusted p over every pair tested in this diff; nullopt when untested.
  std::optional<double> q_value;
  mann_whitney_method method = mann_whitney_method::none;
  change_kind kind = change_kind::unchanged;
  check_status verdict = check_status::pass; ///< skipped for not_compared
  std::string note;                          ///< a sentence saying why
  std::vector<observation_change> observations_changed;
};

struct diff_output {
  diff_options options;
  std::string old_label, new_label; ///< hostnames and start times, for headings
  device_key key = device_key::index;
  std::vector<device_match> devices;
  std::vector<inventory_change> inventory; ///< host first, then each GPU; informational
  std::vector<metric_diff> metrics;        ///< OLD's order, then results only in NEW
  std::size_t tested = 0; ///< pairs with a test: the m of the Benjamini–Hochberg correction
  check_status verdict = check_status::pass; ///< worst over metrics and GPUs (never skipped)
};

/// Compares two reports. Results are paired as the same result on the same GPU (identity.hpp:
/// bench id and axes; the device key both reports share). Observations that differ are listed
/// with the pair, as context ("cuBLAS chose another algorithm"), and never split it.
///
/// Each metric pair: NEW's samples converted to OLD's unit (a pair in units of different
/// quantities is not_compared, warn); p from mann_whitney_u(old samples, new samples) (no test
/// when either side has fewer than 2 samples); q, the Benjamini–Hochberg adjusted p over every
/// pair tested (the false-discovery rate over the whole comparison, so 200 metrics do not give
/// two false alarms at alpha 0.01); relative change of the median r = (new - old) / |old|;
/// regression amount g = -r when higher is better, else r. Then, in order:
///  - not ok on either side: failed (fail) / recovered (pass) / not_compared (skipped);
///  - old median 0 and new median not 0: not_compared, warn (no relative change exists);
///  - q < alpha and |r| >= min_effect: g >= fail_threshold -> regression, fail;
///    g > 0 -> regression, warn; else improved, pass;
///  - g >= fail_threshold without significance (noisy or untested) -> noisy_regression, warn;
///  - else unchanged, pass.
/// In OLD only: missing_in_new, warn. In NEW only: new_in_new, pass. A GPU of OLD absent from
/// NEW: warn. Inventory changes are listed and do not change the verdict.
/// Throws std::invalid_argument for options out of range (alpha not in (0, 1), min_effect < 0,
/// fail_threshold < min_effect).
[[nodiscard]] diff_output diff_reports(const report& old_report, const report& new_report,
                                       const diff_options& options = {});

/// Benjamini–Hochberg adjusted p-values (q-values) of `p`, in its order: q_(i) = min over j >= i
/// of m p_(j) / j for the p-values sorted ascending, capped at 1.
[[nodiscard]] std::vector<double> benjamini_hochberg(const std::vector<double>& p);

[[nodiscard]] std::string_view to_string(change_kind k);

/// The exit code of the diff's verdict (docs/design.md, "CLI contract"): 2 fail, 1 warn, else 0.
[[nodiscard]] int exit_code_of(const diff_output& d);
/// The metrics that fail or warn, failures first, each in the diff's order: what a reader is
/// shown first (every layout of a diff opens with them).
[[nodiscard]] std::vector<const metric_diff*> not_passing(const diff_output& d);
/// The GPUs a metric ran on, by NVML index, NEW's where it has them ("0-7", "1,3"; "-": none).
[[nodiscard]] std::string metric_gpus_text(const metric_diff& m);

/// Machine-readable form ("gpuspec.diff.v2"; v1 keyed pairs on every parameter): stable key
/// order; every key present.
[[nodiscard]] nlohmann::ordered_json to_json(const diff_output& d);
/// A Markdown document: inventory table, GPU pairing, metrics table, verdict.
[[nodiscard]] std::string to_markdown(const diff_output& d);

} // namespace gpuspec::reports::judge
