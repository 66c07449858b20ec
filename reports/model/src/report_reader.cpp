// Reading a report (report_json.hpp): strict, with field paths. The keys of each object are
// report_fields.cpp's; json_reader.hpp is the one object reader; bad input never throws.

#include "report_read_parts.hpp"

namespace gpuspec::reports::inline model::report_read {

object_reader reader(element e, const path_ref& path, std::string_view object, int minor) {
  return object_reader(e, path.str(), report_keys_of(object, minor));
}

reading read_reading(element e, const path_ref& path) {
  constexpr std::string_view expected =
      R"(expected an integer, "not supported" or "unavailable: <why>")";
  if (e.is_number()) {
    return reading::of(read_integer<std::int64_t>(e, path));
  }
  if (!e.is_string()) {
    fail(path.str(), fmt::format("{}, got {}", expected, describe(e)));
  }
  std::string status(e.get_string().value_unsafe());
  if (!detail::is_reading_status(status)) {
    fail(path.str(),
         fmt::format("{}, got {} (an unsupported counter is never 0, and never free text)",
                     expected, quote(status)));
  }
  return {std::nullopt, std::move(status)};
}

counter_set read_counters(element e, const path_ref& path) {
  counter_set counters;
  detail::for_each_member(e, path, "an object of counters",
                          [&](std::string_view name, element value, const path_ref& at) {
                            counters.emplace(std::string(name), read_reading(value, at));
                          });
  return counters;
}

build_info read_build(element e, const path_ref& path) {
  const auto o = reader(e, path, "build_info", 1);
  build_info b;
  b.version = o.string("version");
  b.commit = o.string("commit");
  b.build_date = o.string("build_date");
  const auto against = reader(o.at("built_against"), o.field("built_against"), "built_against", 1);
  b.built_against.cuda = against.string("cuda");
  b.built_against.cublas = against.string("cublas");
  b.built_against.nccl = against.string("nccl");
  b.built_against.nvml = against.string("nvml");
  return b;
}

run_source read_source(element e, const path_ref& path) {
  const auto o = reader(e, path, "run_source", 1);
  run_source s;
  s.tool = o.string("tool");
  s.version = o.string("version");
  s.file = o.string("file");
  s.sha256 = o.string("sha256");
  s.notes = o.strings("notes");
  s.truncated = o.boolean("truncated");
  return s;
}

run_info read_run(element e, const path_ref& path, int minor) {
  const auto o = reader(e, path, "run_info", minor);
  run_info run;
  run.tool_version = o.string("tool_version");
  run.started_utc = o.string("started_utc");
  run.finished_utc = o.string("finished_utc");
  run.suite = o.string("suite");
  run.filter = o.string("filter");
  run.command_line = o.strings("command_line");
  if (minor >= 1) {
    run.backend = read_one_of(o.at("backend"), o.field("backend"), detail::backends);
    run.devices = read_array(o.at("devices"), o.field("devices"), read_integer<int>);
    run.concurrency = o.nullable_integer<int>("concurrency");
    if (run.concurrency && *run.concurrency < 1) {
      fail(o.path_of("concurrency"), fmt::format("expected 1 or more, got {}", *run.concurrency));
    }
    if (const auto build = o.find("build")) {
      run.build = read_build(*build, o.field("build"));
    }
    if (const auto source = o.find("source")) {
      run.source = read_source(*source, o.field("source"));
    }
  }
  return run;
}

host_check read_check(element e, const path_ref& path) {
  const auto o = reader(e, path, "host_check", 0);
  host_check check;
  check.id = o.string("id");
  check.status = read_enum(o.at("status"), o.field("status"), detail::check_status_names);
  check.message = o.string("message");
  check.device = o.nullable_integer<int>("device");
  return check;
}

nvlink_port read_nvlink_port(element e, const path_ref& path) {
  const auto o = reader(e, path, "nvlink_port", 0);
  nvlink_port l;
  l.link = o.integer<int>("link");
  l.active = o.boolean("active");
  l.remote_type =
      read_one_of(o.at("remote_type"), o.field("remote_type"), detail::nvlink_remote_types);
  l.remote_pci_bus_id = o.string("remote_pci_bus_id");
  return l;
}

gpu_topology read_gpu_topology(element e, const path_ref& path) {
  const auto o = reader(e, path, "gpu_topology", 0);
  gpu_topology g;
  g.device = o.integer<int>("device");
  g.numa_node = o.nullable_integer<int>("numa_node");
  g.cpu_list = o.string("cpu_list");
  g.nvlink_version = o.string("nvlink_version");
  g.nvlink_link_gbs = o.nullable_number("nvlink_link_gbs");
  g.nvlink_link_source = o.string("nvlink_link_source");
  g.nvlinks = read_array(o.at("nvlinks"), o.field("nvlinks"), read_nvlink_port);
  return g;
}

gpu_pair read_gpu_pair(element e, const path_ref& path) {
  const auto o = reader(e, path, "gpu_pair", 0);
  gpu_pair p;
  p.src = o.integer<int>("src");
  p.dst = o.integer<int>("dst");
  p.pcie_path = read_one_of(o.at("pcie_path"), o.field("pcie_path"), detail::pcie_paths);
  p.nvlink_links = static_cast<int>(o.count("nvlink_links"));
  p.transport = read_one_of(o.at("transport"), o.field("transport"), detail::transports);
  p.p2p_read = o.string("p2p_read");
  p.p2p_write = o.string("p2p_write");
  p.p2p_nvlink = o.string("p2p_nvlink");
  return p;
}

topology_info read_topology(element e, const path_ref& path) {
  const auto o = reader(e, path, "topology_info", 0);
  topology_info t;
  t.gpus = read_array(o.at("gpus"), o.field("gpus"), read_gpu_topology);
  t.pairs = read_array(o.at("pairs"), o.field("pairs"), read_gpu_pair);
  t.problems = o.strings("problems");
  return t;
}

network_port read_network_port(element e, const path_ref& path) {
  const auto o = reader(e, path, "network_port", 1);
  network_port p;
  p.device = o.string("device");
  p.port = o.integer<int>("port");
  p.state = o.string("state");
  p.rate = o.string("rate");
  p.rate_gbps = o.nullable_number("rate_gbps");
  if (p.rate_gbps && *p.rate_gbps < 0) {
    fail(o.path_of("rate_gbps"), fmt::format("a rate cannot be negative, got {}", *p.rate_gbps));
  }
  p.link_layer = o.string("link_layer");
  return p;
}

host_info read_host(element e, const path_ref& path, int minor) {
  const auto o = reader(e, path, "host_info", minor);
  host_info host;
  host.hostname = o.string("hostname");
  host.os = o.string("os");
  host.kernel = o.string("kernel");
  host.cpu_model = o.string("cpu_model");
  host.cpu_logical_cores = o.nullable_integer<int>("cpu_logical_cores");
  host.cpu_sockets = o.nullable_integer<int>("cpu_sockets");
  host.memory_bytes = o.nullable_integer<std::int64_t>("memory_bytes");
  host.numa_nodes = o.nullable_integer<int>("numa_nodes");
  host.nouveau_loaded = o.nullable_boolean("nouveau_loaded");
  host.driver_version = o.string("driver_version");
  host.cuda_driver_version = o.string("cuda_driver_version");
  host.cuda_runtime_version = o.string("cuda_runtime_version");
  host.cublas_version = o.string("cublas_version");
  host.nccl_version = o.string("nccl_version");
  host.gpu_status = o.string("gpu_status");
  host.checks = read_array(o.at("checks"), o.field("checks"), read_check);
  // May be absent (report_fields.hpp: optional), never null.
  if (minor >= 1) {
    if (const auto topology = o.find("topology")) {
      host.topology = read_topology(*topology, o.field("topology"));
    }
    if (const auto ports = o.find("network_ports")) {
      host.network_ports = read_array(*ports, o.field("network_ports"), read_network_port);
    }
  }
  return host;
}

gpu_process read_process(element e, const path_ref& path) {
  const auto o = reader(e, path, "gpu_process", 1);
  gpu_process p;
  p.pid = o.integer<std::int64_t>("pid");
  p.name = o.string("name");
  p.used_memory_bytes = o.nullable_integer<std::int64_t>("used_memory_bytes");
  p.kind = o.string("kind");
  if (p.kind != "compute" && p.kind != "graphics") {
    fail(o.path_of("kind"),
         fmt::format("expected \"compute\" or \"graphics\", got {}", quote(p.kind)));
  }
  return p;
}

gpu_activity read_activity(element e, const path_ref& path) {
  const auto o = reader(e, path, "gpu_activity", 1);
  gpu_activity a;
  a.utilization_pct = o.nullable_integer<int>("utilization_pct");
  a.processes = read_array(o.at("processes"), o.field("processes"), read_process);
  a.status = o.string("status");
  return a;
}

c2c_link read_c2c(element e, const path_ref& path) {
  const auto o = reader(e, path, "c2c_link", 1);
  c2c_link c;
  c.mode = o.string("mode");
  if (!c.mode.empty() && c.mode != "enabled" && c.mode != "disabled" && c.mode != "not supported")
    fail(o.path_of("mode"), fmt::format("expected \"enabled\", \"disabled\", \"not supported\" or "
                                        "\"\", got {}",
                                        quote(c.mode)));
  c.addressing_mode = o.string("addressing_mode");
  if (!c.addressing_mode.empty() && c.addressing_mode != "ats" && c.addressing_mode != "hmm" &&
      c.addressing_mode != "none")
    fail(o.path_of("addressing_mode"),
         fmt::format("expected \"ats\", \"hmm\", \"none\" or \"\", got {}",
                     quote(c.addressing_mode)));
  return c;
}

gpu_fabric read_fabric(element e, const path_ref& path) {
  const auto o = reader(e, path, "gpu_fabric", 1);
  gpu_fabric f;
  f.state = o.string("state");
  if (f.state != "not_started" && f.state != "in_progress" && f.state != "completed") {
    fail(o.path_of("state"),
         fmt::format("expected \"not_started\", \"in_progress\" or \"completed\", got {}",
                     quote(f.state)));
  }
  f.status = o.string("status");
  f.cluster_uuid = o.string("cluster_uuid");
  f.clique_id = o.integer<std::int64_t>("clique_id");
  f.health_mask = o.nullable_integer<std::int64_t>("health_mask");
  f.health_summary = o.string("health_summary");
  if (!f.health_summary.empty() && f.health_summary != "healthy" &&
      f.health_summary != "unhealthy" && f.health_summary != "limited_capacity") {
    fail(o.path_of("health_summary"),
         fmt::format("expected \"\", \"healthy\", \"unhealthy\" or \"limited_capacity\", got {}",
                     quote(f.health_summary)));
  }
  return f;
}

pcie_link read_pcie(element e, const path_ref& path, int minor) {
  const auto o = reader(e, path, "pcie_link", minor);
  pcie_link link;
  link.gen_current = o.nullable_integer<int>("gen_current");
  link.gen_max = o.nullable_integer<int>("gen_max");
  link.width_current = o.nullable_integer<int>("width_current");
  link.width_max = o.nullable_integer<int>("width_max");
  // May be absent (report_fields.hpp: optional), never null.
  if (minor >= 1) {
    if (const auto system = o.find("gen_max_system")) {
      link.gen_max_system = read_integer<int>(*system, o.field("gen_max_system"));
    }
  }
  return link;
}

device_info read_device(element e, const path_ref& path, int minor) {
  const auto o = reader(e, path, "device_info", minor);
  device_info d;
  d.index = o.integer<int>("index");
  d.cuda_index = o.nullable_integer<int>("cuda_index");
  d.name = o.string("name");
  d.uuid = o.string("uuid");
  d.serial = o.string("serial");
  d.vbios = o.string("vbios");
  d.pci_bus_id = o.string("pci_bus_id");
  d.pci_device_id = o.nullable_integer<std::uint32_t>("pci_device_id");
  d.pci_subsystem_id = o.nullable_integer<std::uint32_t>("pci_subsystem_id");
  d.cc_major = o.nullable_integer<int>("cc_major");
  d.cc_minor = o.nullable_integer<int>("cc_minor");
  d.sm_count = o.nullable_integer<int>("sm_count");
  d.memory_bytes = o.nullable_integer<std::int64_t>("memory_bytes");
  d.l2_bytes = o.nullable_integer<std::int64_t>("l2_bytes");
  d.sm_clock_mhz = o.nullable_integer<int>("sm_clock_mhz");
  d.sm_clock_max_mhz = o.nullable_integer<int>("sm_clock_max_mhz");
  d.mem_clock_mhz = o.nullable_integer<int>("mem_clock_mhz");
  d.mem_clock_max_mhz = o.nullable_integer<int>("mem_clock_max_mhz");
  d.memory_bus_width_bits = o.nullable_integer<int>("memory_bus_width_bits");
  d.pcie = read_pcie(o.at("pcie"), o.field("pcie"), minor);
  d.power_limit_w = o.nullable_number("power_limit_w");
  d.power_limit_default_w = o.nullable_number("power_limit_default_w");
  d.power_limit_max_w = o.nullable_number("power_limit_max_w");
  d.temperature_c = o.nullable_integer<int>("temperature_c");
  if (minor >= 1) {
    d.temperature_slowdown_c = o.nullable_integer<int>("temperature_slowdown_c");
  }
  d.ecc_mode = o.string("ecc_mode");
  d.ecc_mode_pending = o.string("ecc_mode_pending");
  d.mig_mode = o.string("mig_mode");
  d.persistence_mode = o.string("persistence_mode");
  d.spec_id = o.string("spec_id");
  d.counters_before = read_counters(o.at("counters_before"), o.field("counters_before"));
  d.counters_after = read_counters(o.at("counters_after"), o.field("counters_after"));
  d.counters_delta = read_counters(o.at("counters_delta"), o.field("counters_delta"));
  d.problems = o.strings("problems");
  // May be absent (report_fields.hpp: optional), never null.
  if (minor >= 1) {
    if (const auto activity = o.find("activity")) {
      d.activity = read_activity(*activity, o.field("activity"));
    }
    if (const auto c2c = o.find("c2c")) {
      d.c2c = read_c2c(*c2c, o.field("c2c"));
    }
    if (const auto fabric = o.find("fabric")) {
      d.fabric = read_fabric(*fabric, o.field("fabric"));
    }
  }
  if (minor >= 2) {
    if (o.find("mig_mode_pending"))
      d.mig_mode_pending = o.string("mig_mode_pending");
    if (const auto slices = o.find("mig_memory_slices"))
      d.mig_memory_slices = read_integer<int>(*slices, o.field("mig_memory_slices"));
    if (const auto instances = o.find("mig_instances")) {
      d.mig_instances = read_array(*instances, o.field("mig_instances"), read_mig_instance);
      if (d.mig_instances.empty())
        fail(o.field("mig_instances").str(), "an empty list is written as no key at all");
    }
  }
  return d;
}

report read_report(element e) {
  if (!e.is_object()) {
    fail("", fmt::format("expected a gpuspec report (a JSON object), got {}", describe(e)));
  }
  // The version first: a report of another version is named as such, not as a list of
  // unknown fields.
  element version;
  if (detail::object_of(e).at_key("schema").get(version)) {
    fail("schema",
         fmt::format("missing; expected {}", detail::quoted_list(readable_report_versions)));
  }
  const int minor =
      version.is_string() ? report_minor_version(version.get_string().value_unsafe()) : -1;
  if (minor < 0) {
    fail("schema", fmt::format("expected {}, got {}", detail::quoted_list(readable_report_versions),
                               version.is_string() ? quote(version.get_string().value_unsafe())
                                                   : describe(version)));
  }
  const auto o = reader(e, "", "report", minor);
  report r;
  r.schema = o.string("schema");
  r.run = read_run(o.at("run"), o.field("run"), minor);
  r.host = read_host(o.at("host"), o.field("host"), minor);
  r.devices =
      read_array(o.at("devices"), o.field("devices"), [minor](element item, const path_ref& at) {
        return read_device(item, at, minor);
      });
  r.results =
      read_array(o.at("results"), o.field("results"), [minor](element item, const path_ref& at) {
        return read_result(item, at, minor);
      });
  r.complete = o.boolean("complete");
  r.incomplete_reason = o.string("incomplete_reason");
  // May be absent (report_fields.hpp: optional), never null or empty.
  if (minor >= 1) {
    if (const auto nodes = o.find("nodes")) {
      r.nodes = read_array(*nodes, o.field("nodes"), [minor](element item, const path_ref& at) {
        const auto n = reader(item, at, "node_inventory", minor);
        node_inventory node;
        node.host = read_host(n.at("host"), n.field("host"), minor);
        node.devices = read_array(
            n.at("devices"), n.field("devices"),
            [minor](element d, const path_ref& where) { return read_device(d, where, minor); });
        node.run_devices = read_array(
            n.at("run_devices"), n.field("run_devices"),
            [](element x, const path_ref& where) { return read_integer<int>(x, where); });
        return node;
      });
      if (r.nodes.empty())
        fail(o.field("nodes").str(), "an empty list is written as no key at all");
    }
  }
  return r;
}

} // namespace gpuspec::reports::model::report_read

namespace gpuspec::reports::inline model {

using namespace report_read;

outcome<result> result_from_json(const nlohmann::ordered_json& j, std::string_view file,
                                 std::string_view field) {
  auto document = detail::parse_json_value(j, file, "result");
  if (!document) {
    auto error = document.error();
    // The path of a NaN is relative to the result: "samples[2]".
    if (error.field.empty() || field.empty())
      error.field = error.field.empty() ? std::string(field) : error.field;
    else
      error.field = std::string(field) + (error.field.front() == '[' ? "" : ".") + error.field;
    return error;
  }
  const element root = document.value().root();
  return detail::read_guarded(file, field, [&]() {
    return read_result(root, std::string(field), report_minor_version(report_schema_version_mig));
  });
}

outcome<report> report_from_json(const nlohmann::ordered_json& j, std::string_view file) {
  return detail::read_json_value(j, file, "report", read_report);
}

outcome<report> parse_report(std::string_view text, std::string_view file) {
  return detail::read_json_text(text, file, "report", read_report);
}

outcome<report> load_report(const std::filesystem::path& file) {
  auto text = detail::read_input_file(file, "report");
  if (!text) {
    return text.error();
  }
  return parse_report(text.value(), file.string());
}

} // namespace gpuspec::reports::model