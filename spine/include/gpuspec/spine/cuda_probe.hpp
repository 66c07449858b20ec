#pragma once
/// The CUDA probe of a MIG device (docs/health.md, "MIG devices and CUDA"): `gpuspec health`
/// starts the worker program once per MIG device, `<worker> --probe-mig` under
/// CUDA_VISIBLE_DEVICES=MIG-<uuid>, all at once under one timeout. The worker calls
/// cudaGetDeviceCount and reads device 0's UUID (cudaGetDeviceProperties): the runtime's
/// initialisation and two queries, no context and no kernel. It prints one line, its answer,
/// and exits.

#include <string>
#include <string_view>
#include <vector>

#include "gpuspec/reports/health/health.hpp"
#include "gpuspec/reports/model/outcome.hpp"
#include "gpuspec/reports/model/report.hpp"

namespace gpuspec::spine {

/// What the worker's backend answers.
struct cuda_probe_answer {
  /// "cuda", or "none" for a build without the CUDA runtime (then `error` says so, and nothing
  /// is judged from it), "stand-in" in the tests.
  std::string backend;
  int devices = 0;   ///< cudaGetDeviceCount's count
  std::string error; ///< "" when cudaGetDeviceCount succeeded, else "<name>: <text>"
  /// Device 0's UUID as CUDA gives it, 32 hexadecimal digits in NVML's 8-4-4-4-12 grouping and
  /// without NVML's "GPU-"/"MIG-" prefix; "" when there is no device.
  std::string uuid;
  friend bool operator==(const cuda_probe_answer&, const cuda_probe_answer&) = default;
};

/// The answer as one JSON line, '\n' included.
[[nodiscard]] std::string probe_answer_line(const cuda_probe_answer& a);
/// Reads one line (without its '\n'); errors name `source` and the field.
[[nodiscard]] reports::outcome<cuda_probe_answer> probe_answer_from_line(std::string_view line,
                                                                         std::string_view source);

/// "MIG-5e7e71c0-..." and "5E7E71C0-...": the hexadecimal digits of a UUID, lower case, for
/// comparing NVML's and CUDA's spellings of it.
[[nodiscard]] std::string uuid_digits(std::string_view uuid);

/// The outcome of one probe from the answer: opened when CUDA counts a device whose UUID is the
/// MIG device's or its GPU's (`gpu_uuid`: the runtime may give either) or gives none.
[[nodiscard]] reports::mig_probe_outcome
outcome_of(const cuda_probe_answer& a, std::string_view mig_uuid, std::string_view gpu_uuid);

/// The probe's time for every MIG device at once (initial policy: the runtime's initialisation
/// takes well under a second on a GPU in persistence mode, and a scheduler's health check has 60
/// s in all: Slurm's HealthCheckProgram, docs/health.md).
inline constexpr double mig_probe_timeout_s = 10.0;

/// Probes every MIG device of `devices` with `command` (the worker program and its arguments
/// up to and including "--probe-mig"), each in its own process with
/// CUDA_VISIBLE_DEVICES=<its MIG UUID>, all started at once; a process still running after
/// `timeout_s` is killed (SIGKILL). Never throws for a probe that cannot start: that probe has
/// no answer, and says why. A backend that answers "none" makes the whole reading not run, with
/// its error as the reason.
[[nodiscard]] reports::mig_cuda_probe_reading
probe_mig_devices(const std::vector<reports::device_info>& devices,
                  const std::vector<std::string>& command, double timeout_s = mig_probe_timeout_s);

} // namespace gpuspec::spine
