#pragma once
// Running benchmarks from a GPU test as `gpuspec run` runs them: the inventory of CUDA device 0
// joined to NVML's view, and a run through the real runner with an observer that prints nothing.

#include <array>
#include <atomic>
#include <optional>
#include <string>
#include <utility>

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "gpuspec/benches/device_probe.hpp"
#include "gpuspec/benches/nvml_library.hpp"
#include "gpuspec/benches/runner.hpp"
#include "gpuspec/reports/report.hpp"

namespace gpuspec::testing {

struct runner_inventory {
  std::optional<benches::nvml_library> nvml; ///< empty where NVML does not open
  reports::report report;                    ///< devices; the run appends its results
  std::optional<int> device;                 ///< NVML index of CUDA device 0
};

/// NVML's devices, or CUDA device 0 alone (joined by its PCI bus id like a real one) where NVML
/// does not open; enriched by the CUDA runtime. A fatal test failure when CUDA device 0 cannot
/// be found in the inventory: the caller checks HasFatalFailure().
inline void take_runner_inventory(runner_inventory& inv) {
  std::string why;
  inv.nvml = benches::nvml_library::open(why);
  if (inv.nvml) {
    inv.report.devices = benches::probe_devices(*inv.nvml);
  } else {
    reports::device_info d;
    d.index = 0;
    std::array<char, 64> bus{};
    ASSERT_EQ(cudaDeviceGetPCIBusId(bus.data(), static_cast<int>(bus.size()), 0), cudaSuccess);
    d.pci_bus_id = bus.data();
    inv.report.devices.push_back(d);
  }
  benches::enrich_with_cuda(inv.report.host, inv.report.devices);
  for (const auto& d : inv.report.devices)
    if (d.cuda_index == 0)
      inv.device = d.index;
  ASSERT_TRUE(inv.device.has_value()) << "CUDA device 0 was not joined to the inventory";
}

/// Options for a short test run of `suite` cases matching `filter` on CUDA device 0: no minimum
/// device time, between `min_samples` and `max_samples` samples, at most `max_seconds` each.
inline benches::run_options short_run_options(const runner_inventory& inv, std::string suite,
                                              std::string filter, int min_samples, int max_samples,
                                              double max_seconds) {
  benches::run_options o;
  o.suite = std::move(suite);
  o.filter = std::move(filter);
  o.devices = {inv.device.value()};
  o.stopping.min_samples = min_samples;
  o.stopping.max_samples = max_samples;
  o.stopping.min_seconds = 0.0;
  o.stopping.max_seconds = max_seconds;
  return o;
}

/// Runs `o` through the runner on the inventory; results land in inv.report.results.
inline void run_quietly(const benches::run_options& o, runner_inventory& inv) {
  struct quiet : benches::run_observer {
    void on_start(const std::string&, int, const std::string&) override {}
    void on_result(const reports::result&) override {}
  } observer;
  std::atomic<bool> interrupted{false};
  benches::run_benchmarks(o, inv.nvml ? &*inv.nvml : nullptr, inv.report, observer, interrupted);
}

} // namespace gpuspec::testing
