#pragma once
/// A plain aligned text table for the terminal: header, rule, rows.

#include <string>
#include <vector>

namespace gpuspec::cli {

class text_table {
public:
  enum class align { left, right };
  explicit text_table(std::vector<std::string> header, std::vector<align> alignment = {});
  void add_row(std::vector<std::string> row);
  [[nodiscard]] std::string render() const;
  [[nodiscard]] bool empty() const { return m_rows.empty(); }

private:
  std::vector<std::string> m_header;
  std::vector<align> m_align;
  std::vector<std::vector<std::string>> m_rows;
};

} // namespace gpuspec::cli
