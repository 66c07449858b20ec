#include "render_html_plots.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "gpuspec/reports/model/text_format.hpp"
#include "svg_writer.hpp"

namespace gpuspec::reports::inline render::html {

namespace {

constexpr double plot_width = 900;

std::string pct(const std::optional<double>& f) { return f ? format_percent(*f) : "n/a"; }

/// The legend of the heatmaps' fixed scale, a row of the nine bins at (x, y).
void heat_legend(svg::canvas& c, double x, double y) {
  c.text(x, y - 4, "% of reference (fixed scale):", "start", 10);
  const double w = 52;
  for (std::size_t b = 0; b < svg::tol_ylorbr.size(); ++b) {
    const std::size_t colour = svg::tol_ylorbr.size() - 1 - b;
    c.rect(x + static_cast<double>(b) * w, y, w, 12, svg::tol_ylorbr[colour]);
    const std::string label =
        b == 0 ? "<50" : (b == 8 ? ">=100" : fmt::format(">={:.0f}", heat_edges[b - 1] * 100));
    c.text(x + static_cast<double>(b) * w + w / 2, y + 24, label, "middle", 9);
  }
}

const char* heat_colour(double fraction) {
  return svg::tol_ylorbr[svg::tol_ylorbr.size() - 1 - heat_bin(fraction)];
}
const char* heat_text(double fraction) { return heat_bin(fraction) <= 2 ? "#FFFFFF" : "#000000"; }

/// The marks of one kind (datasheet or clock-adjusted) of a row, GPUs of one verdict on the same
/// pixel gathered: (pixel, status) -> the GPUs and their fraction.
struct mark_group {
  double fraction = 0;
  std::vector<std::string> gpus;
};
using mark_groups = std::map<std::pair<long, std::string>, mark_group>;

mark_groups group_marks(const efficiency_case& k, const svg::scale& x,
                        std::optional<double> efficiency_point::*field) {
  mark_groups out;
  for (const auto& p : k.points)
    if (const auto f = p.*field) {
      const double v = std::min(*f, x.hi);
      auto& g = out[{std::lround(x.at(v)), p.status}];
      g.fraction = v;
      g.gpus.push_back(p.gpu);
    }
  return out;
}

std::string gpus_tip(const efficiency_case& k, const mark_group& g, std::string_view frame) {
  std::string names;
  for (const auto& n : g.gpus)
    names += (names.empty() ? "" : ", ") + n;
  return fmt::format("{} {}: {} of {}", k.label, names, pct(g.fraction), frame);
}

void efficiency_row(svg::canvas& c, const efficiency_case& k, const svg::scale& x, double y) {
  c.text(x.from - 8, y + 12, k.label, "end", 10);
  if (k.warn)
    c.line(x.at(*k.warn), y + 1, x.at(*k.warn), y + 17, "#000000", 1, "3,2");
  if (k.pass)
    c.line(x.at(*k.pass), y + 1, x.at(*k.pass), y + 17, "#000000", 1.5);
  for (const auto& [at, g] : group_marks(k, x, &efficiency_point::datasheet)) {
    c.circle(x.at(g.fraction), y + 6, 3.5, svg::status_colour(at.second),
             gpus_tip(k, g, "datasheet (" + at.second + ")"));
    if (g.gpus.size() > 1)
      c.text(x.at(g.fraction) + 5, y + 8, fmt::format("×{}", g.gpus.size()), "start", 8);
  }
  for (const auto& [at, g] : group_marks(k, x, &efficiency_point::clock_adjusted)) {
    c.rect(x.at(g.fraction) - 3, y + 10, 6, 6, "#FFFFFF",
           gpus_tip(k, g, "clock-adjusted (" + at.second + ")"), svg::status_colour(at.second));
    if (g.gpus.size() > 1)
      c.text(x.at(g.fraction) + 5, y + 17, fmt::format("×{}", g.gpus.size()), "start", 8);
  }
}

} // namespace

std::size_t heat_bin(double fraction) {
  std::size_t b = 0;
  while (b < heat_edges.size() && fraction >= heat_edges[b])
    ++b;
  return b;
}

std::string efficiency_plot(const std::vector<efficiency_case>& cases) {
  double top = 1.2;
  for (const auto& k : cases)
    for (const auto& p : k.points)
      top = std::max({top, p.datasheet.value_or(0), p.clock_adjusted.value_or(0)});
  top = std::min(svg::nice_range(0, top, false).second, 2.0);
  const double row = 20, head = 40, height = head + row * static_cast<double>(cases.size()) + 40;
  svg::canvas c(plot_width, height, "Measured against ceiling",
                fmt::format("{} cases; each GPU's fraction of its datasheet ceiling (dot) and of "
                            "its clock-adjusted ceiling (square), coloured by verdict; the solid "
                            "line is the pass fraction, the dashed line the warn fraction.",
                            cases.size()));
  const svg::scale x{0, top, 340, plot_width - 20, false};
  const svg::scale y{0, 1, height - 40, head, false};
  for (const double t : x.ticks()) {
    c.line(x.at(t), head, x.at(t), height - 40, "#DDDDDD");
    c.text(x.at(t), height - 26, format_percent(t), "middle", 10);
  }
  c.line(x.from, height - 40, x.to, height - 40, "#000000");
  c.text((x.from + x.to) / 2, height - 8, "% of ceiling", "middle");
  c.circle(x.from, 14, 3.5, "#000000");
  c.text(x.from + 8, 18, "datasheet", "start", 10);
  c.rect(x.from + 80, 11, 6, 6, "#FFFFFF", "", "#000000");
  c.text(x.from + 92, 18, "clock-adjusted", "start", 10);
  c.line(x.from + 190, 8, x.from + 190, 20, "#000000", 1.5);
  c.text(x.from + 196, 18, "pass", "start", 10);
  c.line(x.from + 240, 8, x.from + 240, 20, "#000000", 1, "3,2");
  c.text(x.from + 246, 18, "warn", "start", 10);
  (void)y;
  for (std::size_t i = 0; i < cases.size(); ++i)
    efficiency_row(c, cases[i], x, head + row * static_cast<double>(i));
  return c.str();
}

std::string size_plot(std::string_view title, std::string_view unit,
                      const std::vector<size_series>& series) {
  double lo = std::numeric_limits<double>::max(), hi = 0, top = 0;
  for (const auto& s : series) {
    for (const auto& [b, v] : s.points) {
      lo = std::min(lo, b);
      hi = std::max(hi, b);
      top = std::max(top, v);
    }
    top = std::max(top, s.ceiling.value_or(0));
  }
  if (hi <= 0)
    lo = hi = 1;
  hi = std::max(hi, lo * 2);
  const auto [yl, yh] = svg::nice_range(0, top * 1.05, false);
  const double height = 320 + 16 * static_cast<double>(series.size());
  svg::canvas c(plot_width, height, std::string(title),
                fmt::format("{} against transfer size (log scale), {} series; each series' "
                            "ceiling is the dashed line of its colour.",
                            title, series.size()));
  const svg::scale x{std::exp2(std::floor(std::log2(lo))),
                     std::exp2(std::ceil(std::log2(hi))),
                     70,
                     plot_width - 20,
                     true,
                     true};
  const svg::scale y{yl, yh, 270, 20, false};
  c.axes(x, y, "size (bytes)", std::string(unit), true);
  for (std::size_t k = 0; k < series.size(); ++k) {
    const auto& s = series[k];
    const char* colour = svg::series_colour(k);
    std::vector<std::pair<double, double>> pts;
    for (const auto& [b, v] : s.points) {
      pts.emplace_back(x.at(b), y.at(v));
      c.circle(x.at(b), y.at(v), 3, colour,
               fmt::format("{}: {} at {}", s.label, format_figure(v), svg::tick_label(b, true)));
    }
    if (pts.size() > 1)
      c.polyline(pts, colour);
    if (s.ceiling)
      c.line(x.from, y.at(*s.ceiling), x.to, y.at(*s.ceiling), colour, 1, "6,3");
    const double ly = 318 + 16 * static_cast<double>(k);
    c.line(70, ly - 4, 90, ly - 4, colour, 2);
    c.text(96, ly,
           s.label +
               (s.ceiling ? fmt::format(" (ceiling {} {})", format_figure(*s.ceiling), unit) : ""),
           "start", 10);
  }
  return c.str();
}

std::string p2p_heatmap(const std::vector<int>& gpus, const std::vector<p2p_cell>& cells,
                        std::string_view unit) {
  const double cell =
      std::clamp(720.0 / std::max<double>(1, static_cast<double>(gpus.size())), 40.0, 90.0);
  const double left = 70, top = 40;
  const double side = cell * static_cast<double>(gpus.size());
  const double height = top + side + 60;
  svg::canvas c(std::max(plot_width, left + side + 20), height, "Peer-to-peer bandwidth",
                fmt::format("{} GPUs; each ordered pair (row: source, column: destination) "
                            "coloured by its fraction of its path's ceiling on a fixed scale, "
                            "labelled with its bandwidth in {} and its path.",
                            gpus.size(), unit));
  auto at = [&](int index) {
    return static_cast<double>(std::find(gpus.begin(), gpus.end(), index) - gpus.begin());
  };
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    const double o = static_cast<double>(i) * cell + cell / 2;
    c.text(left + o, top - 6, fmt::format("to {}", gpus[i]), "middle", 10);
    c.text(left - 6, top + o + 4, fmt::format("GPU {}", gpus[i]), "end", 10);
    c.rect(left + static_cast<double>(i) * cell, top + static_cast<double>(i) * cell, cell - 1,
           cell - 1, "#FFFFFF", "", "#CCCCCC");
  }
  for (const auto& p : cells) {
    const double cx = left + at(p.dst) * cell, cy = top + at(p.src) * cell;
    const char* fill = p.fraction ? heat_colour(*p.fraction) : "#BBBBBB";
    c.rect(cx, cy, cell - 1, cell - 1, fill,
           fmt::format("GPU {} to GPU {}: {} {} ({} of the path's ceiling) over {}", p.src, p.dst,
                       p.value ? format_figure(*p.value) : "not measured", unit, pct(p.fraction),
                       p.path.empty() ? "an unknown path" : p.path));
    const char* ink = p.fraction ? heat_text(*p.fraction) : "#000000";
    c.text(cx + cell / 2, cy + cell / 2, p.value ? format_figure(*p.value) : "-", "middle", 10,
           ink);
    c.text(cx + cell / 2, cy + cell / 2 + 12, p.path, "middle", 9, ink);
  }
  heat_legend(c, left, top + side + 20);
  return c.str();
}

