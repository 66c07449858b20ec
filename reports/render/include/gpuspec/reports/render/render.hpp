#pragma once
/// The one home of output (CONTRIBUTING.md, "output"): every command's printed document goes
/// through one renderer interface, one implementation per format. A format prints the documents it
/// has a layout for and computes nothing the model does not already hold:
///
///   document          table  md  json  junit  prom  nccl-tests  reason  html  kube
///   check outcome       x     x    x     x      x       x                 x
///   health outcome      x          x            x                  x             x
///   diff output         x     x    x                                      x
///   compare output      x     x    x                                      x
///   db output           x          x                                             (`gpuspec db`)
///
/// (`table` is health's "text"; html is one self-contained page, render_html.cpp). A new format
/// is one more implementation of `renderer` and one more case of make_renderer; a new document is
/// one more `render` overload and its virtual, which each format that prints it overrides. Asking a
/// format for a document it has no layout for is a bug (the CLI offers only the formats of its
/// command) and throws std::logic_error.

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpuspec/reports/health/health.hpp"
#include "gpuspec/reports/judge/compare.hpp"
#include "gpuspec/reports/judge/diff.hpp"
#include "gpuspec/reports/judge/verdict.hpp"

namespace gpuspec::reports::inline render {

struct db_output;

enum class output_format {
  table,
  markdown,
  json,
  junit,
  prometheus,
  nccl_tests,
  reason,
  html,
  kube, ///< health only: the Node's labels, annotation and taint (kubernetes.hpp)
};

/// "table" (or "text"), "md" (or "markdown"), "json", "junit", "prom" (or "prometheus"),
/// "nccl-tests", "reason", "html", "kube"; std::nullopt for anything else.
[[nodiscard]] std::optional<output_format> output_format_from_string(std::string_view s);

struct render_options {
  bool colour = false; ///< ANSI colours in the table (the caller decides: a TTY, no NO_COLOR)
  /// The table fits this many columns (the terminal's; the caller decides), wrapping the
  /// identifiers and notes at spaces, never cutting them; 0: as wide as it needs.
  std::size_t width = 0;
  /// The reports the document was made from (check's, in its order; diff's OLD and NEW;
  /// compare's), for a format that draws the measurements themselves (html: its plots and the
  /// embedded report JSON); null: none, and the page holds the verdicts and tables alone.
  const std::vector<report>* reports = nullptr;
  /// The terminal table lists the passing results, GPUs and nodes too (`check -v`), and every
  /// cell of a comparison (`compare -v`); otherwise it counts or sums them. The other formats
  /// always list everything.
  bool verbose = false;
  /// The site's temperature limit (the rules' temperature_limit_c, 85 C in specs/expect.json):
  /// the HTML telemetry plot draws it, so labelled, for a GPU that reports no slowdown
  /// temperature. Unset: such a GPU's plot has no temperature limit.
  std::optional<double> site_temperature_limit_c = std::nullopt;
};

/// What `gpuspec health` prints: the outcome and how long the whole command took.
struct health_document {
  const health_outcome& outcome;
  double elapsed_s = 0;
  std::string checked_utc; ///< when the check ran ("2026-12-02T04:00:00Z"); "" when not said
};

class renderer {
public:
  virtual ~renderer() = default;
  /// The whole document, ending with a newline (an empty document is "").
  [[nodiscard]] std::string render(const check_outcome& outcome) const {
    return render_check(outcome);
  }
  [[nodiscard]] std::string render(const health_document& h) const { return render_health(h); }
  [[nodiscard]] std::string render(const diff_output& d) const { return render_diff(d); }
  [[nodiscard]] std::string render(const compare_output& c) const { return render_compare(c); }
  [[nodiscard]] std::string render(const db_output& d) const { return render_db(d); }

protected:
  /// Each document's layout in this format; the defaults throw std::logic_error (no layout).
  [[nodiscard]] virtual std::string render_check(const check_outcome& outcome) const;
  [[nodiscard]] virtual std::string render_health(const health_document& h) const;
  [[nodiscard]] virtual std::string render_diff(const diff_output& d) const;
  [[nodiscard]] virtual std::string render_compare(const compare_output& c) const;
  [[nodiscard]] virtual std::string render_db(const db_output& d) const;
};

/// The renderer of `format`. nccl_tests is not made here: it lays out the reports themselves,
/// not a verdict, and lives with the collectives' figures (the CLI makes it with the reports);
/// asking for it here throws std::invalid_argument.
[[nodiscard]] std::unique_ptr<renderer> make_renderer(output_format format,
                                                      const render_options& options = {});

/// The check outcome as JSON ("gpuspec.check.v1"); what the json renderer prints.
[[nodiscard]] nlohmann::ordered_json to_json(const check_outcome& outcome);

} // namespace gpuspec::reports::render
