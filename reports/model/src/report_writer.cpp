// Writing a report (report_json.hpp): every key, in the order of report_fields.cpp's lists; an
// absent optional is null; a `reading` is its integer or its status string. What would not
// load again is never written: to_json throws std::invalid_argument naming the field.

#include "report_write_parts.hpp"

namespace gpuspec::reports::inline model::report_write {

json reading_json(const reading& r, const field_path& path) {
  if (r.value) {
    if (!r.status.empty()) {
      unwritable(path, fmt::format("has both a value and the status {}", quote(r.status)));
    }
    return *r.value;
  }
  if (!detail::is_reading_status(r.status)) {
    unwritable(path, fmt::format("no value, and the status {} is not \"not supported\" or "
                                 "\"unavailable: <why>\"",
                                 quote(r.status)));
  }
  return r.status;
}

json counters_json(const counter_set& counters, const field_path& path) {
  object_writer j(counters.size());
  for (const auto& [name, value] : counters) {
    j[name] = reading_json(value, field_path(path, name));
  }
  return j.take();
}

json run_json(const run_info& run) {
  require_one_of(run.backend, detail::backends, "run.backend");
  object_writer j(11);
  j["tool_version"] = run.tool_version;
  j["started_utc"] = run.started_utc;
  j["finished_utc"] = run.finished_utc;
  j["suite"] = run.suite;
  j["filter"] = run.filter;
  j["command_line"] = run.command_line;
  j["backend"] = run.backend;
  j["devices"] = run.devices;
  j["concurrency"] = nullable(run.concurrency);
  if (run.build) {
    const build_info& b = *run.build;
    object_writer against(4);
    against["cuda"] = b.built_against.cuda;
    against["cublas"] = b.built_against.cublas;
    against["nccl"] = b.built_against.nccl;
    against["nvml"] = b.built_against.nvml;
    object_writer build(4);
    build["version"] = b.version;
    build["commit"] = b.commit;
    build["build_date"] = b.build_date;
    build["built_against"] = against.take();
    j["build"] = build.take();
  }
  if (run.source) {
    const run_source& src = *run.source;
    object_writer source(6);
    source["tool"] = src.tool;
    source["version"] = src.version;
    source["file"] = src.file;
    source["sha256"] = src.sha256;
    source["notes"] = src.notes;
    source["truncated"] = src.truncated;
    j["source"] = source.take();
  }
  return j.take();
}

json check_json(const host_check& check) {
  object_writer j(4);
  j["id"] = check.id;
  j["status"] = to_string(check.status);
  j["message"] = check.message;
  j["device"] = nullable(check.device);
  return j.take();
}

json topology_json(const topology_info& t, const field_path& path) {
  const field_path gpus_at(path, "gpus");
  json gpus = json::array();
  for (std::size_t i = 0; i < t.gpus.size(); ++i) {
    const gpu_topology& g = t.gpus[i];
    const field_path at(gpus_at, i);
    json links = json::array();
    const field_path links_at(at, "nvlinks");
    for (std::size_t k = 0; k < g.nvlinks.size(); ++k) {
      const nvlink_port& l = g.nvlinks[k];
      const field_path link_at(links_at, k);
      require_one_of(l.remote_type, detail::nvlink_remote_types,
                     field_path(link_at, "remote_type"));
      object_writer lj(4);
      lj["link"] = l.link;
      lj["active"] = l.active;
      lj["remote_type"] = l.remote_type;
      lj["remote_pci_bus_id"] = l.remote_pci_bus_id;
      links.push_back(lj.take());
    }
    object_writer gj(7);
    gj["device"] = g.device;
    gj["numa_node"] = nullable(g.numa_node);
    gj["cpu_list"] = g.cpu_list;
    gj["nvlink_version"] = g.nvlink_version;
    gj["nvlink_link_gbs"] = number(g.nvlink_link_gbs, field_path(at, "nvlink_link_gbs"));
    gj["nvlink_link_source"] = g.nvlink_link_source;
    gj["nvlinks"] = std::move(links);
    gpus.push_back(gj.take());
  }
  const field_path pairs_at(path, "pairs");
  json pairs = json::array();
  for (std::size_t i = 0; i < t.pairs.size(); ++i) {
    const gpu_pair& p = t.pairs[i];
    const field_path at(pairs_at, i);
    require_one_of(p.pcie_path, detail::pcie_paths, field_path(at, "pcie_path"));
    require_one_of(p.transport, detail::transports, field_path(at, "transport"));
    object_writer pj(8);
    pj["src"] = p.src;
    pj["dst"] = p.dst;
    pj["pcie_path"] = p.pcie_path;
    pj["nvlink_links"] = p.nvlink_links;
    pj["transport"] = p.transport;
    pj["p2p_read"] = p.p2p_read;
    pj["p2p_write"] = p.p2p_write;
    pj["p2p_nvlink"] = p.p2p_nvlink;
    pairs.push_back(pj.take());
  }
  object_writer j(3);
  j["gpus"] = std::move(gpus);
  j["pairs"] = std::move(pairs);
  j["problems"] = t.problems;
  return j.take();
}

json host_json(const host_info& host) {
  object_writer j(18);
  j["hostname"] = host.hostname;
  j["os"] = host.os;
  j["kernel"] = host.kernel;
  j["cpu_model"] = host.cpu_model;
  j["cpu_logical_cores"] = nullable(host.cpu_logical_cores);
  j["cpu_sockets"] = nullable(host.cpu_sockets);
  j["memory_bytes"] = nullable(host.memory_bytes);
  j["numa_nodes"] = nullable(host.numa_nodes);
  j["nouveau_loaded"] = nullable(host.nouveau_loaded);
  j["driver_version"] = host.driver_version;
  j["cuda_driver_version"] = host.cuda_driver_version;
  j["cuda_runtime_version"] = host.cuda_runtime_version;
  j["cublas_version"] = host.cublas_version;
  j["nccl_version"] = host.nccl_version;
  j["gpu_status"] = host.gpu_status;
  json checks = json::array();
  for (const host_check& check : host.checks) {
    checks.push_back(check_json(check));
  }
  j["checks"] = std::move(checks);
  if (host.topology) {
    j["topology"] = topology_json(*host.topology, "host.topology");
  }
  if (host.network_ports) {
    const field_path ports_at("host.network_ports");
    json ports = json::array();
    for (std::size_t i = 0; i < host.network_ports->size(); ++i) {
      const network_port& p = (*host.network_ports)[i];
      const field_path at(ports_at, i);
      object_writer pj(6);
      pj["device"] = p.device;
      pj["port"] = p.port;
      pj["state"] = p.state;
      pj["rate"] = p.rate;
      pj["rate_gbps"] = number(p.rate_gbps, field_path(at, "rate_gbps"));
      pj["link_layer"] = p.link_layer;
      ports.push_back(pj.take());
    }
    j["network_ports"] = std::move(ports);
  }
  return j.take();
}

json pcie_json(const pcie_link& link) {
  object_writer j(5);
  j["gen_current"] = nullable(link.gen_current);
  j["gen_max"] = nullable(link.gen_max);
  j["width_current"] = nullable(link.width_current);
  j["width_max"] = nullable(link.width_max);
  // Optional (report_fields.hpp): written only when NVML gave it.
  if (link.gen_max_system)
    j["gen_max_system"] = *link.gen_max_system;
  return j.take();
}

json device_json(const device_info& d, const field_path& path) {
  const auto at = [&](std::string_view key) { return field_path(path, key); };
  object_writer j(40);
  j["index"] = d.index;
  j["cuda_index"] = nullable(d.cuda_index);
  j["name"] = d.name;
  j["uuid"] = d.uuid;
  j["serial"] = d.serial;
  j["vbios"] = d.vbios;
  j["pci_bus_id"] = d.pci_bus_id;
  j["pci_device_id"] = nullable(d.pci_device_id);
  j["pci_subsystem_id"] = nullable(d.pci_subsystem_id);
  j["cc_major"] = nullable(d.cc_major);
  j["cc_minor"] = nullable(d.cc_minor);
  j["sm_count"] = nullable(d.sm_count);
  j["memory_bytes"] = nullable(d.memory_bytes);
  j["l2_bytes"] = nullable(d.l2_bytes);
  j["sm_clock_mhz"] = nullable(d.sm_clock_mhz);
  j["sm_clock_max_mhz"] = nullable(d.sm_clock_max_mhz);
  j["mem_clock_mhz"] = nullable(d.mem_clock_mhz);
  j["mem_clock_max_mhz"] = nullable(d.mem_clock_max_mhz);
  j["memory_bus_width_bits"] = nullable(d.memory_bus_width_bits);
  j["pcie"] = pcie_json(d.pcie);
  j["power_limit_w"] = number(d.power_limit_w, at("power_limit_w"));
  j["power_limit_default_w"] = number(d.power_limit_default_w, at("power_limit_default_w"));
  j["power_limit_max_w"] = number(d.power_limit_max_w, at("power_limit_max_w"));
  j["temperature_c"] = nullable(d.temperature_c);
  j["temperature_slowdown_c"] = nullable(d.temperature_slowdown_c);
  j["ecc_mode"] = d.ecc_mode;
  j["ecc_mode_pending"] = d.ecc_mode_pending;
  j["mig_mode"] = d.mig_mode;
  j["persistence_mode"] = d.persistence_mode;
  j["spec_id"] = d.spec_id;
  j["counters_before"] = counters_json(d.counters_before, at("counters_before"));
  j["counters_after"] = counters_json(d.counters_after, at("counters_after"));
  j["counters_delta"] = counters_json(d.counters_delta, at("counters_delta"));
  j["problems"] = d.problems;
  if (d.activity) {
    object_writer activity(3);
    activity["utilization_pct"] = nullable(d.activity->utilization_pct);
    json processes = json::array();
    for (const gpu_process& p : d.activity->processes) {
      object_writer one(4);
      one["pid"] = p.pid;
      one["name"] = p.name;
      one["used_memory_bytes"] = nullable(p.used_memory_bytes);
      one["kind"] = p.kind;
      processes.push_back(one.take());
    }
    activity["processes"] = std::move(processes);
    activity["status"] = d.activity->status;
    j["activity"] = activity.take();
  }
  if (d.c2c) {
    object_writer c2c(2);
    c2c["mode"] = d.c2c->mode;
    c2c["addressing_mode"] = d.c2c->addressing_mode;
    j["c2c"] = c2c.take();
  }
  if (d.fabric) {
    object_writer fabric(6);
    fabric["state"] = d.fabric->state;
    fabric["status"] = d.fabric->status;
    fabric["cluster_uuid"] = d.fabric->cluster_uuid;
    fabric["clique_id"] = d.fabric->clique_id;
    fabric["health_mask"] = nullable(d.fabric->health_mask);
    fabric["health_summary"] = d.fabric->health_summary;
    j["fabric"] = fabric.take();
  }
  // Optional (v1.2): written for a GPU whose MIG mode is on, or about to change.
  if (!d.mig_mode_pending.empty())
    j["mig_mode_pending"] = d.mig_mode_pending;
  if (d.mig_memory_slices)
    j["mig_memory_slices"] = *d.mig_memory_slices;
  if (!d.mig_instances.empty()) {
    json instances = json::array();
    for (const mig_instance& m : d.mig_instances)
      instances.push_back(mig_instance_json(m));
    j["mig_instances"] = std::move(instances);
  }
  return j.take();
}

} // namespace gpuspec::reports::model::report_write

