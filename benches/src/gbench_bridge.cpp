#include "gpuspec/benches/gbench_bridge.hpp"

#include <algorithm>
#include <exception>

#include <benchmark/benchmark.h>

namespace gpuspec::benches {

namespace {

/// Swallows Google Benchmark's console output; keeps the names of the runs it reports.
class quiet_reporter final : public benchmark::BenchmarkReporter {
public:
  bool ReportContext(const Context& /*context*/) override { return true; }
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const auto& run : runs)
      m_names.push_back(run.benchmark_name());
  }
  void Finalize() override {}
  [[nodiscard]] const std::vector<std::string>& names() const { return m_names; }

private:
  std::vector<std::string> m_names;
};

/// Clears Google Benchmark's process-wide registrations on every way out.
struct registration_guard {
  registration_guard() = default;
  ~registration_guard() { benchmark::ClearRegisteredBenchmarks(); }
  registration_guard(const registration_guard&) = delete;
  registration_guard& operator=(const registration_guard&) = delete;
  registration_guard(registration_guard&&) = delete;
  registration_guard& operator=(registration_guard&&) = delete;
};

} // namespace

std::vector<std::string> run_through_google_benchmark(const std::vector<gbench_case>& cases) {
  if (cases.empty())
    return {};
  std::exception_ptr pending;
  registration_guard guard;
  benchmark::ClearRegisteredBenchmarks();
  for (const auto& c : cases) {
    benchmark::RegisterBenchmark(
        c.name.c_str(),
        [&c, &pending](benchmark::State& state) {
          if (pending) {
            state.SkipWithError("not run: an earlier case stopped the run");
            for (auto _ : state) {
            }
            return;
          }
          for (auto _ : state) {
            try {
              const gbench_outcome outcome = c.measure();
              state.SetIterationTime(std::max(outcome.device_seconds, 0.0));
              for (const auto& [key, value] : outcome.counters)
                state.counters[key] = benchmark::Counter(value);
            } catch (...) {
              pending = std::current_exception();
              state.SkipWithError("the measurement threw");
            }
          }
        })
        ->Iterations(1)
        ->Repetitions(1)
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
  }
  quiet_reporter reporter;
  // "." matches every registered name: the selection was made before registration.
  benchmark::RunSpecifiedBenchmarks(&reporter, std::string("."));
  if (pending)
    std::rethrow_exception(pending);
  return reporter.names();
}

} // namespace gpuspec::benches
