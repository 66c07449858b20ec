#pragma once
/// GPU inventory and error counters through NVML.

#include <string>
#include <vector>

#include "gpuspec/benches/nvml_library.hpp"
#include "gpuspec/reports/report.hpp"

namespace gpuspec::benches {

/// Driver and CUDA driver versions into `host`.
void probe_driver_versions(const nvml_library& nvml, reports::host_info& host);

/// One device_info per NVML device, in NVML order (the nvidia-smi numbering). A failing query
/// leaves its field empty and appends "<query>: <nvml error>" to `problems`; one broken GPU
/// never hides the others. counters_before is filled with a first snapshot.
[[nodiscard]] std::vector<reports::device_info> probe_devices(const nvml_library& nvml);

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

} // namespace gpuspec::benches
