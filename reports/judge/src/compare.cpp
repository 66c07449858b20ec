#include "gpuspec/reports/judge/compare.hpp"
#include "gpuspec/reports/model/fraction.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include <fmt/format.h>

#include "gpuspec/reports/model/host_names.hpp"
#include "gpuspec/reports/model/identity.hpp"
#include "gpuspec/reports/model/report_json.hpp"
#include "gpuspec/reports/model/statistics.hpp"
#include "gpuspec/reports/model/text_format.hpp"
#include "gpuspec/reports/model/units.hpp"

namespace gpuspec::reports::inline judge {

std::string_view to_string(cell_state s) {
  switch (s) {
  case cell_state::measured:
    return "measured";
  case cell_state::failed:
    return "failed";
  case cell_state::skipped:
    return "skipped";
  case cell_state::not_supported:
    return "not_supported";
  }
  return "measured";
}

namespace {

compare_cell make_cell(const result& r, metric_unit row_unit, const gpu_spec* spec,
                       const compare_options& o) {
  compare_cell c;
  switch (r.status) {
  case result_status::ok:
    break;
  case result_status::failed:
    c.state = cell_state::failed;
    c.reason = r.reason;
    return c;
  case result_status::skipped:
    c.state = cell_state::skipped;
    c.reason = r.reason;
    return c;
  case result_status::not_supported:
    c.state = cell_state::not_supported;
    c.reason = r.reason;
    return c;
  }
  const auto factor = conversion_factor(r.unit, row_unit);
  if (!factor) {
    c.state = cell_state::skipped;
    c.reason = fmt::format("in {}, not the row's {}", to_string(r.unit), to_string(row_unit));
    return c;
  }
  c.value = r.stats.median * *factor;
  // The same reference `check` judges by, after the same cross-check with the spec table.
  const auto reference = resolve_reference(r, spec, o.datasheet_tolerance);
  if (r.stats.median > 0)
    c.fraction = fraction_of(r.stats.median, reference.value, r.higher_is_better);
  if (c.fraction) {
    c.reference = reference.kind;
    c.reference_replaced = reference.replaced;
  }
  return c;
}

void mark_outliers(compare_row& row, const std::vector<compare_column>& columns,
                   const compare_options& o, std::size_t& count) {
  std::map<std::string, std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < row.cells.size(); ++i)
    if (row.cells[i] && row.cells[i]->state == cell_state::measured)
      groups[(columns[i].spec_id.empty() ? "name:" : "spec:") + comparison_group(columns[i])]
          .push_back(i);
  for (const auto& [model, members] : groups) {
    if (members.size() < o.min_group)
      continue;
    std::vector<double> values;
    values.reserve(members.size());
    for (auto i : members)
      values.push_back(row.cells[i]->value);
    const spread group = spread_of(values);
    for (auto i : members) {
      auto& cell = *row.cells[i];
      const auto t = test_outlier(cell.value, group);
      if (t.mad > 0)
        cell.modified_z = t.z;
      if (t.median != 0)
        cell.deviation = t.deviation;
      cell.outlier = is_outlier(t, o.min_relative_deviation, o.outlier_z, 0);
      if (cell.outlier)
        ++count;
    }
  }
}

/// True when some result of `r` on GPU `index` is the GPU's own (no MIG device): a partitioned
/// GPU's not-run node-wide cases, say.
bool has_whole_gpu_results(const report& r, int index) {
  return std::any_of(r.results.begin(), r.results.end(), [&](const result& x) {
    return !x.mig && !x.devices.empty() && x.devices.front() == index;
  });
}

} // namespace

std::string comparison_group(const compare_column& col) {
  const std::string& model = col.spec_id.empty() ? col.gpu_name : col.spec_id;
  return col.mig ? fmt::format("{} MIG {}", model, col.mig->profile) : model;
}

