#pragma once
/// A partitioned GPU's MIG devices through NVML (docs/mig.md): each MIG device's ids, UUID,
/// profile, SMs, memory, copy engines and slice counts. gpuspec never changes a GPU's MIG mode
/// or its partitions: it reads the layout it finds.

#include <cstdint>
#include <optional>
#include <string>

#include "gpuspec/host/nvml_library.hpp"
#include "gpuspec/reports/model/report.hpp"

namespace gpuspec::host {

/// The GPU's MIG devices into `d.mig_instances` (nvmlDeviceGetMaxMigDeviceCount, then
/// nvmlDeviceGetMigDeviceHandleByIndex for each index; an index NVML answers NOT_FOUND for holds
/// no device), with `d.mig_memory_slices`. A query that fails is named in the instance's
/// `problems` (or the GPU's, for the count); the other instances still answer.
void probe_mig(const nvml_library& nvml, nvmlDevice_t device, reports::device_info& d);

/// The profile name nvidia-smi gives a MIG device: "<g>g.<GB>gb", the GPU instance's compute
/// slices and its memory in GiB rounded up (9728 MiB: "10gb"), with "<c>c." before it when the
/// compute instance holds fewer slices than its GPU instance ("1c.3g.40gb"). The media
/// extensions' "+me" cannot be told from the attributes and is not written.
[[nodiscard]] std::string mig_profile_name(int gpu_slices, int compute_slices,
                                           std::int64_t memory_bytes);

/// How many memory slices a GPU's memory is divided into under MIG, from the most MIG devices it
/// holds (nvmlDeviceGetMaxMigDeviceCount): the MIG user guide's profile tables give a 1g
/// profile 1/8 of the memory on every GPU that holds 7 (A100, H100, H200, B200, GB200), and
/// 1/N on those that hold N < 7 (A30: 4; RTX PRO 6000 Blackwell: 4; RTX PRO 5000: 2).
/// Null for a count outside those tables.
[[nodiscard]] std::optional<int> mig_memory_slices_for(int max_mig_devices);

/// The memory slices an instance holds: its memory over one slice's share of the GPU's
/// (gpu_bytes / gpu_slices), rounded to the nearest (the GPU keeps some memory for itself, so
/// a 1g.10gb instance of an 80 GB A100 holds 9.5 GiB of a 10 GiB slice). Null when the GPU's
/// memory is unknown or the share rounds to 0.
[[nodiscard]] std::optional<int> instance_memory_slices(std::int64_t instance_bytes,
                                                        std::int64_t gpu_bytes, int gpu_slices);

} // namespace gpuspec::host
