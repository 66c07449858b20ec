#pragma once
/// Our own small SVG writer for the HTML page's plots (docs/design.md, "Output": no chart library,
/// no script, no font but the reader's own): a canvas of shapes and text, the scales that map a
/// value to a pixel (linear or log), and the axes drawn from them. Coordinates are written
/// with one decimal, so a plot of fixed inputs is the same text on every machine (the golden
/// files of tests/unit/html).

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpuspec::reports::inline render::svg {

/// Okabe and Ito's colour-blind safe palette ("Color Universal Design", 2008; the eight colours
/// as Wong lists them, Nature Methods 8:441, 2011): black, orange, sky blue, bluish green,
/// yellow, blue, vermillion, reddish purple.
inline constexpr std::array<const char*, 8> okabe_ito = {
    "#000000", "#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7"};
/// The colour of series k (black left out: it is the axes' colour).
[[nodiscard]] const char* series_colour(std::size_t k);

/// Paul Tol's sequential "YlOrBr" scheme (Tol, "Colour Schemes", SRON/EPS/TN/09-002, 2021,
/// figure 19), light (low) to dark (high): the heatmaps' fixed scale.
inline constexpr std::array<const char*, 9> tol_ylorbr = {"#FFFFE5", "#FFF7BC", "#FEE391",
                                                          "#FEC44F", "#FB9A29", "#EC7014",
                                                          "#CC4C02", "#993404", "#662506"};

/// Paul Tol's diverging "BuRd" scheme (the same note, figure 18), red to blue: the comparison's
/// scale of deviation from a model's median, worse (red) to better (blue), white the middle.
inline constexpr std::array<const char*, 9> tol_burd = {"#B2182B", "#D6604D", "#F4A582",
                                                        "#FDDBC7", "#F7F7F7", "#D1E5F0",
                                                        "#92C5DE", "#4393C3", "#2166AC"};

/// Verdict colours, from Okabe-Ito: pass bluish green, warn orange, fail vermillion,
/// inconclusive reddish purple, skipped grey.
[[nodiscard]] const char* status_colour(std::string_view status);

/// `s` with its control characters written visibly (escape_control) and &, <, >, " and '
/// escaped: the one escaping of text and attribute values of SVG and HTML alike.
[[nodiscard]] std::string escape(std::string_view s);
/// A coordinate or length, one decimal, "-0.0" written "0.0".
[[nodiscard]] std::string num(double v);

/// A value-to-pixel map over [lo, hi] onto [from, to] (to < from for a y axis).
struct scale {
  double lo = 0, hi = 1;
  double from = 0, to = 1;
  bool log = false;   ///< base 10; lo and hi must then be > 0
  bool bytes = false; ///< log ticks at powers of 2 (a size axis) rather than of 10
  [[nodiscard]] double at(double v) const;
  /// Tick values: powers of 10 (log; of 2 for bytes), or 1-2-5 steps giving about `count` ticks
  /// (linear).
  [[nodiscard]] std::vector<double> ticks(int count = 5) const;
};

/// [lo, hi] widened to tidy ends: for log, powers of 10 around the data; for linear, 0 (when
/// the data are all positive) to a 1-2-5 multiple above the highest.
[[nodiscard]] std::pair<double, double> nice_range(double lo, double hi, bool log);

/// An axis tick's label: "1 KiB".."1 GiB" for bytes, else a short figure ("250", "1.5k").
[[nodiscard]] std::string tick_label(double v, bool bytes);

/// An SVG document under construction. Every plot has a title and a text description
/// (<title> and <desc> under role="img"): the text alternative a screen reader reads; the page
/// shows the description under the plot too.
class canvas {
public:
  canvas(double width, double height, std::string title, std::string description);
  void rect(double x, double y, double w, double h, std::string_view fill,
            std::string_view tooltip = "", std::string_view stroke = "");
  void line(double x1, double y1, double x2, double y2, std::string_view stroke, double width = 1,
            std::string_view dash = "");
  void polyline(const std::vector<std::pair<double, double>>& points, std::string_view stroke,
                double width = 1.5);
  void circle(double x, double y, double r, std::string_view fill, std::string_view tooltip = "");
  /// anchor: "start", "middle" or "end"
  void text(double x, double y, std::string_view s, std::string_view anchor = "start",
            double size = 11, std::string_view fill = "#000000");
  /// Text turned by `degrees` about (x, y): -90 for a y axis's label, centred there.
  void rotated_text(double x, double y, std::string_view s, double degrees = -90,
                    std::string_view anchor = "middle", double size = 11);
  /// The axes of a plot area: ticks, tick labels and grid lines of each scale, and the labels.
  void axes(const scale& x, const scale& y, std::string_view x_label, std::string_view y_label,
            bool x_bytes = false);
  [[nodiscard]] std::string str() const;
  [[nodiscard]] double width() const { return m_width; }

private:
  double m_width, m_height;
  std::string m_title, m_description, m_body;
};

} // namespace gpuspec::reports::render::svg
