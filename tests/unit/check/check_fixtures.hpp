#pragma once
/// Reports built in code for the check tests: a healthy node and degraded variants, one per
/// diagnosis rule. Every value is synthetic ("Synthetic GPU A", round figures): none is a
/// measurement. tests/fixtures/check holds these reports as save_report writes them, and a
/// test keeps the two identical.

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "gpuspec/reports/report.hpp"
#include "gpuspec/reports/spec_table.hpp"
#include "gpuspec/reports/verdict.hpp"

namespace gpuspec::reports::testing {

/// The spec row of "Synthetic GPU A": 1000 GB/s, fp32 10 TFLOP/s, PCIe Gen4 x16
/// (tests/fixtures/check/specs.json holds the same row).
[[nodiscard]] spec_table synthetic_specs();

/// Four identical GPUs, STREAM copy and triad at 90% of the datasheet, SGEMM at 85%, clean
/// counters and telemetry, every host check passing. `scale` multiplies every measured value
/// (the fleet tests vary it slightly); `hostname` names the node.
[[nodiscard]] report healthy_report(const std::string& hostname = "synthetic-node",
                                    double scale = 1.0);

/// Multiplies the measured values of one GPU's results (samples, stats, efficiency).
void scale_device_results(report& r, int device, double factor);

struct degraded_variant {
  /// fixture name: "degraded-<name>.json"; the name is the reason code's tail, in lower case,
  /// with "--<what>" after it where one code has several variants
  std::string name;
  std::string code;           ///< the reason code the check must give
  std::optional<int> device;  ///< the GPU it must be given for (none: host-level)
  verdict_status node_status; ///< the node's expected verdict
  std::function<void(report&)> degrade;
};

/// One variant per diagnosis rule, applied to healthy_report().
[[nodiscard]] const std::vector<degraded_variant>& degraded_variants();

struct inconclusive_variant {
  std::string name;          ///< fixture name: "inconclusive-<name>.json"
  std::string code;          ///< the reason code the check must give, severity inconclusive
  std::optional<int> device; ///< the GPU it must be given for (none: the node)
  std::function<void(report&)> degrade;
};
/// Reports no verdict can be reached on: results that did no work, telemetry missing or
/// impossible, impossible results, reports that contradict themselves, a stand-in report, a
/// GPU never measured.
[[nodiscard]] const std::vector<inconclusive_variant>& inconclusive_variants();

/// gtest prints parameters by these (stable test names for CTest's discovery).
inline void PrintTo(const degraded_variant& v, std::ostream* os) { *os << v.name; }
inline void PrintTo(const inconclusive_variant& v, std::ostream* os) { *os << v.name; }

/// The report of a variant: healthy_report() with `degrade` applied.
[[nodiscard]] report build(const std::function<void(report&)>& degrade);

} // namespace gpuspec::reports::testing
