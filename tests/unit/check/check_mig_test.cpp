// Partitioned GPUs in `check` (docs/mig.md): the 8x A100 SXM4 80 GB stock node with GPUs 0-3
// as 7 x 1g.10gb each and 4-7 whole, built the way the harness and the MIG worker write it:
// each MIG device's results carry it, their ceilings and medians are the instance's share of the
// GPU's (1 of 8 memory slices, 14 of 108 SMs), and the node-wide cases are not run on the
// partitioned GPUs. A healthy one passes; one slow instance is named; a whole GPU's fault still
// fails its GPU.

#include <algorithm>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "gpuspec/reports/judge/check.hpp"
#include "gpuspec/reports/judge/compare.hpp"
#include "gpuspec/reports/judge/diff.hpp"
#include "gpuspec/reports/judge/verdict.hpp"
#include "gpuspec/reports/model/reference.hpp"
#include "gpuspec/reports/model/report_json.hpp"
#include "gpuspec/reports/model/statistics.hpp"
#include "gpuspec/reports/render/render.hpp"
#include "mig_fixtures.hpp"
#include "shipped_tables.hpp"
#include "stock_fixtures.hpp"

namespace gpuspec::reports {
namespace {

using gpuspec::testing::shipped_rules;
using gpuspec::testing::shipped_specs;

using testing::instances_per_gpu;
using testing::partitioned_node;

std::string mig_not_passing(const check_outcome& o) {
  std::string out;
  for (const auto& node : o.nodes) {
    for (const auto& g : node.gpus)
      for (const auto& d : g.diagnoses)
        out += fmt::format("  gpu {}: {} {}\n", g.index, d.code, d.cause);
    for (const auto& v : node.results)
      if (v.status != verdict_status::pass && v.status != verdict_status::skipped)
        out += fmt::format("  {} [{}]: {}\n", v.name, to_string(v.status), v.message);
  }
  return out;
}

TEST(CheckMig, AHealthyPartitionedNodePasses) {
  const report built = partitioned_node();
  // As written and read back.
  const auto loaded = report_from_json(to_json(built), "mig.json");
  ASSERT_TRUE(loaded) << loaded.error().to_string();
  EXPECT_EQ(loaded.value(), built);
  const auto o = check(loaded.value(), shipped_specs(), shipped_rules());
  EXPECT_EQ(o.status, verdict_status::pass) << mig_not_passing(o);
  EXPECT_EQ(exit_code_of(o.status), 0);
  // Each instance's STREAM result is judged on its own, named by its instance.
  int instances_judged = 0;
  for (const auto& v : o.nodes.at(0).results)
    if (v.bench_id.starts_with("memory.stream.") && v.devices == std::vector<int>{2} &&
        v.status == verdict_status::pass && v.name.find("MIG 1g.10gb, GI") != std::string::npos)
      ++instances_judged;
  EXPECT_GE(instances_judged, instances_per_gpu);
}

TEST(CheckMig, OneSlowInstanceIsNamed) {
  report r = partitioned_node();
  // GPU 1's MIG device 2 (GI 9) at 0.6 of its share on every STREAM case.
  for (auto& x : r.results)
    if (x.mig && x.devices.front() == 1 && x.mig->gpu_instance_id == 9 &&
        x.bench_id.starts_with("memory.stream.")) {
      for (double& s : x.samples)
        s *= 0.6;
      x.stats = summarize(x.samples);
      settle_efficiency(x);
    }
  const auto o = check(r, shipped_specs(), shipped_rules());
  EXPECT_NE(o.status, verdict_status::pass);
  const std::string name = "GPU 1 MIG 1g.10gb, GI 9 CI 0, MIG-5e7e71c0-0001-4000-8000-000000000002";
  bool named = false;
  for (const auto& v : o.nodes.at(0).results) {
    if (v.status == verdict_status::pass || v.status == verdict_status::skipped)
      continue;
    // Only that instance's results fall: its siblings of the same profile still pass.
    const result& x = r.results.at(v.result_index);
    ASSERT_TRUE(x.mig) << v.name << ": " << v.message;
    EXPECT_EQ(x.mig->gpu_instance_id, 9) << v.name;
    for (const auto& d : v.diagnoses)
      named = named || d.cause.find(name) != std::string::npos;
    named = named || v.message.find(name) != std::string::npos;
  }
  EXPECT_TRUE(named) << mig_not_passing(o);
}

TEST(CheckMig, AWholeGpusFaultStillFailsItsGpu) {
  report r = partitioned_node();
  r.devices.at(5).counters_delta["ecc.volatile.uncorrected"] = reading::of(2);
  r.devices.at(5).counters_after["ecc.volatile.uncorrected"] = reading::of(2);
  const auto o = check(r, shipped_specs(), shipped_rules());
  EXPECT_EQ(o.status, verdict_status::fail);
  for (const auto& g : o.nodes.at(0).gpus)
    EXPECT_EQ(g.status, g.index == 5 ? verdict_status::fail : verdict_status::pass)
        << "GPU " << g.index << ": " << g.message;
}

} // namespace

// ---- compare and diff (docs/mig.md: like profiles only) -----------------------------------

namespace {

/// The column of `c` holding GPU `gpu`'s MIG device with GPU instance `gi` (-1: the GPU's own).
std::optional<std::size_t> mig_column_of(const compare_output& c, const std::string& report,
                                         int gpu, int gi) {
  for (std::size_t i = 0; i < c.columns.size(); ++i) {
    const auto& col = c.columns[i];
    if (col.report == report && col.device_index == gpu &&
        (gi < 0 ? !col.mig : col.mig && col.mig->gpu_instance_id == gi))
      return i;
  }
  return std::nullopt;
}

/// `r` with GPU `gpu`'s MIG device `gi` at 0.6 of its share on every STREAM case.
void slow_instance(report& r, int gpu, int gi) {
  for (auto& x : r.results)
    if (x.mig && x.devices.front() == gpu && x.mig->gpu_instance_id == gi &&
        x.bench_id.starts_with("memory.stream")) {
      for (double& v : x.samples)
        v *= 0.6;
      x.stats = summarize(x.samples);
    }
}

} // namespace

TEST(CompareMig, EveryMigDeviceIsAColumnComparedWithItsProfileOnly) {
  report r = partitioned_node();
  slow_instance(r, 1, 9);
  const auto c = compare_reports({r}, {"mig.json"}, shipped_specs());
  // 28 MIG devices, 4 whole GPUs, and GPU 0's own column: the node-wide case's not-run result
  // on GPUs 0-3 (a result goes to its first GPU's column).
  EXPECT_EQ(c.columns.size(), 28u + 4 + 1);
  EXPECT_TRUE(mig_column_of(c, "mig.json", 0, -1));
  EXPECT_FALSE(mig_column_of(c, "mig.json", 1, -1));
  const auto slow = mig_column_of(c, "mig.json", 1, 9);
  ASSERT_TRUE(slow);
  EXPECT_EQ(c.columns[*slow].label, "mig.json/GPU 1 MIG 1g.10gb, GI 9 CI 0");
  EXPECT_EQ(comparison_group(c.columns[*slow]), "a100-sxm4-80gb MIG 1g.10gb");
  bool marked = false;
  for (const auto& row : c.rows) {
    const auto& cell = row.cells[*slow];
    if (row.bench_id.starts_with("memory.stream") && cell && cell->outlier)
      marked = true;
    // Only the slow instance is an outlier: a whole GPU's eight-times-larger bandwidth makes
    // no MIG device an outlier, nor the other way round.
    for (std::size_t i = 0; i < row.cells.size(); ++i) {
      if (row.cells[i] && row.cells[i]->outlier) {
        EXPECT_EQ(i, *slow) << row.bench_id << " " << c.columns[i].label;
      }
    }
  }
  EXPECT_TRUE(marked);
  const auto findings = compare_findings(c);
  ASSERT_FALSE(findings.empty());
  EXPECT_EQ(findings.front().mig_devices, std::vector<std::string>{"1 GI 9 CI 0"});
  const auto j = to_json(c);
  EXPECT_EQ(j.at("columns").at(*slow).at("mig").at("profile"), "1g.10gb");
  EXPECT_FALSE(j.at("columns").at(c.columns.size() - 1).contains("mig")) << "a whole GPU";

  // The healthy node: no outlier at all.
  EXPECT_EQ(compare_reports({partitioned_node()}, {"mig.json"}, shipped_specs()).outliers, 0u);
}

// The HTML page names a MIG device as the text output does (its instance), not "GPU 1" as if it
// were the whole GPU: seven devices of one GPU are seven rows told apart.
TEST(CompareMig, TheHtmlPageNamesEachMigDeviceByItsInstance) {
  report r = partitioned_node();
  slow_instance(r, 1, 9);
  const auto c = compare_reports({r}, {"mig.json"}, shipped_specs());
  const std::string page = make_renderer(output_format::html)->render(c);
  const std::string head = page.substr(0, page.find("<main>"));
  // The opening: the slow instance, listed as the text's findings list it, each case with it.
  EXPECT_NE(head.find("<td>1 GI 9 CI 0</td>"), std::string::npos) << head;
  EXPECT_NE(head.find("GPU 1 MIG 1g.10gb, GI 9 CI 0 memory.stream."), std::string::npos) << head;
  // The heatmap: a row per instance, each named by it; a whole GPU by its index alone.
  for (int gi = 7; gi <= 13; ++gi)
    EXPECT_NE(page.find(fmt::format(">GPU 1 MIG 1g.10gb, GI {} CI 0</text>", gi)),
              std::string::npos)
        << gi;
  EXPECT_NE(page.find(">GPU 5</text>"), std::string::npos);
  EXPECT_EQ(page.find(">GPU 1</text>"), std::string::npos) << "GPU 1 is partitioned";
}

TEST(CompareMig, DiffPairsAMigDeviceWithTheSameInstanceOnly) {
  const report old_report = partitioned_node();
  report new_report = partitioned_node();
  slow_instance(new_report, 2, 13);
  const auto d = diff_reports(old_report, new_report);
  std::size_t regressions = 0;
  for (const auto& m : d.metrics)
    if (m.kind == change_kind::regression) {
      ++regressions;
      EXPECT_EQ(m.new_devices, std::vector<int>{2}) << m.bench_id;
    }
  EXPECT_GT(regressions, 0u);
  // Seven instances of a case on one GPU are seven pairs, not one.
  const auto per_case = std::count_if(d.metrics.begin(), d.metrics.end(), [](const auto& m) {
    return m.bench_id == "memory.stream.triad" && m.new_devices == std::vector<int>{0};
  });
  EXPECT_EQ(per_case % instances_per_gpu, 0);
  EXPECT_GE(per_case, instances_per_gpu);
  EXPECT_EQ(diff_reports(old_report, partitioned_node()).verdict, check_status::pass);
}

} // namespace gpuspec::reports