namespace {

struct band {
  const char* name;
  const char* unit;
  std::optional<double> telemetry_window::*field;
  std::optional<double> telemetry_series::*limit;
  const char* limit_name; ///< "max", "slowdown", "limit"
};

void telemetry_band(svg::canvas& c, const telemetry_series& s, const band& b, const svg::scale& x,
                    double top, std::size_t k) {
  const std::optional<double> limit = s.*b.limit;
  double hi = limit.value_or(0);
  for (const auto& w : s.windows)
    hi = std::max(hi, (w.*b.field).value_or(0));
  const auto [yl, yh] = svg::nice_range(0, std::max(hi * 1.05, 1.0), false);
  const svg::scale y{yl, yh, top + 90, top, false};
  for (const double t : y.ticks(3)) {
    c.line(x.from, y.at(t), x.to, y.at(t), "#EEEEEE");
    c.text(x.from - 4, y.at(t) + 4, svg::tick_label(t, false), "end", 10);
  }
  c.line(x.from, top + 90, x.to, top + 90, "#000000");
  c.text(x.from + 4, top - 4, fmt::format("{} ({})", b.name, b.unit), "start", 10);
  if (limit) {
    c.line(x.from, y.at(*limit), x.to, y.at(*limit), "#000000", 1, "6,3");
    c.text(x.to, y.at(*limit) - 3, fmt::format("{} {}", b.limit_name, format_figure(*limit)), "end",
           9);
  }
  const char* colour = svg::series_colour(k);
  for (const auto& w : s.windows)
    if (const auto v = w.*b.field) {
      const double x0 = x.at(w.start_s), x1 = std::max(x.at(w.end_s), x0 + 2);
      c.line(x0, y.at(*v), x1, y.at(*v), colour, 3);
      c.rect(x0, y.at(*v) - 4, x1 - x0, 8, "none",
             fmt::format("{}: {} {} {}", w.label, b.name, format_figure(*v), b.unit));
    }
}

} // namespace

