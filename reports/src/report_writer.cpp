// Writing a report (report_json.hpp): every key, in the order of report_fields.cpp's lists; an
// absent optional is null; a `reading` is its integer or its status string. What would not
// load again is never written: to_json throws std::invalid_argument naming the field.

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "gpuspec/reports/reference.hpp"
#include "gpuspec/reports/report_json.hpp"
#include "gpuspec/reports/units.hpp"
#include "report_names.hpp"

namespace gpuspec::reports {
namespace {

using json = nlohmann::ordered_json;
using detail::name_of;
using detail::quote;

/// A field's path (`results[3].stats.median`), made into text only when an error names it:
/// the writer passes one with every value it writes, and formatting each up front cost more
/// than the writing (docs/fleet.md, "Scale"). It points at its parent, so it must not outlive
/// it: a parameter, or a local named before the children made from it.
class field_path {
  enum class kind { root, member, item };

public:
  field_path(const char* root) : m_text(root) {} // NOLINT(google-explicit-constructor)
  field_path(const field_path& parent, std::string_view key)
      : m_parent(&parent), m_text(key), m_kind(kind::member) {}
  field_path(const field_path& parent, std::size_t index)
      : m_parent(&parent), m_index(index), m_kind(kind::item) {}

  [[nodiscard]] std::string str() const {
    switch (m_kind) {
    case kind::member:
      return detail::member_path(m_parent->str(), m_text);
    case kind::item:
      return detail::index_path(m_parent->str(), m_index);
    case kind::root:
      break;
    }
    return std::string(m_text);
  }

private:
  const field_path* m_parent = nullptr;
  std::string_view m_text; ///< the root's path, or a member's key
  std::size_t m_index = 0;
  kind m_kind = kind::root;
};

/// A JSON object written one new key at a time, in order: each key is appended, where
/// ordered_json's operator[] would first compare it with every key before it. The writer's keys
/// are fixed and distinct (a counter set's are a map's), so nothing is ever looked up.
class object_writer {
public:
  explicit object_writer(std::size_t keys) { members().reserve(keys); }
  json& operator[](std::string_view key) {
    return members().emplace_back(std::string(key), nullptr).second;
  }
  [[nodiscard]] json take() { return std::move(m_object); }

private:
  json::object_t& members() { return m_object.get_ref<json::object_t&>(); }
  json m_object = json::object();
};

[[noreturn]] void unwritable(const field_path& path, std::string_view why) {
  throw std::invalid_argument(fmt::format("cannot write report: {}: {}", path.str(), why));
}

/// The first NaN or infinity inside `j`, named by its path.
void require_finite(const json& j, const field_path& path) {
  if (j.is_number_float()) {
    if (!std::isfinite(j.get<double>())) {
      unwritable(path, "NaN or infinity; a report never holds either");
    }
  } else if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      require_finite(it.value(), field_path(path, it.key()));
    }
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i) {
      require_finite(j[i], field_path(path, i));
    }
  }
}

json number(double v, const field_path& path) {
  if (!std::isfinite(v)) {
    unwritable(
        path,
        fmt::format("{} is not finite; a report never holds NaN or infinity (use no value)", v));
  }
  return v;
}

json number(const std::optional<double>& v, const field_path& path) {
  return v ? number(*v, path) : json(nullptr);
}

template <class T> json nullable(const std::optional<T>& v) { return v ? json(*v) : json(nullptr); }

json numbers(const std::vector<double>& values, const field_path& path) {
  json array = json::array();
  auto& items = array.get_ref<json::array_t&>();
  items.reserve(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    items.emplace_back(number(values[i], field_path(path, i)));
  }
  return array;
}

template <std::size_t N>
void require_one_of(const std::string& value, const std::array<std::string_view, N>& allowed,
                    const field_path& path) {
  if (std::find(allowed.begin(), allowed.end(), value) == allowed.end()) {
    unwritable(path,
               fmt::format("{} is not one of {}", quote(value), detail::quoted_list(allowed)));
  }
}

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
  object_writer j(10);
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
  object_writer j(37);
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
  return j.take();
}

