// A report as rows (record.hpp): judged by check, one node at a time, then laid out.

#include "gpuspec/fleet/record.hpp"

#include <cstdint>
#include <map>
#include <set>

#include <fmt/format.h>

#include "gpuspec/reports/judge/check.hpp"
#include "gpuspec/reports/judge/multi_node.hpp"
#include "gpuspec/reports/model/identity.hpp"
#include "gpuspec/reports/model/report_json.hpp"
#include "gpuspec/reports/model/units.hpp"

namespace gpuspec::fleet {

namespace {

using namespace gpuspec::reports;

std::string joined(const std::set<std::string>& codes) {
  return fmt::format("{}", fmt::join(codes, ","));
}

void add_codes(std::set<std::string>& out, const std::vector<diagnosis>& diagnoses) {
  for (const auto& d : diagnoses)
    out.insert(d.code);
}

std::string gpu_key_of(const device_info& d, const std::string& node) {
  if (!d.serial.empty())
    return d.serial;
  if (!d.uuid.empty())
    return "uuid:" + d.uuid;
  return fmt::format("{}/{}", node, d.index);
}

stack_info stack_of(const report& r) {
  return {r.host.driver_version, r.host.cuda_driver_version, r.host.cuda_runtime_version,
          r.host.cublas_version, r.host.nccl_version,        r.run.tool_version};
}

/// One GPU's row from its inventory and check's verdict of it.
gpu_row gpu_row_of(const device_info& d, const gpu_verdict* v, const std::string& node) {
  gpu_row g;
  g.gpu_key = gpu_key_of(d, node);
  g.index = d.index;
  g.serial = d.serial;
  g.uuid = d.uuid;
  g.bus_id = d.pci_bus_id;
  g.vbios = d.vbios;
  g.model = v && !v->spec_id.empty() ? v->spec_id : d.name;
  g.verdict = std::string(to_string(v ? v->status : verdict_status::skipped));
  return g;
}

result_row result_row_of(const result& res, const result_verdict& v, std::size_t gpu) {
  result_row row;
  row.result_index = v.result_index;
  row.gpu = gpu;
  row.bench_id = res.bench_id;
  row.axes = res.axes.dump();
  // A MIG device's result is its own case: never paired with a whole GPU's or another
  // profile's (docs/mig.md).
  row.case_key = case_key(res) + mig_key(res);
  row.metric = res.metric;
  row.unit = std::string(to_string(res.unit));
  row.status = std::string(to_string(res.status));
  row.reason = res.reason;
  row.higher_is_better = res.higher_is_better;
  if (res.status == result_status::ok)
    row.value = res.stats.median;
  row.reference = v.frame;
  row.reference_value = v.expected;
  row.efficiency = v.efficiency;
  row.verdict = std::string(to_string(v.status));
  std::set<std::string> codes;
  add_codes(codes, v.diagnoses);
  row.reason_codes = joined(codes);
  row.samples = res.samples;
  return row;
}

/// The node a report is filed under: its hostname; a report with none (a foreign tool's log that
/// names no host, docs/import.md) is a node of its own, named by its run, so that two such logs
/// never share a node or a GPU key ("<node>/<index>") they cannot be shown to share.
std::string filed_node(const report& node_report, const std::string& run_id) {
  return node_report.host.hostname.empty() ? unnamed_node_prefix + run_id
                                           : node_report.host.hostname;
}

node_record node_of(const report& node_report, const node_verdict& v, const std::string& node) {
  node_record n;
  n.node = node;
  n.stack = stack_of(node_report);
  n.verdict = std::string(to_string(v.status));
  std::map<int, std::size_t> by_index;
  std::map<int, std::set<std::string>> gpu_codes;
  for (const auto& d : node_report.devices) {
    const gpu_verdict* gv = nullptr;
    for (const auto& g : v.gpus)
      if (g.index == d.index)
        gv = &g;
    by_index[d.index] = n.gpus.size();
    n.gpus.push_back(gpu_row_of(d, gv, n.node));
    if (gv)
      add_codes(gpu_codes[d.index], gv->diagnoses);
  }
  for (const auto& rv : v.results) {
    const result& res = node_report.results.at(rv.result_index);
    for (const int d : res.devices) {
      const auto it = by_index.find(d);
      if (it == by_index.end())
        continue; // a GPU the inventory does not list: no identity to file it under
      n.results.push_back(result_row_of(res, rv, it->second));
      add_codes(gpu_codes[d], rv.diagnoses);
    }
  }
  std::set<std::string> node_codes;
  add_codes(node_codes, v.diagnoses);
  for (auto& g : n.gpus) {
    g.reason_codes = joined(gpu_codes[g.index]);
    node_codes.insert(gpu_codes[g.index].begin(), gpu_codes[g.index].end());
  }
  n.reason_codes = joined(node_codes);
  return n;
}

} // namespace

std::string run_id_of(const std::string& canonical) {
  std::uint64_t h = 14695981039346656037ULL; // FNV-1a, 64 bits
  for (const unsigned char c : canonical) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return fmt::format("{:016x}", h);
}

std::string canonical_text(const report& r) {
  return to_json(r).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

run_record record_of(const report& r, std::string canonical, const spec_table& specs,
                     const expectations& rules) {
  run_record out;
  out.run_id = run_id_of(canonical);
  out.canonical = std::move(canonical);
  out.report_schema = r.schema;
  out.hostname = r.host.hostname;
  out.started_utc = r.run.started_utc;
  out.finished_utc = r.run.finished_utc;
  out.at_utc = r.run.started_utc.empty() ? r.run.finished_utc : r.run.started_utc;
  out.suite = r.run.suite;
  out.complete = r.complete;
  out.gpuspec_version = r.run.tool_version;
  verdict_status worst_status = verdict_status::skipped;
  for (const auto& node_report : reports_by_node(r)) {
    const auto outcome = check(node_report, specs, rules);
    for (const auto& v : outcome.nodes) {
      out.nodes.push_back(node_of(node_report, v, filed_node(node_report, out.run_id)));
      worst_status = worst(worst_status, v.status);
    }
  }
  out.verdict = std::string(to_string(worst_status));
  return out;
}

} // namespace gpuspec::fleet
