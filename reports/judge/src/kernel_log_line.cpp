// Where a kernel-log line's message starts and when it was written (kernel_log_line.hpp): the
// framing that dmesg, /dev/kmsg, syslog and the journal put before the driver's text. Written for
// hostile input, as the Xid parser that uses it: every index is checked before it is read.

#include "kernel_log_line.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>

namespace gpuspec::reports::inline judge::detail {

namespace {

/// Keeps a garbled syslog prefix from filling the output.
constexpr std::size_t max_time_text = 64;

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\0'; }

} // namespace

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front()))
    s.remove_prefix(1);
  while (!s.empty() && is_space(s.back()))
    s.remove_suffix(1);
  return s;
}

namespace {

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

/// Bracketed groups looked at before the message: the time, a printk caller tag ("[ T1946]",
/// "[  C3]", written next to the time by kernels built with CONFIG_PRINTK_CALLER), and the odd
/// syslog tag; more than this is garbage.
constexpr int max_bracket_groups = 4;

/// dmesg: the last "[ seconds]" before the message, passing over a caller tag ("[ 5107.644336]
/// [ T1946]", or the console's "[ 5107.644336][ T1946]") or any other bracketed word.
std::optional<double> bracket_seconds(std::string_view prefix) {
  std::size_t end = prefix.size();
  for (int group = 0; group < max_bracket_groups && end > 0; ++group) {
    const auto close = prefix.rfind(']', end - 1);
    if (close == std::string_view::npos)
      return std::nullopt;
    const auto open = prefix.rfind('[', close);
    if (open == std::string_view::npos)
      return std::nullopt;
    if (auto s = seconds_field(prefix.substr(open + 1, close - open - 1)))
      return s;
    end = open;
  }
  return std::nullopt;
}

} // namespace

/// The time of a line from what stands before its message: kmsg's header, dmesg's brackets,
/// else the text (a syslog or journal date).
void line_time(std::string_view prefix, std::optional<double>& seconds, std::string& text) {
  if (auto s = kmsg_seconds(prefix))
    seconds = s;
  else if (auto b = bracket_seconds(prefix))
    seconds = b;
  else
    text = std::string(trim(prefix).substr(0, max_time_text));
}

namespace {

/// A bracketed group written before a message: the time ("5107.644336"), a printk caller tag
/// ("T1946", "C3"), or `dmesg -T`'s date ("Tue Jul 28 03:14:02 2026").
bool is_stamp_group(std::string_view inner) {
  inner = trim(inner);
  if (seconds_field(inner))
    return true;
  const auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
  if (inner.size() >= 2 && inner.size() <= 8 && (inner.front() == 'T' || inner.front() == 'C') &&
      std::all_of(inner.begin() + 1, inner.end(), is_digit))
    return true;
  return inner.size() >= 20 && inner.size() <= 32 &&
         std::all_of(inner.begin(), inner.end(), [&](char c) {
           return is_digit(c) || c == ' ' || c == ':' || (c >= 'A' && c <= 'Z') ||
                  (c >= 'a' && c <= 'z');
         });
}

/// Stamp groups before one message: the time and a caller tag, or dmesg -T's date.
constexpr int max_stamp_groups = 2;

/// `i` moved past spaces and up to max_stamp_groups stamp groups ("[ 5107.644336][ T1946] ").
std::size_t skip_stamp_groups(std::string_view line, std::size_t i) {
  for (int group = 0; group <= max_stamp_groups; ++group) {
    while (i < line.size() && is_space(line[i]))
      ++i;
    if (group == max_stamp_groups || i >= line.size() || line[i] != '[')
      break;
    const auto close = line.find(']', i);
    if (close == std::string_view::npos || !is_stamp_group(line.substr(i + 1, close - i - 1)))
      break;
    i = close + 1;
  }
  return i;
}

bool all_of_chars(std::string_view s, std::string_view allowed) {
  return !s.empty() && s.find_first_not_of(allowed) == std::string_view::npos;
}

/// What syslog and journalctl write before "kernel:": a date, then the host's name. "May 18
/// 19:02:39 host", "2026-12-01T08:03:04.123456+00:00 host" (ISO, rsyslog's RFC 3339),
/// "1701417784.123456 host" (short-unix), "[ 5107.644336] host" (short-monotonic); nothing else.
bool is_syslog_prefix(std::string_view prefix) {
  prefix = trim(prefix);
  if (prefix.empty())
    return true;
  const auto host_at = prefix.find_last_of(" \t");
  if (host_at == std::string_view::npos)
    return false;
  constexpr std::string_view digits = "0123456789";
  const std::string_view host = prefix.substr(host_at + 1);
  if (!all_of_chars(host, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-"))
    return false;
  const std::string_view date = trim(prefix.substr(0, host_at));
  if (skip_stamp_groups(date, 0) == date.size() && date.front() == '[')
    return true; // short-monotonic
  if (date.find_first_of(" \t") == std::string_view::npos)
    return date.front() >= '0' && date.front() <= '9' &&
           all_of_chars(date, "0123456789-T:.,+Z"); // ISO or seconds since the epoch
  // "Mmm dd hh:mm:ss[.frac]": a month's three letters, the day, the time.
  const auto first = date.find_first_of(" \t");
  const std::string_view month = date.substr(0, first);
  const std::string_view rest = trim(date.substr(first));
  const auto second = rest.find_first_of(" \t");
  if (second == std::string_view::npos)
    return false;
  const std::string_view day = rest.substr(0, second);
  const std::string_view time = trim(rest.substr(second));
  return month.size() == 3 &&
         std::all_of(month.begin(), month.end(),
                     [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }) &&
         day.size() <= 2 && all_of_chars(day, digits) && time.front() >= '0' &&
         time.front() <= '9' && all_of_chars(time, "0123456789:.");
}

} // namespace

/// Where the message of a kernel-log line starts, past what stands before it: a /dev/kmsg record
/// header ("6,1234,5678,-;"), a syslog or journal prefix that ends "kernel:" (and the times klogd
/// writes after it), dmesg's time and caller tags, or nothing (a bare message). A driver's
/// marker counts only there: a process can put any text in the middle of a kernel line (its
/// name, or the name of the file it faulted in, in the segfault line), never at its start.
std::size_t message_start(std::string_view line) {
  const auto semicolon = line.find(';');
  if (semicolon != std::string_view::npos && kmsg_seconds(line.substr(0, semicolon + 1)))
    return semicolon + 1; // the record's message follows its header at once
  constexpr std::string_view tag = "kernel:";
  const auto kernel = line.find(tag);
  if (kernel != std::string_view::npos && is_syslog_prefix(line.substr(0, kernel)))
    return skip_stamp_groups(line, kernel + tag.size());
  // `dmesg --time-format iso`: "2026-07-28T03:14:02,123456+00:00 NVRM: ...".
  const auto space = line.find(' ');
  if (space != std::string_view::npos && space > 0 && line.front() >= '0' && line.front() <= '9' &&
      all_of_chars(line.substr(0, space), "0123456789-T:.,+Z") &&
      line.substr(0, space).find('T') != std::string_view::npos)
    return skip_stamp_groups(line, space);
  return skip_stamp_groups(line, 0);
}

/// The message of `line` when it starts with `marker`: where the marker is; npos otherwise.
std::size_t marker_at_start(std::string_view line, std::string_view marker) {
  const auto at = message_start(line);
  return line.substr(at).substr(0, marker.size()) == marker ? at : std::string_view::npos;
}

} // namespace gpuspec::reports::judge::detail