std::string telemetry_plot(const telemetry_series& s) {
  double t0 = std::numeric_limits<double>::max(), t1 = 0;
  for (const auto& w : s.windows) {
    t0 = std::min(t0, w.start_s);
    t1 = std::max(t1, w.end_s);
  }
  if (s.windows.empty())
    t0 = 0;
  if (t1 <= t0)
    t1 = t0 + 1;
  const double height = 400;
  svg::canvas c(
      plot_width, height, fmt::format("Telemetry of {}", s.gpu),
      fmt::format("{} over {} windows from {} s to {} s: SM clock, temperature and power, "
                  "each with the GPU's limit dashed (maximum clock, slowdown "
                  "temperature, power limit) where it is known; windows with a thermal "
                  "or other slowdown shaded, a power cap alone marked grey over the "
                  "power band; {} events marked.",
                  s.gpu, s.windows.size(), format_figure(t0), format_figure(t1), s.marks.size()));
  const svg::scale x{t0, t1, 70, plot_width - 20, false};
  for (const auto& w : s.windows)
    if (!w.throttle_reasons.empty()) {
      std::string why;
      for (const auto& r : w.throttle_reasons) {
        if (!why.empty())
          why += ", ";
        why += r;
      }
      // A power cap alone is how a GEMM runs on a healthy GPU at its limit: no warning shade.
      const bool power_only =
          std::all_of(w.throttle_reasons.begin(), w.throttle_reasons.end(),
                      [](const std::string& r) { return r.find("power") != std::string::npos; });
      const double x0 = x.at(w.start_s), span = std::max(x.at(w.end_s) - x0, 2.0);
      if (power_only)
        c.rect(x0, 250, span, 5, "#BBBBBB", fmt::format("{}: at its power cap ({})", w.label, why));
      else
        c.rect(x0, 16, span, 334, "#F7D4C0", fmt::format("{}: slowed down ({})", w.label, why));
    }
  const std::array<band, 3> bands = {
      band{"SM clock", "MHz", &telemetry_window::sm_clock_mhz, &telemetry_series::sm_clock_max_mhz,
           "max"},
      // NVML's slowdown temperature where the GPU gives one; else the site's own limit.
      s.temperature_slowdown_c || !s.site_temperature_limit_c
          ? band{"temperature", "C", &telemetry_window::temperature_c,
                 &telemetry_series::temperature_slowdown_c, "slowdown"}
          : band{"temperature", "C", &telemetry_window::temperature_c,
                 &telemetry_series::site_temperature_limit_c, "site limit"},
      band{"power", "W", &telemetry_window::power_w, &telemetry_series::power_limit_w, "limit"}};
  for (std::size_t k = 0; k < bands.size(); ++k)
    telemetry_band(c, s, bands[k], x, 20 + 115 * static_cast<double>(k), k);
  for (const auto& m : s.marks) {
    c.line(x.at(m.time_s), 16, x.at(m.time_s), 350, svg::okabe_ito[6], 1.5, "2,2");
    c.circle(x.at(m.time_s), 16, 4, svg::okabe_ito[6],
             fmt::format("{} s: {}", format_figure(m.time_s), m.label));
  }
  for (const double t : x.ticks())
    c.text(x.at(t), 366, svg::tick_label(t, false), "middle", 10);
  c.text((x.from + x.to) / 2, 390,
         "time since the run started (s); shaded: slowed down (thermal or other); grey: power cap",
         "middle");
  return c.str();
}