json count(std::int64_t n, const field_path& path) {
  if (n < 0) {
    unwritable(path, fmt::format("a count cannot be negative, got {}", n));
  }
  return n;
}

json stats_json(const sample_stats& s, const field_path& path) {
  const auto at = [&](std::string_view key) { return field_path(path, key); };
  object_writer j(9);
  j["n"] = count(s.n, at("n"));
  j["median"] = number(s.median, at("median"));
  j["mean"] = number(s.mean, at("mean"));
  j["min"] = number(s.min, at("min"));
  j["max"] = number(s.max, at("max"));
  j["stddev"] = number(s.stddev, at("stddev"));
  j["cv"] = number(s.cv, at("cv"));
  j["q1"] = number(s.q1, at("q1"));
  j["q3"] = number(s.q3, at("q3"));
  return j.take();
}

json ceiling_json(const ceiling& c, const field_path& path) {
  if (!c.spec_figure.empty() && !is_spec_figure(c.spec_figure)) {
    unwritable(field_path(path, "spec_figure"),
               fmt::format("{} is not a spec-table figure", quote(c.spec_figure)));
  }
  object_writer j(7);
  j["datasheet"] = number(c.datasheet, field_path(path, "datasheet"));
  j["datasheet_source"] = c.datasheet_source;
  j["clock_adjusted"] = number(c.clock_adjusted, field_path(path, "clock_adjusted"));
  j["clock_adjusted_source"] = c.clock_adjusted_source;
  j["reference"] = to_string(c.reference);
  j["spec_figure"] = c.spec_figure;
  j["roofline_bytes"] = number(c.roofline_bytes, field_path(path, "roofline_bytes"));
  return j.take();
}

json verification_json(const verification& v, const field_path& path) {
  object_writer j(4);
  j["status"] = to_string(v.status);
  j["max_rel_error"] = number(v.max_rel_error, field_path(path, "max_rel_error"));
  j["tolerance"] = number(v.tolerance, field_path(path, "tolerance"));
  j["detail"] = v.detail;
  return j.take();
}

json telemetry_json(const telemetry_summary& t, const field_path& path) {
  const auto at = [&](std::string_view key) { return field_path(path, key); };
  object_writer j(18);
  j["samples"] = count(t.samples, at("samples"));
  j["period_ms"] = number(t.period_ms, at("period_ms"));
  j["sm_clock_mhz_min"] = number(t.sm_clock_mhz_min, at("sm_clock_mhz_min"));
  j["sm_clock_mhz_median"] = number(t.sm_clock_mhz_median, at("sm_clock_mhz_median"));
  j["sm_clock_mhz_max"] = number(t.sm_clock_mhz_max, at("sm_clock_mhz_max"));
  j["mem_clock_mhz_min"] = number(t.mem_clock_mhz_min, at("mem_clock_mhz_min"));
  j["mem_clock_mhz_median"] = number(t.mem_clock_mhz_median, at("mem_clock_mhz_median"));
  j["temperature_c_max"] = number(t.temperature_c_max, at("temperature_c_max"));
  j["power_w_mean"] = number(t.power_w_mean, at("power_w_mean"));
  j["power_w_max"] = number(t.power_w_max, at("power_w_max"));
  j["low_clock_fraction"] = number(t.low_clock_fraction, at("low_clock_fraction"));
  j["throttle_reasons"] = t.throttle_reasons;
  j["throttled"] = t.throttled;
  j["status"] = t.status;
  j["window_start_s"] = number(t.window_start_s, at("window_start_s"));
  j["window_end_s"] = number(t.window_end_s, at("window_end_s"));
  j["pcie_gen_min"] = nullable(t.pcie_gen_min);
  j["pcie_width_min"] = nullable(t.pcie_width_min);
  return j.take();
}

// --- an event during a result (gpu_event.hpp) ----------------------------------------------

