// The CLI's entry into the device side (runner.hpp): list, enrich the inventory with what only
// the CUDA runtime knows, run the selected cases on the selected GPUs.

#include "gpuspec/benches/runner.hpp"

#include <algorithm>
#include <array>
#include <exception>
#include <memory>
#include <stdexcept>

#include <cublas_api.h>
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "device_context.cuh"
#include "gpuspec/benches/bench_state.cuh"
#include "gpuspec/benches/gbench_bridge.hpp"
#include "gpuspec/benches/nvml_library.hpp"
#include "gpuspec/benches/pci_bus_id.hpp"
#include "gpuspec/benches/registry.hpp"
#include "gpuspec/benches/telemetry.hpp"
#include "gpuspec/collectives/nccl_version.hpp"
#include "gpuspec/kernels/cuda_check.cuh"
#include "gpuspec/kernels/cuda_handles.cuh"
#include "gpuspec/kernels/nvtx_range.hpp"

namespace gpuspec::benches {

namespace {

/// 13000 -> "13.0", 12080 -> "12.8" (CUDART_VERSION's encoding: major*1000 + minor*10).
std::string cuda_version_text(int version) {
  return fmt::format("{}.{}", version / 1000, (version % 1000) / 10);
}

/// "13.0.2" from cublasGetProperty, which needs no handle (and no GPU); "" if it fails.
std::string cublas_version_text() {
  int major = 0, minor = 0, patch = 0;
  if (cublasGetProperty(MAJOR_VERSION, &major) != CUBLAS_STATUS_SUCCESS ||
      cublasGetProperty(MINOR_VERSION, &minor) != CUBLAS_STATUS_SUCCESS ||
      cublasGetProperty(PATCH_LEVEL, &patch) != CUBLAS_STATUS_SUCCESS)
    return {};
  return fmt::format("{}.{}.{}", major, minor, patch);
}

/// Fills what NVML left empty from cudaDeviceGetAttribute (not cudaDeviceProp: CUDA 13 removed
/// several of its fields). A failing query becomes a problem line, never an exception.
void fill_from_cuda_attributes(reports::device_info& d, int ordinal) {
  auto attribute = [&](cudaDeviceAttr attr, const char* name) -> std::optional<int> {
    int value = 0;
    const cudaError_t err = cudaDeviceGetAttribute(&value, attr, ordinal);
    if (err != cudaSuccess) {
      (void)cudaGetLastError();
      d.problems.push_back(fmt::format("CUDA: cudaDeviceGetAttribute({}): {}", name,
                                       kernels::describe_cuda_error(err)));
      return std::nullopt;
    }
    return value;
  };
  if (!d.sm_count)
    d.sm_count = attribute(cudaDevAttrMultiProcessorCount, "cudaDevAttrMultiProcessorCount");
  if (!d.l2_bytes)
    if (auto v = attribute(cudaDevAttrL2CacheSize, "cudaDevAttrL2CacheSize"))
      d.l2_bytes = *v;
  if (!d.cc_major || !d.cc_minor) {
    auto major = attribute(cudaDevAttrComputeCapabilityMajor, "cudaDevAttrComputeCapabilityMajor");
    auto minor = attribute(cudaDevAttrComputeCapabilityMinor, "cudaDevAttrComputeCapabilityMinor");
    if (major && minor) {
      d.cc_major = major;
      d.cc_minor = minor;
    }
  }
  if (!d.memory_bus_width_bits)
    d.memory_bus_width_bits =
        attribute(cudaDevAttrGlobalMemoryBusWidth, "cudaDevAttrGlobalMemoryBusWidth");
}

/// A result for a case that never reached its benchmark function.
reports::result unstarted_result(const bench_case& c, const reports::device_info& d,
                                 reports::result_status status, std::string reason) {
  reports::result r;
  r.bench_id = c.id();
  r.devices = {d.index};
  for (const auto& [name, value] : c.values)
    r.axes[name] = value;
  r.telemetry.status = "not measured";
  r.check.detail = "not measured";
  r.status = status;
  r.reason = std::move(reason);
  if (status == reports::result_status::failed)
    r.failure = reports::failure_kind::gpu_start;
  return r;
}

struct run_context {
  const run_options& options;
  reports::report& report;
  run_observer& observer;
  const std::atomic<bool>& interrupted;
  telemetry_sampler* telemetry;
};

void publish(run_context& run, reports::result r) {
  run.report.results.push_back(std::move(r));
  run.observer.on_result(run.report.results.back());
}

/// One case on one device; appends its result. Never throws for the benchmark's own failures
/// (they become the result's reason); the observer's exceptions go through.
gbench_outcome run_case(run_context& run, const bench_case& c, const reports::device_info& d,
                        device_context& ctx) {
  gbench_outcome outcome;
  if (run.interrupted.load())
    return outcome; // not started: no result (the report says the run was interrupted)
  run.observer.on_start(c.id(), d.index, c.parameters_text());
  reports::result r;
  try {
    const kernels::device_scope scope(ctx.cuda_index());
    const std::string params = c.parameters_text();
    const kernels::nvtx_range range(params.empty() ? c.id() : c.id() + " " + params);
    bench_state state(c, d, ctx, run.options, run.telemetry, run.interrupted);
    try {
      c.definition->function()(state);
    } catch (const std::exception& e) {
      state.fail(e.what());
    } catch (...) {
      state.fail("the benchmark threw something that is not a std::exception");
    }
    r = state.take_result();
  } catch (const std::exception& e) {
    r = unstarted_result(c, d, reports::result_status::failed, e.what());
  }
  for (double s : r.sample_seconds)
    outcome.device_seconds += s;
  outcome.counters["samples"] = static_cast<double>(r.samples.size());
  outcome.counters["median"] = r.stats.median;
  publish(run, std::move(r));
  return outcome;
}

void run_device(run_context& run, const std::vector<bench_case>& cases,
                const reports::device_info& d) {
  if (!d.cuda_index) {
    for (const auto& c : cases) {
      if (run.interrupted.load())
        return;
      publish(run,
              unstarted_result(
                  c, d, reports::result_status::skipped,
                  fmt::format("GPU {} is not visible to the CUDA runtime (CUDA_VISIBLE_DEVICES, or "
                              "MIG mode) or its PCI bus id did not match",
                              d.index)));
    }
    return;
  }
  const int ordinal = *d.cuda_index;
  std::unique_ptr<device_context> ctx;
  try {
    const kernels::device_scope scope(ordinal);
    ctx = std::make_unique<device_context>(ordinal);
  } catch (const std::exception& e) {
    for (const auto& c : cases) {
      if (run.interrupted.load())
        return;
      publish(run, unstarted_result(c, d, reports::result_status::failed,
                                    fmt::format("GPU {} (CUDA device {}) could not be started: {}",
                                                d.index, ordinal, e.what())));
    }
    return;
  }

  std::vector<gbench_case> gcases;
  gcases.reserve(cases.size());
  for (const auto& c : cases) {
    std::string name = c.id();
    for (const auto& [axis_name, value] : c.values)
      name += "/" + axis_name + "=" + value;
    name += fmt::format("/gpu:{}", d.index);
    gcases.push_back(
        gbench_case{std::move(name), [&run, &c, &d, &ctx] { return run_case(run, c, d, *ctx); }});
  }

  // The context's buffers, stream and events are released with their device current.
  auto release_context = [&] {
    try {
      const kernels::device_scope scope(ordinal);
      ctx.reset();
    } catch (const std::exception&) {
      ctx.reset();
    }
  };
  try {
    (void)run_through_google_benchmark(gcases);
  } catch (...) {
    release_context();
    throw;
  }
  release_context();
}

} // namespace

std::vector<benchmark_listing> list_benchmarks() {
  std::vector<benchmark_listing> out;
  for (const auto& def : benchmark_registry().benchmarks())
    out.push_back(benchmark_listing{def.id(), def.description(), def.suites(), def.axes_text()});
  return out;
}

void enrich_with_cuda(reports::host_info& host, std::vector<reports::device_info>& devices) {
  int runtime = 0;
  if (cudaRuntimeGetVersion(&runtime) == cudaSuccess && runtime > 0)
    host.cuda_runtime_version = cuda_version_text(runtime);
  host.cublas_version = cublas_version_text();
  host.nccl_version = collectives::nccl_version();

  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    const std::string why =
        "CUDA runtime: cudaGetDeviceCount: " + kernels::describe_cuda_error(err);
    if (host.gpu_status == "ok")
      host.gpu_status = why;
    for (auto& d : devices)
      d.problems.push_back(why);
    return;
  }
  if (count == 0) {
    if (host.gpu_status == "ok")
      host.gpu_status = "the CUDA runtime reports no device";
    return;
  }

