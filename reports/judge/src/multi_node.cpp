// A multi-node report as one report per node (multi_node.hpp).

#include "gpuspec/reports/judge/multi_node.hpp"

#include <algorithm>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpuspec/reports/model/report_names.hpp"

namespace gpuspec::reports::inline judge {
namespace {

/// One rank of a result, from its "ranks" observation (collectives/mpi rank_merge.cpp).
struct rank_of_result {
  int rank = 0;
  std::string host;
  std::optional<int> gpu;
  std::string pci_bus_id, serial, status, failure, reason;
};

std::vector<rank_of_result> ranks_of(const result& r) {
  std::vector<rank_of_result> out;
  const auto it = r.observations.find("ranks");
  if (it == r.observations.end() || !it->is_array())
    return out;
  const auto text = [](const nlohmann::ordered_json& e, const char* key) {
    const auto f = e.find(key);
    return f != e.end() && f->is_string() ? f->get<std::string>() : std::string();
  };
  for (const auto& e : *it) {
    if (!e.is_object())
      continue;
    rank_of_result x;
    if (const auto f = e.find("rank"); f != e.end() && f->is_number_integer())
      x.rank = f->get<int>();
    if (const auto f = e.find("gpu"); f != e.end() && f->is_number_integer())
      x.gpu = f->get<int>();
    x.host = text(e, "host");
    x.pci_bus_id = text(e, "pci_bus_id");
    x.serial = text(e, "serial");
    x.status = text(e, "status");
    x.failure = text(e, "failure");
    x.reason = text(e, "reason");
    out.push_back(std::move(x));
  }
  return out;
}

std::string gpu_name(const rank_of_result& x) {
  return fmt::format("rank {} on {}, GPU {} ({}{})", x.rank, x.host,
                     x.gpu ? std::to_string(*x.gpu) : std::string("?"), x.pci_bus_id,
                     x.serial.empty() ? std::string() : ", serial " + x.serial);
}

std::vector<int> gpus_of(const std::vector<const rank_of_result*>& ranks) {
  std::vector<int> out;
  for (const auto* x : ranks)
    if (x->gpu && std::find(out.begin(), out.end(), *x->gpu) == out.end())
      out.push_back(*x->gpu);
  std::sort(out.begin(), out.end());
  return out;
}

/// The failure a failed rank's entry names; the case's own for a missing rank.
failure_kind failure_of(const rank_of_result& x, const result& r) {
  if (x.status == "missing")
    return r.failure;
  for (const auto& [kind, name] : model::detail::failure_kind_names)
    if (name == x.failure)
      return kind == failure_kind::none ? failure_kind::benchmark : kind;
  return failure_kind::benchmark;
}

/// `r` as node `host` holds it: its GPUs, and the part of a failure that is theirs.
void add_for_node(std::vector<result>& out, const result& r, const std::string& host) {
  const auto all = ranks_of(r);
  std::vector<const rank_of_result*> mine;
  for (const auto& x : all)
    if (x.host == host)
      mine.push_back(&x);
  if (mine.empty())
    return; // this node took no part in it
  result copy = r;
  if (r.status != result_status::failed) {
    copy.devices = gpus_of(mine);
    out.push_back(std::move(copy));
    return;
  }
  std::vector<const rank_of_result*> at_fault, others;
  for (const auto* x : mine)
    (x->status == "failed" || x->status == "missing" ? at_fault : others).push_back(x);
  if (!at_fault.empty()) {
    result failed = r;
    failed.devices = gpus_of(at_fault);
    failed.failure = failure_of(*at_fault.front(), r);
    std::vector<std::string> parts;
    for (const auto* x : at_fault)
      parts.push_back(
          fmt::format("{}: {}", gpu_name(*x),
                      x->status == "missing" ? "never answered (" + r.reason + ")" : x->reason));
    failed.reason = fmt::format("{}", fmt::join(parts, "; "));
    // The verification verdict is the failing rank's: a rank that only timed out checked
    // nothing wrong; a rank with wrong elements is named in it (the check's cause).
    if (failed.failure == failure_kind::verification)
      failed.check.detail = failed.reason;
    else if (failed.check.status == verification_status::failed)
      failed.check = verification{};
    out.push_back(std::move(failed));
  }
  if (!others.empty()) {
    result skipped = r;
    skipped.devices = gpus_of(others);
    skipped.status = result_status::skipped;
    skipped.failure = failure_kind::none;
    skipped.check = verification{};
    skipped.check.detail = "not checked here: the case failed on another GPU";
    skipped.reason = "not judged on this GPU: the case failed elsewhere: " + r.reason;
    out.push_back(std::move(skipped));
  }
}

report node_report(const report& r, const host_info& host, const std::vector<device_info>& devices,
                   const std::vector<int>& run_devices) {
  report out;
  out.schema = r.schema;
  out.run = r.run;
  out.run.devices = run_devices;
  out.host = host;
  out.devices = devices;
  out.complete = r.complete;
  out.incomplete_reason = r.incomplete_reason;
  for (const auto& res : r.results) {
    if (ranks_of(res).empty()) {
      if (&host == &r.host)
        out.results.push_back(res); // not a multi-node result: rank 0's node's
      continue;
    }
    add_for_node(out.results, res, host.hostname);
  }
  return out;
}

} // namespace

std::vector<report> reports_by_node(const report& r) {
  if (r.nodes.empty())
    return {r};
  std::vector<report> out;
  out.reserve(r.nodes.size() + 1);
  out.push_back(node_report(r, r.host, r.devices, r.run.devices));
  for (const auto& n : r.nodes)
    out.push_back(node_report(r, n.host, n.devices, n.run_devices));
  return out;
}

} // namespace gpuspec::reports::judge