compare_output compare_reports(const std::vector<report>& reports,
                               const std::vector<std::string>& labels, const spec_table& specs,
                               const compare_options& options) {
  compare_output out;
  out.options = options;
  // column index by (report, NVML index, MIG device UUID or "")
  std::vector<std::map<std::pair<int, std::string>, std::size_t>> column_of(reports.size());
  std::vector<const gpu_spec*> spec_of_column;
  // Columns by host in natural order, as an operator counts nodes (node2 before node10); the
  // shell's glob gives them sorted as text.
  std::vector<std::size_t> order(reports.size());
  for (std::size_t r = 0; r < order.size(); ++r)
    order[r] = r;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return natural_less(reports[a].host.hostname, reports[b].host.hostname);
  });
  for (const std::size_t r : order) {
    const std::string file = r < labels.size() ? labels[r] : fmt::format("#{}", r + 1);
    for (const auto& d : reports[r].devices) {
      const gpu_spec* spec = spec_of(specs, d);
      const std::string spec_id = spec != nullptr ? spec->id : std::string();
      // A partitioned GPU is its MIG devices (docs/mig.md), and itself only where it has
      // results of its own.
      if (d.mig_instances.empty() || has_whole_gpu_results(reports[r], d.index)) {
        column_of[r][{d.index, ""}] = out.columns.size();
        out.columns.push_back({fmt::format("{}/GPU {}", file, d.index), file,
                               reports[r].host.hostname, d.index, d.name, spec_id, std::nullopt});
        spec_of_column.push_back(spec);
      }
      for (const auto& m : d.mig_instances) {
        const mig_ref ref = ref_of(m);
        column_of[r][{d.index, m.uuid}] = out.columns.size();
        out.columns.push_back({fmt::format("{}/GPU {} {}", file, d.index, mig_label(ref)), file,
                               reports[r].host.hostname, d.index, d.name, spec_id, ref});
        spec_of_column.push_back(spec);
      }
    }
  }
  std::unordered_map<std::string, std::size_t> row_of;
  for (const std::size_t r : order) {
    for (const auto& res : reports[r].results) {
      if (res.devices.empty())
        continue;
      const auto col =
          column_of[r].find({res.devices.front(), res.mig ? res.mig->uuid : std::string()});
      if (col == column_of[r].end())
        continue; // a result on a GPU (or MIG device) the report does not list: no column
      auto [it, added] = row_of.emplace(case_key(res), out.rows.size());
      if (added) {
        compare_row row;
        row.bench_id = res.bench_id;
        row.axes = res.axes;
        row.metric = res.metric;
        row.unit = res.unit;
        row.higher_is_better = res.higher_is_better;
        row.cells.resize(out.columns.size());
        out.rows.push_back(std::move(row));
      }
      auto& row = out.rows[it->second];
      if (row.unit == metric_unit::none && res.status == result_status::ok)
        row.unit = res.unit; // the first result was a case that never measured
      auto& cell = row.cells[col->second];
      // The first result of a case on a GPU wins; a measurement wins over a non-measurement.
      if (!cell || (cell->state != cell_state::measured && res.status == result_status::ok))
        cell = make_cell(res, row.unit, spec_of_column[col->second], options);
    }
  }
  for (auto& row : out.rows)
    mark_outliers(row, out.columns, options, out.outliers);
  return out;
}

std::vector<compare_finding> compare_findings(const compare_output& c) {
  std::vector<compare_finding> out;
  for (const auto& row : c.rows) {
    std::map<std::string, std::size_t> at; // by report label, for this row
    for (std::size_t i = 0; i < row.cells.size(); ++i) {
      const auto& cell = row.cells[i];
      if (!cell || !cell->outlier)
        continue;
      const auto& col = c.columns[i];
      auto [it, fresh] = at.try_emplace(col.report, out.size());
      if (fresh) {
        compare_finding f{col.hostname, col.report, {}, {}, &row, 0, 0, 0};
        for (std::size_t k = 0; k < row.cells.size(); ++k)
          if (c.columns[k].report == col.report && row.cells[k] &&
              row.cells[k]->state == cell_state::measured)
            ++f.gpus_in_report;
        out.push_back(std::move(f));
      }
      auto& f = out[it->second];
      if (std::find(f.gpus.begin(), f.gpus.end(), col.device_index) == f.gpus.end())
        f.gpus.push_back(col.device_index);
      if (col.mig)
        f.mig_devices.push_back(fmt::format("{} GI {} CI {}", col.device_index,
                                            col.mig->gpu_instance_id,
                                            col.mig->compute_instance_id));
      const double dev = cell->deviation.value_or(0);
      if (f.gpus.size() == 1 || std::fabs(dev) > std::fabs(f.deviation)) {
        f.deviation = dev;
        f.value = cell->value;
      }
    }
  }
  for (auto& f : out)
    std::sort(f.gpus.begin(), f.gpus.end());
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    if (std::fabs(a.deviation) != std::fabs(b.deviation))
      return std::fabs(a.deviation) > std::fabs(b.deviation);
    return natural_less(a.hostname, b.hostname);
  });
  return out;
}

int exit_code_of(const compare_output& c) { return c.outliers > 0 ? 1 : 0; }

std::string format_cell(const std::optional<compare_cell>& cell) {
  if (!cell)
    return "—";
  switch (cell->state) {
  case cell_state::failed:
    return "failed";
  case cell_state::skipped:
    return "skipped";
  case cell_state::not_supported:
    return "not supported";
  case cell_state::measured:
    break;
  }
  std::string s = fmt::format("{:.4g}", cell->value);
  if (cell->fraction)
    s += fmt::format(" ({:.1f}%{})", 100 * *cell->fraction,
                     cell->reference == reference_kind::clock_adjusted ? " clk" : "");
  if (cell->outlier)
    s += " OUTLIER";
  return s;
}

