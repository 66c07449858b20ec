#pragma once
// Running benchmarks from a GPU test as `gpuspec run` runs them: through the run's one entry
// point (spine::run_session), with the gpuspec executable as the worker of CUDA device 0's GPU,
// the real inventory and spec table, and an observer that prints nothing.

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>

#include <gtest/gtest.h>
#include <unistd.h>

#include "gpuspec/benches/device_offer.hpp"
#include "gpuspec/host/measurement_options.hpp"
#include "gpuspec/reports/model/report.hpp"
#include "gpuspec/reports/model/spec_table.hpp"
#include "gpuspec/spine/session.hpp"

namespace gpuspec::testing {

struct runner_inventory {
  reports::report report;    ///< the last run's report (inventory and results)
  std::optional<int> device; ///< NVML index of CUDA device 0
  std::filesystem::path folder;
};

/// Finds CUDA device 0's GPU in the inventory the run will take. A fatal test failure when it
/// is not there: the caller checks HasFatalFailure().
inline void take_runner_inventory(runner_inventory& inv) {
  const spine::inventory found = spine::take_inventory("/", benches::enrich_with_cuda);
  for (const auto& d : found.devices)
    if (d.cuda_index == 0)
      inv.device = d.index;
  ASSERT_TRUE(inv.device.has_value())
      << "CUDA device 0 was not joined to NVML's inventory by its PCI bus id: "
      << found.host.gpu_status;
  inv.folder =
      std::filesystem::temp_directory_path() / ("gpuspec-gpu-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(inv.folder);
}

/// Options for a short run of `suite` cases matching `filter` on CUDA device 0: no minimum
/// device time, between `min_samples` and `max_samples` samples, at most `max_seconds` each.
inline spine::session_options short_run_options(const runner_inventory& inv, std::string suite,
                                                std::string filter, int min_samples,
                                                int max_samples, double max_seconds) {
  spine::session_options o;
  o.measurement.suite = std::move(suite);
  o.filter = std::move(filter);
  o.devices = {inv.device.value()};
  o.measurement.stopping.min_samples = min_samples;
  o.measurement.stopping.max_samples = max_samples;
  o.measurement.stopping.min_seconds = 0.0;
  o.measurement.stopping.max_seconds = max_seconds;
  o.output = inv.folder / "report.json";
  // Built here, run on a lent GPU machine from another folder: gpu-validate.sh says where the
  // binary and the spec table are there.
  const char* binary = std::getenv("GPUSPEC_BINARY");
  const char* specs = std::getenv("GPUSPEC_SPECS_DIR");
  o.specs_file = specs != nullptr && *specs != '\0' ? std::filesystem::path(specs) / "gpus.json"
                                                    : std::filesystem::path(GPUSPEC_SPECS_FILE);
  o.worker_command = {binary != nullptr && *binary != '\0' ? binary : GPUSPEC_BINARY, "__worker"};
  o.tool_version = "gpu-test";
  return o;
}

/// Runs `o` through the session; its report lands in inv.report.
inline void run_quietly(const spine::session_options& o, runner_inventory& inv,
                        const std::atomic<bool>* interrupt = nullptr) {
  struct quiet final : spine::session_observer {
    void on_result(const spine::journal_entry&) override {}
  } observer;
  const std::atomic<bool> never{false};
  auto outcome = spine::run_session(o, benches::enrich_with_cuda, observer,
                                    interrupt != nullptr ? *interrupt : never);
  ASSERT_TRUE(outcome.no_run_reason.empty()) << outcome.no_run_reason;
  inv.report = std::move(outcome.report);
}

} // namespace gpuspec::testing
