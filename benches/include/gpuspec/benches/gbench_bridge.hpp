#pragma once
/// Google Benchmark underneath (DESIGN.md: "Google Benchmark underneath for registration,
/// filtering and the timed loop"). Host only.
///
/// What Google Benchmark does here, honestly: each case × device is registered with
/// benchmark::RegisterBenchmark, run by benchmark::RunSpecifiedBenchmarks, with a reporter that
/// swallows its console output (the report is gpuspec's). Google Benchmark's `for (auto _ :
/// state)` loop runs a count of iterations it fixes before the loop starts, and cannot be left
/// early except through SkipWithError, which marks the run an error. gpuspec's stopping rule
/// (stop when the CV is under target, or has stalled, or a cap is hit) decides after each
/// sample, so it cannot be Google Benchmark's iteration count. Each case is therefore registered
/// with Iterations(1) and UseManualTime(): the one iteration is gpuspec's whole measurement
/// (warm-up, samples, stopping rule), SetIterationTime gets the device seconds its samples
/// summed to, and counters carry the median and the sample count. Selection by suite and
/// --filter happens before registration, with std::regex on the dotted id.
///
/// Google Benchmark keeps its registrations in a process-wide list: one run at a time, and the
/// list is cleared when the run ends (normally or by an exception).

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace gpuspec::benches {

/// What one measurement tells Google Benchmark.
struct gbench_outcome {
  double device_seconds = 0;              ///< SetIterationTime (the samples' device time summed)
  std::map<std::string, double> counters; ///< e.g. "median", "samples"
};

struct gbench_case {
  std::string name;                        ///< unique, e.g. "memory.stream.triad/dtype=fp32/gpu:0"
  std::function<gbench_outcome()> measure; ///< runs the whole measurement
};

/// Runs `cases` in order through Google Benchmark. If a `measure` throws, the cases after it
/// are not measured and the exception is rethrown once Google Benchmark has returned (it never
/// crosses Google Benchmark's frames). Returns the names Google Benchmark reported, in order.
std::vector<std::string> run_through_google_benchmark(const std::vector<gbench_case>& cases);

} // namespace gpuspec::benches
