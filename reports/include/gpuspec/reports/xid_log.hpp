#pragma once
/// The NVIDIA driver's Xid lines in a kernel log, parsed: which GPU (PCI address), which Xid,
/// the rest of the message, and when. Pure functions over text: the reading is
/// benches/host/kernel_log.hpp's. A line that is not a whole Xid line (truncated, garbled, some
/// other message) gives nothing, never a guess.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuspec::reports {

/// A PCI function's address without its function number: what the driver's Xid line names
/// ("PCI:0000:3b:00") and what NVML's bus id ("00000000:3B:00.0") holds, made comparable.
struct pci_address {
  std::uint32_t domain = 0;
  unsigned bus = 0, device = 0;
  friend bool operator==(const pci_address&, const pci_address&) = default;
};

/// "0000:3b:00", "PCI:0000:3b:00", "00000000:3B:00.0", "0000:3b:00.0" (hex, any case; a domain
/// of up to 8 digits, bus and device of up to 2, an optional ".function"); nullopt otherwise.
[[nodiscard]] std::optional<pci_address> parse_pci_address(std::string_view text);

/// One "NVRM: Xid (PCI:0000:3b:00): 79, pid=..., GPU has fallen off the bus." line.
struct xid_event {
  std::string pci_bus_id; ///< as the line writes it, without "PCI:" ("0000:3b:00")
  std::optional<pci_address> address;
  int xid = 0;
  std::string text; ///< the rest of the message, after the Xid number
  /// Seconds since boot, from /dev/kmsg's record header or dmesg's "[ 5107.644336]".
  std::optional<double> seconds_since_boot;
  /// What stood before "NVRM:" when it was not a monotonic time (a syslog or journal date),
  /// trimmed; "" otherwise.
  std::string time_text;
};

/// The Xid of one kernel-log line, in any of the forms the log is read in: a /dev/kmsg record
/// ("4,1234,5107644336,-;NVRM: Xid ..."), dmesg's ("[ 5107.644336] NVRM: Xid ..."), or a
/// journal or syslog line ("May 18 19:02:39 host kernel: NVRM: Xid ..."). nullopt for any other
/// line, and for one cut short before the comma that ends the Xid number.
[[nodiscard]] std::optional<xid_event> parse_xid_line(std::string_view line);

/// Every Xid line of a log, in order (lines split on '\n'; '\r' and NUL bytes tolerated).
[[nodiscard]] std::vector<xid_event> parse_xid_log(std::string_view log);

} // namespace gpuspec::reports
