// A MIG device's results in `check` (docs/mig.md): each judged as its instance, named by it,
// and compared only with the instances of the same profile (its siblings) or of the same
// profile of the same model across reports (the fleet).
#include "check_frames.hpp"

namespace gpuspec::reports::inline judge::check_detail {

std::string mig_instance_name(int device, const mig_ref& m) {
  return fmt::format("GPU {} {}, {}", device, mig_label(m), m.uuid);
}

void name_mig_instance(result_verdict& v, const result& r) {
  if (!r.mig || r.devices.size() != 1)
    return;
  const std::string name = mig_instance_name(r.devices.front(), *r.mig);
  v.name += fmt::format(" {}", mig_label(*r.mig));
  if (!v.message.empty())
    v.message = fmt::format("{}: {}", name, v.message);
  for (auto& d : v.diagnoses)
    name_mig_finding(d, r);
}

void name_mig_finding(diagnosis& d, const result& r) {
  if (!r.mig || r.devices.size() != 1)
    return;
  d.cause = fmt::format("{}: {}", mig_instance_name(r.devices.front(), *r.mig), d.cause);
  d.evidence["mig.uuid"] = r.mig->uuid;
  d.evidence["mig.profile"] = r.mig->profile;
  d.evidence["mig.gpu_instance_id"] = std::to_string(r.mig->gpu_instance_id);
  d.evidence["mig.compute_instance_id"] = std::to_string(r.mig->compute_instance_id);
}

std::string mig_group_suffix(const result& r) {
  return r.mig ? "\x1d"
                 "MIG " +
                     r.mig->profile
               : std::string();
}

std::string siblings_text(const result& r, std::size_t others) {
  return r.mig ? fmt::format("{} MIG device(s) of profile {}", others, r.mig->profile)
               : fmt::format("{} identical GPU(s)", others);
}

} // namespace gpuspec::reports::judge::check_detail
