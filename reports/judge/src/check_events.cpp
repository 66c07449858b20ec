// The events during a result (Xids, ECC errors, clock changes): judged whatever the result's
// verdict, and counted once with the GPU's own counters.
#include "check_frames.hpp"

namespace gpuspec::reports::inline judge::check_detail {

/// The events during the result (event_rules.hpp), whatever its verdict: an Xid during a
/// failed or skipped result is what explains it. A finding worse than the verdict sets it and
/// leads the message; the catalog's benign Xids are noted in the message.
void node_checker::add_event_findings(result_verdict& v, const result& r,
                                      node_verdict& node) const {
  // An event on a GPU the report does not list, or that the result did not run on, is a
  // contradiction: it is named, and the other events are still judged.
  std::optional<result> trusted;
  for (std::size_t k = 0; k < r.events.size(); ++k) {
    const int gpu = r.events[k].device;
    const bool listed = device(gpu) != nullptr;
    if (listed && std::find(r.devices.begin(), r.devices.end(), gpu) != r.devices.end())
      continue;
    const std::string field = fmt::format("results[{}].events[{}].device", v.result_index, k);
    const std::string why = listed ? fmt::format("GPU {} is not one of the result's GPUs ({})", gpu,
                                                 gpus_text(r.devices))
                                   : fmt::format("GPU {} is not in devices[]", gpu);
    if (worst(v.status, verdict_status::inconclusive) != v.status) {
      v.status = verdict_status::inconclusive;
      v.message = fmt::format("{}: {}", field, why);
    }
    v.diagnoses.push_back(
        inconsistent(field, why, r.devices.empty() ? nullptr : device(r.devices.front())));
    if (!trusted)
      trusted = r;
  }
  if (trusted)
    std::erase_if(trusted->events, [&](const gpu_event& e) {
      return device(e.device) == nullptr ||
             std::find(r.devices.begin(), r.devices.end(), e.device) == r.devices.end();
    });
  auto judged = judge_events(m_report, trusted ? *trusted : r);
  for (auto& d : judged.findings) {
    if (diagnosis* counted = counted_by_counters(d, node)) {
      // The GPU's counters already hold these errors: one diagnosis for one GPU, which now
      // also says when NVML saw them; the result notes where.
      merge_event_into(*counted, d, r);
      v.message +=
          fmt::format("{}{} (counted once, in GPU {}'s {} from its counters)",
                      v.message.empty() ? "note: " : "; note: ", d.cause, *d.device, d.code);
      continue;
    }
    if (worst(v.status, d.severity) != v.status) {
      v.status = d.severity;
      v.message = v.message.empty() ? d.cause : d.cause + "; " + v.message;
    }
    v.diagnoses.push_back(std::move(d));
  }
  for (const auto& note : judged.notes)
    v.message += (v.message.empty() ? "note: " : "; note: ") + note;
}

/// The GPU's own ECC diagnosis from its counters that an ECC event finding repeats (the
/// counter's delta and NVML's event are two sightings of the same errors); nullptr when the
/// counters did not see them, or for any other finding.
diagnosis* node_checker::counted_by_counters(const diagnosis& d, node_verdict& node) const {
  if (!d.device || (d.code != "GPUSPEC-ECC-UNCORRECTED" && d.code != "GPUSPEC-ECC-CORRECTED-STORM"))
    return nullptr;
  const auto pos = m_gpu_pos.find(*d.device);
  if (pos == m_gpu_pos.end())
    return nullptr;
  auto& list = node.gpus[pos->second].diagnoses;
  const auto it = std::find_if(list.begin(), list.end(), [&](const diagnosis& g) {
    return g.code == d.code && std::any_of(g.evidence.begin(), g.evidence.end(), [](const auto& e) {
             return e.first.starts_with("counters_delta.");
           });
  });
  return it == list.end() ? nullptr : &*it;
}

void node_checker::merge_event_into(diagnosis& counted, const diagnosis& event, const result& r) {
  const auto count = [](const diagnosis& x) {
    const auto it = x.evidence.find("event.count");
    return it == x.evidence.end() ? 0L : std::stol(it->second);
  };
  counted.evidence["event.count"] = std::to_string(count(counted) + count(event));
  if (!counted.evidence.contains("event.bench_id")) {
    counted.evidence["event.bench_id"] = r.bench_id;
    if (const auto t = event.evidence.find("event.time_s"); t != event.evidence.end())
      counted.evidence["event.time_s"] = t->second;
  }
  counted.cause += "; the run's events saw them too: " + event.cause;
}

/// A multi-node result whose telemetry some ranks could not sample (collectives/mpi
/// rank_merge.hpp): judged by the ranks that did, and the others named in a note.
void node_checker::add_telemetry_notes(result_verdict& v, const result& r) {
  const auto it = r.observations.find("telemetry_missing");
  if (it == r.observations.end() || !it->is_array() || it->empty())
    return;
  for (const auto& m : *it)
    if (m.is_string())
      v.message += (v.message.empty() ? "note: no telemetry from " : "; note: no telemetry from ") +
                   m.get<std::string>();
}

} // namespace gpuspec::reports::judge::check_detail