std::string diff_plot(const std::vector<diff_bar>& bars, double min_effect) {
  double reach = std::max(min_effect * 2, 0.05);
  for (const auto& b : bars)
    reach = std::max(reach, std::fabs(b.change.value_or(0)));
  reach = std::min(svg::nice_range(0, reach, false).second, 10.0);
  const double row = 18, head = 30, height = head + row * static_cast<double>(bars.size()) + 44;
  svg::canvas c(plot_width, height, "Change per metric",
                fmt::format("{} metrics; relative change of the median from OLD to NEW, coloured "
                            "by significance (vermillion regression, bluish green improvement, "
                            "grey unchanged); the shaded band is the smallest change that counts "
                            "(+-{}).",
                            bars.size(), format_percent(min_effect)));
  const svg::scale x{-reach, reach, 340, plot_width - 20, false};
  const double bottom = height - 44;
  c.rect(x.at(-min_effect), head, x.at(min_effect) - x.at(-min_effect), bottom - head, "#EEEEEE",
         fmt::format("noise band: +-{}", format_percent(min_effect)));
  for (const double t : x.ticks(6)) {
    c.line(x.at(t), head, x.at(t), bottom, "#DDDDDD");
    c.text(x.at(t), bottom + 14, fmt::format("{}{}", t > 0 ? "+" : "", format_percent(t)), "middle",
           10);
  }
  c.line(x.at(0), head - 4, x.at(0), bottom, "#000000");
  c.line(x.from, bottom, x.to, bottom, "#000000");
  c.text((x.from + x.to) / 2, bottom + 34, "change of the median (NEW vs OLD)", "middle");
  for (std::size_t i = 0; i < bars.size(); ++i) {
    const auto& b = bars[i];
    const double y = head + row * static_cast<double>(i);
    c.text(x.from - 8, y + 12, b.label, "end", 10);
    if (!b.change) {
      c.text(x.at(0) + 4, y + 12, b.kind, "start", 9);
      continue;
    }
    const double v = std::clamp(*b.change, -reach, reach);
    const char* colour = b.kind == "regression" || b.kind == "noisy_regression"
                             ? svg::okabe_ito[6]
                             : (b.kind == "improved" ? svg::okabe_ito[3] : "#999999");
    c.rect(std::min(x.at(0), x.at(v)), y + 3, std::fabs(x.at(v) - x.at(0)), row - 6, colour,
           fmt::format("{}: {}{} ({})", b.label, *b.change > 0 ? "+" : "",
                       format_percent(*b.change), b.kind));
  }
  return c.str();
}

