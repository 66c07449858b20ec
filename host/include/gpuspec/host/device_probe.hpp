#pragma once
/// GPU inventory and error counters through NVML.

#include <filesystem>
#include <string>
#include <vector>

#include "gpuspec/host/nvml_library.hpp"
#include "gpuspec/reports/model/report.hpp"

namespace gpuspec::host {

/// Driver and CUDA driver versions into `host`.
void probe_driver_versions(const nvml_library& nvml, reports::host_info& host);

/// One device_info per NVML device, in NVML order (the nvidia-smi numbering). A failing query
/// leaves its field empty and appends "<query>: <nvml error>" to `problems`; one broken GPU
/// never hides the others. counters_before is filled with a first snapshot.
[[nodiscard]] std::vector<reports::device_info> probe_devices(const nvml_library& nvml);

/// NVML cannot name a GPU it has lost: after GPU_IS_LOST every query is skipped, so the device
/// has no bus id, name or UUID, and nothing (the spec table, the kernel log's Xids) can find it.
/// The driver still lists every GPU it attached, in /proc/driver/nvidia/gpus/<bus id>/information
/// (NVIDIA's README, "Using the /proc File System Interface"; read under `root`). A lost device
/// without a bus id takes the bus id, model and UUID of the driver's entry that no answering GPU
/// has, when that is unambiguous: one such entry for one such device, or as many as there are
/// and NVML's order is the driver's bus order on every GPU that answered (NVML numbers GPUs by
/// bus id, though it does not promise to). `problems` says where the identity came from, or why
/// none could be given.
void identify_lost_devices(std::vector<reports::device_info>& devices,
                           const std::filesystem::path& root);

/// The error counters of one device, by stable name:
///   ecc.volatile.corrected, ecc.volatile.uncorrected, ecc.aggregate.corrected,
///   ecc.aggregate.uncorrected, retired_pages.single_bit, retired_pages.double_bit,
///   retired_pages.pending, remapped_rows.correctable, remapped_rows.uncorrectable,
///   remapped_rows.pending, remapped_rows.failure, pcie.replay, nvlink.links_active,
///   nvlink.crc_flit, nvlink.crc_data, nvlink.replay, nvlink.recovery.
/// A counter the GPU does not support is reading::not_supported(), never 0.
[[nodiscard]] reports::counter_set read_error_counters(const nvml_library& nvml, int index);

/// after - before for every counter both have values for; "not supported" stays so.
[[nodiscard]] reports::counter_set counter_delta(const reports::counter_set& before,
                                                 const reports::counter_set& after);

} // namespace gpuspec::host
