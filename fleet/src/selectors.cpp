// The command-line selectors of the query commands (selectors.hpp).

#include "gpuspec/fleet/selectors.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <ctime>
#include <vector>

#include <fmt/format.h>

namespace gpuspec::fleet {

namespace {

/// `n` digits at `pos` as a number; nullopt when they are not all digits.
std::optional<int> digits(std::string_view text, std::size_t pos, std::size_t n) {
  if (pos + n > text.size())
    return std::nullopt;
  int value = 0;
  for (std::size_t i = pos; i < pos + n; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(text[i])))
      return std::nullopt;
    value = value * 10 + (text[i] - '0');
  }
  return value;
}

bool leap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int days_in(int y, int m) {
  static constexpr int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && leap(y) ? 29 : days[m - 1];
}

/// Days from 1970-01-01 to y-m-d (Howard Hinnant's days_from_civil).
long long days_from_civil(int y, int m, int d) {
  y -= m <= 2;
  const long long era = (y >= 0 ? y : y - 399) / 400;
  const long long yoe = y - era * 400;
  const long long doy = (153LL * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const long long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

/// The time part after the date ("T02:31:04Z"); sets h, mi, s or `why`.
bool parse_time(std::string_view rest, int& h, int& mi, int& s, std::string& why) {
  if (rest.empty() || rest == "Z")
    return true;
  if (rest[0] != 'T' && rest[0] != ' ') {
    why = "expected T and a time after the date";
    return false;
  }
  rest.remove_prefix(1);
  if (!rest.empty() && rest.back() == 'Z')
    rest.remove_suffix(1);
  const auto hh = digits(rest, 0, 2);
  const auto mm = digits(rest, 3, 2);
  if (!hh || !mm || rest[2] != ':' || (rest.size() != 5 && rest.size() != 8)) {
    why = "expected the time as HH:MM or HH:MM:SS (UTC, Z)";
    return false;
  }
  h = *hh;
  mi = *mm;
  if (rest.size() == 8) {
    const auto ss = digits(rest, 6, 2);
    if (!ss || rest[5] != ':') {
      why = "expected the time as HH:MM or HH:MM:SS (UTC, Z)";
      return false;
    }
    s = *ss;
  }
  if (h > 23 || mi > 59 || s > 59) {
    why = "the time is out of range (00:00:00 to 23:59:59)";
    return false;
  }
  return true;
}

std::vector<std::string_view> version_parts(std::string_view v) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= v.size(); ++i)
    if (i == v.size() || v[i] == '.' || v[i] == '-' || v[i] == '_') {
      out.push_back(v.substr(start, i - start));
      start = i + 1;
    }
  return out;
}

bool numeric(std::string_view p) {
  return !p.empty() && std::all_of(p.begin(), p.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c));
  });
}

int compare_part(std::string_view a, std::string_view b) {
  const bool na = numeric(a), nb = numeric(b);
  if (na && nb) {
    // Numbers of any length: leading zeros aside, the longer is the larger.
    const auto strip = [](std::string_view p) {
      while (p.size() > 1 && p.front() == '0')
        p.remove_prefix(1);
      return p;
    };
    a = strip(a);
    b = strip(b);
    if (a.size() != b.size())
      return a.size() < b.size() ? -1 : 1;
  } else if (na != nb) {
    return na ? -1 : 1;
  }
  const int c = a.compare(b);
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

bool valid_version(std::string_view v) {
  if (v.empty())
    return false;
  for (const auto p : version_parts(v))
    if (p.empty() || !std::all_of(p.begin(), p.end(), [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) != 0;
        }))
      return false;
  return true;
}

} // namespace

std::optional<std::string> parse_utc_date(std::string_view text, std::string& why) {
  const auto y = digits(text, 0, 4);
  const auto m = digits(text, 5, 2);
  const auto d = digits(text, 8, 2);
  if (!y || !m || !d || text[4] != '-' || text[7] != '-') {
    why = fmt::format("'{}' is not a date: expected YYYY-MM-DD[THH:MM[:SS]][Z] (UTC)", text);
    return std::nullopt;
  }
  if (*y < 1970 || *m < 1 || *m > 12 || *d < 1 || *d > days_in(*y, *m)) {
    why = fmt::format("'{}' is not a date: no such day", text);
    return std::nullopt;
  }
  int h = 0, mi = 0, s = 0;
  std::string time_why;
  if (!parse_time(text.substr(10), h, mi, s, time_why)) {
    why = fmt::format("'{}' is not a date: {}", text, time_why);
    return std::nullopt;
  }
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", *y, *m, *d, h, mi, s);
}

