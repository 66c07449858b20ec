// The rules over a result's events (event_rules.hpp).

#include "gpuspec/reports/judge/event_rules.hpp"

#include <algorithm>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "gpuspec/reports/judge/xid_catalog.hpp"
#include "gpuspec/reports/judge/xid_log.hpp"
#include "gpuspec/reports/model/identity.hpp"

namespace gpuspec::reports::inline judge {
namespace {

std::string where(const gpu_event& e) {
  return fmt::format("at {:.3f} s ({})", e.time_s,
                     e.source == "kernel_log" ? "kernel log" : "NVML event");
}

void judge_xids(const report& r, const result& res, const std::vector<const gpu_event*>& xids,
                event_judgement& out) {
  std::map<std::pair<int, int>, std::vector<const gpu_event*>> by_gpu_and_xid;
  for (const auto* e : xids)
    by_gpu_and_xid[{e->device, e->xid.value_or(0)}].push_back(e);
  for (const auto& [key, list] : by_gpu_and_xid) {
    const auto [device, xid] = key;
    // A kernel-log line says more than the number (a recovery action, an NVLink 5 severity):
    // judged as gpuspec health judges it (the last line that names a recovery action, else the
    // worst line of the group); NVML's event has no text.
    xid_entry e = classify_xid(xid);
    bool first = true;
    for (const auto* x : list) {
      const auto line = x->source == "kernel_log" ? parse_xid_line(x->detail) : std::nullopt;
      const xid_entry judged = line ? classify_xid(xid, line->text) : classify_xid(xid);
      if (line && recovery_action_of(line->text)) {
        e = judged; // the driver's latest word
        first = false;
        continue;
      }
      if (first || worst(e.severity, judged.severity) != e.severity)
        e = judged;
      first = false;
    }
    // NVML's event and the kernel log's line are two sightings of one Xid: count the source
    // that saw more, not both.
    std::map<std::string, std::size_t> per_source;
    for (const auto* x : list)
      ++per_source[x->source];
    std::size_t count = 0;
    for (const auto& [source, n] : per_source)
      count = std::max(count, n);
    const std::string what =
        fmt::format("Xid {} ({}, {}) {} time{} on GPU {} during {}, first {}", xid, e.description,
                    to_string(e.kind), count, count == 1 ? "" : "s", device, res.bench_id,
                    where(*list.front()));
    if (e.severity == verdict_status::pass) {
      out.notes.push_back(what + ": not held against the GPU (" + std::string(e.action) + ")");
      continue;
    }
    auto d =
        make_diagnosis(xid_reason_code(e.kind), e.severity, what, device_of(r, device), r.host);
    d.action = fmt::format("{} (NVIDIA: {}{}{})", e.action, e.immediate_action,
                           e.investigatory_action.empty() ? "" : ", then ", e.investigatory_action);
    d.step = e.step;
    d.evidence["xid"] = std::to_string(xid);
    d.evidence["xid.count"] = std::to_string(count);
    d.evidence["xid.mnemonic"] = std::string(e.mnemonic);
    d.evidence["event.time_s"] = fmt::format("{:.6f}", list.front()->time_s);
    d.evidence["event.source"] = list.front()->source;
    d.evidence["event.detail"] = list.front()->detail;
    d.evidence["bench_id"] = res.bench_id;
    out.findings.push_back(std::move(d));
  }
}

} // namespace

event_judgement judge_events(const report& r, const result& res) {
  event_judgement out;
  std::vector<const gpu_event*> xids;
  std::map<int, std::vector<const gpu_event*>> double_bit, single_bit;
  for (const auto& e : res.events) {
    switch (e.type) {
    case gpu_event_type::xid:
      xids.push_back(&e);
      break;
    case gpu_event_type::ecc_double_bit:
      double_bit[e.device].push_back(&e);
      break;
    case gpu_event_type::ecc_single_bit:
      single_bit[e.device].push_back(&e);
      break;
    case gpu_event_type::clock_change:
      break; // the telemetry judges clocks
    }
  }
  judge_xids(r, res, xids, out);
  for (const auto& [device, list] : double_bit) {
    auto d = make_diagnosis(
        "GPUSPEC-ECC-UNCORRECTED", verdict_status::fail,
        fmt::format("{} double-bit (uncorrectable) ECC event{} on GPU {} during {}, first {}",
                    list.size(), list.size() == 1 ? "" : "s", device, res.bench_id,
                    where(*list.front())),
        device_of(r, device), r.host);
    d.evidence["event.count"] = std::to_string(list.size());
    d.evidence["event.time_s"] = fmt::format("{:.6f}", list.front()->time_s);
    d.evidence["bench_id"] = res.bench_id;
    out.findings.push_back(std::move(d));
  }
  for (const auto& [device, list] : single_bit) {
    if (list.size() <= single_bit_events_warn_above)
      continue;
    auto d = make_diagnosis(
        "GPUSPEC-ECC-CORRECTED-STORM", verdict_status::warn,
        fmt::format("{} single-bit (corrected) ECC events on GPU {} during {} (more than {}, an "
                    "initial policy), first {}",
                    list.size(), device, res.bench_id, single_bit_events_warn_above,
                    where(*list.front())),
        device_of(r, device), r.host);
    d.evidence["event.count"] = std::to_string(list.size());
    d.evidence["event.time_s"] = fmt::format("{:.6f}", list.front()->time_s);
    d.evidence["bench_id"] = res.bench_id;
    out.findings.push_back(std::move(d));
  }
  return out;
}

} // namespace gpuspec::reports::judge
