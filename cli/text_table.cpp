#include "text_table.hpp"

#include <algorithm>
#include <stdexcept>

namespace gpuspec::cli {

namespace {
// Column widths count code points, so "°C" and "µs" line up.
std::size_t display_width(const std::string& s) {
  return static_cast<std::size_t>(std::count_if(
      s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0U) != 0x80U; }));
}
} // namespace

text_table::text_table(std::vector<std::string> header, std::vector<align> alignment)
    : m_header(std::move(header)), m_align(std::move(alignment)) {
  m_align.resize(m_header.size(), align::left);
}

void text_table::add_row(std::vector<std::string> row) {
  if (row.size() != m_header.size())
    throw std::logic_error("text_table: row has " + std::to_string(row.size()) + " cells, header " +
                           std::to_string(m_header.size()));
  m_rows.push_back(std::move(row));
}

std::string text_table::render() const {
  std::vector<std::size_t> width(m_header.size());
  for (std::size_t c = 0; c < m_header.size(); ++c) {
    width[c] = display_width(m_header[c]);
    for (const auto& row : m_rows)
      width[c] = std::max(width[c], display_width(row[c]));
  }
  std::string out;
  auto emit = [&](const std::vector<std::string>& cells) {
    std::string line;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      const std::string pad(width[c] - display_width(cells[c]), ' ');
      if (c > 0)
        line += "  ";
      line += m_align[c] == align::right ? pad + cells[c] : cells[c] + pad;
    }
    while (!line.empty() && line.back() == ' ')
      line.pop_back();
    out += line + '\n';
  };
  emit(m_header);
  std::size_t total = 0;
  for (auto w : width)
    total += w;
  out += std::string(total + 2 * (width.empty() ? 0 : width.size() - 1), '-') + '\n';
  for (const auto& row : m_rows)
    emit(row);
  return out;
}

} // namespace gpuspec::cli
