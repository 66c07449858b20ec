#include "gpuspec/reports/compare.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "gpuspec/reports/diff.hpp"
#include "gpuspec/reports/text_format.hpp"

namespace gpuspec::reports {

std::string_view to_string(fraction_basis b) {
  switch (b) {
  case fraction_basis::none:
    return "none";
  case fraction_basis::spec_memory:
    return "spec_memory_bandwidth";
  case fraction_basis::spec_peak:
    return "spec_peak";
  case fraction_basis::clock_adjusted:
    return "clock_adjusted";
  }
  return "none";
}

namespace {

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

compare_cell make_cell(const result& r, const gpu_spec* spec) {
  compare_cell c;
  c.value = r.stats.median;
  if (spec != nullptr) {
    const bool stream = r.bench_id.starts_with("memory.stream.") && r.unit == "GB/s";
    if (stream && spec->memory_bandwidth_gbs > 0) {
      c.fraction = c.value / spec->memory_bandwidth_gbs;
      c.basis = fraction_basis::spec_memory;
      return c;
    }
    const auto dot = r.bench_id.rfind('.');
    const std::string last = dot == std::string::npos ? r.bench_id : r.bench_id.substr(dot + 1);
    const auto peak = spec->peaks.find(last);
    if ((r.unit == "TFLOP/s" || r.unit == "TOPS") && peak != spec->peaks.end() &&
        peak->second > 0) {
      c.fraction = c.value / peak->second;
      c.basis = fraction_basis::spec_peak;
      return c;
    }
  }
  if (r.efficiency) {
    c.fraction = r.efficiency;
    c.basis = fraction_basis::clock_adjusted;
  }
  return c;
}

void mark_outliers(compare_row& row, const std::vector<compare_column>& columns,
                   const compare_options& o, std::size_t& count) {
  std::map<std::string, std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < row.cells.size(); ++i)
    if (row.cells[i])
      groups[columns[i].spec_id.empty() ? "name:" + columns[i].gpu_name
                                        : "spec:" + columns[i].spec_id]
          .push_back(i);
  for (const auto& [model, members] : groups) {
    if (members.size() < o.min_group)
      continue;
    std::vector<double> values;
    for (auto i : members)
      values.push_back(row.cells[i]->value);
    const double med = median_of(values);
    std::vector<double> deviations;
    for (double v : values)
      deviations.push_back(std::fabs(v - med));
    const double mad = median_of(deviations);
    for (auto i : members) {
      auto& cell = *row.cells[i];
      const double dev = cell.value - med;
      const bool far =
          med != 0 ? std::fabs(dev) / std::fabs(med) >= o.min_relative_deviation : dev != 0;
      if (mad > 0) {
        cell.modified_z = 0.6745 * dev / mad;
        cell.outlier = far && std::fabs(*cell.modified_z) > o.outlier_z;
      } else {
        cell.outlier = far;
      }
      if (cell.outlier)
        ++count;
    }
  }
}

} // namespace

compare_output compare_reports(const std::vector<report>& reports,
                               const std::vector<std::string>& labels, const spec_table& specs,
                               const compare_options& options) {
  compare_output out;
  out.options = options;
  // column index by (report, NVML index)
  std::vector<std::map<int, std::size_t>> column_of(reports.size());
  std::vector<const gpu_spec*> spec_of;
  for (std::size_t r = 0; r < reports.size(); ++r) {
    const std::string file = r < labels.size() ? labels[r] : fmt::format("#{}", r + 1);
    for (const auto& d : reports[r].devices) {
      const gpu_spec* spec = match_device(specs, d);
      column_of[r][d.index] = out.columns.size();
      out.columns.push_back({fmt::format("{}/GPU {}", file, d.index), file,
                             reports[r].host.hostname, d.index, d.name,
                             spec != nullptr ? spec->id : std::string()});
      spec_of.push_back(spec);
    }
  }
  std::map<std::string, std::size_t> row_of;
  for (std::size_t r = 0; r < reports.size(); ++r) {
    for (const auto& res : reports[r].results) {
      if (res.status != result_status::ok || res.devices.empty())
        continue;
      const auto col = column_of[r].find(res.devices.front());
      if (col == column_of[r].end())
        continue; // a result on a GPU the report does not list: no column to put it in
      const std::string key = res.bench_id + '\x1f' + res.parameters.dump() + '\x1f' + res.metric;
      auto [it, added] = row_of.emplace(key, out.rows.size());
      if (added) {
        compare_row row;
        row.bench_id = res.bench_id;
        row.parameters = res.parameters;
        row.metric = res.metric;
        row.unit = res.unit;
        row.higher_is_better = res.higher_is_better;
        row.cells.resize(out.columns.size());
        out.rows.push_back(std::move(row));
      }
      auto& cell = out.rows[it->second].cells[col->second];
      if (!cell) // the first result of a case on a GPU wins; a report has one per case
        cell = make_cell(res, spec_of[col->second]);
    }
  }
  for (auto& row : out.rows)
    mark_outliers(row, out.columns, options, out.outliers);
  return out;
}

