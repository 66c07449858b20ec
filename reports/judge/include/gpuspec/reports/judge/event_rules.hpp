#pragma once
/// The rules over the events seen during a result (gpu_event.hpp, docs/check.md "Events during
/// the run"): an Xid classified by NVIDIA's Xid catalog (xid_catalog.hpp: the entry's severity,
/// as `gpuspec health` judges it), a double-bit ECC event (fail), single-bit ECC events above a
/// count (warn). Clock changes are recorded, not judged: the telemetry judges clocks. Pure
/// functions over the report model.

#include <cstddef>
#include <string>
#include <vector>

#include "gpuspec/reports/judge/diagnosis.hpp"
#include "gpuspec/reports/model/report.hpp"

namespace gpuspec::reports::inline judge {

/// Single-bit (corrected) ECC events on one GPU during one result above this many warn. An
/// initial policy, not a vendor figure: one corrected error is what ECC is for; a steady stream
/// of them within one benchmark's window is a row about to fail. The counters' own storm rule
/// (ecc_corrected_storm, expect.json) judges the whole run.
inline constexpr std::size_t single_bit_events_warn_above = 10;

/// What the events of `res` say about its GPUs: one diagnosis per Xid number and GPU (with its
/// count), per GPU with a double-bit event, per GPU with too many single-bit events. Events of
/// the catalog's pass severity (an application's own fault, an event to ignore) are not held
/// against the GPU: they come back in `notes`.
struct event_judgement {
  std::vector<diagnosis> findings;
  std::vector<std::string> notes;
};
[[nodiscard]] event_judgement judge_events(const report& r, const result& res);

} // namespace gpuspec::reports::judge
