#pragma once
/// Ceilings that fit a MIG device (docs/mig.md, "How each ceiling is scaled"): a partitioned
/// GPU's instance holds a share of its SMs and of its memory slices, so a whole GPU's peak is no
/// ceiling for it. Compute peaks are scaled by the instance's SMs over the GPU's; device-memory
/// bandwidth (and the L2, which MIG divides with the memory slices) by the instance's memory
/// slices over the GPU's. Each scaled ceiling's source says by what and from which NVML
/// attributes. Pure functions, host only: tested without a GPU.

#include <optional>
#include <string>

#include "gpuspec/reports/model/report.hpp"
#include "gpuspec/reports/model/spec_table.hpp"

namespace gpuspec::host {

/// One fraction of the GPU an instance holds, and how it was found.
struct mig_fraction {
  double value = 0;  ///< 0 < value <= 1
  std::string basis; ///< "14 of 108 SMs (NVML nvmlDeviceGetAttributes multiprocessorCount ...)"
  friend bool operator==(const mig_fraction&, const mig_fraction&) = default;
};

/// The instance's share of its GPU; a fraction is unset when a figure it needs is unknown
/// (then the ceilings it would scale are dropped rather than left at the whole GPU's).
struct mig_share {
  std::optional<mig_fraction> sms;
  std::optional<mig_fraction> memory;
  friend bool operator==(const mig_share&, const mig_share&) = default;
};

/// The share of `m` in `gpu`: SMs from the instance's multiprocessorCount over the GPU's SM
/// count (the inventory's, else the spec row's), memory from its memory slices over the
/// GPU's mig_memory_slices.
[[nodiscard]] mig_share mig_share_of(const reports::device_info& gpu,
                                     const reports::mig_instance& m,
                                     const reports::gpu_spec* spec = nullptr);

/// Whether a ceiling's clock-adjusted value was already computed for the instance: compute and
/// shared-memory ceilings are (the worker's device carries the instance's SM count), the
/// memory ceilings are not (the bus-width formula is the whole GPU's).
enum class clock_adjusted_basis { instance, whole_gpu };

/// `c` scaled to the instance, by the kind of figure it stands for (`spec_figure`): "peaks.*"
/// by the SM fraction, "memory_bandwidth_gbs" by the memory fraction; any other ceiling (a
/// PCIe or NVLink figure, one without a spec figure) is returned unchanged. A value whose
/// fraction is unknown is dropped, its source saying why.
[[nodiscard]] reports::ceiling scale_ceiling_to_mig(reports::ceiling c, const mig_share& share);

/// A result of a MIG device with its ceilings scaled (scale_ceiling_to_mig) and its reference and
/// efficiency settled again (reference.hpp): nothing else changes.
void scale_result_to_mig(reports::result& r, const mig_share& share);

} // namespace gpuspec::host
