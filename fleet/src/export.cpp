// `db export` (queries.hpp): every result row as CSV or JSON Lines.

#include <iterator>
#include <string_view>

#include <fmt/format.h>

#include "gpuspec/fleet/queries.hpp"

namespace gpuspec::fleet {

namespace {

/// RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled. A text
/// cell that starts with '=', '+', '-', '@', a tab or a carriage return is one a spreadsheet
/// runs as a formula: it gets a single quote in front (OWASP, "CSV Injection"). Numbers are
/// written by gpuspec ("-1.5" stays a number); text comes from reports anyone can write.
std::string csv_field(const nlohmann::ordered_json& v) {
  if (v.is_null())
    return "";
  std::string text = v.is_string() ? v.get<std::string>() : v.dump();
  if (v.is_string() && !text.empty() &&
      std::string_view("=+-@\t\r").find(text.front()) != std::string_view::npos)
    text.insert(0, 1, '\'');
  if (text.find_first_of(",\"\r\n") == std::string::npos)
    return text;
  std::string out = "\"";
  for (const char c : text)
    out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

} // namespace

std::size_t export_rows(const connection& db, export_format format, std::ostream& out) {
  const std::string columns = fmt::format("{}", fmt::join(export_columns, ", "));
  auto s = db.prepare(fmt::format("SELECT {} FROM results ORDER BY at_utc, run_id, node, "
                                  "result_index, gpu_index",
                                  columns));
  constexpr std::size_t n = std::size(export_columns);
  if (format == export_format::csv)
    out << fmt::format("{}\r\n", fmt::join(export_columns, ","));
  std::size_t rows = 0;
  while (s.step("read the results")) {
    if (format == export_format::csv) {
      for (std::size_t i = 0; i < n; ++i)
        out << (i ? "," : "") << csv_field(s.json(static_cast<int>(i)));
      out << "\r\n";
    } else {
      nlohmann::ordered_json row;
      row["schema"] = fleet_export_schema;
      for (std::size_t i = 0; i < n; ++i)
        row[export_columns[i]] = s.json(static_cast<int>(i));
      out << row.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    }
    ++rows;
  }
  return rows;
}

} // namespace gpuspec::fleet