  for (int ordinal = 0; ordinal < count; ++ordinal) {
    std::array<char, 64> bus{};
    const cudaError_t bus_err =
        cudaDeviceGetPCIBusId(bus.data(), static_cast<int>(bus.size()), ordinal);
    if (bus_err != cudaSuccess) {
      (void)cudaGetLastError();
      continue;
    }
    const std::string key = normalize_pci_bus_id(bus.data());
    auto match = std::find_if(devices.begin(), devices.end(), [&](const reports::device_info& d) {
      return !key.empty() && normalize_pci_bus_id(d.pci_bus_id) == key;
    });
    if (match == devices.end())
      continue;
    match->cuda_index = ordinal;
    fill_from_cuda_attributes(*match, ordinal);
  }
  for (auto& d : devices)
    if (!d.cuda_index)
      d.problems.push_back(
          "not visible to the CUDA runtime (CUDA_VISIBLE_DEVICES, or MIG mode), or no CUDA device "
          "has its PCI bus id " +
          d.pci_bus_id);
}

void run_benchmarks(const run_options& options, const nvml_library* nvml, reports::report& report,
                    run_observer& observer, const std::atomic<bool>& interrupted) {
  const std::vector<bench_case> cases =
      select_cases(benchmark_registry(), options.suite, options.filter);

  std::vector<std::size_t> selected; // positions in report.devices (stable: devices is not resized)
  if (options.devices.empty()) {
    for (std::size_t i = 0; i < report.devices.size(); ++i)
      selected.push_back(i);
  } else {
    for (int index : options.devices) {
      auto it = std::find_if(report.devices.begin(), report.devices.end(),
                             [&](const reports::device_info& d) { return d.index == index; });
      if (it == report.devices.end())
        throw std::invalid_argument(fmt::format("there is no GPU {} in the inventory", index));
      selected.push_back(static_cast<std::size_t>(it - report.devices.begin()));
    }
  }
  if (cases.empty() || selected.empty())
    return;

  // The sampler lives for the whole run and polls every selected GPU.
  std::unique_ptr<telemetry_sampler> telemetry;
  if (nvml != nullptr) {
    std::vector<int> indices;
    for (std::size_t i : selected)
      indices.push_back(report.devices[i].index);
    telemetry = std::make_unique<telemetry_sampler>(make_nvml_telemetry_source(*nvml), indices,
                                                    options.telemetry_period);
  }

  run_context run{options, report, observer, interrupted, telemetry.get()};
  for (std::size_t i : selected) {
    if (interrupted.load())
      break;
    // A copy: report.results grows while this device runs, report.devices does not, but the
    // copy keeps the bench_state's reference independent of the report.
    const reports::device_info device = report.devices[i];
    run_device(run, cases, device);
  }
}

} // namespace gpuspec::benches
