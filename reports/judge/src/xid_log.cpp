// Parsing the driver's Xid lines (xid_log.hpp). Written for hostile input: every index is
// checked before it is read, numbers are bounded before they are converted, and a line that does
// not have every part gives nothing.

#include "gpuspec/reports/judge/xid_log.hpp"

#include "kernel_log_line.hpp"

#include <algorithm>
#include <charconv>
#include <iterator>
#include <limits>

#include <fmt/format.h>

namespace gpuspec::reports::inline judge {

namespace {

using detail::line_time;
using detail::marker_at_start;
using detail::message_start;
using detail::trim;

constexpr std::string_view xid_marker = "NVRM: Xid (";
constexpr std::string_view sxid_marker = "SXid (";
/// The id between the parentheses: "PCI:0000:3b:00 GPU-I:01 GPU-CI:02" is 33 characters.
constexpr std::size_t max_id_text = 64;
/// Xids are small numbers (the catalog ends in the 170s); more digits than this is not one.
constexpr std::size_t max_xid_digits = 5;

/// A hex field of 1..max_digits digits, the whole of `s`.
std::optional<std::uint32_t> hex_field(std::string_view s, std::size_t max_digits) {
  if (s.empty() || s.size() > max_digits)
    return std::nullopt;
  std::uint32_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 16);
  if (ec != std::errc{} || end != s.data() + s.size())
    return std::nullopt;
  return v;
}

/// Control characters (a garbled log) would break the printers' lines: shown as '?'.
void printable(std::string& text) {
  for (auto& c : text)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      c = '?';
}

/// A decimal of 1..4 digits, the whole of `s` (a MIG instance id).
std::optional<int> small_decimal(std::string_view s) {
  if (s.empty() || s.size() > 4 ||
      !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  int v = 0;
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

/// An id of printable ASCII without spaces (it ends up in labels and file names).
bool printable_word(std::string_view id) {
  return !id.empty() &&
         std::all_of(id.begin(), id.end(), [](char c) { return c > ' ' && c < 0x7f; });
}

/// "): 79, text": the number that follows an id's parenthesis, which must end with a comma (a
/// line cut inside "79" must not read as 7); `rest` is left on the text.
std::optional<int> number_then_comma(std::string_view& rest) {
  rest = trim(rest);
  if (rest.empty() || rest.front() != ':')
    return std::nullopt;
  rest = trim(rest.substr(1));
  std::size_t digits = 0;
  while (digits < rest.size() && rest[digits] >= '0' && rest[digits] <= '9')
    ++digits;
  if (digits == 0 || digits > max_xid_digits || digits >= rest.size() || rest[digits] != ',')
    return std::nullopt;
  int v = 0;
  const auto [end, ec] = std::from_chars(rest.data(), rest.data() + digits, v);
  if (ec != std::errc{} || v <= 0)
    return std::nullopt;
  rest = trim(rest.substr(digits + 1));
  return v;
}

/// The parts of a line the driver writes for an Xid or an SXid, "<before><marker><ids>):
/// <number>, <text>", where <ids> is "PCI:<id>" or "<id>", then any words after it.
struct marked_line {
  std::string_view before; ///< what stands before the marker, as it is (time, syslog prefix)
  std::string_view id;     ///< the bus id, without "PCI:": printable ASCII without spaces
  std::string_view words;  ///< what follows the id inside the parentheses ("GPU-I:05 ...")
  int number = 0;          ///< the Xid or SXid
  std::string_view text;   ///< after the number's comma
};

/// One parser for both markers, the marker found at `at` by the caller: nullopt when the marker,
/// the parenthesis (within max_id_text of it), a printable id, or the number and its comma is
/// missing.
std::optional<marked_line> split_marked_line(std::string_view line, std::size_t at,
                                             std::string_view marker) {
  if (at == std::string_view::npos || line.substr(at, marker.size()) != marker)
    return std::nullopt;
  marked_line out;
  out.before = line.substr(0, at);
  std::string_view rest = line.substr(at + marker.size());
  const auto close = rest.find(')');
  if (close == std::string_view::npos || close > max_id_text)
    return std::nullopt;
  const std::string_view ids = trim(rest.substr(0, close));
  const auto space = ids.find_first_of(" \t");
  out.id = ids.substr(0, space);
  if (out.id.size() >= 4 && out.id.substr(0, 4) == "PCI:")
    out.id.remove_prefix(4);
  if (!printable_word(out.id))
    return std::nullopt;
  out.words = space == std::string_view::npos ? "" : ids.substr(space);
  rest.remove_prefix(close + 1);
  const auto number = number_then_comma(rest);
  if (!number)
    return std::nullopt;
  out.number = *number;
  out.text = rest;
  return out;
}

/// The MIG instance words after an Xid's address ("GPU-I:05", "GPU-CI:02" after it), into
/// `e`; false for any other word, or one said twice: the line is then not an Xid line.
bool read_instance_words(std::string_view words, xid_event& e) {
  while (!(words = trim(words)).empty()) {
    const auto word_end = words.find_first_of(" \t");
    const std::string_view word = words.substr(0, word_end);
    words = word_end == std::string_view::npos ? "" : words.substr(word_end);
    std::optional<int>* slot = nullptr;
    std::string_view number;
    if (word.substr(0, 6) == "GPU-I:") {
      slot = &e.gpu_instance;
      number = word.substr(6);
    } else if (word.substr(0, 7) == "GPU-CI:") {
      slot = &e.compute_instance;
      number = word.substr(7);
    }
    const auto value = small_decimal(number);
    if (slot == nullptr || slot->has_value() || !value)
      return false;
    *slot = value;
  }
  return true;
}

} // namespace

std::optional<pci_address> parse_pci_address(std::string_view text) {
  text = trim(text);
  if (text.size() >= 4 && (text.substr(0, 4) == "PCI:" || text.substr(0, 4) == "pci:"))
    text.remove_prefix(4);
  const auto dot = text.find('.');
  if (dot != std::string_view::npos) {
    if (!hex_field(text.substr(dot + 1), 1))
      return std::nullopt;
    text = text.substr(0, dot);
  }
  const auto first = text.find(':');
  if (first == std::string_view::npos)
    return std::nullopt;
  const auto second = text.find(':', first + 1);
  if (second == std::string_view::npos || text.find(':', second + 1) != std::string_view::npos)
    return std::nullopt;
  const auto domain = hex_field(text.substr(0, first), 8);
  const auto bus = hex_field(text.substr(first + 1, second - first - 1), 2);
  const auto device = hex_field(text.substr(second + 1), 2);
  if (!domain || !bus || !device || *device > 0x1f)
    return std::nullopt;
  return pci_address{*domain, *bus, *device};
}

std::optional<xid_event> parse_xid_line(std::string_view line) {
  // "PCI:0000:01:00", or on a MIG GPU "PCI:0000:01:00 GPU-I:05" ("GPU-CI:02" after it): the
  // address, then the instance words; any other word means the line is not an Xid line.
  const auto parts = split_marked_line(line, marker_at_start(line, xid_marker), xid_marker);
  xid_event e;
  if (!parts || !read_instance_words(parts->words, e))
    return std::nullopt;
  e.pci_bus_id = std::string(parts->id);
  e.address = parse_pci_address(parts->id);
  e.xid = parts->number;
  e.text = std::string(parts->text);
  printable(e.text);
  line_time(parts->before, e.seconds_since_boot, e.time_text);
  return e;
}

std::optional<sxid_event> parse_sxid_line(std::string_view line) {
  // An SXid's parenthesis holds the switch's bus id alone. The message starts with the marker,
  // or with the switch's name and a colon ("nvidia-nvswitch0: SXid ("): one word, no more.
  const auto start = message_start(line);
  const std::string_view message = line.substr(start);
  auto at = message.find(sxid_marker);
  std::string_view name;
  if (at != std::string_view::npos && at > 0) {
    name = at >= 2 && message.substr(at - 2, 2) == ": " ? message.substr(0, at - 2) : "";
    if (name.empty() || name.size() > 32 || !printable_word(name) ||
        name.find_first_of("[]():") != std::string_view::npos)
      at = std::string_view::npos;
  }
  const auto parts =
      split_marked_line(line, at == std::string_view::npos ? at : start + at, sxid_marker);
  if (!parts || !parts->words.empty())
    return std::nullopt;
  sxid_event e;
  e.nvswitch = std::string(name);
  const std::string_view prefix = line.substr(0, start);
  e.pci_bus_id = std::string(parts->id);
  e.address = parse_pci_address(parts->id);
  e.sxid = parts->number;
  // "Fatal, Link 12 ..." against "Non-fatal, Link 28 ..." (and the "Data {...}" lines that
  // follow a finding, which say neither).
  const std::string_view severity = parts->text.substr(0, parts->text.find(','));
  e.fatal = severity == "Fatal" || severity == "fatal" || severity == "FATAL";
  e.text = std::string(parts->text);
  printable(e.text);
  line_time(prefix, e.seconds_since_boot, e.time_text);
  return e;
}

namespace {

template <class Fn> void for_each_line(std::string_view log, Fn&& fn) {
  std::size_t start = 0;
  while (start <= log.size()) {
    auto end = log.find('\n', start);
    if (end == std::string_view::npos)
      end = log.size();
    fn(log.substr(start, end - start));
    start = end + 1;
  }
}

/// Share of NUL bytes above which a log is taken for UTF-16 (whose ASCII text is half NULs) or
/// a binary file: an initial policy. A few stray NULs (a torn write) are tolerated.
constexpr double max_nul_share = 0.10;
/// Share of bytes that are neither printable ASCII, tab, CR, LF nor part of a valid UTF-8
/// sequence above which a log is not text: an initial policy (kmsg escapes what is not
/// printable as "\xNN", so a real log has next to none).
constexpr double max_non_text_share = 0.30;

/// The length of the valid UTF-8 sequence at `i` (2..4), or 0.
std::size_t utf8_sequence(std::string_view s, std::size_t i) {
  const auto b = static_cast<unsigned char>(s[i]);
  const std::size_t n = b >= 0xc2 && b <= 0xdf   ? 2
                        : b >= 0xe0 && b <= 0xef ? 3
                        : b >= 0xf0 && b <= 0xf4 ? 4
                                                 : 0;
  if (n == 0 || i + n > s.size())
    return 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80)
      return 0;
  return n;
}

std::string undecodable_reason(std::string_view log) {
  if (log.size() >= 2 &&
      ((log[0] == '\xff' && log[1] == '\xfe') || (log[0] == '\xfe' && log[1] == '\xff')))
    return "the log is not text gpuspec reads: UTF-16 (it starts with a byte-order mark); save "
           "it as UTF-8 (journalctl -k > file, dmesg > file)";
  std::size_t nul = 0, non_text = 0;
  for (std::size_t i = 0; i < log.size();) {
    const auto b = static_cast<unsigned char>(log[i]);
    if (b == 0) {
      ++nul;
      ++i;
    } else if ((b >= 0x20 && b < 0x7f) || b == '\t' || b == '\n' || b == '\r') {
      ++i;
    } else if (const auto n = utf8_sequence(log, i); n > 0) {
      i += n;
    } else {
      ++non_text;
      ++i;
    }
  }
  const auto share = [&](std::size_t n) {
    return static_cast<double>(n) / static_cast<double>(log.size());
  };
  if (share(nul) > max_nul_share)
    return fmt::format("the log is not text ({:.0f}% NUL bytes: UTF-16 or binary)",
                       100 * share(nul));
  if (share(nul + non_text) > max_non_text_share)
    return fmt::format("the log is not text ({:.0f}% of its bytes are neither ASCII nor UTF-8)",
                       100 * share(nul + non_text));
  return "";
}

/// A journal's separator lines: "-- Boot 9a0f4c...  --" (journalctl between boots), "-- Reboot
/// --" (older journalctl), "-- Logs begin at ... --" (its header; not a boot by itself).
bool is_journal_marker(std::string_view line) {
  return line.size() >= 5 && line.substr(0, 3) == "-- " && line.substr(line.size() - 2) == "--";
}
bool is_boot_separator(std::string_view line) {
  return is_journal_marker(line) && (line.substr(0, 8) == "-- Boot " || line == "-- Reboot --");
}

/// A kernel release as the banner writes it ("5.15.0-105-generic", "4.18.0-513.5.1.el8_9.x86_64",
/// "6.6.0+"): a digit first, then no space, bracket, parenthesis or colon.
bool is_release(std::string_view s) {
  return !s.empty() && s.front() >= '0' && s.front() <= '9' && printable_word(s) &&
         s.find_first_of("[]():") == std::string_view::npos;
}

/// The kernel's banner, the first line of every boot (init/version.c): "Linux version <release>
/// (<user>@<host>) (<compiler>) #..." right after the line's time or syslog prefix. A process's
/// name is at most 15 characters, so one named "Linux version " makes the kernel write
/// "Linux version [pid]: segfault at ...": no release, no "(user@host)", no banner.
bool is_boot_banner(std::string_view line) {
  constexpr std::string_view banner = "Linux version ";
  const auto at = marker_at_start(line, banner);
  if (at == std::string_view::npos)
    return false;
  std::string_view rest = line.substr(at + banner.size());
  const auto space = rest.find(' ');
  if (space == std::string_view::npos || !is_release(rest.substr(0, space)))
    return false;
  rest.remove_prefix(space + 1);
  const auto close = rest.find(')');
  return !rest.empty() && rest.front() == '(' && close != std::string_view::npos &&
         rest.substr(0, close).find('@') != std::string_view::npos;
}

/// The message about GPU `id` whose driver text starts at `at` in `line`: the address, the text
/// from there on, and the time from what stands before it.
gpu_bus_message bus_message(std::string_view line, std::size_t at, std::string_view id) {
  gpu_bus_message m;
  m.pci_bus_id = std::string(id);
  m.address = parse_pci_address(id);
  m.text = std::string(trim(line.substr(at)));
  std::string ignored;
  line_time(line.substr(0, at), m.seconds_since_boot, ignored);
  return m;
}

/// "NVRM: GPU 0000:02:00.0: RmInitAdapter failed! ..." (and "...: GPU has fallen off the bus."):
/// the address, when the message says the GPU could not be used.
std::optional<gpu_bus_message> gpu_named_message(std::string_view line) {
  constexpr std::string_view gpu_marker = "NVRM: GPU ";
  const auto at = marker_at_start(line, gpu_marker);
  if (at == std::string_view::npos)
    return std::nullopt;
  std::string_view rest = line.substr(at + gpu_marker.size());
  const auto colon = rest.find(": ");
  if (colon == std::string_view::npos || colon > 16)
    return std::nullopt;
  const std::string_view id = rest.substr(0, colon);
  const std::string_view message = trim(rest.substr(colon + 2));
  if (!parse_pci_address(id) || (message.find("RmInitAdapter failed") == std::string_view::npos &&
                                 message.find("fallen off the bus") == std::string_view::npos))
    return std::nullopt;
  gpu_bus_message m = bus_message(line, at, id);
  printable(m.text);
  return m;
}

/// "NVRM: The NVIDIA GPU 0000:b3:00.0": the first line of the driver's message for a GPU that
/// does not answer when it is probed; the address, and the line.
std::optional<gpu_bus_message> gpu_probe_message_start(std::string_view line) {
  constexpr std::string_view probe_marker = "NVRM: The NVIDIA GPU ";
  const auto at = marker_at_start(line, probe_marker);
  if (at == std::string_view::npos)
    return std::nullopt;
  std::string_view rest = line.substr(at + probe_marker.size());
  // kmsg writes the message's newlines as "\x0a": the address ends there too.
  const std::string_view id = rest.substr(0, rest.find_first_of(" \t(\\"));
  if (!parse_pci_address(id))
    return std::nullopt;
  return bus_message(line, at, id);
}

/// The probe message goes on for at most this many lines after its first.
constexpr int probe_message_lines = 3;

} // namespace

std::vector<xid_event> parse_xid_log(std::string_view log) {
  std::vector<xid_event> out;
  for_each_line(log, [&](std::string_view line) {
    if (auto e = parse_xid_line(line))
      out.push_back(std::move(*e));
  });
  return out;
}

kernel_log_parse parse_kernel_log(std::string_view log, log_span span) {
  kernel_log_parse out;
  out.undecodable = undecodable_reason(log);
  if (!out.undecodable.empty())
    return out;
  bool boot_has_lines = false;
  std::optional<gpu_bus_message> probe; // a probe message still being read
  int probe_lines_left = 0;
  const auto new_boot = [&] {
    if (span == log_span::one_boot || !boot_has_lines)
      return; // the first boot's separator, or a banner right after a separator
    ++out.boots;
    out.earlier_xids.insert(out.earlier_xids.end(), std::make_move_iterator(out.xids.begin()),
                            std::make_move_iterator(out.xids.end()));
    out.xids.clear();
    out.sxids.clear();
    out.gpu_messages.clear();
    probe.reset();
    boot_has_lines = false;
  };
  for_each_line(log, [&](std::string_view raw) {
    const std::string_view line = trim(raw);
    if (line.empty())
      return;
    if (is_journal_marker(line)) {
      if (is_boot_separator(line))
        new_boot();
      return;
    }
    if (is_boot_banner(line))
      new_boot();
    boot_has_lines = true;
    if (probe && marker_at_start(line, "NVRM:") == std::string_view::npos) {
      probe.reset(); // the driver's lines go on with "NVRM:"; another message ends them
    } else if (probe) {
      probe->text += ' ';
      probe->text += trim(line.substr(marker_at_start(line, "NVRM:")));
      if (line.find("fallen off the bus") != std::string_view::npos) {
        printable(probe->text);
        out.gpu_messages.push_back(std::move(*probe));
        probe.reset();
      } else if (--probe_lines_left <= 0) {
        probe.reset();
      }
    }
    if (auto e = parse_xid_line(line)) {
      out.xids.push_back(std::move(*e));
    } else if (auto x = parse_sxid_line(line)) {
      out.sxids.push_back(std::move(*x));
    } else if (auto m = gpu_named_message(line)) {
      out.gpu_messages.push_back(std::move(*m));
    } else if (auto p = gpu_probe_message_start(line)) {
      if (line.find("fallen off the bus") != std::string_view::npos) {
        printable(p->text);
        out.gpu_messages.push_back(std::move(*p)); // one line (kmsg escapes the newlines)
      } else {
        probe = std::move(p);
        probe_lines_left = probe_message_lines;
      }
    }
  });
  return out;
}

} // namespace gpuspec::reports::judge