std::array<double, 8> deviation_edges(double min_deviation) {
  const double d = min_deviation;
  return {-8 * d, -4 * d, -2 * d, -d, d, 2 * d, 4 * d, 8 * d};
}

std::size_t deviation_bin(double signed_deviation, double min_deviation) {
  const auto edges = deviation_edges(min_deviation);
  std::size_t b = 0;
  while (b < edges.size() && signed_deviation >= edges[b])
    ++b;
  return b;
}

namespace {

/// The key of the diverging scale at (x, y): the nine bins, worse to better, and the outlier ring.
void deviation_legend(svg::canvas& c, double x, double y, double min_deviation) {
  c.text(x, y - 4,
         "deviation from the median of the GPU's model (worse \u2190 \u2192 better); "
         "ringed: outlier; grey: not compared",
         "start", 10);
  const auto edges = deviation_edges(min_deviation);
  const double w = 60;
  for (std::size_t b = 0; b < svg::tol_burd.size(); ++b) {
    c.rect(x + static_cast<double>(b) * w, y, w, 12, svg::tol_burd[b]);
    std::string label;
    if (b == 0)
      label = "< " + format_percent(edges[0]);
    else if (b == 8)
      label = "> +" + format_percent(edges[7]);
    else if (b == 4)
      label = "within " + format_percent(edges[4]);
    else
      label = (b > 4 ? "+" : "") + format_percent(b < 4 ? edges[b - 1] : edges[b]);
    c.text(x + static_cast<double>(b) * w + w / 2, y + 24, label, "middle", 9);
  }
}

} // namespace

