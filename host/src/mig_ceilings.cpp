// Ceilings that fit a MIG device (mig_ceilings.hpp; docs/mig.md).

#include "gpuspec/host/mig_ceilings.hpp"

#include <fmt/format.h>

#include "gpuspec/reports/model/reference.hpp"

namespace gpuspec::host {
namespace {

/// Which share of the GPU a ceiling of this figure is; null for one MIG does not divide.
const std::optional<mig_fraction>* fraction_for(const std::string& figure, const mig_share& share) {
  if (figure.starts_with("peaks."))
    return &share.sms;
  if (figure == "memory_bandwidth_gbs")
    return &share.memory;
  return nullptr;
}

void scale_value(std::optional<double>& value, std::string& source,
                 const std::optional<mig_fraction>& f) {
  if (!value)
    return;
  if (!f) {
    value.reset();
    source = "the MIG device's share of the GPU is not known (docs/mig.md), so the whole GPU's "
             "figure is no ceiling for it: " +
             source;
    return;
  }
  *value *= f->value;
  source = fmt::format("{} x {:.4g}, the MIG device's share: {}", source, f->value, f->basis);
}

} // namespace

mig_share mig_share_of(const reports::device_info& gpu, const reports::mig_instance& m,
                       const reports::gpu_spec* spec) {
  mig_share s;
  const std::optional<int> gpu_sms =
      gpu.sm_count
          ? gpu.sm_count
          : (spec != nullptr && spec->sm_count > 0 ? std::optional(spec->sm_count) : std::nullopt);
  if (m.sm_count && gpu_sms && *m.sm_count > 0 && *m.sm_count <= *gpu_sms)
    s.sms = mig_fraction{
        static_cast<double>(*m.sm_count) / *gpu_sms,
        fmt::format("{} of {} SMs (nvmlDeviceGetAttributes multiprocessorCount over the GPU's "
                    "{})",
                    *m.sm_count, *gpu_sms, gpu.sm_count ? "SM count" : "spec row's SM count")};
  if (m.memory_slices && gpu.mig_memory_slices && *m.memory_slices > 0 &&
      *m.memory_slices <= *gpu.mig_memory_slices)
    s.memory = mig_fraction{
        static_cast<double>(*m.memory_slices) / *gpu.mig_memory_slices,
        fmt::format("{} of {} memory slices (nvmlDeviceGetAttributes memorySizeMB over one "
                    "slice of the GPU's memory)",
                    *m.memory_slices, *gpu.mig_memory_slices)};
  return s;
}

reports::ceiling scale_ceiling_to_mig(reports::ceiling c, const mig_share& share) {
  const std::optional<mig_fraction>* f = fraction_for(c.spec_figure, share);
  if (f == nullptr)
    return c;
  scale_value(c.datasheet, c.datasheet_source, *f);
  // A memory ceiling's clock-adjusted value is the whole bus's; a compute ceiling's was
  // computed from the MIG device's own SM count (the worker's device carries it).
  if (c.spec_figure == "memory_bandwidth_gbs")
    scale_value(c.clock_adjusted, c.clock_adjusted_source, *f);
  if (*f)
    c.mig_fraction = (*f)->value;
  return c;
}

void scale_result_to_mig(reports::result& r, const mig_share& share) {
  r.ceiling_value = scale_ceiling_to_mig(std::move(r.ceiling_value), share);
  r.ceiling_value.reference = reports::choose_reference(r.ceiling_value);
  reports::settle_efficiency(r);
}

} // namespace gpuspec::host