long long utc_seconds(const std::string& canonical) {
  std::string why;
  const auto c = parse_utc_date(canonical, why);
  if (!c)
    return 0;
  const auto n = [&](std::size_t pos, std::size_t len) { return *digits(*c, pos, len); };
  return days_from_civil(n(0, 4), n(5, 2), n(8, 2)) * 86400LL + n(11, 2) * 3600LL +
         n(14, 2) * 60LL + n(17, 2);
}

std::string utc_text(long long seconds) {
  const std::time_t t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

int compare_versions(std::string_view a, std::string_view b) {
  const auto pa = version_parts(a), pb = version_parts(b);
  for (std::size_t i = 0; i < std::min(pa.size(), pb.size()); ++i)
    if (const int c = compare_part(pa[i], pb[i]); c != 0)
      return c;
  return pa.size() == pb.size() ? 0 : (pa.size() < pb.size() ? -1 : 1);
}

bool stack_range::holds(std::string_view version) const {
  if (version.empty())
    return false;
  if (exact) {
    const auto want = version_parts(low), have = version_parts(version);
    if (have.size() < want.size())
      return false;
    for (std::size_t i = 0; i < want.size(); ++i)
      if (compare_part(want[i], have[i]) != 0)
        return false;
    return true;
  }
  return (low.empty() || compare_versions(version, low) >= 0) &&
         (high.empty() || compare_versions(version, high) < 0);
}

std::optional<stack_range> parse_stack_range(std::string_view text, std::string& why) {
  const auto eq = text.find('=');
  if (eq == std::string_view::npos) {
    why = fmt::format("'{}': expected KEY=RANGE, e.g. driver=550..", text);
    return std::nullopt;
  }
  stack_range r;
  r.key = std::string(text.substr(0, eq));
  if (std::find_if(std::begin(stack_keys), std::end(stack_keys),
                   [&](const char* k) { return r.key == k; }) == std::end(stack_keys)) {
    why = fmt::format("'{}': unknown key '{}' (one of {})", text, r.key,
                      fmt::join(std::begin(stack_keys), std::end(stack_keys), ", "));
    return std::nullopt;
  }
  const auto range = text.substr(eq + 1);
  const auto dots = range.find("..");
  if (dots == std::string_view::npos) {
    r.exact = true;
    r.low = std::string(range);
  } else {
    r.low = std::string(range.substr(0, dots));
    r.high = std::string(range.substr(dots + 2));
  }
  const bool bad_low = !r.low.empty() && !valid_version(r.low);
  const bool bad_high = !r.high.empty() && !valid_version(r.high);
  if (bad_low || bad_high || (r.exact && r.low.empty()) ||
      (!r.exact && r.low.empty() && r.high.empty())) {
    why = fmt::format("'{}': expected a version (550.54.15) or a range LO..HI, LO.. or ..HI", text);
    return std::nullopt;
  }
  if (!r.low.empty() && !r.high.empty() && compare_versions(r.low, r.high) >= 0) {
    why = fmt::format("'{}': the range is empty ({} is not below {})", text, r.low, r.high);
    return std::nullopt;
  }
  return r;
}

std::optional<window> parse_window(std::string_view text, bool is_before, std::string& why) {
  window w;
  if (text.find('=') != std::string_view::npos) {
    w.stack = parse_stack_range(text, why);
    if (!w.stack)
      return std::nullopt;
    w.label = std::string(text);
    return w;
  }
  const auto date = parse_utc_date(text, why);
  if (!date)
    return std::nullopt;
  (is_before ? w.before : w.from) = *date;
  w.label = (is_before ? "before " : "from ") + *date;
  return w;
}

} // namespace gpuspec::fleet
