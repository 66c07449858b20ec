// The rules of a partitioned GPU (mig_rules.hpp): its MIG mode pending a reset, its MIG devices
// as the CUDA runtime sees them, its layout against the site's declaration.

#include "mig_rules.hpp"

#include <algorithm>
#include <iterator>

#include <fmt/format.h>

#include "gpuspec/reports/judge/diagnosis.hpp"

namespace gpuspec::reports::inline health {

std::string_view to_string(mig_probe_outcome o) {
  switch (o) {
  case mig_probe_outcome::opened:
    return "opened";
  case mig_probe_outcome::not_visible:
    return "not visible";
  case mig_probe_outcome::other_device:
    return "other device";
  case mig_probe_outcome::timed_out:
    return "timed out";
  case mig_probe_outcome::no_answer:
    break;
  }
  return "no answer";
}

namespace detail {

namespace {

/// cudaErrorInsufficientDriver: the driver is older than the worker's CUDA runtime, or the
/// runtime found no driver library. That says nothing of one MIG device: a note, not a finding.
bool runtime_cannot_judge(const mig_cuda_probe& p) {
  return p.outcome == mig_probe_outcome::not_visible &&
         p.cuda_error.starts_with("cudaErrorInsufficientDriver");
}

/// "GPU 0 MIG 1g.10gb, GI 7 CI 0 (MIG-...)": the instance as messages name it.
std::string instance_name(const device_info& d, const std::string& uuid) {
  const mig_instance* m = find_mig_instance(d.mig_instances, uuid);
  return m == nullptr ? fmt::format("GPU {} MIG device {}", d.index, uuid)
                      : fmt::format("GPU {} {} ({})", d.index, mig_label(ref_of(*m)), uuid);
}

/// What the probe found, and how grave: CUDA's own answer fails, silence warns, a probe that
/// could not say is inconclusive.
std::pair<verdict_status, std::string> probe_finding(const mig_cuda_probe& p,
                                                     const mig_cuda_probe_reading& probe) {
  switch (p.outcome) {
  case mig_probe_outcome::not_visible:
    return {verdict_status::fail,
            p.cuda_error.empty()
                ? std::string("the CUDA runtime started on it counts no device")
                : fmt::format("the CUDA runtime started on it answers {}", p.cuda_error)};
  case mig_probe_outcome::other_device:
    return {verdict_status::fail,
            fmt::format("the CUDA runtime started on it opens another device, {}", p.uuid_seen)};
  case mig_probe_outcome::timed_out:
    return {verdict_status::warn,
            fmt::format("the CUDA runtime started on it did not answer within {:g} s (killed){}",
                        probe.timeout_s, p.detail.empty() ? "" : ": " + p.detail)};
  case mig_probe_outcome::no_answer:
    return {verdict_status::inconclusive,
            fmt::format("the probe ended without an answer ({}): whether CUDA can open it is "
                        "not known",
                        p.detail.empty() ? "no reason given" : p.detail)};
  case mig_probe_outcome::opened:
    break;
  }
  return {verdict_status::pass, ""};
}

/// The profiles of `a` that `b` lacks, counting repeats (both sorted).
std::vector<std::string> missing_from(const std::vector<std::string>& a,
                                      const std::vector<std::string>& b) {
  std::vector<std::string> out;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

} // namespace

/// A MIG mode change that waits for a GPU reset (NVML's pending mode, nvml.h
/// nvmlDeviceGetMigMode: "the pending MIG mode refers to the target mode following the next
/// activation trigger"): the GPU runs in its old mode, so what a scheduler expects of it (its
/// MIG devices, or the whole GPU) is not what it has (docs/mig.md).
void rule_mig_pending(const device_info& d, const host_info& host, std::vector<diagnosis>& out) {
  if (d.mig_mode_pending.empty() || d.mig_mode_pending == d.mig_mode)
    return;
  auto diag = make_diagnosis(
      "GPUSPEC-MIG-PENDING-RESET", verdict_status::warn,
      fmt::format("MIG mode is {} and becomes {} at the GPU's next reset: until then the GPU "
                  "runs {}",
                  d.mig_mode.empty() ? "unknown" : d.mig_mode, d.mig_mode_pending,
                  d.mig_mode == "enabled" ? "as its MIG devices" : "whole"),
      &d, host);
  diag.evidence["mig_mode"] = d.mig_mode;
  diag.evidence["mig_mode_pending"] = d.mig_mode_pending;
  out.push_back(std::move(diag));
}

void rule_mig_cuda(const device_info& d, const mig_cuda_probe_reading& probe, const host_info& host,
                   std::vector<diagnosis>& out) {
  if (!probe.run)
    return;
  for (const auto& p : probe.probes) {
    if (p.gpu != d.index || runtime_cannot_judge(p))
      continue;
    const auto [severity, what] = probe_finding(p, probe);
    if (severity == verdict_status::pass)
      continue;
    auto diag = make_diagnosis(
        "GPUSPEC-MIG-NOT-IN-CUDA", severity,
        fmt::format("{} is listed by NVML, but {} (CUDA_VISIBLE_DEVICES={}, cudaGetDeviceCount)",
                    instance_name(d, p.mig_uuid), what, p.mig_uuid),
        &d, host);
    diag.evidence["mig.uuid"] = p.mig_uuid;
    diag.evidence["probe.outcome"] = std::string(to_string(p.outcome));
    diag.evidence["cuda.devices"] = std::to_string(p.cuda_devices);
    if (!p.cuda_error.empty())
      diag.evidence["cuda.error"] = p.cuda_error;
    if (!p.uuid_seen.empty())
      diag.evidence["cuda.uuid"] = p.uuid_seen;
    if (!p.detail.empty())
      diag.evidence["probe.detail"] = p.detail;
    diag.evidence["probe.seconds"] = fmt::format("{:.3f}", p.seconds);
    out.push_back(std::move(diag));
  }
}

void rule_mig_layout(const device_info& d, const std::vector<mig_layout_rule>& layouts,
                     const host_info& host, std::vector<diagnosis>& out) {
  const mig_layout_rule* declared = declared_layout(layouts, d);
  if (declared == nullptr || d.mig_mode.empty())
    return; // nothing declared, or NVML did not say the mode: nothing to hold it to
  const bool mig_on = d.mig_mode == "enabled";
  std::vector<std::string> found;
  for (const auto& m : d.mig_instances)
    found.push_back(m.profile.empty() ? "(no profile)" : m.profile);
  const std::string found_text =
      mig_on ? fmt::format("MIG on, {}", layout_text(found, false)) : "MIG " + d.mig_mode;
  std::sort(found.begin(), found.end());
  std::string differs;
  if (declared->whole && mig_on)
    differs = "MIG is on where the site declares the GPU whole";
  else if (!declared->whole && !mig_on)
    differs = fmt::format("MIG is {} where the site declares it on", d.mig_mode);
  const auto missing = declared->whole || !mig_on ? std::vector<std::string>{}
                                                  : missing_from(declared->profiles, found);
  const auto extra = declared->whole || !mig_on ? std::vector<std::string>{}
                                                : missing_from(found, declared->profiles);
  if (differs.empty() && missing.empty() && extra.empty())
    return;
  if (differs.empty())
    differs = fmt::format("the MIG devices differ from the site's declaration{}{}",
                          missing.empty() ? "" : "; missing " + layout_text(missing, false),
                          extra.empty() ? "" : "; not declared " + layout_text(extra, false));
  const std::string declared_text =
      declared->whole ? layout_text({}, true) : "MIG on, " + layout_text(declared->profiles, false);
  auto diag =
      make_diagnosis("GPUSPEC-MIG-LAYOUT-DIFFERS", verdict_status::fail,
                     fmt::format("{}: found {}, declared {} (the rules file's mig_layout[{}])",
                                 differs, found_text, declared_text, declared->entry),
                     &d, host);
  diag.evidence["mig_layout.declared"] = declared_text;
  diag.evidence["mig_layout.found"] = found_text;
  diag.evidence["mig_layout.entry"] = fmt::format("mig_layout[{}]", declared->entry);
  if (!missing.empty())
    diag.evidence["mig_layout.missing"] = layout_text(missing, false);
  if (!extra.empty())
    diag.evidence["mig_layout.not_declared"] = layout_text(extra, false);
  out.push_back(std::move(diag));
}

void add_mig_notes(const health_input& in, health_outcome& out) {
  const auto& devices = in.inventory.devices;
  const bool partitioned = std::any_of(devices.begin(), devices.end(), [](const device_info& d) {
    return !d.mig_instances.empty();
  });
  const auto& probe = in.mig_probe;
  if (partitioned && !probe.run)
    out.check.notes.push_back(fmt::format(
        "the MIG devices were not probed with the CUDA runtime ({}): a MIG device NVML lists "
        "that CUDA cannot open would not be seen",
        probe.why.empty() ? "no reason given" : probe.why));
  const auto cannot = std::find_if(probe.probes.begin(), probe.probes.end(), runtime_cannot_judge);
  if (probe.run && cannot != probe.probes.end())
    out.check.notes.push_back(fmt::format(
        "the CUDA probe of the MIG devices cannot judge them: {} ({}); CUDA's view of them is "
        "not checked",
        cannot->cuda_error, probe.program));
  for (const auto& rule : in.mig_layouts)
    for (const int g : rule.gpus)
      if (std::none_of(devices.begin(), devices.end(),
                       [&](const device_info& d) { return d.index == g; }))
        out.check.notes.push_back(
            fmt::format("the rules file's mig_layout[{}] declares GPU {}, which NVML does not list",
                        rule.entry, g));
}

} // namespace detail

} // namespace gpuspec::reports::health
