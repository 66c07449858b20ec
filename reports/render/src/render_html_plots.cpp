#include "render_html_plots.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

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

void efficiency_row(svg::canvas& c, const efficiency_case& k, const svg::scale& x, double y) {
  c.text(x.from - 8, y + 12, k.label, "end", 10);
  if (k.warn)
    c.line(x.at(*k.warn), y + 1, x.at(*k.warn), y + 17, "#000000", 1, "3,2");
  if (k.pass)
    c.line(x.at(*k.pass), y + 1, x.at(*k.pass), y + 17, "#000000", 1.5);
  for (const auto& p : k.points) {
    const std::string tip =
        fmt::format("{} {}: {} of datasheet, {} of clock-adjusted ({})", k.label, p.gpu,
                    pct(p.datasheet), pct(p.clock_adjusted), p.status);
    if (p.datasheet)
      c.circle(x.at(std::min(*p.datasheet, x.hi)), y + 6, 3.5, svg::status_colour(p.status), tip);
    if (p.clock_adjusted)
      c.rect(x.at(std::min(*p.clock_adjusted, x.hi)) - 3, y + 10, 6, 6, "#FFFFFF", tip,
             svg::status_colour(p.status));
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
};

void telemetry_band(svg::canvas& c, const telemetry_series& s, const band& b, const svg::scale& x,
                    double top, std::optional<double> limit, std::size_t k) {
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
    c.text(x.to, y.at(*limit) - 3, fmt::format("limit {}", format_figure(*limit)), "end", 9);
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
  svg::canvas c(plot_width, height, fmt::format("Telemetry of {}", s.gpu),
                fmt::format("{} over {} windows from {} s to {} s: SM clock, temperature and power "
                            "(power limit dashed); windows with a throttle reason shaded; {} "
                            "events marked.",
                            s.gpu, s.windows.size(), format_figure(t0), format_figure(t1),
                            s.marks.size()));
  const svg::scale x{t0, t1, 70, plot_width - 20, false};
  for (const auto& w : s.windows)
    if (!w.throttle_reasons.empty()) {
      std::string why;
      for (const auto& r : w.throttle_reasons) {
        if (!why.empty())
          why += ", ";
        why += r;
      }
      const bool power_only =
          std::all_of(w.throttle_reasons.begin(), w.throttle_reasons.end(),
                      [](const std::string& r) { return r.find("power") != std::string::npos; });
      c.rect(x.at(w.start_s), 16, std::max(x.at(w.end_s) - x.at(w.start_s), 2.0), 334,
             power_only ? "#FAF3C0" : "#F7D4C0", fmt::format("{}: throttled ({})", w.label, why));
    }
  const std::array<band, 3> bands = {band{"SM clock", "MHz", &telemetry_window::sm_clock_mhz},
                                     band{"temperature", "C", &telemetry_window::temperature_c},
                                     band{"power", "W", &telemetry_window::power_w}};
  for (std::size_t k = 0; k < bands.size(); ++k)
    telemetry_band(c, s, bands[k], x, 20 + 115 * static_cast<double>(k),
                   k == 2 ? s.power_limit_w : std::nullopt, k);
  for (const auto& m : s.marks) {
    c.line(x.at(m.time_s), 16, x.at(m.time_s), 350, svg::okabe_ito[6], 1.5, "2,2");
    c.circle(x.at(m.time_s), 16, 4, svg::okabe_ito[6],
             fmt::format("{} s: {}", format_figure(m.time_s), m.label));
  }
  for (const double t : x.ticks())
    c.text(x.at(t), 366, svg::tick_label(t, false), "middle", 10);
  c.text((x.from + x.to) / 2, 390,
         "time since the run started (s); shaded: throttled (yellow: power, red: thermal or other)",
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

std::string compare_heatmap(const std::vector<std::string>& gpus,
                            const std::vector<std::string>& cases,
                            const std::vector<std::vector<heat_cell>>& cells) {
  const double left = 230, top = 150;
  const double cw =
      std::clamp(640.0 / std::max<double>(1, static_cast<double>(cases.size())), 14.0, 60.0);
  const double ch = 14;
  const double width = std::max(plot_width, left + cw * static_cast<double>(cases.size()) + 20);
  const double height = top + ch * static_cast<double>(gpus.size()) + 50;
  svg::canvas c(width, height, "Fraction of each GPU's own spec",
                fmt::format("{} GPUs (rows) by {} cases (columns), each cell coloured on a fixed "
                            "scale by the GPU's fraction of its own reference; outliers among "
                            "GPUs of one model ringed.",
                            gpus.size(), cases.size()));
  for (std::size_t j = 0; j < cases.size(); ++j) {
    const double x = left + cw * static_cast<double>(j) + cw / 2;
    c.rotated_text(x + 4, top - 6, cases[j], -60, "start", 10);
  }
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    const double y = top + ch * static_cast<double>(i);
    c.text(left - 6, y + 11, gpus[i], "end", 10);
    for (std::size_t j = 0; j < cases.size() && j < cells[i].size(); ++j) {
      const auto& k = cells[i][j];
      const double x = left + cw * static_cast<double>(j);
      c.rect(x, y, cw - 1, ch - 1, k.fraction ? heat_colour(*k.fraction) : "#FFFFFF", k.tooltip,
             k.outlier ? svg::okabe_ito[5] : "");
    }
  }
  heat_legend(c, left, height - 34);
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
