#pragma once
/// Printers of a check outcome behind one small interface (STYLE.md 9): a terminal table,
/// Markdown, JSON, JUnit XML and the Prometheus text format.

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "gpuspec/reports/verdict.hpp"

namespace gpuspec::reports {

enum class output_format { table, markdown, json, junit, prometheus };

/// "table", "md", "json", "junit", "prom"; std::nullopt for anything else.
[[nodiscard]] std::optional<output_format> output_format_from_string(std::string_view s);

struct render_options {
  bool colour = false; ///< ANSI colours in the table (the caller decides: a TTY, no NO_COLOR)
  /// The table fits this many columns (the terminal's; the caller decides), shortening the
  /// check and note columns with "…"; 0: as wide as it needs.
  std::size_t width = 0;
};

class renderer {
public:
  virtual ~renderer() = default;
  /// The whole document, ending with a newline.
  [[nodiscard]] virtual std::string render(const check_outcome& outcome) const = 0;
};

[[nodiscard]] std::unique_ptr<renderer> make_renderer(output_format format,
                                                      const render_options& options = {});

/// The check outcome as JSON ("gpuspec.check.v1"); what the json renderer prints.
[[nodiscard]] nlohmann::ordered_json to_json(const check_outcome& outcome);

} // namespace gpuspec::reports
