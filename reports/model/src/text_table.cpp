#include "gpuspec/reports/model/text_table.hpp"

#include "gpuspec/reports/model/text_format.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace gpuspec::reports::inline model {

namespace {

/// The first `width` code points of `s`, with "…" as the last one when it was cut.
std::string fit(const std::string& s, std::size_t width) {
  if (text_table::display_width(s) <= width)
    return s;
  if (width == 0)
    return {};
  std::string out;
  std::size_t points = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const bool starts = (static_cast<unsigned char>(s[i]) & 0xC0U) != 0x80U;
    if (starts && ++points == width)
      break;
    out += s[i];
  }
  return out + "…";
}

/// The code points of the longest word (run of characters between spaces) of `s`.
std::size_t longest_word(std::string_view s) {
  std::size_t best = 0;
  for (std::size_t at = 0; at <= s.size();) {
    const std::size_t end = std::min(s.find(' ', at), s.size());
    best = std::max(best, text_table::display_width(s.substr(at, end - at)));
    at = end + 1;
  }
  return best;
}

} // namespace

std::vector<std::string> text_table::wrap(std::string_view text, std::size_t width,
                                          std::size_t indent, std::size_t start) {
  std::vector<std::string> lines(1);
  std::size_t used = start;
  bool fresh = start <= indent; // no word on this line yet (a label longer than the indent is one)
  for (std::size_t at = 0; at <= text.size();) {
    const std::size_t end = std::min(text.find(' ', at), text.size());
    const std::string_view word = text.substr(at, end - at);
    at = end + 1;
    if (word.empty())
      continue;
    const std::size_t w = display_width(word);
    const bool spaced = lines.back().empty() || lines.back().back() == ' ';
    if (!fresh && width > 0 && used + (spaced ? 0 : 1) + w > width) {
      lines.emplace_back(indent, ' ');
      used = indent;
    } else if (!spaced) {
      lines.back() += ' ';
      ++used;
    }
    lines.back() += word;
    used += w;
    fresh = false;
  }
  return lines;
}

std::size_t text_table::display_width(std::string_view s) {
  return static_cast<std::size_t>(std::count_if(
      s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0U) != 0x80U; }));
}

text_table::text_table(std::vector<std::string> header, std::vector<align> alignment)
    : m_header(std::move(header)), m_align(std::move(alignment)) {
  m_align.resize(m_header.size(), align::left);
  for (auto& h : m_header)
    h = escape_control(h);
}

void text_table::add_row(std::vector<std::string> cells) { add_row(std::move(cells), {}, {}); }

void text_table::add_row(std::vector<std::string> cells, std::string prefix, std::string suffix) {
  if (cells.size() != m_header.size())
    throw std::logic_error("text_table: row has " + std::to_string(cells.size()) +
                           " cells, header " + std::to_string(m_header.size()));
  // A cell is one line of text whatever it holds (a GPU's name as NVML gave it, a report's
  // field): the one place a table's cells are made safe for a terminal.
  for (auto& c : cells)
    c = escape_control(c);
  m_rows.push_back({std::move(cells), std::move(prefix), std::move(suffix)});
}

void text_table::set_shrinkable(std::vector<std::size_t> columns, std::size_t min_width) {
  m_shrinkable = std::move(columns);
  m_min_width = min_width;
}

std::string text_table::render(std::size_t width) const {
  const std::size_t n = m_header.size();
  std::vector<bool> shown(n, true);
  std::vector<std::size_t> widths(n);
  const auto natural = [&] {
    for (std::size_t c = 0; c < n; ++c) {
      widths[c] = shown[c] ? display_width(m_header[c]) : 0;
      for (const auto& r : m_rows)
        widths[c] = shown[c] ? std::max(widths[c], display_width(r.cells[c])) : 0;
    }
  };
  const auto total = [&]() {
    const auto columns = static_cast<std::size_t>(std::count(shown.begin(), shown.end(), true));
    return std::accumulate(widths.begin(), widths.end(), std::size_t{0}) +
           2 * (columns == 0 ? 0 : columns - 1);
  };
  // The shrinkable columns give way in the order given, each down to its floor, until the
  // table fits or none can.
  std::vector<std::size_t> floors(n, 0);
  for (const std::size_t c : m_shrinkable) {
    if (c >= n)
      continue;
    floors[c] = std::max(m_min_width, display_width(m_header[c]));
    if (m_wrap)
      for (const auto& r : m_rows)
        floors[c] = std::max(floors[c], longest_word(r.cells[c]) + 2);
  }
  const auto shrink = [&] {
    for (const std::size_t c : m_shrinkable)
      while (width > 0 && c < n && total() > width && widths[c] > floors[c])
        --widths[c];
  };
  natural();
  shrink();
  // Still too wide: the column that may go under its row leaves, and the others have its room.
  const bool below = width > 0 && m_below < n && total() > width;
  if (below) {
    shown[m_below] = false;
    natural();
    shrink();
  }
  // Still too wide: the column whose long cells may go above their row keeps what is left.
  if (width > 0 && m_own_line < n && shown[m_own_line] && total() > width) {
    const std::size_t others = total() - widths[m_own_line];
    widths[m_own_line] = std::max(display_width(m_header[m_own_line]),
                                  width > others ? width - others : std::size_t{0});
  }

  std::string out;
  const auto emit = [&](const std::vector<std::string>& cells, const row* decorated) {
    // Each cell's lines: one, cut with "…" to its width, or several where the column wraps.
    std::vector<std::vector<std::string>> lines(n);
    std::size_t height = 1;
    for (std::size_t c = 0; c < n; ++c) {
      if (!shown[c])
        continue;
      const bool wraps =
          m_wrap && display_width(cells[c]) > widths[c] &&
          std::find(m_shrinkable.begin(), m_shrinkable.end(), c) != m_shrinkable.end();
      lines[c] =
          wraps ? wrap(cells[c], widths[c], 2) : std::vector<std::string>{fit(cells[c], widths[c])};
      // A cell too long for its column's room goes whole above its row (never cut).
      const bool alone = c == m_own_line && decorated != nullptr && width > 0 &&
                         std::any_of(lines[c].begin(), lines[c].end(), [&](const std::string& l) {
                           return display_width(l) > widths[c] || (!wraps && l != cells[c]);
                         });
      if (alone) {
        for (const auto& l : wrap(cells[c], width, 2))
          out += l + '\n';
        lines[c] = {""};
      }
      height = std::max(height, lines[c].size());
    }
    for (std::size_t k = 0; k < height; ++k) {
      std::string line;
      bool first = true;
      for (std::size_t c = 0; c < n; ++c) {
        if (!shown[c])
          continue;
        const std::string text = k < lines[c].size() ? lines[c][k] : "";
        const std::string pad(widths[c] - std::min(widths[c], display_width(text)), ' ');
        std::string cell = m_align[c] == align::right ? pad + text : text + pad;
        if (k == 0 && decorated != nullptr && c == m_highlight && !decorated->prefix.empty())
          cell = decorated->prefix + cell + decorated->suffix;
        line += (first ? "" : "  ") + cell;
        first = false;
      }
      while (!line.empty() && line.back() == ' ')
        line.pop_back();
      out += line + '\n';
    }
    if (below && decorated != nullptr && !cells[m_below].empty())
      for (const auto& l : wrap(cells[m_below], width - 4, 2))
        out += "    " + l + '\n';
  };
  emit(m_header, nullptr);
  out += std::string(total(), '-') + '\n';
  for (const auto& r : m_rows)
    emit(r.cells, &r);
  return out;
}

} // namespace gpuspec::reports::model