namespace gpuspec::reports::inline model {

using namespace report_write;

int report_minor_version(std::string_view schema) {
  for (std::size_t i = 0; i < readable_report_versions.size(); ++i) {
    if (schema == readable_report_versions[i]) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

nlohmann::ordered_json parameters_of(const result& r) {
  json j = r.axes.is_object() ? r.axes : json::object();
  if (r.observations.is_object()) {
    for (auto it = r.observations.begin(); it != r.observations.end(); ++it) {
      j[it.key()] = it.value();
    }
  }
  return j;
}

nlohmann::ordered_json result_to_json(const result& r) {
  return report_write::result_json(r, "result");
}

nlohmann::ordered_json to_json(const report& r) {
  if (report_minor_version(r.schema) < 0) {
    unwritable("schema", fmt::format("{} is not one of {}", quote(r.schema),
                                     detail::quoted_list(readable_report_versions)));
  }
  object_writer j(8);
  // A report read from an older version is written as the current one: its added fields
  // hold their defaults (or what was derived), which is what the older version meant.
  j["schema"] = holds_version_1_2_keys(r) ? report_schema_version_mig : report_schema_version;
  j["run"] = run_json(r.run);
  j["host"] = host_json(r.host);
  const field_path devices_at("devices");
  json devices = json::array();
  for (std::size_t i = 0; i < r.devices.size(); ++i) {
    devices.push_back(device_json(r.devices[i], field_path(devices_at, i)));
  }
  j["devices"] = std::move(devices);
  const field_path results_at("results");
  json results = json::array();
  for (std::size_t i = 0; i < r.results.size(); ++i) {
    results.push_back(result_json(r.results[i], field_path(results_at, i)));
  }
  j["results"] = std::move(results);
  j["complete"] = r.complete;
  j["incomplete_reason"] = r.incomplete_reason;
  if (!r.nodes.empty()) {
    const field_path nodes_at("nodes");
    json nodes = json::array();
    for (std::size_t n = 0; n < r.nodes.size(); ++n) {
      const node_inventory& node = r.nodes[n];
      const field_path at(nodes_at, n);
      const field_path node_devices_at(at, "devices");
      object_writer nj(3);
      nj["host"] = host_json(node.host);
      json node_devices = json::array();
      for (std::size_t i = 0; i < node.devices.size(); ++i) {
        node_devices.push_back(device_json(node.devices[i], field_path(node_devices_at, i)));
      }
      nj["devices"] = std::move(node_devices);
      nj["run_devices"] = node.run_devices;
      nodes.push_back(nj.take());
    }
    j["nodes"] = std::move(nodes);
  }
  return j.take();
}

std::string to_json_text(const report& r) {
  return to_json(r).dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

void save_report(const std::filesystem::path& file, const report& r) {
  write_file_atomically(file, to_json_text(r));
}

} // namespace gpuspec::reports::model