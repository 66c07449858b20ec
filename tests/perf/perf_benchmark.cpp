// How fast the report tools are (issue 10, "Speed": check over a 10,000-result report and
// compare over 1,000 reports, no slower than Python's json.load of the same input). A Google
// Benchmark program, not a timed test: run it and read it (README.md, "The tool's own
// performance"):
//
//   build/<preset>/tests/perf/gpuspec_perf
//
// Each benchmark times what the command does, from the files on disk (page cache) to its
// outcome, rendering aside; its counter x_python is that time over the best of 5 json.load
// passes of python3 over the same files (python_s), so under 1 is faster than Python.

#include <benchmark/benchmark.h>

#include <chrono>
#include <optional>
#include <stdexcept>
#include <vector>

#include "check_fixtures.hpp"
#include "gpuspec/reports/judge/check.hpp"
#include "gpuspec/reports/judge/compare.hpp"
#include "gpuspec/reports/judge/diff.hpp"
#include "gpuspec/reports/judge/expectations.hpp"
#include "gpuspec/reports/model/report_json.hpp"
#include "gpuspec/reports/model/spec_table.hpp"
#include "gpuspec/reports/render/render.hpp"
#include "perf_inputs.hpp"
#include "python_load.hpp"

namespace {

using namespace gpuspec;
using clock_type = std::chrono::steady_clock;

template <class T> T must(reports::outcome<T> o) {
  if (!o)
    throw std::runtime_error(o.error().to_string());
  return std::move(o).value();
}

const reports::spec_table& specs() {
  static const auto t = must(reports::load_spec_table(GPUSPEC_SPECS_DIR "/gpus.json"));
  return t;
}
const reports::expectations& rules() {
  static const auto e = must(reports::load_expectations(GPUSPEC_SPECS_DIR "/expect.json"));
  return e;
}

/// Times each iteration of `work`; sets python_s and x_python from the files it reads.
template <class F>
void run(benchmark::State& state, const std::vector<std::filesystem::path>& files, F work) {
  double total = 0;
  for (auto _ : state) {
    const auto start = clock_type::now();
    work();
    total += std::chrono::duration<double>(clock_type::now() - start).count();
  }
  if (const auto python = perf::python_json_load_seconds(files)) {
    state.counters["python_s"] = *python;
    state.counters["x_python"] = total / static_cast<double>(state.iterations()) / *python;
  } else {
    state.SetLabel("python3 not found: no ratio");
  }
}

void load_report(benchmark::State& state) {
  const auto& in = perf::perf_inputs();
  run(state, {in.big}, [&] { benchmark::DoNotOptimize(must(reports::load_report(in.big))); });
  state.SetItemsProcessed(state.iterations() * 10000);
}
BENCHMARK(load_report)->Unit(benchmark::kMillisecond)->MinTime(2.0);

void check_10000_results(benchmark::State& state) {
  const auto& in = perf::perf_inputs();
  (void)specs();
  (void)rules();
  run(state, {in.big}, [&] {
    const auto r = must(reports::load_report(in.big));
    benchmark::DoNotOptimize(reports::check(r, specs(), rules()));
  });
  state.SetItemsProcessed(state.iterations() * 10000);
}
BENCHMARK(check_10000_results)->Unit(benchmark::kMillisecond)->MinTime(2.0);

void diff_10000_results(benchmark::State& state) {
  const auto& in = perf::perf_inputs();
  run(state, {in.big, in.big_slower}, [&] {
    const auto a = must(reports::load_report(in.big));
    const auto b = must(reports::load_report(in.big_slower));
    benchmark::DoNotOptimize(reports::diff_reports(a, b));
  });
  state.SetItemsProcessed(state.iterations() * 10000);
}
BENCHMARK(diff_10000_results)->Unit(benchmark::kMillisecond)->MinTime(2.0);

void compare_1000_reports(benchmark::State& state) {
  const auto& in = perf::perf_inputs();
  (void)specs();
  run(state, in.fleet, [&] {
    std::vector<reports::report> loaded;
    loaded.reserve(in.fleet.size());
    for (const auto& f : in.fleet)
      loaded.push_back(must(reports::load_report(f)));
    benchmark::DoNotOptimize(reports::compare_reports(loaded, {}, specs()));
  });
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(in.fleet.size()));
}
BENCHMARK(compare_1000_reports)->Unit(benchmark::kMillisecond)->MinTime(2.0);

void check_1000_reports(benchmark::State& state) {
  // The fleet frame's case: a thousand nodes in one check.
  const auto& in = perf::perf_inputs();
  run(state, in.fleet, [&] {
    std::vector<reports::report> loaded;
    loaded.reserve(in.fleet.size());
    for (const auto& f : in.fleet)
      loaded.push_back(must(reports::load_report(f)));
    benchmark::DoNotOptimize(reports::check(loaded, specs(), rules()));
  });
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(in.fleet.size()));
}
BENCHMARK(check_1000_reports)->Unit(benchmark::kMillisecond)->MinTime(2.0);

void compare_1000_reports_html(benchmark::State& state) {
  // Issue 20's target: the HTML page of a 1,000-node comparison written in <= 2 s and <= 10 MB.
  // Timed: compare and render, from the loaded reports (loading is compare_1000_reports').
  // Counter page_mb: the page's size in MB (10^6 bytes).
  const auto& in = perf::perf_inputs();
  std::vector<reports::report> loaded;
  loaded.reserve(in.fleet.size());
  for (const auto& f : in.fleet)
    loaded.push_back(must(reports::load_report(f)));
  const auto html = reports::make_renderer(reports::output_format::html);
  std::size_t bytes = 0;
  for (auto _ : state) {
    const std::string page = html->render(reports::compare_reports(loaded, {}, specs()));
    bytes = page.size();
    benchmark::DoNotOptimize(page.data());
  }
  state.counters["page_mb"] = static_cast<double>(bytes) / 1e6;
}
BENCHMARK(compare_1000_reports_html)->Unit(benchmark::kMillisecond)->MinTime(2.0);

} // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  std::filesystem::remove_all(perf::perf_inputs().folder);
  return 0;
}