json gpu_event_json(const gpu_event& g, const field_path& path) {
  if ((g.type == gpu_event_type::xid) != g.xid.has_value()) {
    unwritable(field_path(path, "xid"), "an xid event says its Xid, and only an xid event has one");
  }
  object_writer j(6);
  j["time_s"] = number(g.time_s, field_path(path, "time_s"));
  j["device"] = g.device;
  j["type"] = to_string(g.type);
  j["xid"] = nullable(g.xid);
  j["source"] = g.source;
  j["detail"] = g.detail;
  return j.take();
}

// --- the burn-in record (burnin_record.hpp) -------------------------------------------------

json count_json(std::int64_t v, const field_path& path) {
  if (v < 0) {
    unwritable(path, fmt::format("a count is 0 or more, got {}", v));
  }
  return v;
}

json strings_json(const std::vector<std::string>& values) {
  json array = json::array();
  for (const auto& v : values) {
    array.push_back(v);
  }
  return array;
}

/// A 64-bit word or checksum: "0x" and 16 lower-case hex digits ("" where the field allows none).
json word_json(const std::string& v, const field_path& path, bool may_be_empty = false) {
  if (!(may_be_empty && v.empty()) && !detail::is_hex_word(v)) {
    unwritable(path, fmt::format("{} is not \"0x\" and 16 hex digits", quote(v)));
  }
  return v;
}

json burnin_interval_json(const burnin_interval& b, const field_path& path) {
  const auto at = [&](std::string_view key) { return field_path(path, key); };
  object_writer j(14);
  j["start_s"] = number(b.start_s, at("start_s"));
  j["end_s"] = number(b.end_s, at("end_s"));
  j["gemm_iterations"] = count_json(b.gemm_iterations, at("gemm_iterations"));
  j["throughput"] = number(b.throughput, at("throughput"));
  j["telemetry_samples"] = count_json(b.telemetry_samples, at("telemetry_samples"));
  j["sm_clock_mhz_median"] = number(b.sm_clock_mhz_median, at("sm_clock_mhz_median"));
  j["mem_clock_mhz_median"] = number(b.mem_clock_mhz_median, at("mem_clock_mhz_median"));
  j["temperature_c_max"] = number(b.temperature_c_max, at("temperature_c_max"));
  j["power_w_mean"] = number(b.power_w_mean, at("power_w_mean"));
  j["power_w_max"] = number(b.power_w_max, at("power_w_max"));
  j["throttle_reasons"] = strings_json(b.throttle_reasons);
  j["checksum_mismatches"] = count_json(b.checksum_mismatches, at("checksum_mismatches"));
  j["memtest_words"] = count_json(b.memtest_words, at("memtest_words"));
  j["memtest_bad_words"] = count_json(b.memtest_bad_words, at("memtest_bad_words"));
  return j.take();
}

json burnin_gemm_json(const burnin_gemm& g, const field_path& path) {
  const auto at = [&](std::string_view key) { return field_path(path, key); };
  object_writer j(13);
  j["dtype"] = g.dtype;
  j["m"] = count_json(g.m, at("m"));
  j["n"] = count_json(g.n, at("n"));
  j["k"] = count_json(g.k, at("k"));
  j["seed"] = g.seed;
  j["algorithm"] = g.algorithm;
  j["reduction"] = g.reduction;
  j["deterministic"] = g.deterministic;
  j["determinism_note"] = g.determinism_note;
  j["iterations"] = count_json(g.iterations, at("iterations"));
  j["reference_checksum"] = word_json(g.reference_checksum, at("reference_checksum"), true);
  j["checksum_mismatches"] = count_json(g.checksum_mismatches, at("checksum_mismatches"));
  const auto items_at = at("mismatches");
  json mismatches = json::array();
  for (std::size_t i = 0; i < g.mismatches.size(); ++i) {
    const auto& m = g.mismatches[i];
    const field_path where(items_at, i);
    object_writer x(4);
    x["iteration"] = count_json(m.iteration, field_path(where, "iteration"));
    x["time_s"] = number(m.time_s, field_path(where, "time_s"));
    x["expected"] = word_json(m.expected, field_path(where, "expected"));
    x["actual"] = word_json(m.actual, field_path(where, "actual"));
    mismatches.push_back(x.take());
  }
  j["mismatches"] = std::move(mismatches);
  return j.take();
}

