// Parsing the driver's Xid lines (xid_log.hpp). Written for hostile input: every index is
// checked before it is read, numbers are bounded before they are converted, and a line that does
// not have every part gives nothing.

#include "gpuspec/reports/xid_log.hpp"

#include <algorithm>
#include <charconv>
#include <limits>

namespace gpuspec::reports {

namespace {

constexpr std::string_view xid_marker = "NVRM: Xid (";
/// Xids are small numbers (the catalog ends in the 170s); more digits than this is not one.
constexpr std::size_t max_xid_digits = 5;
/// Keeps a garbled syslog prefix from filling the output.
constexpr std::size_t max_time_text = 64;

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\0'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front()))
    s.remove_prefix(1);
  while (!s.empty() && is_space(s.back()))
    s.remove_suffix(1);
  return s;
}

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

/// A non-negative decimal of digits and at most one '.', the whole of `s`.
std::optional<double> seconds_field(std::string_view s) {
  s = trim(s);
  if (s.empty() || s.size() > 24 ||
      !std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || c == '.'; }) ||
      std::count(s.begin(), s.end(), '.') > 1 || s.front() == '.')
    return std::nullopt;
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end != s.data() + s.size())
    return std::nullopt;
  return v;
}

/// /dev/kmsg: "prio,seq,usec,flags[,...];message". The time is the third field, microseconds.
std::optional<double> kmsg_seconds(std::string_view prefix) {
  const auto semicolon = prefix.find(';');
  if (semicolon == std::string_view::npos)
    return std::nullopt;
  const std::string_view header = prefix.substr(0, semicolon);
  std::size_t fields = 0;
  std::string_view usec;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= header.size(); ++i) {
    if (i == header.size() || header[i] == ',') {
      const auto field = header.substr(start, i - start);
      if (fields < 3 && (field.empty() || !std::all_of(field.begin(), field.end(), [](char c) {
                           return c >= '0' && c <= '9';
                         })))
        return std::nullopt;
      if (fields == 2)
        usec = field;
      ++fields;
      start = i + 1;
    }
  }
  if (fields < 4 || usec.size() > 18)
    return std::nullopt;
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(usec.data(), usec.data() + usec.size(), v);
  if (ec != std::errc{} || end != usec.data() + usec.size())
    return std::nullopt;
  return static_cast<double>(v) / 1e6;
}

/// dmesg: the last "[ seconds]" before the message.
std::optional<double> bracket_seconds(std::string_view prefix) {
  const auto close = prefix.rfind(']');
  if (close == std::string_view::npos)
    return std::nullopt;
  const auto open = prefix.rfind('[', close);
  if (open == std::string_view::npos)
    return std::nullopt;
  return seconds_field(prefix.substr(open + 1, close - open - 1));
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
  const auto marker = line.find(xid_marker);
  if (marker == std::string_view::npos)
    return std::nullopt;
  const std::string_view prefix = line.substr(0, marker);
  std::string_view rest = line.substr(marker + xid_marker.size());

  const auto close = rest.find(')');
  if (close == std::string_view::npos || close > 32)
    return std::nullopt;
  xid_event e;
  std::string_view id = trim(rest.substr(0, close));
  if (id.size() >= 4 && id.substr(0, 4) == "PCI:")
    id.remove_prefix(4);
  // An id is printable ASCII (it ends up in labels and file names): anything else is garbage.
  if (id.empty() || !std::all_of(id.begin(), id.end(), [](char c) { return c > ' ' && c < 0x7f; }))
    return std::nullopt;
  e.pci_bus_id = std::string(id);
  e.address = parse_pci_address(id);
  rest.remove_prefix(close + 1);

  // "): 79, text" -- a colon, then the number.
  rest = trim(rest);
  if (rest.empty() || rest.front() != ':')
    return std::nullopt;
  rest = trim(rest.substr(1));
  std::size_t digits = 0;
  while (digits < rest.size() && rest[digits] >= '0' && rest[digits] <= '9')
    ++digits;
  if (digits == 0 || digits > max_xid_digits)
    return std::nullopt;
  // The driver always writes "<xid>, <text>": without the comma the line was cut inside the
  // number ("79" read as "7"), so it gives nothing.
  if (digits >= rest.size() || rest[digits] != ',')
    return std::nullopt;
  const auto [end, ec] = std::from_chars(rest.data(), rest.data() + digits, e.xid);
  if (ec != std::errc{} || e.xid <= 0)
    return std::nullopt;
  rest = trim(rest.substr(digits + 1));
  e.text = std::string(rest);
  // Control characters (a garbled log) would break the printers' lines: shown as '?'.
  for (auto& c : e.text)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      c = '?';

  if (auto s = kmsg_seconds(prefix))
    e.seconds_since_boot = s;
  else if (auto b = bracket_seconds(prefix))
    e.seconds_since_boot = b;
  else
    e.time_text = std::string(trim(prefix).substr(0, max_time_text));
  return e;
}

std::vector<xid_event> parse_xid_log(std::string_view log) {
  std::vector<xid_event> out;
  std::size_t start = 0;
  while (start <= log.size()) {
    auto end = log.find('\n', start);
    if (end == std::string_view::npos)
      end = log.size();
    if (auto e = parse_xid_line(log.substr(start, end - start)))
      out.push_back(std::move(*e));
    start = end + 1;
  }
  return out;
}

} // namespace gpuspec::reports
