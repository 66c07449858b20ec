#pragma once
/// What `gpuspec health --format kube` publishes on its Kubernetes Node (deploy/kubernetes):
/// labels a scheduler can select on, a summary annotation a person can read, and the taint
/// gpuspec owns. Built here, from the health outcome alone, so that the DaemonSet's script only
/// applies it (kubectl patch, kubectl taint) and every rule of it is unit-tested.
///
/// The rules (docs/deploy.md):
/// - label gpuspec.io/health: pass, warn, fail or unknown (inconclusive: no verdict);
/// - label gpuspec.io/health-reason: the reason code of the drain reason (warn and fail), and
///   removed (null in the merge patch) otherwise;
/// - annotation gpuspec.io/health-summary: compact JSON ("gpuspec.kube-summary.v1"): status,
///   exit code, drain reason, when, the kernel log's state, and every GPU that is not a pass
///   with its reason codes;
/// - taint gpuspec.io/unhealthy:NoSchedule: added on fail (value: the reason code), removed on
///   pass, left as it is on warn and unknown (only a pass is proof that the cause is gone, as
///   the Slurm script resumes only on a pass). A merge patch cannot carry it: a Node's taints
///   are one list, which a patch would replace whole (the GPU operator's taints with it), so it
///   is an argument of `kubectl taint` instead.

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "gpuspec/reports/health/health.hpp"

namespace gpuspec::reports::inline render {

inline constexpr std::string_view kube_health_label = "gpuspec.io/health";
inline constexpr std::string_view kube_reason_label = "gpuspec.io/health-reason";
inline constexpr std::string_view kube_summary_annotation = "gpuspec.io/health-summary";
inline constexpr std::string_view kube_taint_key = "gpuspec.io/unhealthy";

struct kube_publication {
  /// A JSON merge patch (RFC 7386) of the Node: metadata.labels and metadata.annotations.
  nlohmann::ordered_json merge_patch;
  /// The argument of `kubectl taint node NODE ...`: "gpuspec.io/unhealthy=CODE:NoSchedule" to
  /// add, "gpuspec.io/unhealthy:NoSchedule-" to remove, "" to leave the taint as it is.
  std::string taint_argument;
};

/// The publication of `h`; `checked_utc` ("2026-12-02T04:00:00Z", "" to leave it out) says
/// when the check ran.
[[nodiscard]] kube_publication kube_publication_of(const health_outcome& h,
                                                   std::string_view checked_utc);

/// Whether `value` is a valid Kubernetes label value: at most 63 characters, alphanumerics,
/// '-', '_' and '.', beginning and ending with an alphanumeric (or empty).
[[nodiscard]] bool is_kube_label_value(std::string_view value);

} // namespace gpuspec::reports::render
