// The CUDA worker backend (cuda_worker.hpp): one GPU, its cases through the harness, its own
// NVML telemetry. A worker is one process per GPU, so nothing here is shared between GPUs; the
// node-wide cases (collectives) get one worker of their own, given every selected GPU.

#include "gpuspec/benches/cuda_worker.hpp"

#include <chrono>
#include <exception>
#include <memory>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "device_context.cuh"
#include "gpuspec/benches/bench_state.cuh"
#include "gpuspec/benches/device_offer.hpp"
#include "gpuspec/benches/node_state.hpp"
#include "gpuspec/benches/registry.hpp"
#include "gpuspec/host/gpu_activity.hpp"
#include "gpuspec/host/measurement_options.hpp"
#include "gpuspec/host/nvml_events.hpp"
#include "gpuspec/host/nvml_library.hpp"
#include "gpuspec/host/telemetry.hpp"
#include "gpuspec/kernels/cuda_check.cuh"
#include "gpuspec/kernels/cuda_handles.cuh"
#include "gpuspec/kernels/nvtx_range.hpp"
#include "gpuspec/spine/coordinator.hpp"
#include "gpuspec/spine/deadlines.hpp"

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

host::run_options options_of(const spine::worker_assignment& a) {
  host::run_options o;
  static_cast<host::measurement_options&>(o) = a.options;
  o.devices = {a.device.index};
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
    m_nvml = host::nvml_library::open(why, a.nvml_library);
    if (m_nvml) {
      m_telemetry = std::make_unique<host::telemetry_sampler>(make_nvml_telemetry_source(*m_nvml),
                                                              std::vector<int>{m_device.index},
                                                              m_options.telemetry_period);
      // Registered before the first kernel: an Xid of the first case is one of its events.
      m_events =
          std::make_unique<host::nvml_event_watcher>(*m_nvml, std::vector<int>{m_device.index});
    }
    // A MIG device's worker sees that device alone, as CUDA device 0 (its coordinator set
    // CUDA_VISIBLE_DEVICES=MIG-<uuid>: docs/mig.md); a whole GPU is found by its PCI bus id.
    m_ordinal = a.mig_uuid.empty() ? cuda_ordinal_of(m_device) : std::optional<int>(0);
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
      if (m_nvml) {
        const host::idle_snapshot before = host::read_idle_snapshot(*m_nvml, m_device.index);
        if (before.utilization_pct)
          state.add_parameter("utilization_before_pct", *before.utilization_pct);
        if (before.temperature_c)
          state.add_parameter("temperature_before_c", *before.temperature_c);
      }
      try {
        def->function()(state);
      } catch (const std::exception& e) {
        state.fail(e.what());
      } catch (...) {
        state.fail("the benchmark threw something that is not a std::exception");
      }
      reports::result r = state.take_result();
      if (m_events)
        host::attach_window_events(r, *m_events, m_options.clock_origin);
      return r;
    } catch (const std::exception& e) {
      return spine::unmeasured_result(c, m_device.index, result_status::failed,
                                      failure_kind::benchmark, e.what());
    }
  }

  /// After a failed case: a sticky error (an illegal address, a kernel trap) stays with the
  /// context and fails every later call, so a synchronize still answers it once the last error,
  /// which an ordinary failure leaves, is cleared. Its name, or "" when the context is usable.
  std::string sticky_error() override {
    if (!m_ordinal || !m_context)
      return {};
    if (cudaSetDevice(*m_ordinal) != cudaSuccess) {
      const cudaError_t e = cudaGetLastError();
      return e == cudaSuccess ? std::string() : cudaGetErrorName(e);
    }
    (void)cudaGetLastError();
    const cudaError_t e = cudaDeviceSynchronize();
    if (e == cudaSuccess)
      return {};
    (void)cudaGetLastError();
    if (cudaDeviceSynchronize() == cudaSuccess)
      return {}; // cleared by the read: not sticky, the next case can run
    return cudaGetErrorName(e);
  }

