#include "gpuspec/reports/model/identity.hpp"

#include <algorithm>
#include <set>
#include <utility>

namespace gpuspec::reports::inline model {
namespace {

/// True when every device of `r` has a non-empty, unique value of `key`.
bool usable(const report& r, device_key key) {
  std::set<std::string> seen;
  for (const auto& d : r.devices) {
    const std::string v = key == device_key::serial ? d.serial : d.uuid;
    if (v.empty() || !seen.insert(v).second)
      return false;
  }
  return true;
}

} // namespace

std::string case_key(const result& r) {
  std::vector<std::pair<std::string, std::string>> axes;
  if (r.axes.is_object())
    for (auto it = r.axes.begin(); it != r.axes.end(); ++it)
      axes.emplace_back(it.key(),
                        it.value().is_string() ? it.value().get<std::string>() : it.value().dump());
  std::sort(axes.begin(), axes.end());
  std::string key = r.bench_id;
  for (const auto& [name, value] : axes) {
    key += '\x1f';
    key += name;
    key += '=';
    key += value;
  }
  return key;
}

std::string mig_key(const result& r) { return r.mig ? '\x1d' + mig_label(*r.mig) : std::string(); }

std::string_view to_string(device_key k) {
  switch (k) {
  case device_key::serial:
    return "serial";
  case device_key::uuid:
    return "uuid";
  case device_key::index:
    break;
  }
  return "index";
}

device_key common_device_key(const report& a, const report& b) {
  if (usable(a, device_key::serial) && usable(b, device_key::serial))
    return device_key::serial;
  if (usable(a, device_key::uuid) && usable(b, device_key::uuid))
    return device_key::uuid;
  return device_key::index;
}

std::string identity_of(const device_info& d, device_key key) {
  switch (key) {
  case device_key::serial:
    return "serial " + d.serial;
  case device_key::uuid:
    return "uuid " + d.uuid;
  case device_key::index:
    break;
  }
  return "index " + std::to_string(d.index);
}

std::string devices_identity(const report& r, const std::vector<int>& indices, device_key key) {
  std::string out;
  for (const int index : indices) {
    if (!out.empty())
      out += ',';
    const auto it = std::find_if(r.devices.begin(), r.devices.end(),
                                 [&](const device_info& d) { return d.index == index; });
    out += it != r.devices.end() ? identity_of(*it, key) : "index " + std::to_string(index);
  }
  return out;
}

const device_info* device_of(const report& r, int index) {
  for (const auto& d : r.devices)
    if (d.index == index)
      return &d;
  return nullptr;
}

} // namespace gpuspec::reports::model
