#pragma once
/// Internal to the renderers: one factory per format, and helpers they share.

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gpuspec/reports/model/text_format.hpp"
#include "gpuspec/reports/render/render.hpp"

namespace gpuspec::reports::inline render::detail {

std::unique_ptr<renderer> make_table_renderer(const render_options& options);
std::unique_ptr<renderer> make_markdown_renderer();
std::unique_ptr<renderer> make_junit_renderer();
std::unique_ptr<renderer> make_prometheus_renderer();
std::unique_ptr<renderer> make_reason_renderer();
std::unique_ptr<renderer> make_kube_renderer(); // kubernetes.cpp
std::unique_ptr<renderer> make_html_renderer(const render_options& options);

/// The table renderer's layouts of a diff and a comparison (render_tables.cpp), fitted to
/// `width` columns (0: no limit).
std::string diff_text_table(const diff_output& d, std::size_t width);
/// The comparison's every cell only when `verbose` (or a few GPUs); otherwise its outliers and
/// one line per case and model.
std::string compare_text_table(const compare_output& c, std::size_t width, bool verbose);

/// The nodes that are not passing, worst first (render_text_summary.cpp), for the opening of
/// every check layout (table, md, html): each with the GPUs not passing ("2,3"; "host" for a
/// finding on the node itself; "-") and its codes, worst first; and one entry per code and action
/// across them, worst first, naming where it is: a code on several nodes (a fleet's node
/// pattern) is one entry naming the nodes.
struct not_passing_node {
  std::size_t index = 0; ///< in check_outcome::nodes
  const node_verdict* node = nullptr;
  std::string gpus;
  std::vector<std::string> codes;
};
struct summary_action {
  const diagnosis* shown = nullptr; ///< the worst finding of the entry: its code and rung
  std::string action;               ///< group_action's, unescaped
  std::vector<std::string> where;   ///< "gpu 0-7 (every GPU)"; of several nodes "node7 gpu 2"
  std::vector<std::size_t> nodes;   ///< the nodes it is on (in check_outcome::nodes), distinct
};
struct not_passing_summary {
  std::vector<not_passing_node> nodes;
  std::vector<summary_action> actions;
};
not_passing_summary summarize_not_passing(const check_outcome& outcome);
/// An entry's places, at most `max_places` named: "gpu 0-7 (every GPU)"; on several nodes "node7
/// gpu 0-7 (every GPU), node9 gpu 2, node12 host (3 nodes)".
std::string where_text(const summary_action& a, std::size_t max_places = 6);
/// "FAIL (exit code 2); 50 nodes, 3 not passing".
std::string verdict_summary_line(const check_outcome& outcome, std::size_t not_passing);

/// The check table's opening (render_text_summary.cpp): the verdict, then each node that is not
/// passing, worst first, with its GPUs and codes, then one action per code.
std::string check_summary_text(const check_outcome& outcome, std::size_t width);
/// A reason code as a table cell: without the "GPUSPEC-" every code has.
std::string short_code(std::string_view code);
/// `text` wrapped at spaces to `width` columns (0: no limit): the first line after `first`, the
/// rest indented by `indent` spaces; a word longer than a line is never cut. Ends in '\n'.
std::string wrap_hanging(std::string_view first, std::string_view text, std::size_t width,
                         std::size_t indent);

/// The action and its rung of the remediation ladder, in the one word every output uses:
/// "reseat the GPU (remediation: reseat_or_service)"; the action alone where the rung is none
/// (a concrete action needs no "(remediation: none)" after it). `action` is already escaped.
std::string action_text(std::string_view action, remediation step);

/// The efficiency and the bar it is held to: "70.7% (pass ≥ 60%)"; the efficiency alone where
/// no pass fraction judges it (a baseline's tolerance, a relative frame). render_text.cpp.
std::string efficiency_text(const result_verdict& r);

/// ASCII upper case: "FAIL".
std::string upper(std::string_view s);

/// The diagnoses of a node, its GPUs and its results, once each (same code, GPU and cause).
std::vector<const diagnosis*> unique_diagnoses(const node_verdict& node);

/// The diagnoses of one code on one GPU (or on the host), for a reader: the same finding on
/// every result of a GPU is one entry, with how many there were and the benchmarks they came
/// from; the same code on every GPU of the node (two or more) is one node finding
/// (render_findings.cpp). The json output keeps each diagnosis of each result.
struct diagnosis_group {
  const diagnosis* shown = nullptr; ///< the first of the worst severity: its cause and action
  verdict_status severity = verdict_status::warn; ///< the worst of the group
  std::size_t findings = 0;                       ///< distinct diagnoses (by cause) in the group
  std::size_t results = 0;                        ///< results that carry one of them
  std::vector<std::string> benches; ///< those results' bench ids, distinct, first seen first
  std::vector<int> devices;         ///< the GPUs it is on, ascending; empty: the host
  bool node_wide = false;           ///< on every GPU the run measured: one node finding
};
/// Grouped by (code, GPU), a code on every GPU as one group, worst first (graver_finding; the
/// judge's order among equals).
std::vector<diagnosis_group> grouped_diagnoses(const node_verdict& node);
/// Where a group is: "gpu 2", "gpu 0-7", "host".
std::string group_where(const diagnosis_group& g);
/// A group's action, unescaped: the node's (node_wide_action) for a node finding whose code has
/// one, else the code's own.
std::string group_action(const diagnosis_group& g);
/// "4 findings, in 4 results: memory.stream.copy, memory.stream.triad (the worst shown)", or
/// "in 3 results: ..." for one finding several results carry; "" for a group of one finding in
/// at most one result. At most `max_benches` bench ids are named, then "and N more".
std::string group_summary(const diagnosis_group& g, std::size_t max_benches = 6);

} // namespace gpuspec::reports::render::detail
