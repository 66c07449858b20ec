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

} // namespace

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
  std::vector<std::size_t> widths(n);
  for (std::size_t c = 0; c < n; ++c) {
    widths[c] = display_width(m_header[c]);
    for (const auto& r : m_rows)
      widths[c] = std::max(widths[c], display_width(r.cells[c]));
  }
  const auto total = [&]() {
    return std::accumulate(widths.begin(), widths.end(), std::size_t{0}) + 2 * (n == 0 ? 0 : n - 1);
  };
  // The shrinkable columns give way in the order given, each down to its floor, until the
  // table fits or none can.
  for (const std::size_t c : m_shrinkable) {
    if (width == 0 || c >= n)
      continue;
    const std::size_t floor = std::max(m_min_width, display_width(m_header[c]));
    while (total() > width && widths[c] > floor)
      --widths[c];
  }

  std::string out;
  const auto emit = [&](const std::vector<std::string>& cells, const row* decorated) {
    std::string line;
    for (std::size_t c = 0; c < n; ++c) {
      const std::string text = fit(cells[c], widths[c]);
      const std::string pad(widths[c] - display_width(text), ' ');
      std::string cell = m_align[c] == align::right ? pad + text : text + pad;
      if (decorated != nullptr && c == m_highlight && !decorated->prefix.empty())
        cell = decorated->prefix + cell + decorated->suffix;
      if (c > 0)
        line += "  ";
      line += cell;
    }
    while (!line.empty() && line.back() == ' ')
      line.pop_back();
    out += line + '\n';
  };
  emit(m_header, nullptr);
  out += std::string(total(), '-') + '\n';
  for (const auto& r : m_rows)
    emit(r.cells, &r);
  return out;
}

} // namespace gpuspec::reports::model
