#pragma once
/// `gpuspec compare A B ...`: reports side by side, each value also as a fraction of its own
/// GPU's datasheet figure, so different GPU models read on one table; outliers among GPUs of
/// the same model marked by a robust rule (docs/diff-compare.md). Pure functions: no I/O.

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpuspec/reports/report.hpp"
#include "gpuspec/reports/spec_table.hpp"

namespace gpuspec::reports {

struct compare_options {
  /// Outlier when |modified z| = |0.6745 (x - median) / MAD| exceeds this (Iglewicz–Hoaglin).
  double outlier_z = 3.5;
  /// And at least this far from the group's median, relative to it: a GPU 0.2% off its
  /// siblings is not an outlier however tight they are (MAD can be far below the run-to-run
  /// noise). When MAD is 0 (at least half the values identical) this alone decides.
  double min_relative_deviation = 0.03;
  /// The fewest GPUs of one model in a row before outliers are looked for.
  std::size_t min_group = 3;
};

/// One GPU of one report: a column of the table.
struct compare_column {
  std::string label;  ///< "<file label>/GPU <index>"
  std::string report; ///< the file label the caller gave
  std::string hostname;
  int device_index = 0; ///< NVML index
  std::string gpu_name;
  std::string spec_id; ///< matched spec row; "" when none
};

enum class fraction_basis {
  none,           ///< no ceiling applies
  spec_memory,    ///< median / gpu_spec::memory_bandwidth_gbs (memory.stream.*, GB/s)
  spec_peak,      ///< median / gpu_spec::peaks[last part of bench_id] (TFLOP/s or TOPS)
  clock_adjusted, ///< the result's own efficiency: median / its clock-adjusted ceiling
};

struct compare_cell {
  double value = 0;               ///< the median
  std::optional<double> fraction; ///< of the ceiling named by `basis`
  fraction_basis basis = fraction_basis::none;
  bool outlier = false;
  std::optional<double> modified_z; ///< when the cell was in a group tested for outliers
};

/// One (bench_id, parameters, metric) case; cells[i] belongs to columns[i].
struct compare_row {
  std::string bench_id;
  nlohmann::ordered_json parameters = nlohmann::ordered_json::object();
  std::string metric, unit;
  bool higher_is_better = true;
  std::vector<std::optional<compare_cell>> cells; ///< nullopt: not measured (or not ok)
};

struct compare_output {
  compare_options options;
  std::vector<compare_column> columns;
  std::vector<compare_row> rows; ///< in order of first appearance
  std::size_t outliers = 0;
};

/// Side by side. `labels[i]` names reports[i] (a file name); missing labels become "#i".
/// A column per GPU of each report (single-GPU results; a multi-GPU result goes to its first
/// GPU's column). Only ok results make cells. The spec row of a GPU is match_device(specs, gpu).
/// Outliers: per row, the cells of GPUs of one model (spec id, else GPU name) form a group;
/// with at least min_group cells, MAD = median |x_i - median|, and a cell is an outlier when
/// |x - median| / |median| >= min_relative_deviation and (MAD is 0, or the modified z-score
/// 0.6745 |x - median| / MAD > outlier_z).
[[nodiscard]] compare_output compare_reports(const std::vector<report>& reports,
                                             const std::vector<std::string>& labels,
                                             const spec_table& specs,
                                             const compare_options& options = {});

[[nodiscard]] std::string_view to_string(fraction_basis b);

/// Machine-readable form ("gpuspec.compare.v1").
[[nodiscard]] nlohmann::ordered_json to_json(const compare_output& c);
/// A Markdown table: a row per case, a column per GPU; "value (fraction%)", outliers in bold
/// and marked OUTLIER.
[[nodiscard]] std::string to_markdown(const compare_output& c);
/// "3012.4 (92.1%)" and "3012.4 (92.1%) OUTLIER": the text of one cell, shared by renderers.
[[nodiscard]] std::string format_cell(const std::optional<compare_cell>& cell);

} // namespace gpuspec::reports
