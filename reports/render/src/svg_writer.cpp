#include "svg_writer.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "gpuspec/reports/model/text_format.hpp"

namespace gpuspec::reports::inline render::svg {

const char* series_colour(std::size_t k) {
  // Sky blue, vermillion, bluish green, reddish purple, orange, blue: the most distinct first.
  static constexpr std::array<std::size_t, 6> order = {5, 6, 3, 7, 1, 2};
  return okabe_ito[order[k % order.size()]];
}

const char* status_colour(std::string_view status) {
  if (status == "pass")
    return okabe_ito[3];
  if (status == "warn")
    return okabe_ito[1];
  if (status == "fail")
    return okabe_ito[6];
  if (status == "inconclusive")
    return okabe_ito[7];
  return "#999999";
}

std::string escape(std::string_view s) {
  // Control characters first (escape_control: "\x1b", "\n"), which XML forbids and a terminal
  // showing the page's source would obey; then the markup's own characters.
  std::string out;
  out.reserve(s.size());
  for (const char c : escape_control(s)) {
    switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    case '\'':
      out += "&#39;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

std::string num(double v) {
  // Never a non-finite number in a page: "nan" or "inf" in an attribute loses the element.
  if (!std::isfinite(v))
    return "0.0";
  std::string s = fmt::format("{:.1f}", v);
  return s == "-0.0" ? "0.0" : s;
}

double scale::at(double v) const {
  double f = 0;
  if (log) {
    const double l = std::log10(std::max(v, 1e-300));
    f = (l - std::log10(lo)) / (std::log10(hi) - std::log10(lo));
  } else {
    // Halved first: a span from -1.7e308 to 1.7e308 overflows a double, its halves do not.
    const double span = hi / 2 - lo / 2;
    f = !(span > 0) ? 0.5 : (v / 2 - lo / 2) / span;
  }
  // A value off the axis is drawn at its end: a plot keeps to its frame.
  f = std::isfinite(f) ? std::clamp(f, -0.05, 1.05) : 0.5;
  return from + f * (to - from);
}

namespace {

double nice_step(double span, int count) {
  const double raw = span / std::max(count, 1);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  for (const double m : {1.0, 2.0, 5.0, 10.0})
    if (m * mag >= raw)
      return m * mag;
  return 10 * mag;
}

} // namespace

std::vector<double> scale::ticks(int count) const {
  std::vector<double> out;
  if (log && !(lo > 0 && hi >= lo && std::isfinite(lo) && std::isfinite(hi)))
    return out; // a log axis over no positive finite range: no tick is true
  if (log && bytes) {
    const int a = static_cast<int>(std::ceil(std::log2(lo) - 1e-9));
    const int b = static_cast<int>(std::floor(std::log2(hi) + 1e-9));
    const int stride = std::max(1, (b - a + 1 + 7) / 8);
    for (int e = a; e <= b; e += stride)
      out.push_back(std::pow(2.0, e));
    return out;
  }
  if (log) {
    const int a = static_cast<int>(std::ceil(std::log10(lo) - 1e-9));
    const int b = static_cast<int>(std::floor(std::log10(hi) + 1e-9));
    const int stride = std::max(1, (b - a + 1 + 7) / 8);
    for (int e = a; e <= b; e += stride)
      out.push_back(std::pow(10.0, e));
    return out;
  }
  if (!(hi > lo) || !std::isfinite(hi - lo))
    return {std::isfinite(lo) ? lo : 0.0};
  const double step = nice_step(hi - lo, count);
  if (!std::isfinite(step) || !(step > 0))
    return {lo, hi};
  for (double v = std::ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9 && out.size() < 64;
       v += step)
    out.push_back(std::fabs(v) < step * 1e-9 ? 0.0 : v);
  return out;
}

std::pair<double, double> nice_range(double lo, double hi, bool log) {
  if (log) {
    lo = std::max(lo, 1e-300);
    hi = std::max(hi, lo);
    hi = std::min(hi, std::numeric_limits<double>::max());
    double a = std::pow(10.0, std::floor(std::log10(lo)));
    double b = std::pow(10.0, std::ceil(std::log10(hi)));
    if (!std::isfinite(b))
      b = 1e308; // the largest power of ten a double holds
    if (b <= a)
      b = a * 10;
    return {a, b};
  }
  constexpr double largest = std::numeric_limits<double>::max();
  const double low = std::isfinite(lo) ? std::min(0.0, lo) : -largest;
  const double top = !std::isfinite(hi) ? largest : hi > low ? hi : low + 1;
  const double step = nice_step(top - low, 5);
  const double end = std::ceil(top / step - 1e-9) * step;
  // Near the largest double the tidy end overflows: the data's own end then.
  return {low, std::isfinite(end) && std::isfinite(step) ? end : top};
}

std::string tick_label(double v, bool bytes) {
  if (bytes) {
    static constexpr std::array<const char*, 7> units = {"B",   "KiB", "MiB", "GiB",
                                                         "TiB", "PiB", "EiB"};
    std::size_t u = 0;
    while (v >= 1024 && u + 1 < units.size()) {
      v /= 1024;
      ++u;
    }
    return fmt::format("{:.3g} {}", v, units[u]);
  }
  const double a = std::fabs(v);
  if (a >= 1e6)
    return fmt::format("{:.3g}", v);
  if (a >= 1e4)
    return fmt::format("{:.3g}k", v / 1e3);
  return fmt::format("{:.4g}", v);
}

canvas::canvas(double width, double height, std::string title, std::string description)
    : m_width(width), m_height(height), m_title(std::move(title)),
      m_description(std::move(description)) {}

void canvas::rect(double x, double y, double w, double h, std::string_view fill,
                  std::string_view tooltip, std::string_view stroke) {
  m_body += fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="{}")", num(x), num(y),
                        num(std::max(w, 0.0)), num(std::max(h, 0.0)), fill);
  if (!stroke.empty())
    m_body += fmt::format(R"( stroke="{}" stroke-width="2")", stroke);
  if (tooltip.empty())
    m_body += "/>\n";
  else
    m_body += fmt::format("><title>{}</title></rect>\n", escape(tooltip));
}

void canvas::line(double x1, double y1, double x2, double y2, std::string_view stroke, double width,
                  std::string_view dash) {
  m_body += fmt::format(R"(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}" stroke-width="{}")",
                        num(x1), num(y1), num(x2), num(y2), stroke, num(width));
  if (!dash.empty())
    m_body += fmt::format(R"( stroke-dasharray="{}")", dash);
  m_body += "/>\n";
}

