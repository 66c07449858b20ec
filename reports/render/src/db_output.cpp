// A `gpuspec db` listing as JSON and as the one text table (db_output.hpp).

#include "gpuspec/reports/render/db_output.hpp"

#include <fmt/format.h>

#include "gpuspec/reports/model/text_table.hpp"

namespace gpuspec::reports::inline render {

nlohmann::ordered_json to_json(const db_output& d) {
  nlohmann::ordered_json j;
  j["schema"] = d.schema;
  j["title"] = d.title;
  j["columns"] = d.columns;
  j["rows"] = nlohmann::ordered_json::array();
  for (const auto& r : d.rows)
    j["rows"].push_back(r);
  j["notes"] = d.notes;
  return j;
}

namespace {

std::string cell(const nlohmann::ordered_json& v) {
  if (v.is_null())
    return "n/a";
  if (v.is_string())
    return v.get<std::string>();
  if (v.is_number_float())
    return fmt::format("{:.4g}", v.get<double>());
  return v.dump();
}

} // namespace

std::string db_text_table(const db_output& d, std::size_t width) {
  std::string out = d.title.empty() ? "" : d.title + "\n";
  if (d.rows.empty()) {
    out += d.empty_text.empty() ? "(nothing)\n" : d.empty_text + "\n";
  } else {
    text_table t(d.columns);
    for (const auto& r : d.rows) {
      std::vector<std::string> cells;
      for (const auto& c : d.columns)
        cells.push_back(r.contains(c) ? cell(r.at(c)) : "n/a");
      t.add_row(std::move(cells));
    }
    if (!d.columns.empty())
      t.set_shrinkable({d.columns.size() - 1});
    out += t.render(width);
  }
  for (const auto& n : d.notes)
    out += "note: " + n + "\n";
  return out;
}

} // namespace gpuspec::reports::render
