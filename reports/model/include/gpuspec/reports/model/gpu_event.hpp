#pragma once
/// An event seen while a result was measured (issue 12): an Xid, an ECC error or a clock change
/// that NVML delivered through an event set, or an Xid line of the kernel log. The error
/// counters say how many errors a GPU had before and after the run; an event says when, so the
/// judge can hold it against the result it happened during.

#include <optional>
#include <string>
#include <string_view>

namespace gpuspec::reports::inline model {

enum class gpu_event_type {
  xid,            ///< nvmlEventTypeXidCriticalError, or an "NVRM: Xid" kernel-log line
  ecc_single_bit, ///< nvmlEventTypeSingleBitEccError: corrected
  ecc_double_bit, ///< nvmlEventTypeDoubleBitEccError: uncorrected
  clock_change,   ///< nvmlEventTypeClock
};

[[nodiscard]] std::string_view to_string(gpu_event_type t);
/// The type named `name` (as to_string writes it); nullopt for another word.
[[nodiscard]] std::optional<gpu_event_type> gpu_event_type_from(std::string_view name);

struct gpu_event {
  double time_s = 0; ///< seconds since the run started, on the run's monotonic clock
  int device = 0;    ///< NVML index
  gpu_event_type type = gpu_event_type::xid;
  std::optional<int> xid; ///< the Xid of an xid event; null for the other types
  std::string source;     ///< "nvml" (an event set) or "kernel_log"
  std::string detail;     ///< free text: the kernel-log line, or what NVML said
  friend bool operator==(const gpu_event&, const gpu_event&) = default;
};

} // namespace gpuspec::reports::model