void canvas::polyline(const std::vector<std::pair<double, double>>& points, std::string_view stroke,
                      double width) {
  std::string pts;
  for (const auto& [x, y] : points) {
    if (!pts.empty())
      pts += ' ';
    pts += num(x);
    pts += ',';
    pts += num(y);
  }
  m_body += fmt::format(R"(<polyline points="{}" fill="none" stroke="{}" stroke-width="{}"/>)", pts,
                        stroke, num(width)) +
            "\n";
}

void canvas::circle(double x, double y, double r, std::string_view fill, std::string_view tooltip) {
  m_body +=
      fmt::format(R"(<circle cx="{}" cy="{}" r="{}" fill="{}")", num(x), num(y), num(r), fill);
  if (tooltip.empty())
    m_body += "/>\n";
  else
    m_body += fmt::format("><title>{}</title></circle>\n", escape(tooltip));
}

void canvas::text(double x, double y, std::string_view s, std::string_view anchor, double size,
                  std::string_view fill) {
  m_body +=
      fmt::format(R"(<text x="{}" y="{}" font-size="{}" text-anchor="{}" fill="{}">{}</text>)",
                  num(x), num(y), num(size), anchor, fill, escape(s)) +
      "\n";
}

void canvas::rotated_text(double x, double y, std::string_view s, double degrees,
                          std::string_view anchor, double size) {
  m_body += fmt::format(R"svg(<text transform="translate({},{}) rotate({})" font-size="{}" )svg"
                        R"(text-anchor="{}">{}</text>)",
                        num(x), num(y), num(degrees), num(size), anchor, escape(s)) +
            "\n";
}

void canvas::axes(const scale& x, const scale& y, std::string_view x_label,
                  std::string_view y_label, bool x_bytes) {
  const double left = std::min(x.from, x.to), right = std::max(x.from, x.to);
  const double top = std::min(y.from, y.to), bottom = std::max(y.from, y.to);
  for (const double t : y.ticks()) {
    const double py = y.at(t);
    line(left, py, right, py, "#DDDDDD");
    text(left - 4, py + 4, tick_label(t, false), "end", 10);
  }
  for (const double t : x.ticks()) {
    const double px = x.at(t);
    line(px, top, px, bottom, "#EEEEEE");
    text(px, bottom + 14, tick_label(t, x_bytes), "middle", 10);
  }
  line(left, bottom, right, bottom, "#000000");
  line(left, top, left, bottom, "#000000");
  text((left + right) / 2, bottom + 30, x_label, "middle");
  rotated_text(14, (top + bottom) / 2, y_label);
}

std::string canvas::str() const {
  // Inline in HTML, where the namespace is implied (no xmlns: the page names no URL at all).
  return fmt::format(R"(<svg viewBox="0 0 {} {}" width="{}" height="{}" role="img" )"
                     R"(font-family="sans-serif">)"
                     "\n<title>{}</title>\n<desc>{}</desc>\n{}</svg>\n",
                     num(m_width), num(m_height), num(m_width), num(m_height), escape(m_title),
                     escape(m_description), m_body);
}

} // namespace gpuspec::reports::render::svg
