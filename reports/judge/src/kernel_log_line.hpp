#pragma once
/// Internal to the Xid parser: the framing before a kernel-log line's message. A driver's marker
/// counts only where the message starts, never in the middle of a line, because a process can put
/// any text there (its name, or the file it faulted in); finding that start is this file's job.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace gpuspec::reports::inline judge::detail {

/// `s` without the spaces, tabs, carriage returns and NULs a kernel log can carry at either end.
[[nodiscard]] std::string_view trim(std::string_view s);

/// The time of a line from what stands before its message: the seconds since boot from a
/// /dev/kmsg header or dmesg's brackets, else the text of a syslog or journal date.
void line_time(std::string_view prefix, std::optional<double>& seconds, std::string& text);

/// Where the message of a kernel-log line starts, past a /dev/kmsg header, a syslog or journal
/// prefix ending "kernel:", dmesg's time and caller tags, or nothing (a bare message).
[[nodiscard]] std::size_t message_start(std::string_view line);

/// Where the message is when it starts with `marker`; npos otherwise.
[[nodiscard]] std::size_t marker_at_start(std::string_view line, std::string_view marker);

} // namespace gpuspec::reports::judge::detail
