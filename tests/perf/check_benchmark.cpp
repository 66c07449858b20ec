// How long `check` takes on large reports (issue 3: 10,000 results in well under a second on
// the 2-core build machine). A Google Benchmark program, not a timed test: run it and read it.
//
//   build/<preset>/tests/perf/gpuspec_check_benchmark
//
// The report is synthetic: 8 identical GPUs, results spread over bench ids and parameters so
// that sibling matching has real work to do. Spec table and rules are the shipped ones.

#include <benchmark/benchmark.h>

#include <random>
#include <stdexcept>
#include <string>

#include "gpuspec/reports/check.hpp"
#include "gpuspec/reports/expectations.hpp"
#include "gpuspec/reports/report.hpp"
#include "gpuspec/reports/spec_table.hpp"
#include "gpuspec/reports/statistics.hpp"

namespace {

using namespace gpuspec::reports;

report synthetic_report(int results, int gpus) {
  report r;
  r.complete = true;
  r.host.hostname = "synthetic-node";
  r.host.memory_bytes = std::int64_t{2048} << 30;
  for (int g = 0; g < gpus; ++g) {
    device_info d;
    d.index = g;
    d.name = "NVIDIA H100 80GB HBM3";
    d.pci_device_id = 0x2330;
    d.uuid = "GPU-synthetic-" + std::to_string(g);
    d.serial = "SYNTHETIC-" + std::to_string(g);
    d.mem_clock_mhz = d.mem_clock_max_mhz = 2619;
    d.memory_bus_width_bits = 5120;
    r.devices.push_back(d);
  }
  const char* ids[] = {"memory.stream.copy", "memory.stream.scale", "memory.stream.add",
                       "memory.stream.triad", "memory.stream.dot"};
  std::mt19937_64 rng(42);
  std::normal_distribution<double> noise(3000.0, 15.0);
  for (int i = 0; i < results; ++i) {
    result x;
    x.bench_id = ids[i % 5];
    x.devices = {i % gpus};
    x.axes["dtype"] = (i / 5) % 2 == 0 ? "fp32" : "fp64";
    x.axes["size"] = (i / (5 * gpus)) % 50; // many distinct cases
    x.metric = "bandwidth";
    x.unit = metric_unit::gigabytes_per_second;
    x.cache_state = "cold";
    for (int s = 0; s < 10; ++s)
      x.samples.push_back(noise(rng));
    x.stats = summarize(x.samples);
    x.stop_reason = "cv_target";
    x.check.status = verification_status::passed;
    x.telemetry.samples = 10;
    x.telemetry.power_w_mean = 500;
    x.telemetry.temperature_c_max = 60;
    r.results.push_back(std::move(x));
  }
  return r;
}

template <class T> T must(outcome<T> o) {
  if (!o)
    throw std::runtime_error(o.error().to_string());
  return std::move(o).value();
}

void check_report(benchmark::State& state) {
  const report r = synthetic_report(static_cast<int>(state.range(0)), 8);
  const spec_table specs = must(load_spec_table(GPUSPEC_SPECS_DIR "/gpus.json"));
  const expectations rules = must(load_expectations(GPUSPEC_SPECS_DIR "/expect.json"));
  for (auto _ : state)
    benchmark::DoNotOptimize(check(r, specs, rules));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(check_report)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
