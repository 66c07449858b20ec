#pragma once
/// `gpuspec compare A B ...`: reports side by side, each value also as a fraction of its own
/// reference (reference.hpp: the same one `check` judges it by, cross-checked with the spec
/// table), so different GPU models read on one table; outliers among GPUs of the same model
/// marked by the one outlier rule (statistics.hpp); rows paired by bench id and axes
/// (identity.hpp). Pure functions: no I/O.

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpuspec/reports/model/reference.hpp"
#include "gpuspec/reports/model/report.hpp"
#include "gpuspec/reports/model/spec_table.hpp"

namespace gpuspec::reports::inline judge {

struct compare_options {
  /// Outlier when |modified z| = |0.6745 (x - median) / MAD| exceeds this (Iglewicz–Hoaglin).
  double outlier_z = 3.5;
  /// And at least this far from the group's median, relative to it: a GPU 0.2% off its
  /// siblings is not an outlier however tight they are (MAD can be far below the run-to-run
  /// noise). When MAD is 0 (at least half the values identical) this alone decides.
  double min_relative_deviation = 0.03;
  /// The fewest GPUs of one model in a row before outliers are looked for.
  std::size_t min_group = 3;
  /// A carried datasheet ceiling further than this from the spec table's is replaced by it, as
  /// in `check` (expect.json's datasheet_tolerance, whose default this is).
  double datasheet_tolerance = default_datasheet_tolerance;
};

/// One GPU of one report, or one MIG device of a partitioned GPU: a column of the table.
struct compare_column {
  std::string label;  ///< "<file label>/GPU <index>", "<file>/GPU 0 MIG 1g.10gb, GI 7 CI 0"
  std::string report; ///< the file label the caller gave
  std::string hostname;
  int device_index = 0; ///< NVML index
  std::string gpu_name;
  std::string spec_id; ///< matched spec row; "" when none
  /// The MIG device the column holds (docs/mig.md): compared with the same profile of the same
  /// model only, never with a whole GPU. Unset for a whole GPU.
  std::optional<mig_ref> mig;
};

/// The group a column's cells are compared in: the GPU model, and the MIG profile of a MIG
/// device ("H100-SXM5-80GB", "A100-SXM4-80GB MIG 1g.10gb").
[[nodiscard]] std::string comparison_group(const compare_column& col);

/// What a report holds for a case on a GPU: a measurement, or why there is none. (A run that
/// has no result at all for the case is a missing cell: nullopt.)
enum class cell_state { measured, failed, skipped, not_supported };

struct compare_cell {
  cell_state state = cell_state::measured;
  std::string reason;             ///< why not measured
  double value = 0;               ///< the median, in the row's unit (measured only)
  std::optional<double> fraction; ///< of the result's reference
  reference_kind reference = reference_kind::none;
  bool reference_replaced = false; ///< the spec table's figure replaced the report's own
  bool outlier = false;
  std::optional<double> modified_z; ///< when the cell was in a group tested for outliers
  /// (value - the median of its model's group) / |that median|, when the cell was in a group
  /// tested for outliers: what the compare page colours by (-0.5: half the median).
  std::optional<double> deviation;
};

/// One case (bench id and axes); cells[i] belongs to columns[i].
struct compare_row {
  std::string bench_id;
  nlohmann::ordered_json axes = nlohmann::ordered_json::object();
  std::string metric;
  metric_unit unit = metric_unit::none;
  bool higher_is_better = true;
  std::vector<std::optional<compare_cell>> cells; ///< nullopt: no result (not run)
};

struct compare_output {
  compare_options options;
  std::vector<compare_column> columns; ///< hosts in natural order (node2 before node10)
  std::vector<compare_row> rows;       ///< in order of first appearance
  std::size_t outliers = 0;
};

/// The outliers of one case on one report's GPUs: a node pattern (every GPU of a node low on
/// one metric) is one entry naming its GPUs, not eight.
struct compare_finding {
  std::string hostname, report;
  std::vector<int> gpus; ///< NVML indices, ascending
  /// The MIG devices among the outliers, "0 GI 7 CI 0" (their GPU's index and instance ids),
  /// in column order; empty when every outlier is a whole GPU.
  std::vector<std::string> mig_devices;
  const compare_row* row = nullptr;
  double deviation = 0;           ///< the largest |deviation| of them, with its sign
  double value = 0;               ///< that cell's value, in the row's unit
  std::size_t gpus_in_report = 0; ///< the report's GPUs measured on this case
};
/// Every outlier, grouped per report and case, the largest deviation first (hosts in natural
/// order among equals): what a reader of a fleet is shown first.
[[nodiscard]] std::vector<compare_finding> compare_findings(const compare_output& c);
/// The exit code of a comparison (docs/diff-compare.md): 1 when an outlier is marked, else 0.
[[nodiscard]] int exit_code_of(const compare_output& c);

/// Side by side. `labels[i]` names reports[i] (a file name); missing labels become "#i".
/// A column per GPU of each report (per MIG device of a partitioned GPU, and one for the GPU's
/// own results when it has any), the reports ordered by hostname in natural order (stable:
/// reports of one host keep the order given) (a multi-GPU result goes to its first GPU's column).
/// The spec row of a GPU is spec_of(specs, gpu). A measured cell's value is converted to its row's
/// unit (the first result's), its fraction is resolve_reference's. Outliers: per row, the
/// measured cells of one comparison_group (the model: spec id, else GPU name; and a MIG
/// device's profile) form a group; with at least
/// min_group cells, a cell is an outlier when is_outlier(test_outlier(x, group),
/// min_relative_deviation, outlier_z, both ways).
[[nodiscard]] compare_output compare_reports(const std::vector<report>& reports,
                                             const std::vector<std::string>& labels,
                                             const spec_table& specs,
                                             const compare_options& options = {});

[[nodiscard]] std::string_view to_string(cell_state s);

/// Machine-readable form ("gpuspec.compare.v2": v1 keyed rows on every parameter).
[[nodiscard]] nlohmann::ordered_json to_json(const compare_output& c);
/// A Markdown table: a row per case, a column per GPU; outliers in bold and marked OUTLIER.
[[nodiscard]] std::string to_markdown(const compare_output& c);
/// "3012.4 (92.1%)", "3012.4 (92.1% clk) OUTLIER", "not supported", "failed", "skipped", and
/// "—" for a case not run: the text of one cell, shared by renderers.
[[nodiscard]] std::string format_cell(const std::optional<compare_cell>& cell);

} // namespace gpuspec::reports::judge
