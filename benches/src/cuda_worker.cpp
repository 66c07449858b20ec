// The CUDA worker backend (cuda_worker.hpp): one GPU, its cases through the harness, its own
// NVML telemetry. A worker is one process per GPU, so nothing here is shared between GPUs.

#include "gpuspec/benches/cuda_worker.hpp"

#include <chrono>
#include <exception>
#include <memory>
#include <optional>
#include <stdexcept>

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "device_context.cuh"
#include "gpuspec/benches/bench_state.cuh"
#include "gpuspec/benches/nvml_library.hpp"
#include "gpuspec/benches/registry.hpp"
#include "gpuspec/benches/runner.hpp"
#include "gpuspec/benches/telemetry.hpp"
#include "gpuspec/kernels/cuda_check.cuh"
#include "gpuspec/kernels/cuda_handles.cuh"
#include "gpuspec/kernels/nvtx_range.hpp"
#include "gpuspec/spine/coordinator.hpp"

namespace gpuspec::benches {
namespace {

using reports::failure_kind;
using reports::result_status;

/// The CUDA ordinal of the assignment's GPU: the inventory's join by PCI bus id, or CUDA's own
/// lookup of that bus id; nullopt when the runtime cannot see it.
std::optional<int> cuda_ordinal_of(const reports::device_info& d) {
  if (d.cuda_index)
    return d.cuda_index;
  if (d.pci_bus_id.empty())
    return std::nullopt;
  int ordinal = -1;
  if (cudaDeviceGetByPCIBusId(&ordinal, d.pci_bus_id.c_str()) != cudaSuccess) {
    (void)cudaGetLastError();
    return std::nullopt;
  }
  return ordinal;
}

run_options options_of(const spine::worker_assignment& a) {
  run_options o;
  o.suite = a.suite;
  o.devices = {a.device.index};
  o.telemetry_period = std::chrono::milliseconds(a.telemetry_period_ms);
  o.stopping = a.stopping;
  o.stream_array_bytes = a.stream_array_bytes;
  o.duration_s = a.duration_s;
  o.clock_origin = std::chrono::steady_clock::time_point(
      std::chrono::duration_cast<std::chrono::steady_clock::duration>(
          std::chrono::nanoseconds(a.clock_origin_ns)));
  if (!a.spec_rows.is_null()) {
    auto table = reports::parse_spec_table(a.spec_rows, "the assignment's spec rows");
    if (!table)
      throw std::invalid_argument(table.error().to_string());
    for (auto& row : table.value().rows)
      o.spec_rows.emplace(row.id, row);
  }
  return o;
}

class cuda_executor final : public spine::case_executor {
public:
  cuda_executor(const spine::worker_assignment& a, const std::atomic<bool>& interrupted)
      : m_device(a.device), m_options(options_of(a)), m_interrupted(interrupted) {
    std::string why;
    m_nvml = nvml_library::open(why, a.nvml_library);
    if (m_nvml)
      m_telemetry = std::make_unique<telemetry_sampler>(make_nvml_telemetry_source(*m_nvml),
                                                        std::vector<int>{m_device.index},
                                                        m_options.telemetry_period);
    m_ordinal = cuda_ordinal_of(m_device);
    if (!m_ordinal) {
      m_unavailable =
          fmt::format("GPU {} is not visible to the CUDA runtime (CUDA_VISIBLE_DEVICES, "
                      "or MIG mode) or its PCI bus id {} did not match",
                      m_device.index, m_device.pci_bus_id);
      return;
    }
    m_device.cuda_index = m_ordinal;
    try {
      const kernels::device_scope scope(*m_ordinal);
      m_context = std::make_unique<device_context>(*m_ordinal);
    } catch (const std::exception& e) {
      m_start_error = fmt::format("GPU {} (CUDA device {}) could not be started: {}",
                                  m_device.index, *m_ordinal, e.what());
    }
  }

  cuda_executor(const cuda_executor&) = delete;
  cuda_executor& operator=(const cuda_executor&) = delete;

  ~cuda_executor() override {
    // The context's buffers, stream and events are released with their device current.
    if (m_context && m_ordinal) {
      try {
        const kernels::device_scope scope(*m_ordinal);
        m_context.reset();
      } catch (const std::exception&) {
        m_context.reset();
      }
    }
  }

  reports::result run(const spine::planned_case& c,
                      const spine::progress_callback& progress) override {
    if (!m_unavailable.empty())
      return spine::unmeasured_result(c, m_device.index, result_status::skipped, failure_kind::none,
                                      m_unavailable);
    if (!m_start_error.empty())
      return spine::unmeasured_result(c, m_device.index, result_status::failed,
                                      failure_kind::gpu_start, m_start_error);
    const benchmark_definition* def = benchmark_registry().find(c.bench_id);
    if (def == nullptr)
      return spine::unmeasured_result(
          c, m_device.index, result_status::failed, failure_kind::benchmark,
          fmt::format("this worker has no benchmark {} (a coordinator of another version?)",
                      c.bench_id));
    const bench_case bc{def, c.axes};
    m_options.on_run = progress;
    try {
      const kernels::device_scope scope(*m_ordinal);
      const std::string params = bc.parameters_text();
      const kernels::nvtx_range range(params.empty() ? bc.id() : bc.id() + " " + params);
      bench_state state(bc, m_device, *m_context, m_options, m_telemetry.get(), m_interrupted);
      try {
        def->function()(state);
      } catch (const std::exception& e) {
        state.fail(e.what());
      } catch (...) {
        state.fail("the benchmark threw something that is not a std::exception");
      }
      return state.take_result();
    } catch (const std::exception& e) {
      return spine::unmeasured_result(c, m_device.index, result_status::failed,
                                      failure_kind::benchmark, e.what());
    }
  }

private:
  reports::device_info m_device;
  run_options m_options;
  const std::atomic<bool>& m_interrupted;
  std::optional<nvml_library> m_nvml;
  std::unique_ptr<telemetry_sampler> m_telemetry; // after m_nvml: stops before NVML closes
  std::optional<int> m_ordinal;
  std::unique_ptr<device_context> m_context;
  std::string m_unavailable; ///< the GPU cannot be reached: its cases are skipped
  std::string m_start_error; ///< the GPU cannot be started: its cases fail
};

spine::worker_plan cuda_plan(std::string_view suite, std::string_view filter) {
  spine::worker_plan plan;
  plan.backend = "cuda";
  // CUDA context creation on a GPU without persistence mode can take many seconds, and eight
  // workers create theirs at once.
  plan.startup_allowance_s = 120.0;
  for (const bench_case& c : select_cases(benchmark_registry(), suite, filter))
    plan.cases.push_back(spine::planned_case{c.id(), c.values, c.definition->setup_allowance_s(),
                                             c.definition->runs_for_duration()});
  return plan;
}

} // namespace

spine::worker_backend cuda_worker_backend() {
  spine::worker_backend b;
  b.name = "cuda";
  b.plan = cuda_plan;
  b.open = [](const spine::worker_assignment& a, const std::atomic<bool>& interrupted) {
    return std::unique_ptr<spine::case_executor>(std::make_unique<cuda_executor>(a, interrupted));
  };
  return b;
}

} // namespace gpuspec::benches