json burnin_memtest_json(const burnin_memtest& m, const field_path& path) {
  const auto at = [&](std::string_view key) { return field_path(path, key); };
  object_writer j(6);
  j["bytes"] = count_json(m.bytes, at("bytes"));
  j["passes"] = count_json(m.passes, at("passes"));
  j["patterns"] = strings_json(m.patterns);
  j["words_checked"] = count_json(m.words_checked, at("words_checked"));
  j["bad_words"] = count_json(m.bad_words, at("bad_words"));
  const auto items_at = at("bad");
  json bad = json::array();
  for (std::size_t i = 0; i < m.bad.size(); ++i) {
    const auto& w = m.bad[i];
    const field_path where(items_at, i);
    object_writer x(6);
    x["address"] = w.address;
    x["pattern"] = w.pattern;
    x["expected"] = word_json(w.expected, field_path(where, "expected"));
    x["actual"] = word_json(w.actual, field_path(where, "actual"));
    if (!w.reread.empty())
      x["reread"] = word_json(w.reread, field_path(where, "reread"));
    if (w.stuck)
      x["stuck"] = *w.stuck;
    bad.push_back(x.take());
  }
  j["bad"] = std::move(bad);
  return j.take();
}

json burnin_json(const burnin_record& b, const field_path& path) {
  const auto at = [&](std::string_view key) { return field_path(path, key); };
  if (b.intervals.size() > burnin_max_intervals) {
    unwritable(at("intervals"), fmt::format("{} intervals, more than the cap of {}",
                                            b.intervals.size(), burnin_max_intervals));
  }
  if (!(b.interval_s > 0)) {
    unwritable(at("interval_s"), "must be more than 0");
  }
  object_writer j(9);
  j["duration_s"] = number(b.duration_s, at("duration_s"));
  j["elapsed_s"] = number(b.elapsed_s, at("elapsed_s"));
  j["busy_s"] = number(b.busy_s, at("busy_s"));
  j["interval_s"] = number(b.interval_s, at("interval_s"));
  j["idle_power_w"] = number(b.idle_power_w, at("idle_power_w"));
  j["gemm"] = b.gemm ? burnin_gemm_json(*b.gemm, at("gemm")) : json(nullptr);
  j["memtest"] = b.memtest ? burnin_memtest_json(*b.memtest, at("memtest")) : json(nullptr);
  const auto intervals_at = at("intervals");
  json intervals = json::array();
  for (std::size_t i = 0; i < b.intervals.size(); ++i) {
    intervals.push_back(burnin_interval_json(b.intervals[i], field_path(intervals_at, i)));
  }
  j["intervals"] = std::move(intervals);
  const auto items_at = at("event_samples");
  json samples = json::array();
  for (std::size_t i = 0; i < b.event_samples.size(); ++i) {
    const auto& s = b.event_samples[i];
    const field_path where(items_at, i);
    object_writer x(6);
    x["time_s"] = number(s.time_s, field_path(where, "time_s"));
    x["sm_clock_mhz"] = number(s.sm_clock_mhz, field_path(where, "sm_clock_mhz"));
    x["mem_clock_mhz"] = number(s.mem_clock_mhz, field_path(where, "mem_clock_mhz"));
    x["temperature_c"] = number(s.temperature_c, field_path(where, "temperature_c"));
    x["power_w"] = number(s.power_w, field_path(where, "power_w"));
    x["throttle_reasons"] = strings_json(s.throttle_reasons);
    samples.push_back(x.take());
  }
  j["event_samples"] = std::move(samples);
  return j.take();
}

