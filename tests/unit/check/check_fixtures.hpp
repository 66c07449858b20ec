#pragma once
/// Reports built in code for the check tests, the way the harness writes them: a healthy stock
/// DGX H200 (8 x H200 141 GB, 2 TB of host RAM) with the shipped spec table's H200 row, its
/// ceilings from host/ceilings.hpp and its host checks from reports/host_rules.hpp, and
/// degraded variants, at least one per reason code. The measured figures are synthetic (round
/// fractions of the datasheet, no GPU was run): none is a measurement. tests/fixtures/check
/// holds these reports as save_report writes them, and a test keeps the two identical.

#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "gpuspec/reports/judge/verdict.hpp"
#include "gpuspec/reports/model/report.hpp"
#include "gpuspec/reports/model/spec_table.hpp"

namespace gpuspec::reports::testing {

/// The shipped spec table (specs/gpus.json), whose H200 row the reports match.
[[nodiscard]] spec_table synthetic_specs();

/// Eight H200s, STREAM copy and triad at 4300 and 4350 GB/s (90% of the datasheet's 4800),
/// cuBLASLt fp16_tc 8192^3 at 700 TFLOP/s (71% of 989.5, power-capped at the default limit as
/// such GEMMs run), clean counters and telemetry, every host check passing. `scale` multiplies
/// every measured value (the fleet tests vary it slightly); `hostname` names the node.
[[nodiscard]] report healthy_report(const std::string& hostname = "dgx-h200-synthetic",
                                    double scale = 1.0);

/// healthy_report() after a 12-minute burn-in on every GPU (burnin.gemm results with clean
/// records: equal checksums, no bad word, flat throughput, a memory pass every minute).
[[nodiscard]] report healthy_burnin_report();
/// The same burn-in lasting `seconds` (`--duration`): under 45 s it has no memory pass.
[[nodiscard]] report burnin_report(double seconds);
/// Appends that burn-in's results to `r` (suite "burnin"), 12 minutes unless told.
void add_burnin(report& r, double seconds = 720);

/// Gives the first result of GPU `device` the events NVML would deliver during its window, made
/// by the worker's own conversion (host nvml_events.hpp to_report_events): each an NVML
/// event type with its data (the Xid of an Xid event), spread over the window.
void add_nvml_events(report& r, int device,
                     const std::vector<std::pair<gpu_event_type, std::uint64_t>>& events);

/// Appends GPU `dev`'s host transfers (transfer.h2d and .d2h; pinned, copy engines, 256 MiB) as
/// benches/families/transfer.cpp and the harness write them, at the GB/s given, with NVML's
/// link under load `gen` x `width` in their telemetry and observations, and the ceiling
/// host/pcie_link.hpp attaches (the link the GPU and its slot can reach).
void add_transfers(report& r, int dev, double h2d_gbs, double d2h_gbs, int gen, int width);

/// Multiplies the measured values of one GPU's results (samples, stats, efficiency).
void scale_device_results(report& r, int device, double factor);

/// One NCCL collective over GPUs 0..ranks-1 of a healthy_report(), as
/// benches/families/collective.cpp writes it (fp32, out of place; its observations, the link
/// ceiling of host/collective_ceiling.hpp, #wrong, telemetry merged by worst GPU).
struct collective_case {
  std::string kind = "all_reduce";
  std::string size = "1GiB";
  int ranks = 8;
  /// The busbw to write: 360 GB/s is 80% of the H200's 450 GB/s per direction (synthetic).
  double busbw_gbs = 360;
  std::vector<std::string> transports = {"P2P", "NVLS"};
  std::vector<std::int64_t> wrong_per_rank; ///< empty: none wrong
  /// Set: the collective timed out with these ranks not arrived (no samples).
  std::optional<std::vector<int>> timed_out_ranks;
  /// The GPUs' spec row for the ceiling; nullptr: the H200 row of healthy_report().
  const gpu_spec* row = nullptr;
};
[[nodiscard]] result collective_result(const report& r, const collective_case& c);

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

/// Every diagnosis of the outcome as "CODE@gpu" ("CODE@node" for the node's own).
[[nodiscard]] std::set<std::string> diagnosis_codes(const check_outcome& o);

/// Those codes, then the first node's first eight results that neither pass nor skip: what a
/// failed expectation prints.
[[nodiscard]] std::string findings_summary(const check_outcome& o);

} // namespace gpuspec::reports::testing
