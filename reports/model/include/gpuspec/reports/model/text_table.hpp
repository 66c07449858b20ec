#pragma once
/// The one text-table renderer of every command that prints a table (check, diff, compare,
/// run, info, list): header, rule, rows, columns padded to their widest cell (counting code
/// points, so "°C" lines up), and, given a width, made to fit it by shortening the columns
/// marked as shrinkable with "…" (the full text is in the Markdown and JSON outputs).

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace gpuspec::reports::inline model {

class text_table {
public:
  enum class align { left, right };
  explicit text_table(std::vector<std::string> header, std::vector<align> alignment = {});

  void add_row(std::vector<std::string> row);
  /// A row whose `highlight` column (set_highlight) is wrapped in `prefix` and `suffix` after
  /// padding (ANSI colours), so the escapes do not upset the alignment.
  void add_row(std::vector<std::string> row, std::string prefix, std::string suffix);
  void set_highlight(std::size_t column) { m_highlight = column; }
  /// Columns that may be shortened to fit a width, in the order they give way (the least
  /// needed first): each down to its header's width or `min_width` code points before the next.
  void set_shrinkable(std::vector<std::size_t> columns, std::size_t min_width = 12);
  /// The shrinkable columns wrap at spaces onto more lines, each after the first indented by
  /// two, rather than end in "…": no word (an identifier) is ever cut, so a column is never
  /// narrower than its longest word and the indent.
  void set_wrap(bool wrap = true) { m_wrap = wrap; }
  /// Where the table is still too wide, this column leaves it: its cell goes on a line of its
  /// own under the row, indented by four and wrapped at spaces to the width.
  void set_below(std::size_t column) { m_below = column; }
  /// Where the table is still too wide, this column keeps only the room the others leave it,
  /// and a cell that does not fit that room (an identifier longer than it: never cut) goes
  /// whole on a line of its own above its row, wrapped at spaces to the width; the row follows
  /// with the column blank.
  void set_own_line(std::size_t column) { m_own_line = column; }

  /// The table, each line ending in '\n'. `width` 0: as wide as it needs; otherwise the
  /// shrinkable columns give way until every line fits, where they can.
  [[nodiscard]] std::string render(std::size_t width = 0) const;
  [[nodiscard]] bool empty() const { return m_rows.empty(); }

  /// `text` in lines of at most `width` code points (0: one line), broken at spaces; every line
  /// after the first starts with `indent` spaces, and the first has `start` code points already
  /// written before it (a label): a first word that does not fit after a label longer than the
  /// indent leaves the first line empty. A word longer than a line is never cut. The one
  /// wrapping of text for a terminal: cells here, the renderers' hanging paragraphs.
  [[nodiscard]] static std::vector<std::string> wrap(std::string_view text, std::size_t width,
                                                     std::size_t indent, std::size_t start = 0);
  /// Code points of UTF-8 text.
  [[nodiscard]] static std::size_t display_width(std::string_view s);

private:
  struct row {
    std::vector<std::string> cells;
    std::string prefix, suffix;
  };
  std::vector<std::string> m_header;
  std::vector<align> m_align;
  std::vector<row> m_rows;
  std::size_t m_highlight = static_cast<std::size_t>(-1);
  std::vector<std::size_t> m_shrinkable;
  std::size_t m_min_width = 12;
  bool m_wrap = false;
  std::size_t m_below = static_cast<std::size_t>(-1);
  std::size_t m_own_line = static_cast<std::size_t>(-1);
};

} // namespace gpuspec::reports::model
