#pragma once
/// The NVIDIA driver's Xid lines in a kernel log, parsed: which GPU (PCI address), which Xid,
/// the rest of the message, and when. Pure functions over text: the reading is
/// host/kernel_log.hpp's. A line that is not a whole Xid line (truncated, garbled, some
/// other message) gives nothing, never a guess.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuspec::reports::inline judge {

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

/// One "NVRM: Xid (PCI:0000:3b:00): 79, pid=..., GPU has fallen off the bus." line. On a MIG
/// GPU the driver names the instance the error is attributed to after the address:
/// "NVRM: Xid (PCI:0000:01:00 GPU-I:05): 94, ..." (and "GPU-CI:02" for a compute instance).
struct xid_event {
  std::string pci_bus_id; ///< as the line writes it, without "PCI:" ("0000:3b:00")
  std::optional<pci_address> address;
  std::optional<int> gpu_instance;     ///< "GPU-I:05": the MIG GPU instance the line names
  std::optional<int> compute_instance; ///< "GPU-CI:02": its compute instance
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

/// Every Xid line of a log, in order (lines split on '\n'; '\r' and NUL bytes tolerated), of
/// every boot the log spans.
[[nodiscard]] std::vector<xid_event> parse_xid_log(std::string_view log);

/// One NVSwitch "SXid" line: "nvidia-nvswitch0: SXid (PCI:0000:c3:00.0): 20009, Non-fatal, Link
/// 28 RX Short Error Rate" (the driver writes the number with five digits, "01004").
struct sxid_event {
  std::string nvswitch;   ///< the name before ": SXid" ("nvidia-nvswitch0"); "" when absent
  std::string pci_bus_id; ///< as the line writes it, without "PCI:"
  std::optional<pci_address> address;
  int sxid = 0;
  bool fatal = false; ///< the message says "Fatal" (not "Non-fatal")
  std::string text;   ///< the rest of the message, after the SXid number
  std::optional<double> seconds_since_boot;
  std::string time_text;
};

/// The SXid of one kernel-log line, in the same forms as parse_xid_line; nullopt otherwise.
[[nodiscard]] std::optional<sxid_event> parse_sxid_line(std::string_view line);

/// A driver message that names a GPU by its PCI address outside an Xid line and says it could
/// not be used: "NVRM: GPU 0000:02:00.0: RmInitAdapter failed! (0x24:0x65:1185)", or the
/// three-line "NVRM: The NVIDIA GPU 0000:b3:00.0 / (PCI ID: 10de:26b5) installed in this system
/// has / fallen off the bus and is not responding to commands." (joined into one text).
struct gpu_bus_message {
  std::string pci_bus_id; ///< as written ("0000:02:00.0")
  std::optional<pci_address> address;
  std::string text;
  std::optional<double> seconds_since_boot;
};

/// A kernel log read as a whole: the boots it spans (a saved `journalctl -k` holds several:
/// "-- Boot <id> --" separator lines, or a second kernel banner), and of the last boot, the
/// current one, the Xid and SXid lines and the GPU messages; the Xid lines of the earlier boots
/// are history. A banner is the kernel's own first message, "Linux version <release>
/// (<user>@<host>) (<compiler>) #...", right after the line's prefix: a process named "Linux
/// version " that crashes makes the kernel write "Linux version [pid]: segfault at ...", which
/// is no boot.
struct kernel_log_parse {
  std::vector<xid_event> xids;               ///< this boot's (the log's last), in order
  std::vector<xid_event> earlier_xids;       ///< the earlier boots' Xid lines, in order
  std::vector<sxid_event> sxids;             ///< this boot's
  std::vector<gpu_bus_message> gpu_messages; ///< this boot's
  std::size_t boots = 1;                     ///< how many boots the log spans (at least 1)
  /// Why the text is not a kernel log that can be read (UTF-16, mostly bytes that are not
  /// text): then nothing above is filled in, and "no Xid line" must not be concluded. "" for a
  /// readable log, an empty one included.
  std::string undecodable;
};

/// What a log can span. /dev/kmsg and dmesg read this boot's ring buffer, and `journalctl -k
/// -b` one boot's journal: they hold one boot by definition, so no line in them starts another
/// (whatever it says). A saved file may hold several.
enum class log_span { one_boot, saved };

[[nodiscard]] kernel_log_parse parse_kernel_log(std::string_view log,
                                                log_span span = log_span::saved);

} // namespace gpuspec::reports::judge
