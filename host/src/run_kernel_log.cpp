// The kernel log's Xids since the run started, placed in the report's results
// (run_kernel_log.hpp).

#include "gpuspec/host/run_kernel_log.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "gpuspec/reports/judge/xid_log.hpp"

namespace gpuspec::host {
namespace {

/// 0 inside [start, end], else the distance to the nearer end.
double distance_to_window(const reports::telemetry_summary& t, double time_s) {
  if (time_s < *t.window_start_s)
    return *t.window_start_s - time_s;
  if (time_s > *t.window_end_s)
    return time_s - *t.window_end_s;
  return 0;
}

/// The result an Xid at `time_s` on GPU `gpu` goes with, and how far from its window it lies.
struct xid_holder {
  reports::result* result = nullptr; ///< null: the GPU has no result
  double distance_s = 0;             ///< 0 inside the window
  bool windowless = false;           ///< the result has no measurement window
};

/// The result of `gpu` whose window is nearest to `time_s`; with no measured window on that
/// GPU (it was lost, or its worker failed to start), the GPU's first result all the same, which
/// is what the Xid explains.
xid_holder nearest_result(reports::report& r, int gpu, double time_s) {
  const auto on_gpu = [&](const reports::result& res) {
    return std::find(res.devices.begin(), res.devices.end(), gpu) != res.devices.end();
  };
  xid_holder out;
  double best = std::numeric_limits<double>::infinity();
  for (auto& res : r.results) {
    if (!res.telemetry.window_start_s || !res.telemetry.window_end_s || !on_gpu(res))
      continue;
    const double d = distance_to_window(res.telemetry, time_s);
    if (d < best) {
      best = d;
      out.result = &res;
    }
  }
  if (out.result != nullptr) {
    out.distance_s = best;
    return out;
  }
  const auto any = std::find_if(r.results.begin(), r.results.end(), on_gpu);
  if (any != r.results.end()) {
    out.result = &*any;
    out.windowless = true;
  }
  return out;
}

/// The event of Xid `x` on GPU `gpu` at `time_s` on the run's clock, its detail saying where it
/// lies against the window of the result that holds it.
reports::gpu_event kernel_log_event(const reports::xid_event& x, int gpu, double time_s,
                                    const xid_holder& holder) {
  reports::gpu_event e;
  e.time_s = time_s;
  e.device = gpu;
  e.type = reports::gpu_event_type::xid;
  e.xid = x.xid;
  e.source = "kernel_log";
  e.detail = fmt::format(
      "NVRM: Xid (PCI:{}): {}, {}{}", x.pci_bus_id, x.xid, x.text,
      holder.windowless ? std::string(" (the result has no measurement window)")
      : holder.distance_s > 0
          ? fmt::format(" (outside the result's window, {:.3f} s from it)", holder.distance_s)
          : std::string());
  return e;
}

/// Inserts `e` among `events`, kept in time order (after those at the same time).
void insert_in_time_order(std::vector<reports::gpu_event>& events, reports::gpu_event e) {
  const auto at =
      std::upper_bound(events.begin(), events.end(), e.time_s,
                       [](double t, const reports::gpu_event& other) { return t < other.time_s; });
  events.insert(at, std::move(e));
}

} // namespace

kernel_log_placement place_kernel_log_xids(reports::report& r, std::string_view log,
                                           double run_start_since_boot_s,
                                           std::optional<double> run_end_since_boot_s,
                                           reports::log_span span) {
  kernel_log_placement out;
  const auto parsed = reports::parse_kernel_log(log, span);
  if (!parsed.undecodable.empty()) {
    out.notes.push_back(fmt::format("kernel log: {}: the run's Xids are those NVML's event set saw",
                                    parsed.undecodable));
    return out;
  }
  // Only this boot's lines (the log's last boot): a saved log that spans reboots holds earlier
  // boots' lines whose times count from another boot.
  for (const auto& x : parsed.xids) {
    if (!x.seconds_since_boot) {
      out.notes.push_back(fmt::format("kernel log: an Xid {} line without a monotonic time ({}) "
                                      "could not be placed in the run",
                                      x.xid, x.time_text));
      continue;
    }
    if (*x.seconds_since_boot < run_start_since_boot_s)
      continue; // before the run: gpuspec health's business
    if (run_end_since_boot_s && *x.seconds_since_boot > *run_end_since_boot_s)
      continue; // after the run ended: not the run's either
    const double time_s = *x.seconds_since_boot - run_start_since_boot_s;
    const auto gpu = std::find_if(r.devices.begin(), r.devices.end(), [&](const auto& d) {
      return x.address && reports::parse_pci_address(d.pci_bus_id) == x.address;
    });
    if (gpu == r.devices.end()) {
      out.notes.push_back(fmt::format("kernel log: Xid {} at {:.3f} s at PCI {}, which no GPU of "
                                      "the inventory has",
                                      x.xid, time_s, x.pci_bus_id));
      continue;
    }
    const xid_holder holder = nearest_result(r, gpu->index, time_s);
    if (holder.result == nullptr) {
      out.notes.push_back(
          fmt::format("kernel log: Xid {} on GPU {} at {:.3f} s, which has no result to hold it",
                      x.xid, gpu->index, time_s));
      continue;
    }
    insert_in_time_order(holder.result->events, kernel_log_event(x, gpu->index, time_s, holder));
    ++out.placed;
  }
  return out;
}

} // namespace gpuspec::host