private:
  reports::device_info m_device;
  host::run_options m_options;
  const std::atomic<bool>& m_interrupted;
  std::optional<host::nvml_library> m_nvml;
  std::unique_ptr<host::telemetry_sampler> m_telemetry; // after m_nvml: stops before NVML closes
  std::unique_ptr<host::nvml_event_watcher> m_events;   // after m_nvml: frees its set before
  std::optional<int> m_ordinal;
  std::unique_ptr<device_context> m_context;
  std::string m_unavailable; ///< the GPU cannot be reached: its cases are skipped
  std::string m_start_error; ///< the GPU cannot be started: its cases fail
};

/// The node-wide cases (node_state.hpp): one worker given every selected GPU, each case run
/// once over all of them. The benchmark owns its CUDA and NCCL resources (in the node cache, so
/// a communicator outlives one case); this executor owns the devices' telemetry.
class cuda_node_executor final : public spine::case_executor {
public:
  cuda_node_executor(const spine::worker_assignment& a, const std::atomic<bool>& interrupted)
      : m_options(options_of(a)), m_interrupted(interrupted) {
    std::vector<int> indices;
    for (const auto& d : a.devices)
      indices.push_back(d.index);
    m_options.devices = indices;
    std::string why;
    m_nvml = host::nvml_library::open(why, a.nvml_library);
    if (m_nvml) {
      m_telemetry = std::make_unique<host::telemetry_sampler>(make_nvml_telemetry_source(*m_nvml),
                                                              indices, m_options.telemetry_period);
      m_events = std::make_unique<host::nvml_event_watcher>(*m_nvml, indices);
    }
    for (auto d : a.devices) {
      const auto ordinal = cuda_ordinal_of(d);
      if (!ordinal) {
        m_unavailable = fmt::format("GPU {} is not visible to the CUDA runtime "
                                    "(CUDA_VISIBLE_DEVICES, or MIG mode) or its PCI bus id {} did "
                                    "not match: the node-wide cases need every selected GPU",
                                    d.index, d.pci_bus_id);
        return;
      }
      d.cuda_index = ordinal;
      m_devices.push_back(node_device{d, *ordinal});
    }
  }

  reports::result run(const spine::planned_case& c,
                      const spine::progress_callback& progress) override {
    const int first = m_devices.empty() ? 0 : m_devices.front().info.index;
    const auto unmeasured = [&](result_status status, failure_kind kind, std::string why) {
      reports::result r = spine::unmeasured_result(c, first, status, kind, std::move(why));
      r.devices = m_options.devices;
      return r;
    };
    if (!m_unavailable.empty())
      return unmeasured(result_status::skipped, failure_kind::none, m_unavailable);
    const benchmark_definition* def = benchmark_registry().find(c.bench_id);
    if (def == nullptr || def->scope() != bench_scope::node)
      return unmeasured(result_status::failed, failure_kind::benchmark,
                        fmt::format("this worker has no node-wide benchmark {} (a coordinator of "
                                    "another version?)",
                                    c.bench_id));
    const bench_case bc{def, c.axes};
    m_options.on_run = progress;
    const auto begin = std::chrono::steady_clock::now();
    const auto deadline = begin + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                      std::chrono::duration<double>(spine::case_deadline_s(
                                          c.setup_allowance_s, m_options.stopping.max_seconds)));
    try {
      const std::string params = bc.parameters_text();
      const kernels::nvtx_range range(params.empty() ? bc.id() : bc.id() + " " + params);
      node_state state(bc, m_devices, m_options, m_cache, m_interrupted, deadline);
      if (m_nvml) {
        // Per GPU, in the order of `devices`.
        nlohmann::ordered_json utilization = nlohmann::ordered_json::array();
        nlohmann::ordered_json temperature = nlohmann::ordered_json::array();
        for (const auto& d : m_devices) {
          const host::idle_snapshot before = host::read_idle_snapshot(*m_nvml, d.info.index);
          utilization.push_back(before.utilization_pct
                                    ? nlohmann::ordered_json(*before.utilization_pct)
                                    : nlohmann::ordered_json());
          temperature.push_back(before.temperature_c ? nlohmann::ordered_json(*before.temperature_c)
                                                     : nlohmann::ordered_json());
        }
        state.add_parameter("utilization_before_pct", std::move(utilization));
        state.add_parameter("temperature_before_c", std::move(temperature));
      }
      try {
        def->node_run()(state);
      } catch (const std::exception& e) {
        state.fail(e.what());
      } catch (...) {
        state.fail("the benchmark threw something that is not a std::exception");
      }
      const auto [window_begin, window_end] =
          state.window().value_or(std::pair{begin, std::chrono::steady_clock::now()});
      reports::result r = state.take_result();
      r.telemetry = telemetry_over(window_begin, window_end);
      if (m_events)
        host::attach_window_events(r, *m_events, m_options.clock_origin);
      return r;
    } catch (const std::exception& e) {
      return unmeasured(result_status::failed, failure_kind::benchmark, e.what());
    }
  }