json result_json(const result& r, const field_path& path) {
  const auto at = [&](std::string_view key) { return field_path(path, key); };
  for (const auto* part : {&r.axes, &r.observations}) {
    const auto where = at(part == &r.axes ? "axes" : "observations");
    if (!part->is_object()) {
      unwritable(where, fmt::format("must be a JSON object, not {}", part->type_name()));
    }
    require_finite(*part, where);
  }
  const auto observations_at = at("observations");
  for (auto it = r.observations.begin(); it != r.observations.end(); ++it) {
    if (r.axes.contains(it.key())) {
      unwritable(field_path(observations_at, it.key()),
                 "is an axis too: a key is what was asked or what was found, not both");
    }
  }
  require_one_of(r.cache_state, detail::cache_states, at("cache_state"));
  require_one_of(r.stop_reason, detail::stop_reasons, at("stop_reason"));
  if (r.status != result_status::ok && r.reason.empty()) {
    unwritable(at("reason"),
               fmt::format("a result whose status is {} must say why", quote(to_string(r.status))));
  }
  if ((r.status == result_status::failed) != (r.failure != failure_kind::none)) {
    unwritable(at("failure"), fmt::format("{} for a result whose status is {}: a failed result "
                                          "says what failed, and only a failed one",
                                          quote(to_string(r.failure)), quote(to_string(r.status))));
  }
  if (r.gpus_busy && *r.gpus_busy < 1) {
    unwritable(at("gpus_busy"),
               fmt::format("at least 1 (the result's own GPU), got {}", *r.gpus_busy));
  }
  object_writer j(26);
  j["bench_id"] = r.bench_id;
  j["devices"] = r.devices;
  j["parameters"] = parameters_of(r);
  j["axes"] = r.axes;
  j["metric"] = r.metric;
  j["unit"] = to_string(r.unit);
  j["higher_is_better"] = r.higher_is_better;
  j["cache_state"] = r.cache_state;
  j["bytes_per_iteration"] = number(r.bytes_per_iteration, at("bytes_per_iteration"));
  j["flops_per_iteration"] = number(r.flops_per_iteration, at("flops_per_iteration"));
  j["samples"] = numbers(r.samples, at("samples"));
  j["sample_seconds"] = numbers(r.sample_seconds, at("sample_seconds"));
  j["stats"] = stats_json(r.stats, at("stats"));
  j["host_seconds_median"] = number(r.host_seconds_median, at("host_seconds_median"));
  j["stop_reason"] = r.stop_reason;
  j["ceiling"] = ceiling_json(r.ceiling_value, at("ceiling"));
  j["efficiency"] = number(r.efficiency, at("efficiency"));
  if (r.efficiency_clock_adjusted)
    j["efficiency_clock_adjusted"] =
        number(r.efficiency_clock_adjusted, at("efficiency_clock_adjusted"));
  j["verification"] = verification_json(r.check, at("verification"));
  j["telemetry"] = telemetry_json(r.telemetry, at("telemetry"));
  j["status"] = to_string(r.status);
  j["reason"] = r.reason;
  j["failure"] = to_string(r.failure);
  j["gpus_busy"] = nullable(r.gpus_busy);
  if (r.burnin) {
    j["burnin"] = burnin_json(*r.burnin, at("burnin"));
  }
  if (!r.events.empty()) {
    const auto events_at = at("events");
    json events = json::array();
    for (std::size_t i = 0; i < r.events.size(); ++i)
      events.push_back(gpu_event_json(r.events[i], field_path(events_at, i)));
    j["events"] = std::move(events);
  }
  return j.take();
}

} // namespace

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

nlohmann::ordered_json result_to_json(const result& r) { return result_json(r, "result"); }

nlohmann::ordered_json to_json(const report& r) {
  if (report_minor_version(r.schema) < 0) {
    unwritable("schema", fmt::format("{} is not one of {}", quote(r.schema),
                                     detail::quoted_list(readable_report_versions)));
  }
  object_writer j(8);
  // A report read from an older version is written as the current one: its added fields
  // hold their defaults (or what was derived), which is what the older version meant.
  j["schema"] = report_schema_version;
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

} // namespace gpuspec::reports
