// A partitioned GPU's MIG devices in and out of a report (mig.hpp): a device's
// "mig_instances" and a result's "mig", every key in report_fields.cpp's order.

#include <algorithm>

#include <fmt/format.h>

#include "report_read_parts.hpp"
#include "report_write_parts.hpp"

namespace gpuspec::reports::inline model {

std::string mig_label(const mig_ref& m) {
  return fmt::format("MIG {}, GI {} CI {}", m.profile.empty() ? "(no profile)" : m.profile,
                     m.gpu_instance_id, m.compute_instance_id);
}

} // namespace gpuspec::reports::inline model

namespace gpuspec::reports::inline model::report_write {

namespace {
bool has_mig_keys(const device_info& d) {
  return !d.mig_mode_pending.empty() || d.mig_memory_slices || !d.mig_instances.empty();
}
} // namespace

bool holds_version_1_2_keys(const report& r) {
  const auto any_device = [](const std::vector<device_info>& devices) {
    return std::any_of(devices.begin(), devices.end(), has_mig_keys);
  };
  return any_device(r.devices) ||
         std::any_of(r.nodes.begin(), r.nodes.end(),
                     [&](const node_inventory& n) { return any_device(n.devices); }) ||
         std::any_of(r.results.begin(), r.results.end(), [](const result& x) {
           return x.mig.has_value() || x.ceiling_value.mig_fraction.has_value();
         });
}

json mig_instance_json(const mig_instance& m) {
  object_writer j(12);
  j["mig_index"] = m.mig_index;
  j["uuid"] = m.uuid;
  j["profile"] = m.profile;
  j["gpu_instance_id"] = m.gpu_instance_id;
  j["compute_instance_id"] = m.compute_instance_id;
  j["sm_count"] = nullable(m.sm_count);
  j["memory_bytes"] = nullable(m.memory_bytes);
  j["copy_engines"] = nullable(m.copy_engines);
  j["gpu_slices"] = nullable(m.gpu_slices);
  j["compute_slices"] = nullable(m.compute_slices);
  j["memory_slices"] = nullable(m.memory_slices);
  j["problems"] = m.problems;
  return j.take();
}

json mig_ref_json(const mig_ref& m) {
  object_writer j(4);
  j["uuid"] = m.uuid;
  j["profile"] = m.profile;
  j["gpu_instance_id"] = m.gpu_instance_id;
  j["compute_instance_id"] = m.compute_instance_id;
  return j.take();
}

} // namespace gpuspec::reports::inline model::report_write

namespace gpuspec::reports::inline model::report_read {

mig_instance read_mig_instance(element e, const path_ref& path) {
  const auto o = reader(e, path, "mig_instance", 2);
  mig_instance m;
  m.mig_index = o.integer<int>("mig_index");
  m.uuid = o.string("uuid");
  m.profile = o.string("profile");
  m.gpu_instance_id = o.integer<int>("gpu_instance_id");
  m.compute_instance_id = o.integer<int>("compute_instance_id");
  m.sm_count = o.nullable_integer<int>("sm_count");
  m.memory_bytes = o.nullable_integer<std::int64_t>("memory_bytes");
  m.copy_engines = o.nullable_integer<int>("copy_engines");
  m.gpu_slices = o.nullable_integer<int>("gpu_slices");
  m.compute_slices = o.nullable_integer<int>("compute_slices");
  m.memory_slices = o.nullable_integer<int>("memory_slices");
  m.problems = o.strings("problems");
  if (m.mig_index < 0)
    fail(o.path_of("mig_index"), fmt::format("expected 0 or more, got {}", m.mig_index));
  return m;
}

mig_ref read_mig_ref(element e, const path_ref& path) {
  const auto o = reader(e, path, "mig_ref", 2);
  mig_ref m;
  m.uuid = o.string("uuid");
  m.profile = o.string("profile");
  m.gpu_instance_id = o.integer<int>("gpu_instance_id");
  m.compute_instance_id = o.integer<int>("compute_instance_id");
  if (m.uuid.empty())
    fail(o.path_of("uuid"), "empty: a result's MIG device is named by its UUID");
  return m;
}

} // namespace gpuspec::reports::inline model::report_read