private:
  /// Every GPU's telemetry over the window, merged (the worst GPU for each figure).
  reports::telemetry_summary telemetry_over(std::chrono::steady_clock::time_point begin,
                                            std::chrono::steady_clock::time_point end) {
    reports::telemetry_summary merged;
    if (m_telemetry) {
      std::vector<std::pair<int, reports::telemetry_summary>> per_gpu;
      for (const auto& d : m_devices) {
        std::optional<double> sm_clock_max;
        if (d.info.sm_clock_max_mhz)
          sm_clock_max = *d.info.sm_clock_max_mhz;
        per_gpu.emplace_back(d.info.index,
                             m_telemetry->summary(d.info.index, begin, end, sm_clock_max));
      }
      merged = host::merge_gpu_summaries(per_gpu);
    } else {
      merged.status = "no telemetry: NVML is not available (see host.gpu_status)";
    }
    const auto since_origin = [&](std::chrono::steady_clock::time_point t) {
      return std::chrono::duration<double>(t - m_options.clock_origin).count();
    };
    merged.window_start_s = since_origin(begin);
    merged.window_end_s = since_origin(end);
    return merged;
  }

  host::run_options m_options;
  const std::atomic<bool>& m_interrupted;
  std::optional<host::nvml_library> m_nvml;
  std::unique_ptr<host::telemetry_sampler> m_telemetry; // after m_nvml: stops before NVML closes
  std::unique_ptr<host::nvml_event_watcher> m_events;   // after m_nvml: frees its set before
  std::vector<node_device> m_devices;
  std::string m_unavailable;
  node_cache m_cache; // last: communicators go before the sampler and NVML
};

spine::worker_plan cuda_plan(const spine::plan_request& request) {
  spine::worker_plan plan;
  plan.backend = "cuda";
  // CUDA context creation on a GPU without persistence mode can take many seconds, and eight
  // workers create theirs at once.
  plan.startup_allowance_s = 120.0;
  for (const bench_case& c :
       select_cases(benchmark_registry(), request.suite, request.filter, request.gpus))
    plan.cases.push_back(spine::planned_case{c.id(), c.values, c.definition->setup_allowance_s(),
                                             c.definition->scope() == bench_scope::node,
                                             c.definition->runs_for_duration()});
  return plan;
}

} // namespace

spine::worker_backend cuda_worker_backend() {
  spine::worker_backend b;
  b.name = "cuda";
  b.plan = cuda_plan;
  b.open = [](const spine::worker_assignment& a,
              const std::atomic<bool>& interrupted) -> std::unique_ptr<spine::case_executor> {
    // The session never mixes the two kinds in one assignment (session.cpp).
    if (!a.cases.empty() && a.cases.front().node_wide)
      return std::make_unique<cuda_node_executor>(a, interrupted);
    return std::make_unique<cuda_executor>(a, interrupted);
  };
  b.probe = probe_cuda_device;
  return b;
}

} // namespace gpuspec::benches
