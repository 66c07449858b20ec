#pragma once
/// The HTML page's plots (render_html.cpp), each one SVG from plain inputs that the page
/// gathers from the model: nothing here reads a report, so a plot of fixed inputs is a golden
/// file (tests/unit/html). Every plot draws its ceiling or pass line, states its scale, and
/// carries a text alternative (svg_writer.hpp). Colours: Okabe-Ito and Paul Tol (svg_writer).

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpuspec::reports::inline render::html {

/// One GPU's figure of a case: the fraction of its datasheet ceiling and of its clock-adjusted
/// one (either may be absent), and its verdict ("pass", "warn", ...).
struct efficiency_point {
  std::string gpu; ///< "GPU 3"
  std::optional<double> datasheet, clock_adjusted;
  std::string status;
};
/// One case (bench id and axes) over the GPUs that ran it, with its pass and warn fractions.
struct efficiency_case {
  std::string label; ///< "memory.stream.triad dtype=fp32"
  std::optional<double> pass, warn;
  std::vector<efficiency_point> points;
};
/// Measured against ceiling: a row per case, each GPU a mark at its % of datasheet (filled) and
/// of clock-adjusted (hollow), pass (solid) and warn (dashed) lines drawn on the row. GPUs of
/// one verdict whose marks fall on the same pixel are one mark labelled with their count ("×8").
[[nodiscard]] std::string efficiency_plot(const std::vector<efficiency_case>& cases);

/// One line of a size sweep: (bytes, value) points, sorted by bytes, and its ceiling.
struct size_series {
  std::string label;
  std::vector<std::pair<double, double>> points;
  std::optional<double> ceiling;
};
/// Bandwidth against size (log bytes, linear value from 0), a line per series, each series'
/// ceiling a dashed line of its colour.
[[nodiscard]] std::string size_plot(std::string_view title, std::string_view unit,
                                    const std::vector<size_series>& series);

/// The heatmaps' fixed colour scale over a fraction of the reference: nine bins, the edges
/// below; the darkest bin is under 50% (the worst), the lightest 100% and more.
inline constexpr std::array<double, 8> heat_edges = {0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 1.0};
/// The bin of `fraction`: 0 (under 50%) .. 8 (100% or more).
[[nodiscard]] std::size_t heat_bin(double fraction);

/// One ordered pair of a P2P matrix: its bandwidth, the fraction of its path's ceiling, and
/// the path ("NV18", "PIX", "PHB", ...).
struct p2p_cell {
  int src = 0, dst = 0;
  std::optional<double> value, fraction;
  std::string path;
};
/// The P2P matrix: sources as rows, destinations as columns, each cell coloured on the fixed
/// scale by its fraction of the path's ceiling and labelled with its value and path.
[[nodiscard]] std::string p2p_heatmap(const std::vector<int>& gpus,
                                      const std::vector<p2p_cell>& cells, std::string_view unit);

/// One window of a GPU's telemetry: a result's measurement window or a burn-in interval.
struct telemetry_window {
  double start_s = 0, end_s = 0;
  std::optional<double> sm_clock_mhz, temperature_c, power_w;
  std::vector<std::string> throttle_reasons; ///< empty: not throttled
  std::string label;                         ///< the result or interval
};
struct telemetry_mark {
  double time_s = 0;
  std::string label; ///< "xid 79", "checksum mismatch"
};
struct telemetry_series {
  std::string gpu;
  std::vector<telemetry_window> windows; ///< in time order
  std::optional<double> power_limit_w;
  std::vector<telemetry_mark> marks;
  /// The GPU's own limits, from its inventory: the highest SM clock, and NVML's slowdown
  /// temperature (null where the GPU does not report one).
  std::optional<double> sm_clock_max_mhz, temperature_slowdown_c;
  /// The site's temperature limit (the rules'): drawn, as the site's, where the GPU reports no
  /// slowdown temperature.
  std::optional<double> site_temperature_limit_c;
};
/// Telemetry over time: SM clock, temperature and power in three bands on one time axis, each
/// with the GPU's limit dashed (maximum clock, slowdown temperature, power limit); windows with
/// a thermal or other slowdown shaded across all three; a power cap alone (what a GEMM reaches
/// on a healthy GPU) only marked by a grey strip over the power band; events as marks.
[[nodiscard]] std::string telemetry_plot(const telemetry_series& s);

/// One metric of a diff: its relative change and how diff judged it (change_kind's names).
struct diff_bar {
  std::string label;
  std::optional<double> change;
  std::string kind; ///< "regression", "improved", "unchanged", "noisy_regression", ...
};
/// % change per metric, coloured by significance, the noise band (+-min_effect) shaded.
[[nodiscard]] std::string diff_plot(const std::vector<diff_bar>& bars, double min_effect);

/// The comparison's diverging scale: a cell's deviation from its model's median, signed so that
/// negative is worse (slower, or a longer time), in nine bins whose edges are the outlier rule's
/// smallest deviation d (`--min-deviation`) and its doublings: under -8d, -8d, -4d, -2d, within
/// d (the middle: no GPU there can be an outlier), 2d, 4d, 8d, over 8d.
[[nodiscard]] std::array<double, 8> deviation_edges(double min_deviation);
/// The bin of a signed deviation: 0 (worst) .. 4 (within d) .. 8 (best).
[[nodiscard]] std::size_t deviation_bin(double signed_deviation, double min_deviation);

struct heat_cell {
  std::optional<double> deviation; ///< signed (negative: worse); nullopt: not compared
  bool outlier = false;
  std::string tooltip;
};
/// One GPU's row of the heatmap, under the node (group) it belongs to.
struct heat_row {
  std::string group; ///< the node: its host name, or its report's label
  std::string label; ///< "GPU 3"
  std::vector<heat_cell> cells;
};
/// GPU x benchmark: a row per GPU, grouped by node (a rule and the node's name above each
/// group), a column per case, each cell coloured on the diverging scale by its deviation from
/// its model's median; outliers ringed; the key at the top.
[[nodiscard]] std::string compare_heatmap(const std::vector<heat_row>& rows,
                                          const std::vector<std::string>& cases,
                                          double min_deviation);

struct roofline_point {
  std::string label;
  double intensity = 0; ///< FLOP per byte
  double flops = 0;     ///< FLOP/s
};
/// A roofline of one GPU model from its measured ceilings: the best measured memory
/// bandwidth (bytes/s) and the best measured throughput (FLOP/s), log-log, each result with
/// FLOP and byte counts a point.
struct roofline_input {
  std::string model;
  double bandwidth = 0, peak = 0;
  std::vector<roofline_point> points;
};
[[nodiscard]] std::string roofline_plot(const roofline_input& r);

} // namespace gpuspec::reports::render::html
