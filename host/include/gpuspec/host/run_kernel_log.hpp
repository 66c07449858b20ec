#pragma once
/// The kernel log since the run started (issue 12): the driver's Xid lines written after the
/// run's start, mapped to the report's GPUs by PCI bus id, as events (`source: "kernel_log"`) of
/// the results they happened during. NVML's event set sees the Xids the driver raises through
/// it; the log also holds those written while no event set was open (between workers, before a
/// worker registered), and it is the record an operator will be shown.
///
/// Where they go, and why: into `results[].events`, beside NVML's, rather than a key of their
/// own, so one rule judges an Xid whichever way it was seen and every Xid is held against the
/// result (and so the GPU) it hit. An Xid outside every window of its GPU (during a case's
/// setup or between cases) goes to the result of that GPU whose window is nearest, and its
/// detail says so. A GPU with no result, and a line with no monotonic time (a syslog or journal
/// date) cannot be placed: they are notes.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuspec/reports/judge/xid_log.hpp"
#include "gpuspec/reports/model/report.hpp"

namespace gpuspec::host {

struct kernel_log_placement {
  std::size_t placed = 0;         ///< Xid lines added to results as events
  std::vector<std::string> notes; ///< lines after the run's start that could not be placed
};

/// Adds the Xid lines of `log` timed within the run's window, at or after
/// `run_start_since_boot_s` (the run's clock origin in seconds of CLOCK_MONOTONIC, which is what
/// the kernel log's timestamps count, up to the kernel's clock drift) and at or before
/// `run_end_since_boot_s` when given, to `r`'s results, with `time_s` on the run's clock. Only
/// the log's last boot is read (a saved log that spans reboots: parse_kernel_log; `span` says
/// whether the log can span several); a log that is not text places nothing, and says so.
kernel_log_placement place_kernel_log_xids(reports::report& r, std::string_view log,
                                           double run_start_since_boot_s,
                                           std::optional<double> run_end_since_boot_s = {},
                                           reports::log_span span = reports::log_span::saved);

} // namespace gpuspec::host
