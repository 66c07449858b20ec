#pragma once
/// What `gpuspec check` concludes (docs/check.md): a verdict for each result, each GPU and each
/// node, and the diagnoses behind every warn and fail. Plain structs; check.hpp fills them,
/// render.hpp prints them.

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpuspec/reports/model/report.hpp"
#include "gpuspec/reports/model/spec_table.hpp"

namespace gpuspec::reports::inline judge {

/// Ordered by severity for the roll-up (docs/design.md, "CLI contract"): skipped < pass < warn <
/// inconclusive < fail. A GPU that could not be judged is worse news than a cosmetic warning,
/// and only a failure is worse than not knowing.
enum class verdict_status { skipped, pass, warn, inconclusive, fail };

/// The remediation ladder operators climb, cheapest first.
enum class remediation { none, rerun, reset_gpu, reboot, reseat_or_service, rma };

[[nodiscard]] std::string_view to_string(verdict_status s);
[[nodiscard]] std::string_view to_string(remediation r);

/// Worst-wins: a node is as bad as its worst GPU, a GPU as its worst check. Inconclusive beats
/// warn, pass and skipped; only fail beats it; skipped is neutral.
[[nodiscard]] constexpr verdict_status worst(verdict_status a, verdict_status b) {
  return static_cast<int>(a) >= static_cast<int>(b) ? a : b;
}

/// The exit code of the monitoring-plugin convention: pass (and all-skipped) 0, warn 1,
/// fail 2, inconclusive 3.
[[nodiscard]] int exit_code_of(verdict_status s);

/// A probable cause and what to do about it.
struct diagnosis {
  std::string code; ///< stable reason code, "GPUSPEC-PCIE-LINK-DEGRADED"
  /// warn or fail; inconclusive for the codes that say no verdict could be reached (a stand-in
  /// report, a GPU never measured, a report that contradicts itself)
  verdict_status severity = verdict_status::warn;
  std::string cause;                    ///< what was seen, with the values
  std::string action;                   ///< what to do
  remediation step = remediation::none; ///< rung of the ladder
  std::optional<int> device;            ///< the GPU (NVML index), none for the host
  /// What an RMA ticket needs: serial, uuid, pci_bus_id, vbios, driver, and the counters or
  /// values the rule read ("counters_delta.ecc.volatile.uncorrected": "3").
  std::map<std::string, std::string> evidence;
};

/// The verdict of one result (one benchmark case on one GPU, or on several for collectives).
struct result_verdict {
  std::size_t result_index = 0; ///< into report.results
  std::string bench_id;
  std::string group;       ///< the bench id without its last part ("memory.stream"); JUnit class
  std::string axes;        ///< what was asked, "dtype=fp32"
  std::string axes_values; ///< the same without the names, "fp32": for a terminal's table
  std::string parameters;  ///< every parameter, axes then observations: for json
  /// What the harness chose or found (the result's observations), one entry each: md's table.
  nlohmann::ordered_json observations = nlohmann::ordered_json::object();
  std::string name; ///< unique within the node: bench id, axes, GPU(s)
  std::vector<int> devices;
  verdict_status status = verdict_status::skipped;
  metric_unit unit = metric_unit::none;
  std::optional<double> measured;   ///< the median, in `unit`
  std::optional<double> expected;   ///< the ceiling the fractions apply to, in `unit`
  std::optional<double> efficiency; ///< measured / expected (inverted when lower is better)
  std::optional<double> pass_fraction, warn_fraction;
  /// "spec" (the datasheet reference, cross-checked with the spec table), "clock_adjusted",
  /// "baseline", "siblings" or "fleet" (a GPU with no spec row, inconclusive against the
  /// datasheet, judged against its identical siblings or the fleet instead), or "" when not
  /// judged
  std::string frame;
  std::string message;
  std::vector<diagnosis> diagnoses;
};

/// The verdict of one GPU: its worst result, and the inventory-level diagnoses.
struct gpu_verdict {
  int index = 0;
  std::string name, uuid, serial, pci_bus_id, spec_id;
  /// False for a GPU of the inventory that the run was told to leave out (`--devices`): its
  /// status is then skipped and nothing is asked of it.
  bool selected = true;
  verdict_status status = verdict_status::skipped;
  std::string message;              ///< why skipped or inconclusive, when it is
  std::vector<diagnosis> diagnoses; ///< from inventory and counters (not result-specific)
};

/// A GPU's verdict before anything is judged: who it is (index, name, UUID, serial, bus id)
/// and its spec-table row's id (`spec`, or the inventory's own spec_id without one).
[[nodiscard]] gpu_verdict gpu_verdict_of(const device_info& d, const gpu_spec* spec);

/// The verdict of one node (one report).
struct node_verdict {
  std::string source; ///< the report's file name; set by the caller, "" from check()
  /// Which of check()'s reports this node's verdict judges: its position, or that of the
  /// multi-node report it is one node of (a report with `nodes` gives one verdict per node).
  std::size_t report_index = 0;
  std::string hostname, driver_version, cuda_driver_version;
  bool complete = true;
  verdict_status status = verdict_status::skipped;
  std::string message; ///< why inconclusive, when it is
  std::vector<result_verdict> results;
  std::vector<gpu_verdict> gpus;
  std::vector<diagnosis> diagnoses; ///< host-level (nouveau, host memory)
};

struct check_outcome {
  std::vector<node_verdict> nodes;
  verdict_status status = verdict_status::skipped; ///< worst over the nodes
  std::vector<std::string> notes; ///< e.g. "fleet frame: 3 reports of h100-sxm5-80gb, needs 10"
};

} // namespace gpuspec::reports::judge
