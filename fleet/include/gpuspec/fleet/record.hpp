#pragma once
/// What one report becomes in the database (docs/fleet.md, "Schema"): the run, each node, each
/// GPU, and each result on each of its GPUs, with the verdict `gpuspec check` gives it. A pure
/// function of the report, the spec table and the rules: no I/O.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpuspec/reports/judge/expectations.hpp"
#include "gpuspec/reports/model/report.hpp"
#include "gpuspec/reports/model/spec_table.hpp"

namespace gpuspec::fleet {

/// The software a node ran: what `db compare --before driver=..` selects on.
struct stack_info {
  std::string driver, cuda_driver, cuda_runtime, cublas, nccl, gpuspec_version;
};

struct gpu_row {
  std::string
      gpu_key; ///< the GPU across the fleet: serial, else "uuid:<UUID>", else "<node>/<index>"
  int index = 0;
  std::string serial, uuid, bus_id, model, vbios;
  std::string verdict;      ///< check's GPU verdict: pass, warn, fail, inconclusive, skipped
  std::string reason_codes; ///< the codes of its diagnoses and its results', sorted, ","-joined
};

struct result_row {
  std::size_t result_index = 0; ///< into the node's results (reports_by_node)
  std::size_t gpu = 0;          ///< into node_record::gpus
  std::string bench_id, axes, case_key, metric, unit, status, reason, reference;
  std::optional<double> value; ///< the median; null unless the result is ok
  bool higher_is_better = true;
  std::optional<double> reference_value, efficiency;
  std::string verdict, reason_codes;
  std::vector<double> samples;
};

/// The node of a report that names no host: this prefix and its run id (record_of).
inline constexpr const char* unnamed_node_prefix = "unnamed-";

struct node_record {
  std::string node; ///< the hostname; a report without one: unnamed_node_prefix + its run id
  stack_info stack;
  std::string verdict, reason_codes;
  std::vector<gpu_row> gpus;
  std::vector<result_row> results;
};

struct run_record {
  std::string run_id;        ///< run_id_of(canonical)
  std::string canonical;     ///< the report as the writer writes it, compact
  std::string report_schema; ///< as read ("gpuspec.report.v1" for a version 1 file)
  std::string hostname, started_utc, finished_utc, at_utc, suite, verdict, gpuspec_version;
  bool complete = false;
  std::vector<node_record> nodes;
};

/// The run id: 16 hex digits of the 64-bit FNV-1a hash of the report's canonical text (the
/// writer's compact JSON of what the reader loaded), so that the same report ingested twice,
/// re-indented or copied, is one run, and any other report is another.
[[nodiscard]] std::string run_id_of(const std::string& canonical);

/// The report's canonical text (reports' to_json, compact).
[[nodiscard]] std::string canonical_text(const reports::report& r);

/// Judges the report with `check` (each node of a multi-node report on its own, as check
/// does) and lays it out as rows. `at_utc` is when the run started (else finished).
/// `r.schema` is the version the file was written in (the reader keeps it).
[[nodiscard]] run_record record_of(const reports::report& r, std::string canonical,
                                   const reports::spec_table& specs,
                                   const reports::expectations& rules);

} // namespace gpuspec::fleet