std::string compare_heatmap(const std::vector<heat_row>& rows,
                            const std::vector<std::string>& cases, double min_deviation) {
  const double left = 230, key = 30, top = key + 250; // room for the turned case labels
  const double cw =
      std::clamp(640.0 / std::max<double>(1, static_cast<double>(cases.size())), 14.0, 60.0);
  const double ch = 14;
  const double width = std::max(plot_width, left + cw * static_cast<double>(cases.size()) + 20);
  const double height = top + ch * static_cast<double>(rows.size()) + 10;
  svg::canvas c(width, height, "Deviation from each model's median",
                fmt::format("{} GPUs (rows, grouped by node) by {} cases (columns), each cell "
                            "coloured by its deviation from the median of the GPUs of its model "
                            "on the diverging scale at the top (within {} near white, grey not "
                            "compared); outliers ringed.",
                            rows.size(), cases.size(), format_percent(min_deviation)));
  deviation_legend(c, left, key, min_deviation);
  for (std::size_t j = 0; j < cases.size(); ++j) {
    const double x = left + cw * static_cast<double>(j) + cw / 2;
    c.rotated_text(x + 4, top - 6, cases[j], -60, "start", 10);
  }
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& row = rows[i];
    const double y = top + ch * static_cast<double>(i);
    if (i == 0 || rows[i - 1].group != row.group) {
      c.line(4, y, left + cw * static_cast<double>(cases.size()), y, "#777777");
      c.text(4, y + 11, row.group, "start", 10);
    }
    c.text(left - 6, y + 11, row.label, "end", 10);
    for (std::size_t j = 0; j < cases.size() && j < row.cells.size(); ++j) {
      const auto& k = row.cells[j];
      const double x = left + cw * static_cast<double>(j);
      c.rect(x, y + 1, cw - 1, ch - 2,
             k.deviation ? svg::tol_burd[deviation_bin(*k.deviation, min_deviation)] : "#CCCCCC",
             k.tooltip, k.outlier ? "#000000" : "");
    }
  }
  return c.str();
}

std::string roofline_plot(const roofline_input& r) {
  const double ridge = r.peak / std::max(r.bandwidth, 1.0);
  double lo = ridge / 100, hi = ridge * 100;
  for (const auto& p : r.points) {
    lo = std::min(lo, p.intensity / 2);
    hi = std::max(hi, p.intensity * 2);
  }
  const auto [xl, xh] = svg::nice_range(lo, hi, true);
  const auto [yl, yh] = svg::nice_range(r.bandwidth * xl / 2, r.peak * 2, true);
  svg::canvas c(plot_width, 340, fmt::format("Roofline of {}", r.model),
                fmt::format("{}: the measured memory bandwidth ({} GB/s) and throughput ({} "
                            "TFLOP/s) as the roof (log-log), ridge at {} FLOP/byte; {} results "
                            "with FLOP and byte counts as points.",
                            r.model, format_figure(r.bandwidth / 1e9), format_figure(r.peak / 1e12),
                            format_figure(ridge), r.points.size()));
  const svg::scale x{xl, xh, 70, plot_width - 20, true}, y{yl, yh, 290, 20, true};
  c.axes(x, y, "arithmetic intensity (FLOP/byte)", "FLOP/s");
  c.polyline(
      {{x.at(xl), y.at(r.bandwidth * xl)}, {x.at(ridge), y.at(r.peak)}, {x.at(xh), y.at(r.peak)}},
      svg::okabe_ito[0], 2);
  for (std::size_t k = 0; k < r.points.size(); ++k) {
    const auto& p = r.points[k];
    c.circle(x.at(p.intensity), y.at(p.flops), 4, svg::series_colour(k),
             fmt::format("{}: {} TFLOP/s at {} FLOP/byte", p.label, format_figure(p.flops / 1e12),
                         format_figure(p.intensity)));
  }
  return c.str();
}

} // namespace gpuspec::reports::render::html
