#pragma once
/// What a `gpuspec db` query prints (docs/fleet.md): rows of named columns, as the query made
/// them, for the renderers (render.hpp) to lay out as a table or JSON. The fleet library fills
/// it; a format computes nothing it does not hold.

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpuspec::reports::inline render {

struct db_output {
  std::string schema;               ///< the JSON document's "schema", "gpuspec.db.history.v1"
  std::string title;                ///< a line above the table
  std::vector<std::string> columns; ///< every row holds each of these keys, in this order
  std::vector<nlohmann::ordered_json> rows;
  std::vector<std::string> notes; ///< printed under the table, and in the JSON
  std::string empty_text;         ///< the table's line when there are no rows
};

/// {"schema", "title", "columns", "rows", "notes"}: every key present.
[[nodiscard]] nlohmann::ordered_json to_json(const db_output& d);

/// The one text table (text_table.hpp) of the rows: strings as they are, numbers as the
/// shortest text, null as "n/a"; the last column gives way first to fit `width`.
[[nodiscard]] std::string db_text_table(const db_output& d, std::size_t width);

} // namespace gpuspec::reports::render
