#pragma once
/// One reference per result (docs/design.md, "Report contract"): which of its ceilings judges a
/// result is decided once, by choose_reference, when the harness fills the result; `check` and
/// `compare` both judge by resolve_reference, which cross-checks a datasheet reference with
/// their own spec table first, so a report cannot lower its own bar.

#include <optional>
#include <string>
#include <string_view>

#include "gpuspec/reports/model/report.hpp"
#include "gpuspec/reports/model/spec_table.hpp"

namespace gpuspec::reports::inline model {

/// A carried datasheet ceiling further than this (relative) from the spec table's is stale or
/// edited; the default of expect.json's datasheet_tolerance and of compare's.
inline constexpr double default_datasheet_tolerance = 0.01;

/// The figures of a spec-table row a datasheet ceiling can stand for, in their own units:
/// "memory_bandwidth_gbs", "pcie_gbs" (per direction, from the row's PCIe generation and
/// width), "nvlink_gbs" (per direction: half the row's nvlink_gbs, which states both directions
/// together), "peaks.<key>" (TFLOP/s; TOPS for int8_tc).
[[nodiscard]] bool is_spec_figure(std::string_view figure);
/// "peaks.fp16_tc" for a peak key the spec table has ("fp16_tc"); "" for one it has not
/// ("int32").
[[nodiscard]] std::string peak_figure(std::string_view key);

/// Per-direction PCIe bandwidth in GB/s of a link (gen 1-6, width lanes); nullopt if unknown.
[[nodiscard]] std::optional<double> pcie_bandwidth_gbs(int gen, int width);

/// A GPU's PCIe link for a ceiling read from the inventory (not under load): the generation at
/// the lower of NVML's GPU maximum and its device-and-system maximum (an idle link downtrains
/// for power saving, so the idle generation would lower the bar), the idle one only where no
/// maximum was read; the width as trained (power saving does not change it), the maximum where
/// it was not read. The rule the harness's peer-copy and collective ceilings and the check's
/// recomputation of them share (host pcie_link.hpp pcie_link_for_ceiling forwards here).
struct pcie_ceiling_link {
  std::optional<int> gen, width;
};
[[nodiscard]] pcie_ceiling_link pcie_link_for_ceiling(const pcie_link& p);

/// The path a peer copy from GPU `src` to GPU `dst` can use, per direction: NVLink (the pair's
/// active links x the source GPU's per-link rate, as `host.topology` carries them) where the
/// pair has any, else the slower of the two GPUs' PCIe links (pcie_link_for_ceiling). nullopt
/// where neither is known. One rule: the harness's ceiling (host p2p_plan.hpp p2p_ceiling) and
/// the check's recomputation of a carried one read it.
struct peer_path {
  double gbs_per_direction = 0;
  bool nvlink = false;
  int nvlink_links = 0;
  double nvlink_link_gbs = 0;
  int slower = -1; ///< PCIe: the GPU whose link is the slower
  int gen = 0, width = 0;
};
[[nodiscard]] std::optional<peer_path>
peer_copy_path(const topology_info& topology, const device_info& src, const device_info& dst);

/// The ceiling of a host transfer (transfer.h2d, .d2h: `directions` 1; .bidir: 2) on a GPU
/// attached by NVLink-C2C (host_rules.hpp is_c2c_attached): the spec row's C2C link, half its
/// c2c_gbs per direction x `directions`, as the datasheet reference; no value (and the source
/// says why) where there is no row or the row states no C2C figure. One definition: the harness
/// attaches it (host pcie_link.hpp) and the check judges by it.
[[nodiscard]] ceiling c2c_transfer_ceiling(const gpu_spec* spec, int directions);

/// The value of `figure` in `row`, in `unit`; capped by the memory roofline (the row's
/// bandwidth x flops / roofline_bytes) when `roofline_bytes` and `flops` are given, as the
/// harness capped it. nullopt when the row lacks the figure or the units do not convert.
[[nodiscard]] std::optional<double>
spec_figure_value(const gpu_spec& row, std::string_view figure, metric_unit unit,
                  std::optional<double> roofline_bytes = std::nullopt,
                  std::optional<double> flops = std::nullopt);

/// The rule, once: a device-memory figure, and a compute figure capped by the memory roofline
/// (a library GEMM), are judged against the datasheet, what the card was sold as; any other
/// figure (an instruction-level or our own kernel's peak, shared memory) against the ceiling at
/// the clock seen during the run, since it measures the pipe and throttling is diagnosed apart.
/// Either falls back to the other where it has no value; none where neither has one.
[[nodiscard]] reference_kind choose_reference(const ceiling& c);

/// The value of the ceiling `c.reference` names; nullopt for none or a missing value.
[[nodiscard]] std::optional<double> reference_value(const ceiling& c);

/// The fraction of `ceiling` that `r`'s median achieved: median / ceiling, or ceiling / median
/// for a figure where lower is better (a latency, whose ceiling is a floor), by fraction_of
/// (fraction.hpp); nullopt without samples, a positive finite ceiling or a positive median.
[[nodiscard]] std::optional<double> fraction_of_ceiling(const result& r,
                                                        std::optional<double> ceiling);

/// The one place a result's efficiencies are derived, once its stats and reference are settled:
/// `efficiency` against the reference (what check and compare judge by), `efficiency_clock_
/// adjusted` against the clock-adjusted ceiling.
void settle_efficiency(result& r);

[[nodiscard]] std::string_view to_string(reference_kind k);
[[nodiscard]] std::optional<reference_kind> reference_kind_from_string(std::string_view s);

/// A result's reference as the check and compare judge by it.
struct judged_reference {
  reference_kind kind = reference_kind::none; ///< after the cross-check
  std::optional<double> value;                ///< in the result's unit
  std::string source;
  /// The spec table's value replaced the report's own datasheet ceiling, which disagreed with it
  /// by more than the tolerance (stale, or edited); `carried` is what the report said.
  bool replaced = false;
  std::optional<double> carried;
  std::string note; ///< a sentence when the reference is not simply the carried one
};

/// The reference of `r` on a GPU whose spec row is `spec` (nullptr: no row matched). A datasheet
/// reference is cross-checked with `spec`: the spec table's figure replaces a carried value
/// further than `tolerance` (relative) from it, and says so; without a spec row the datasheet
/// is not believed and the clock-adjusted ceiling judges, where there is one.
[[nodiscard]] judged_reference resolve_reference(const result& r, const gpu_spec* spec,
                                                 double tolerance);

} // namespace gpuspec::reports::model