std::string format_cell(const std::optional<compare_cell>& cell) {
  if (!cell)
    return "—";
  std::string s = fmt::format("{:.4g}", cell->value);
  if (cell->fraction)
    s += fmt::format(" ({:.1f}%{})", 100 * *cell->fraction,
                     cell->basis == fraction_basis::clock_adjusted ? " clk" : "");
  if (cell->outlier)
    s += " OUTLIER";
  return s;
}

nlohmann::ordered_json to_json(const compare_output& c) {
  nlohmann::ordered_json j;
  j["schema"] = "gpuspec.compare.v1";
  j["options"] = {{"outlier_z", c.options.outlier_z},
                  {"min_relative_deviation", c.options.min_relative_deviation},
                  {"min_group", c.options.min_group}};
  auto& cols = j["columns"] = nlohmann::ordered_json::array();
  for (const auto& col : c.columns)
    cols.push_back({{"label", col.label},
                    {"report", col.report},
                    {"hostname", col.hostname},
                    {"device_index", col.device_index},
                    {"gpu_name", col.gpu_name},
                    {"spec_id", col.spec_id}});
  auto& rows = j["rows"] = nlohmann::ordered_json::array();
  for (const auto& row : c.rows) {
    nlohmann::ordered_json e;
    e["bench_id"] = row.bench_id;
    e["parameters"] = row.parameters;
    e["metric"] = row.metric;
    e["unit"] = row.unit;
    e["higher_is_better"] = row.higher_is_better;
    auto& cells = e["cells"] = nlohmann::ordered_json::array();
    for (const auto& cell : row.cells) {
      if (!cell) {
        cells.push_back(nullptr);
        continue;
      }
      cells.push_back(
          {{"value", cell->value},
           {"fraction", cell->fraction ? nlohmann::ordered_json(*cell->fraction) : nullptr},
           {"fraction_basis", std::string(to_string(cell->basis))},
           {"outlier", cell->outlier},
           {"modified_z", cell->modified_z ? nlohmann::ordered_json(*cell->modified_z) : nullptr}});
    }
    rows.push_back(std::move(e));
  }
  j["outliers"] = c.outliers;
  return j;
}

std::string to_markdown(const compare_output& c) {
  std::string out = "# gpuspec compare\n\n";
  out += "Each cell: the median, and in brackets the fraction of that GPU's own datasheet "
         "figure (\"clk\": of the result's clock-adjusted ceiling). OUTLIER: |modified z| > " +
         fmt::format("{}", c.options.outlier_z) + " and at least " +
         fmt::format("{:.1f}", 100 * c.options.min_relative_deviation) +
         "% from the median, among GPUs of the same model.\n\n";
  out += "| benchmark | parameters | unit |";
  std::string rule = "| --- | --- | --- |";
  for (const auto& col : c.columns) {
    out += fmt::format(" {} ({}, {}) |", markdown_cell(col.label), markdown_cell(col.hostname),
                       markdown_cell(col.gpu_name));
    rule += " ---: |";
  }
  out += '\n' + rule + '\n';
  for (const auto& row : c.rows) {
    out += fmt::format("| {} | {} | {} |", markdown_cell(row.bench_id),
                       markdown_cell(format_parameters(row.parameters)), markdown_cell(row.unit));
    for (const auto& cell : row.cells) {
      const std::string text = format_cell(cell);
      out += ' ' + (cell && cell->outlier ? "**" + text + "**" : text) + " |";
    }
    out += '\n';
  }
  out += fmt::format("\n{} outlier(s).\n", c.outliers);
  return out;
}

} // namespace gpuspec::reports