nlohmann::ordered_json to_json(const compare_output& c) {
  nlohmann::ordered_json j;
  j["schema"] = "gpuspec.compare.v2";
  j["options"] = {{"outlier_z", c.options.outlier_z},
                  {"min_relative_deviation", c.options.min_relative_deviation},
                  {"min_group", c.options.min_group},
                  {"datasheet_tolerance", c.options.datasheet_tolerance}};
  auto& cols = j["columns"] = nlohmann::ordered_json::array();
  for (const auto& col : c.columns)
    cols.push_back({{"label", col.label},
                    {"report", col.report},
                    {"hostname", col.hostname},
                    {"device_index", col.device_index},
                    {"gpu_name", col.gpu_name},
                    {"spec_id", col.spec_id}});
  for (std::size_t i = 0; i < c.columns.size(); ++i)
    if (const auto& m = c.columns[i].mig) // only where there is one: v2's columns are unchanged
      cols[i]["mig"] = {{"uuid", m->uuid},
                        {"profile", m->profile},
                        {"gpu_instance_id", m->gpu_instance_id},
                        {"compute_instance_id", m->compute_instance_id}};
  auto& rows = j["rows"] = nlohmann::ordered_json::array();
  for (const auto& row : c.rows) {
    nlohmann::ordered_json e;
    e["bench_id"] = row.bench_id;
    e["axes"] = row.axes;
    e["metric"] = row.metric;
    e["unit"] = std::string(to_string(row.unit));
    e["higher_is_better"] = row.higher_is_better;
    auto& cells = e["cells"] = nlohmann::ordered_json::array();
    for (const auto& cell : row.cells) {
      if (!cell) {
        cells.push_back(nullptr);
        continue;
      }
      const bool measured = cell->state == cell_state::measured;
      cells.push_back(
          {{"state", std::string(to_string(cell->state))},
           {"reason", cell->reason},
           {"value", measured ? nlohmann::ordered_json(cell->value) : nullptr},
           {"fraction", cell->fraction ? nlohmann::ordered_json(*cell->fraction) : nullptr},
           {"reference", std::string(to_string(cell->reference))},
           {"reference_replaced", cell->reference_replaced},
           {"outlier", cell->outlier},
           {"modified_z", cell->modified_z ? nlohmann::ordered_json(*cell->modified_z) : nullptr},
           {"deviation", cell->deviation ? nlohmann::ordered_json(*cell->deviation) : nullptr}});
    }
    rows.push_back(std::move(e));
  }
  j["outliers"] = c.outliers;
  return j;
}

std::string to_markdown(const compare_output& c) {
  // The answer first (issue 31): the verdict and the outliers, named by host, GPU and metric;
  // then every cell; the verdict again last.
  const char* verdict = c.outliers > 0 ? "WARN" : "PASS";
  std::string out = fmt::format(
      "# gpuspec compare: {}\n\n**{} (exit code {}); {} GPUs, {} outlier{}**\n\n", verdict, verdict,
      exit_code_of(c), c.columns.size(), c.outliers, c.outliers == 1 ? "" : "s");
  const auto findings = compare_findings(c);
  if (!findings.empty()) {
    out += "## Outliers, worst first\n\n| host | report | GPUs | benchmark | axes | value | "
           "from the model's median |\n| --- | --- | --- | --- | --- | ---: | ---: |\n";
    for (const auto& f : findings)
      out += fmt::format("| {} | {} | {} | {} | {} | {} {} | {:+.1f}% |\n",
                         markdown_cell(f.hostname), markdown_cell(f.report),
                         format_gpu_ranges(f.gpus), markdown_cell(f.row->bench_id),
                         markdown_cell(format_parameters(f.row->axes)), format_figure(f.value),
                         markdown_cell(to_string(f.row->unit)), 100 * f.deviation);
    out += '\n';
  }
  out += "Each cell: the median, and in brackets the fraction of the result's reference, the "
         "ceiling `check` judges it by (\"clk\": the ceiling at the clock seen during the run; "
         "otherwise the datasheet). \"not supported\" and \"failed\" are what the report says; "
         "\"—\" is a case not run. OUTLIER: |modified z| > " +
         fmt::format("{}", c.options.outlier_z) + " and at least " +
         fmt::format("{:.1f}", 100 * c.options.min_relative_deviation) +
         "% from the median, among GPUs of the same model.\n\n";
  out += "| benchmark | axes | unit |";
  std::string rule = "| --- | --- | --- |";
  for (const auto& col : c.columns) {
    out += fmt::format(" {} ({}, {}) |", markdown_cell(col.label), markdown_cell(col.hostname),
                       markdown_cell(col.gpu_name));
    rule += " ---: |";
  }
  out += '\n' + rule + '\n';
  for (const auto& row : c.rows) {
    out +=
        fmt::format("| {} | {} | {} |", markdown_cell(row.bench_id),
                    markdown_cell(format_parameters(row.axes)), markdown_cell(to_string(row.unit)));
    for (const auto& cell : row.cells) {
      const std::string text = format_cell(cell);
      out += ' ' + (cell && cell->outlier ? "**" + text + "**" : text) + " |";
    }
    out += '\n';
  }
  out += fmt::format("\n**Verdict: {} (exit code {})**\n", verdict, exit_code_of(c));
  return out;
}

} // namespace gpuspec::reports::judge
