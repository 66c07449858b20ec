// What a run measures on a node with partitioned GPUs (mig_units.hpp).

#include "gpuspec/spine/mig_units.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpuspec/spine/session.hpp"

namespace gpuspec::spine {
namespace {

const reports::device_info* gpu_at(const std::vector<reports::device_info>& devices, int index) {
  const auto it = std::find_if(devices.begin(), devices.end(),
                               [&](const reports::device_info& d) { return d.index == index; });
  return it == devices.end() ? nullptr : &*it;
}

/// "0-6", "0, 2, 5": the MIG device numbers a GPU has, for an error.
std::string mig_indices_text(const reports::device_info& d) {
  std::vector<int> indices;
  for (const auto& m : d.mig_instances)
    indices.push_back(m.mig_index);
  return indices.empty() ? "none" : fmt::format("{}", fmt::join(indices, ", "));
}

/// "0:mig3" as (0, 3); nullopt when it is not of that form.
std::optional<mig_choice> parse_index_form(const std::string& item) {
  const auto colon = item.find(":mig");
  if (colon == std::string::npos || colon == 0 || colon + 4 >= item.size() ||
      item.size() > colon + 4 + 4 || colon > 6)
    return std::nullopt;
  const auto digits = [](std::string_view s) {
    return std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  const std::string gpu = item.substr(0, colon), mig = item.substr(colon + 4);
  if (!digits(gpu) || !digits(mig))
    return std::nullopt;
  return mig_choice{std::stoi(gpu), std::stoi(mig)};
}

} // namespace

bool names_a_mig_device(const std::string& item) {
  return item.rfind("MIG-", 0) == 0 || item.find(":mig") != std::string::npos;
}

std::vector<mig_choice> resolve_mig_choices(const std::vector<std::string>& items,
                                            const std::vector<reports::device_info>& devices) {
  std::vector<mig_choice> out;
  for (const auto& item : items) {
    std::optional<mig_choice> found;
    if (item.rfind("MIG-", 0) == 0) {
      for (const auto& d : devices)
        if (const auto* m = reports::find_mig_instance(d.mig_instances, item))
          found = mig_choice{d.index, m->mig_index};
      if (!found)
        throw session_input_error(
            fmt::format("--devices: no GPU of this host has the MIG device {}", item));
    } else {
      const auto parsed = parse_index_form(item);
      if (!parsed)
        throw session_input_error(fmt::format(
            "--devices: '{}' is neither a GPU index, GPU:migN nor a MIG UUID (e.g. 0,1:mig3)",
            item));
      const reports::device_info* d = gpu_at(devices, parsed->device);
      if (d == nullptr)
        throw session_input_error(fmt::format("--devices: there is no GPU {} (this host has {})",
                                              parsed->device, devices.size()));
      const bool known =
          std::any_of(d->mig_instances.begin(), d->mig_instances.end(),
                      [&](const auto& m) { return m.mig_index == parsed->mig_index; });
      if (!known)
        throw session_input_error(fmt::format("--devices: GPU {} has no MIG device {} (it has {})",
                                              parsed->device, parsed->mig_index,
                                              mig_indices_text(*d)));
      found = parsed;
    }
    if (std::find(out.begin(), out.end(), *found) == out.end())
      out.push_back(*found);
  }
  return out;
}

bool is_partitioned(const reports::device_info& d) { return d.mig_mode == "enabled"; }

std::vector<measured_unit> measured_units(const std::vector<int>& measured,
                                          const std::vector<reports::device_info>& devices,
                                          const std::vector<mig_choice>& chosen) {
  std::vector<measured_unit> out;
  for (int index : measured) {
    const reports::device_info* d = gpu_at(devices, index);
    if (d == nullptr || !is_partitioned(*d)) {
      out.push_back({index, std::nullopt});
      continue;
    }
    const bool some_chosen = std::any_of(chosen.begin(), chosen.end(),
                                         [&](const mig_choice& c) { return c.device == index; });
    for (const auto& m : d->mig_instances) {
      const bool wanted = !some_chosen || std::find(chosen.begin(), chosen.end(),
                                                    mig_choice{index, m.mig_index}) != chosen.end();
      if (wanted)
        out.push_back({index, m});
    }
  }
  return out;
}

std::string mig_node_wide_reason(const std::vector<int>& partitioned) {
  return fmt::format("not run on GPU{} {}: MIG is on, and a MIG device has no peer copies, "
                     "NVLink, CUDA IPC or NCCL across instances (docs/mig.md)",
                     partitioned.size() == 1 ? "" : "s", fmt::join(partitioned, ","));
}

} // namespace gpuspec::spine
